#include "client/store_commands.h"

#include <algorithm>

#include <absl/strings/ascii.h>
#include <absl/strings/str_split.h>
#include <absl/time/time.h>

#include "base/command_line.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/command_line.h"
#include "client/json_output.h"
#include "client/output_file.h"
#include "client/run_store_client.h"
#include "client/server_connection.h"
#include "client/text_table.h"
#include "differ/run_completeness.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::client {
namespace {

std::string FormatUnixMillis(int64_t millis) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(millis),
                          absl::UTCTimeZone());
}

}  // namespace

std::string RunsUsage() {
  return "usage: profdiff runs [--server ADDR] [--filter TEXT] [--format "
         "table|json|csv]\n"
         "  the runs the server (differ or aggregator) holds: state, workers "
         "with closed spans / world size,\n"
         "  events, last activity (UTC)\n" +
         ConnectionUsage();
}

std::string ExportUsage() {
  return "usage: profdiff export RUN --worker RANK|NAME [--span ID] [--server "
         "ADDR] -o|--output FILE\n"
         "  writes one worker's stored events back as a Chrome trace "
         "(Perfetto, TensorBoard)\n" +
         ConnectionUsage();
}

// The listing as JSON, without StoredRun.workers: ListRuns leaves it empty
// (GetRun fills it), and "workers": [] next to "worker_count": 2 read as a run
// without workers. The printer writes a field per line, in field-number order
// (workers before warnings), so the empty list is a line of its own.
absl::StatusOr<std::string> ListingJson(const v1::ListRunsResponse& all) {
  PD_ASSIGN_OR_RETURN(const std::string json, ToJson(all));
  std::string out;
  out.reserve(json.size());
  for (absl::string_view line : absl::StrSplit(json, '\n')) {
    if (absl::StripLeadingAsciiWhitespace(line) == "\"workers\": [],") continue;
    base::StrAppend(&out, line, "\n");
  }
  out.pop_back();  // the split's last piece had no newline
  return out;
}

absl::StatusOr<std::string> RunRunsCommand(
    const std::vector<std::string>& args) {
  std::string filter;
  std::string format = "table";
  ConnectionFlags connection;
  base::FlagSet flags = CommandFlags();
  flags.AddString("filter", &filter, "TEXT", "runs whose id contains TEXT");
  // Checked before the server is asked.
  flags.AddEnum<std::string>(
      "format", &format, {{"table", "table"}, {"json", "json"}, {"csv", "csv"}},
      "output format");
  AddConnectionFlags(flags, &connection);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return RunsUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (!parsed.positionals.empty()) {
    return UsageError(
        base::StrCat("runs: unexpected argument ", parsed.positionals.front()));
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(connection));
  RunStoreClient client(server.address, server.security);
  PD_ASSIGN_OR_RETURN(std::vector<v1::StoredRun> runs, client.ListRuns(filter));
  if (format == "json") {
    v1::ListRunsResponse all;
    for (v1::StoredRun& run : runs) *all.add_runs() = std::move(run);
    return ListingJson(all);
  }
  // workers: seen / world size (a run still missing ranks shows it); closed:
  // ranks with a closed span, what a diff reads.
  TextTable table({{"run", Align::kLeft},
                   {"state", Align::kLeft},
                   {"workers"},
                   {"closed"},
                   {"events"},
                   {"updated (UTC)", Align::kLeft}});
  for (const v1::StoredRun& run : runs) {
    table.AddRow(
        {run.run(),
         absl::AsciiStrToLower(base::ToAbsl(differ::RunStateName(run.state()))),
         base::StrCat(run.worker_count(), "/",
                      std::max(run.world_size(), run.worker_count())),
         base::StrCat(run.closed_worker_count()),
         base::StrCat(run.event_count()),
         FormatUnixMillis(run.updated_unix_ms())});
  }
  if (format == "csv") return table.RenderCsv();
  std::string text =
      base::StrCat(table.RenderText(120), runs.size(), " runs\n");
  for (const v1::StoredRun& run : runs) {
    for (const std::string& warning : run.warnings()) {
      base::StrAppend(&text, "warning: run ", run.run(), ": ",
                      TerminalSafe(warning), "\n");
    }
  }
  return text;
}

absl::StatusOr<std::string> RunExportCommand(
    const std::vector<std::string>& args) {
  std::string worker;
  std::string span;
  std::string output;
  ConnectionFlags connection;
  base::FlagSet flags = CommandFlags();
  flags.AddString("worker", &worker, "RANK|NAME", "the worker exported");
  flags.AddString("span", &span, "ID", "one of its spans (default: all)");
  AddOutputFlag(flags, &output, "the Chrome trace file written");
  AddConnectionFlags(flags, &connection);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return ExportUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (parsed.positionals.size() != 1) {
    return UsageError("export: expected one RUN");
  }
  if (output.empty() || worker.empty()) {
    return UsageError("export: --worker and -o are required");
  }
  PD_ASSIGN_OR_RETURN(const ServerConnection server,
                      ServerConnectionOf(connection));
  RunStoreClient client(server.address, server.security);
  PD_ASSIGN_OR_RETURN(
      std::string json,
      client.ExportTrace(parsed.positionals.front(), worker, span));
  return WriteOutput(output, std::move(json));
}

}  // namespace profdiff::client
