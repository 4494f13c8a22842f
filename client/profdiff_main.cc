// The `profdiff` command: subcommands over runs and trace files.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/command_line.h"
#include "base/huge_page_extents.h"
#include "base/one_shot_process.h"
#include "client/capture_commands.h"
#include "client/command_line.h"
#include "client/diff_command.h"
#include "client/gate_output.h"
#include "client/show_command.h"
#include "client/store_commands.h"

namespace {

constexpr char kUsage[] =
    "usage: profdiff <command> [args]\n"
    "commands:\n"
    "  show PATH...|RUN  profile of one run (trace file, run folder, or a run "
    "id on the\n"
    "                 server): overview, steps, operators, kernels, modules, "
    "memory\n"
    "  diff BASE EXP  what changed between two runs (paths, or run ids on the "
    "server):\n"
    "                 overview, aligned module tree, operators, kernels (with "
    "noise),\n"
    "                 or HTA's compare_traces\n"
    "  runs           the runs stored on the server (--server ADDR: the differ "
    "or aggregator)\n"
    "  export RUN     one worker's stored events as a Chrome trace file\n"
    "  capture        profile N steps of every rank of a running job now, "
    "through the agents;\n"
    "                 prints the run id once its traces are stored\n"
    "  agents         the agents connected to the aggregator, and what each "
    "can capture\n"
    "run 'profdiff <command> --help' for a command's options; "
    "'profdiff --version' for the version\n";

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::UseHugePageExtents();
  profdiff::base::MarkOneShotProcess();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::fputs(profdiff::base::VersionLine("profdiff").c_str(), stdout);
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  struct Command {
    const char* name;
    std::string (*usage)();
    absl::StatusOr<std::string> (*run)(const std::vector<std::string>&);
  };
  static constexpr Command kCommands[] = {
      // show and diff stream their JSON to stdout rather than returning it.
      {"show", &profdiff::client::ShowUsage,
       [](const std::vector<std::string>& args) {
         return profdiff::client::RunShowCommand(args, stdout);
       }},
      {"diff", &profdiff::client::DiffUsage,
       [](const std::vector<std::string>& args) {
         return profdiff::client::RunDiffCommand(args, stdout);
       }},
      {"runs", &profdiff::client::RunsUsage, &profdiff::client::RunRunsCommand},
      {"export", &profdiff::client::ExportUsage,
       &profdiff::client::RunExportCommand},
      {"capture", &profdiff::client::CaptureUsage,
       static_cast<absl::StatusOr<std::string> (*)(
           const std::vector<std::string>&)>(
           &profdiff::client::RunCaptureCommand)},
      {"agents", &profdiff::client::AgentsUsage,
       &profdiff::client::RunAgentsCommand},
  };
  for (const Command& c : kCommands) {
    if (command != c.name) continue;
    // A command prints its usage for --help itself (its FlagSet finds it).
    auto output = c.run(args);
    if (std::optional<std::string> report =
            profdiff::client::GateFailedOutput(output.status())) {
      // The report as asked, then why the gate failed (exit 3).
      std::fwrite(report->data(), 1, report->size(), stdout);
      std::fflush(stdout);
      std::fprintf(stderr, "profdiff: %s\n",
                   std::string(output.status().message()).c_str());
      return profdiff::client::ExitCodeOf(output.status());
    }
    if (!output.ok()) {
      // One line, whatever the server's message held.
      std::string message(output.status().message());
      std::replace(message.begin(), message.end(), '\n', ' ');
      std::fprintf(stderr, "profdiff: error: %s\n", message.c_str());
      if (profdiff::client::WantsUsage(output.status()))
        std::fputs(c.usage().c_str(), stderr);
      return profdiff::client::ExitCodeOf(output.status());
    }
    std::fwrite(output->data(), 1, output->size(), stdout);
    profdiff::base::EndOneShotProcess("profdiff", 0);
  }
  std::fprintf(stderr, "profdiff: error: unknown command '%s'\n%s",
               command.c_str(), kUsage);
  return 2;
}
