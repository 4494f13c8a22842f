#include "client/capture_commands.h"

#include <unistd.h>

#include <iostream>
#include <set>

#include <absl/strings/str_join.h>
#include <absl/time/time.h>

#include "base/command_line.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/agents_client.h"
#include "client/command_line.h"
#include "client/diff_command.h"
#include "client/json_output.h"
#include "client/server_connection.h"
#include "client/text_table.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::client {
namespace {

// How often a waiting `capture` asks for progress.
constexpr absl::Duration kProgressInterval = absl::Milliseconds(500);
// How long past the capture's deadline the command waits for the server to
// say how it ended, before giving up itself.
constexpr absl::Duration kDeadlineGrace = absl::Seconds(30);
constexpr int kDefaultSteps = 5;

// The flags of a capture order: --wait and --cancel take none of them.
constexpr std::string_view kCaptureOptions[] = {
    "job",           "steps", "duration", "run",         "timeout",
    "start-at-step", "wait",  "cancel",   "diff-against"};

// What `capture`'s flags say; each member's initialiser is its default.
struct CaptureFlags {
  std::string job;
  bool all = false;
  int steps = kDefaultSteps;
  absl::Duration duration = absl::ZeroDuration();
  std::string run;
  absl::Duration timeout = absl::ZeroDuration();  // the server's default
  int64_t start_at_step = 0;
  std::string wait;
  std::string cancel;
  std::string diff_against;
  ConnectionFlags connection;
};

void AddCaptureFlags(base::FlagSet& flags, CaptureFlags* f) {
  constexpr std::string_view kPositiveDuration =
      "a positive duration (500ms, 2s, 5m)";
  flags.AddString("job", &f->job, "JOB", "the job whose processes capture");
  flags.AddBool("all", &f->all, "every job on every agent");
  flags.AddInt("steps", &f->steps, "N", "steps to profile", {.min = 1});
  flags.SetRuleText("steps", "an integer >= 1");
  flags.AddDuration("duration", &f->duration, "D", "time to profile",
                    base::DurationRule::kPositive);
  flags.SetRuleText("duration", kPositiveDuration);
  flags.AddString("run", &f->run, "RUN", "the run id the traces go to");
  flags.AddInt("start-at-step", &f->start_at_step, "K",
               "start at step K rather than now", {.min = 0});
  flags.SetRuleText("start-at-step", "an integer >= 0");
  flags.AddDuration("timeout", &f->timeout, "D", "ends the capture",
                    base::DurationRule::kPositive);
  flags.SetRuleText("timeout", kPositiveDuration);
  flags.AddString("wait", &f->wait, "CAPTURE", "follow a capture");
  flags.AddString("cancel", &f->cancel, "CAPTURE", "cancel a capture");
  flags.AddString("diff-against", &f->diff_against, "RUN",
                  "then print the diff of RUN and the capture");
  AddConnectionFlags(flags, &f->connection);
}

absl::StatusOr<v1::StartCaptureRequest> RequestOf(
    const CaptureFlags& f, const base::ParsedCommandLine& parsed) {
  v1::StartCaptureRequest request;
  if (parsed.Given("job") == f.all) {
    return UsageError("capture: give --job JOB or --all");
  }
  request.set_job(f.job);
  request.set_all_jobs(f.all);
  const bool steps = parsed.Given("steps");
  const bool duration = parsed.Given("duration");
  if (steps && duration) {
    return UsageError("capture: give --steps N or --duration D, not both");
  }
  if (duration) {
    request.set_duration_ms(absl::ToInt64Milliseconds(f.duration));
  } else {
    request.set_steps(f.steps);
  }
  if (parsed.Given("start-at-step")) request.set_start_at_step(f.start_at_step);
  if (parsed.Given("timeout")) {
    request.set_timeout_ms(absl::ToInt64Milliseconds(f.timeout));
  }
  request.set_run(f.run);
  return request;
}

std::string ProgressLine(const v1::Capture& capture) {
  std::string line = base::StrCat(
      "capture ", capture.capture_id(), ": ", capture.ranks_triggered(),
      capture.ranks_triggered() == 1 ? " process" : " processes",
      " triggered on ", capture.answers_size(), "/",
      capture.agents_asked_size(), " agents, ", capture.traces_uploaded(), "/",
      capture.world_size() > 0 ? base::StrCat(capture.world_size())
                               : std::string("?"),
      " traces uploaded");
  for (const v1::CaptureAnswer& answer : capture.answers()) {
    if (!answer.error().empty()) {
      base::StrAppend(&line, "; ", answer.agent_id(), ": ", answer.error());
    } else if (answer.busy_pids_size() > 0) {
      base::StrAppend(&line, "; ", answer.agent_id(), ": pids ",
                      absl::StrJoin(answer.busy_pids(), ","),
                      " already capturing");
    }
  }
  return line;
}

// Follows `capture` until it ends; returns its last state, or Cancelled
// naming the signal when one came (`signals`).
absl::StatusOr<v1::Capture> Follow(AgentsClient& client, v1::Capture capture,
                                   std::ostream& progress,
                                   const base::TerminationSignals* signals) {
  std::string last;
  while (true) {
    const std::string line = ProgressLine(capture);
    if (line != last) {
      progress << line << "\n" << std::flush;
      last = line;
    }
    if (capture.state() != v1::CAPTURE_STATE_RUNNING) return capture;
    const absl::Time give_up =
        absl::FromUnixMillis(capture.order().deadline_unix_ms()) +
        kDeadlineGrace;
    if (absl::Now() > give_up) {
      return absl::DeadlineExceededError(base::StrCat(
          "capture ", capture.capture_id(),
          ": the server did not end it by its deadline; see profdiff capture "
          "--wait ",
          capture.capture_id()));
    }
    // A command-line poll, not a service; Ctrl-C ends the wait at once.
    if (signals == nullptr) {
      absl::SleepFor(kProgressInterval);
    } else if (const std::optional<int> signal =
                   signals->WaitFor(kProgressInterval)) {
      return absl::CancelledError(
          base::StrCat("interrupted by signal ", *signal));
    }
    PD_ASSIGN_OR_RETURN(capture, client.GetCapture(capture.capture_id()));
  }
}

absl::Status Ended(const v1::Capture& capture) {
  if (capture.state() == v1::CAPTURE_STATE_PARTIAL &&
      capture.missing_ranks_size() == 0) {
    return absl::FailedPreconditionError(base::StrCat(
        "capture ", capture.capture_id(), " is PARTIAL: ", capture.error(),
        "; run ", capture.run(), " holds what came"));
  }
  if (capture.state() == v1::CAPTURE_STATE_CANCELLED) {
    return absl::FailedPreconditionError(base::StrCat(
        "capture ", capture.capture_id(), " was cancelled: ", capture.error()));
  }
  if (capture.state() == v1::CAPTURE_STATE_PARTIAL) {
    return absl::FailedPreconditionError(base::StrCat(
        "capture ", capture.capture_id(), " is PARTIAL: rank",
        capture.missing_ranks_size() == 1 ? " " : "s ",
        absl::StrJoin(capture.missing_ranks(), ", "),
        " sent no trace before the deadline (", capture.traces_uploaded(),
        " of ", capture.world_size(), " uploaded); run ", capture.run(),
        " holds the rest and can be diffed as it is"));
  }
  return absl::FailedPreconditionError(base::StrCat(
      "capture ", capture.capture_id(), " failed: ", capture.error()));
}

// Ctrl-C while following `capture`: asks whether to cancel it (when
// `terminal.answers` is set) and says what became of it.
absl::Status Interrupted(AgentsClient& client, const v1::Capture& capture,
                         std::ostream& progress,
                         const CaptureTerminal& terminal) {
  const std::string& id = capture.capture_id();
  if (terminal.answers != nullptr) {
    progress << "\ncapture " << id << " is still running; cancel it? [y/N] "
             << std::flush;
    std::string answer;
    std::getline(*terminal.answers, answer);
    if (answer == "y" || answer == "Y" || answer == "yes") {
      PD_ASSIGN_OR_RETURN(const v1::Capture cancelled,
                          client.CancelCapture(id));
      return absl::CancelledError(base::StrCat(
          "capture ", id, " cancelled (", cancelled.traces_uploaded(),
          " traces uploaded to run ", cancelled.run(), ")"));
    }
  }
  return absl::CancelledError(base::StrCat(
      "stopped waiting; capture ", id,
      " goes on until its deadline: profdiff capture --wait ", id,
      " follows it, profdiff capture --cancel ", id, " cancels it"));
}

}  // namespace

