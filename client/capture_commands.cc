#include "client/capture_commands.h"

#include <unistd.h>

#include <iostream>
#include <set>

#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>
#include <absl/time/time.h>

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

const std::set<std::string> kCaptureOptions = {
    "job",           "steps", "duration", "run",         "timeout",
    "start-at-step", "wait",  "cancel",   "diff-against"};

absl::StatusOr<int64_t> PositiveInt(const ParsedArgs& parsed,
                                    const std::string& name, int64_t min) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(parsed.Get(name, ""), &value) || value < min) {
    return absl::InvalidArgumentError(
        base::StrCat("--", name, " ", parsed.Get(name, ""),
                     ": expected an integer >= ", min));
  }
  return value;
}

absl::StatusOr<absl::Duration> DurationOption(const ParsedArgs& parsed,
                                              const std::string& name) {
  absl::Duration value;
  if (!absl::ParseDuration(parsed.Get(name, ""), &value) ||
      value <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        base::StrCat("--", name, " ", parsed.Get(name, ""),
                     ": expected a positive duration (500ms, 2s, 5m)"));
  }
  return value;
}

absl::StatusOr<v1::StartCaptureRequest> RequestOf(const ParsedArgs& parsed) {
  v1::StartCaptureRequest request;
  const bool job = parsed.options.contains("job");
  const bool all = parsed.options.contains("all");
  if (job == all) {
    return UsageError("capture: give --job JOB or --all");
  }
  request.set_job(parsed.Get("job", ""));
  request.set_all_jobs(all);
  const bool steps = parsed.options.contains("steps");
  const bool duration = parsed.options.contains("duration");
  if (steps && duration) {
    return UsageError("capture: give --steps N or --duration D, not both");
  }
  if (duration) {
    PD_ASSIGN_OR_RETURN(const absl::Duration d,
                        DurationOption(parsed, "duration"));
    request.set_duration_ms(absl::ToInt64Milliseconds(d));
  } else {
    int64_t n = kDefaultSteps;
    if (steps) {
      PD_ASSIGN_OR_RETURN(n, PositiveInt(parsed, "steps", 1));
    }
    request.set_steps(static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX)));
  }
  if (parsed.options.contains("start-at-step")) {
    PD_ASSIGN_OR_RETURN(const int64_t k,
                        PositiveInt(parsed, "start-at-step", 0));
    request.set_start_at_step(k);
  }
  if (parsed.options.contains("timeout")) {
    PD_ASSIGN_OR_RETURN(const absl::Duration timeout,
                        DurationOption(parsed, "timeout"));
    request.set_timeout_ms(absl::ToInt64Milliseconds(timeout));
  }
  request.set_run(parsed.Get("run", ""));
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
  PD_ASSIGN_OR_RETURN(ParsedArgs parsed,
                      ParseArgs(args, WithConnectionOptions(kCaptureOptions),
                                WithConnectionSwitches({"all"})));
  if (!parsed.positionals.empty()) {
    return UsageError(base::StrCat("capture: unexpected argument ",
                                   parsed.positionals.front()));
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(parsed));
  AgentsClient client(server.address, server.security);
  v1::Capture capture;
  for (const std::string flag : {"wait", "cancel"}) {
    if (!parsed.options.contains(flag)) continue;
    for (const std::string& option : kCaptureOptions) {
      if (option != flag && parsed.options.contains(option)) {
        return UsageError(base::StrCat("capture --", flag,
                                       " CAPTURE takes no --", option,
                                       ": the capture has its own"));
      }
    }
  }
  if (parsed.options.contains("cancel")) {
    PD_ASSIGN_OR_RETURN(capture,
                        client.CancelCapture(parsed.Get("cancel", "")));
    return base::StrCat("capture ", capture.capture_id(), " cancelled (",
                        capture.traces_uploaded(), " traces uploaded to run ",
                        capture.run(), ")\n");
  }
  if (parsed.options.contains("wait")) {
    PD_ASSIGN_OR_RETURN(capture, client.GetCapture(parsed.Get("wait", "")));
  } else {
    PD_ASSIGN_OR_RETURN(const v1::StartCaptureRequest request,
                        RequestOf(parsed));
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
  const std::string against = parsed.Get("diff-against", "");
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
  PD_ASSIGN_OR_RETURN(ParsedArgs parsed,
                      ParseArgs(args, WithConnectionOptions({"format"}),
                                WithConnectionSwitches({})));
  if (!parsed.positionals.empty()) {
    return UsageError(base::StrCat("agents: unexpected argument ",
                                   parsed.positionals.front()));
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(parsed));
  AgentsClient client(server.address, server.security);
  PD_ASSIGN_OR_RETURN(const v1::ListAgentsResponse agents, client.ListAgents());
  const std::string format = parsed.Get("format", "table");
  if (format == "json") return ToJson(agents);
  if (format != "table") {
    return absl::InvalidArgumentError(
        base::StrCat("--format ", format, ": expected table or json"));
  }
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
