#include "client/show_command.h"

#include <algorithm>
#include <charconv>

#include "analysis/run_loader.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/command_line.h"
#include "client/csv_output.h"
#include "client/diff_renderer.h"
#include "client/json_output.h"
#include "client/output_file.h"
#include "client/profile_csv.h"
#include "client/profile_renderer.h"
#include "client/run_source.h"
#include "client/run_store_client.h"
#include "client/server_connection.h"
#include "client/text_table.h"

namespace profdiff::client {

std::string ShowUsage() {
  return "usage: profdiff show PATH...|RUN [--server ADDR] [--view "
         "overview|steps|operators|kernels|modules|memory|comm|all]\n"
         "                    [--group-by name|shape] [--kernels-by name|op]\n"
         "                    [--format table|json|csv] [--top N] [--sort "
         "COLUMN] [--filter REGEX]\n"
         "                    [--normalize per-step|total] [--wide] [-o "
         "FILE|DIR/]\n"
         "  PATH: a trace file (.json / .json.gz) or a run folder of worker "
         "traces\n"
         "  --view: one view or several (overview,steps, or --view given "
         "again)\n"
         "  --format csv: one plain table per view (numbers as numbers, a "
         "row per worker's row);\n"
         "          one view prints, -o DIR/ writes a DIR/<view>.csv for every "
         "view asked (default all)\n"
         "  -o, --output FILE    write to FILE instead of standard output; "
         "FILE.json or .csv picks\n"
         "                       the format, a folder (DIR/) is csv\n"
         "  RUN: a run id on the server at --server (default $PROFDIFF_SERVER, "
         "else localhost:50051)\n"
         "  --wide: tables with every column and whole names (default: fit "
         "$COLUMNS or the terminal)\n"
         "  --normalize: operator, kernel and module tables per kept step "
         "(default; the unit diff compares) or as totals (JSON: both)\n"
         "  --sort: operators: name, calls, host_self_us, host_total_us, "
         "device_self_us, device_total_us;\n"
         "          kernels: name, calls, total_us, mean_us, min_us, max_us "
         "(also without _us)\n"
         "  with RUN, how to reach the server:\n" +
         std::string(ConnectionUsage());
}

absl::StatusOr<std::string> RunShowCommand(const std::vector<std::string>& args,
                                           std::FILE* stream) {
  PD_ASSIGN_OR_RETURN(
      ParsedArgs parsed,
      ParseArgs(args,
                WithConnectionOptions({"view", "group-by", "kernels-by",
                                       "format", "top", "sort", "filter",
                                       "normalize", "output"}),
                WithConnectionSwitches({"wide"})));
  if (parsed.positionals.empty()) return UsageError("show: no PATH given");
  ShowOptions options;
  options.line_width = parsed.options.contains("wide") ? 0 : TerminalWidth();
  const std::string output = parsed.Get("output", "");
  PD_ASSIGN_OR_RETURN(
      const std::string format,
      ResolveOutputFormat("show", output, parsed.Get("format", ""),
                          {"table", "json", "csv"}, "table"));
  PD_ASSIGN_OR_RETURN(options.format, ParseOutputFormat(format));
  const std::string default_view =
      options.format == OutputFormat::kTable ? "overview" : "all";
  const std::string views = parsed.GetList("view", default_view);
  PD_ASSIGN_OR_RETURN(options.views, ParseProfileViews(views));
  std::vector<std::string> csv_tables;
  if (options.format == OutputFormat::kCsv) {
    PD_ASSIGN_OR_RETURN(csv_tables, ProfileCsvTables(options.views));
    // Before any trace is read.
    PD_RETURN_IF_ERROR(CheckCsvDestination(output, csv_tables, views));
  }
  options.sort = parsed.Get("sort", "");
  options.filter = parsed.Get("filter", "");
  const std::string normalize = parsed.Get("normalize", "per-step");
  if (normalize != "per-step" && normalize != "total") {
    return absl::InvalidArgumentError(base::StrCat(
        "--normalize ", normalize, ": expected per-step or total"));
  }
  options.per_step = normalize == "per-step";
  const std::string top = parsed.Get("top", "0");
  const auto [end, error] =
      std::from_chars(top.data(), top.data() + top.size(), options.top);
  if (error != std::errc() || end != top.data() + top.size() ||
      options.top < 0) {
    return absl::InvalidArgumentError(
        base::StrCat("--top ", top, ": expected a number >= 0"));
  }

  PD_ASSIGN_OR_RETURN(
      analysis::ProfileOptions profile_options,
      analysis::ParseProfileOptions(parsed.Get("group-by", "name"),
                                    parsed.Get("kernels-by", "name")));
  // Trace paths are read here: TLS settings (a stale PROFDIFF_TOKEN_FILE) must
  // not get in the way.
  ServerConnection server;
  if (std::any_of(parsed.positionals.begin(), parsed.positionals.end(),
                  IsRunIdArgument)) {
    PD_ASSIGN_OR_RETURN(server, ServerConnectionOf(parsed));
  }
  PD_ASSIGN_OR_RETURN(
      v1::RunProfile run,
      LoadRunFromPathsOrServer(parsed.positionals, server, profile_options));
  PD_RETURN_IF_ERROR(ApplyRowControls(options, run));
  AddPerStepValues(run);
  if (options.format == OutputFormat::kJson && stream != nullptr &&
      (output.empty() || output == "-")) {
    PD_RETURN_IF_ERROR(StreamJson(run, stream));
    return std::string();
  }
  if (options.format != OutputFormat::kCsv) {
    PD_ASSIGN_OR_RETURN(std::string text, RenderRunProfile(run, options));
    return WriteOutput(output, std::move(text));
  }
  PD_ASSIGN_OR_RETURN(std::vector<CsvFile> files,
                      RenderRunProfileCsv(run, csv_tables));
  PD_ASSIGN_OR_RETURN(std::string printed,
                      WriteCsvFiles(output, std::move(files)));
  // Written to files, the tables leave standard output free to say what
  // reading the run warned of (printed, a table has no place for it).
  if (!output.empty() && output != "-") {
    for (const std::string& warning : run.warnings())
      base::StrAppend(&printed, "warning: ", TerminalSafe(warning), "\n");
    for (const v1::WorkerProfile& w : run.workers()) {
      for (const std::string& warning : w.warnings()) {
        base::StrAppend(&printed, "warning: worker ", w.worker().worker_name(),
                        ": ", TerminalSafe(warning), "\n");
      }
    }
  }
  return printed;
}

}  // namespace profdiff::client