std::string CaptureUsage() {
  return base::StrCat(
      "usage: profdiff capture --job JOB|--all [--steps N|--duration D] "
      "[--run RUN] [--start-at-step K]\n"
      "                        [--timeout D] [--diff-against RUN] [--server "
      "ADDR]\n"
      "       profdiff capture --wait CAPTURE [--server ADDR]\n"
      "       profdiff capture --cancel CAPTURE [--server ADDR]\n"
      "  asks every process of the job (TORCHELASTIC_RUN_ID or SLURM_JOB_ID) "
      "on every connected agent\n"
      "  to profile N steps (default ",
      kDefaultSteps,
      ") or D of time now, waits while the traces are uploaded, and\n"
      "  prints the run id (default <job>-capture-<UTC time>) once the run is "
      "complete; progress goes\n"
      "  to stderr. --timeout (default 10m) ends the capture; a rank still "
      "missing then is named.\n"
      "  --diff-against RUN prints the diff of RUN (baseline) and the "
      "capture.\n"
      "  Ctrl-C stops waiting (and offers to cancel the capture at a "
      "terminal); --cancel CAPTURE\n"
      "  cancels one: processes not yet capturing are left alone, the job "
      "may capture again.\n",
      ConnectionUsage());
}

std::string AgentsUsage() {
  return base::StrCat(
      "usage: profdiff agents [--format table|json] [--server ADDR]\n"
      "  the agents connected to the aggregator and the processes each can "
      "capture\n",
      ConnectionUsage());
}

absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args, std::ostream& progress,
    const CaptureTerminal& terminal) {
  CaptureFlags f;
  base::FlagSet flags = CommandFlags();
  AddCaptureFlags(flags, &f);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return CaptureUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (!parsed.positionals.empty()) {
    return UsageError(base::StrCat("capture: unexpected argument ",
                                   parsed.positionals.front()));
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(f.connection));
  AgentsClient client(server.address, server.security);
  v1::Capture capture;
  for (const std::string_view flag : {"wait", "cancel"}) {
    if (!parsed.Given(flag)) continue;
    for (const std::string_view option : kCaptureOptions) {
      if (option != flag && parsed.Given(option)) {
        return UsageError(base::StrCat("capture --", flag,
                                       " CAPTURE takes no --", option,
                                       ": the capture has its own"));
      }
    }
  }
  if (parsed.Given("cancel")) {
    PD_ASSIGN_OR_RETURN(capture, client.CancelCapture(f.cancel));
    return base::StrCat("capture ", capture.capture_id(), " cancelled (",
                        capture.traces_uploaded(), " traces uploaded to run ",
                        capture.run(), ")\n");
  }
  if (parsed.Given("wait")) {
    PD_ASSIGN_OR_RETURN(capture, client.GetCapture(f.wait));
  } else {
    PD_ASSIGN_OR_RETURN(const v1::StartCaptureRequest request,
                        RequestOf(f, parsed));
    PD_ASSIGN_OR_RETURN(capture, client.StartCapture(request));
  }
  const std::string id = capture.capture_id();
  absl::StatusOr<v1::Capture> followed =
      Follow(client, std::move(capture), progress, terminal.signals);
  if (absl::IsCancelled(followed.status())) {
    v1::Capture interrupted;
    interrupted.set_capture_id(id);
    return Interrupted(client, interrupted, progress, terminal);
  }
  PD_ASSIGN_OR_RETURN(capture, std::move(followed));
  if (capture.state() != v1::CAPTURE_STATE_COMPLETE) return Ended(capture);
  std::string out = base::StrCat(capture.run(), "\n");
  const std::string& against = f.diff_against;
  if (!against.empty()) {
    std::vector<std::string> diff_args = {against, capture.run(), "--server",
                                          server.address};
    PD_ASSIGN_OR_RETURN(const std::string diff, RunDiffCommand(diff_args));
    base::StrAppend(&out, diff);
  }
  return out;
}

absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args) {
  const base::TerminationSignals signals;  // before the channel's threads
  const bool asks = ::isatty(STDIN_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1;
  return RunCaptureCommand(
      args, std::cerr,
      {.signals = &signals, .answers = asks ? &std::cin : nullptr});
}

absl::StatusOr<std::string> RunAgentsCommand(
    const std::vector<std::string>& args) {
  std::string format = "table";
  ConnectionFlags connection;
  base::FlagSet flags = CommandFlags();
  // Checked before the server is asked.
  flags.AddEnum<std::string>("format", &format,
                             {{"table", "table"}, {"json", "json"}},
                             "output format");
  AddConnectionFlags(flags, &connection);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return AgentsUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (!parsed.positionals.empty()) {
    return UsageError(base::StrCat("agents: unexpected argument ",
                                   parsed.positionals.front()));
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(connection));
  AgentsClient client(server.address, server.security);
  PD_ASSIGN_OR_RETURN(const v1::ListAgentsResponse agents, client.ListAgents());
  if (format == "json") return ToJson(agents);
  TextTable table({{"agent", Align::kLeft},
                   {"node", Align::kLeft},
                   {"serves", Align::kLeft},
                   {"processes"},
                   {"jobs", Align::kLeft},
                   {"capturing"}});
  for (const v1::AgentStatus& agent : agents.agents()) {
    std::set<std::string> jobs;
    int capturing = 0;
    for (const v1::LocalProcess& process : agent.processes()) {
      jobs.insert(process.job());
      if (!process.capture_id().empty()) ++capturing;
    }
    std::vector<std::string> serves;
    if (agent.kineto_daemon()) serves.push_back("kineto");
    if (agent.cupti_relay()) serves.push_back("cupti");
    table.AddRow({agent.agent_id(), agent.node(),
                  serves.empty() ? "-" : absl::StrJoin(serves, ","),
                  base::StrCat(agent.processes_size()),
                  jobs.empty() ? "-" : absl::StrJoin(jobs, ","),
                  base::StrCat(capturing)});
  }
  return base::StrCat(table.RenderText(120), agents.agents_size(),
                      agents.agents_size() == 1 ? " agent\n" : " agents\n");
}

}  // namespace profdiff::client
