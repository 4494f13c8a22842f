#include "client/show_command.h"

#include <algorithm>

#include <absl/cleanup/cleanup.h>

#include "analysis/run_loader.h"
#include "base/command_line.h"
#include "base/one_shot_process.h"
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
         ConnectionUsage();
}

namespace {

// What `show`'s flags say; each member's initialiser is its default.
struct ShowFlags {
  std::vector<std::string> views;  // none: overview (table), all (else)
  analysis::ProfileOptions profile_options;
  std::string format;  // none: -o's, else table
  int top = 0;
  std::string sort;
  std::string filter;
  bool per_step = true;
  bool wide = false;
  std::string output;
  ConnectionFlags connection;
};

void AddShowFlags(base::FlagSet& flags, ShowFlags* f) {
  flags.AddList("view", &f->views,
                "overview|steps|operators|kernels|modules|memory|comm|all",
                "the views shown (several: commas, or --view again)");
  AddGroupingFlags(flags, &f->profile_options);
  flags.AddString("format", &f->format, "table|json|csv", "output format");
  flags.AddInt("top", &f->top, "N", "rows per table (0: all)", {.min = 0});
  flags.SetRuleText("top", "a number >= 0");
  flags.AddString("sort", &f->sort, "COLUMN", "the tables' order");
  flags.AddString("filter", &f->filter, "REGEX", "rows whose names match");
  flags.AddEnum("normalize", &f->per_step,
                {{"per-step", true}, {"total", false}},
                "tables per kept step, or as totals");
  flags.AddBool("wide", &f->wide, "every column, whole names");
  AddOutputFlag(flags, &f->output, "write to FILE instead of standard output");
  AddConnectionFlags(flags, &f->connection);
}

}  // namespace

absl::StatusOr<std::string> RunShowCommand(const std::vector<std::string>& args,
                                           std::FILE* stream) {
  ShowFlags f;
  base::FlagSet flags = CommandFlags();
  AddShowFlags(flags, &f);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return ShowUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (parsed.positionals.empty()) return UsageError("show: no PATH given");
  ShowOptions options;
  options.line_width = f.wide ? 0 : TerminalWidth();
  const std::string& output = f.output;
  PD_ASSIGN_OR_RETURN(const std::string format,
                      ResolveOutputFormat("show", output, f.format,
                                          {"table", "json", "csv"}, "table"));
  PD_ASSIGN_OR_RETURN(options.format, ParseOutputFormat(format));
  const std::string views = JoinedList(
      f.views, options.format == OutputFormat::kTable ? "overview" : "all");
  PD_ASSIGN_OR_RETURN(options.views, ParseProfileViews(views));
  std::vector<std::string> csv_tables;
  if (options.format == OutputFormat::kCsv) {
    PD_ASSIGN_OR_RETURN(csv_tables, ProfileCsvTables(options.views));
    // Before any trace is read.
    PD_RETURN_IF_ERROR(CheckCsvDestination(output, csv_tables, views));
  }
  options.sort = f.sort;
  options.filter = f.filter;
  options.per_step = f.per_step;
  options.top = f.top;
  const analysis::ProfileOptions& profile_options = f.profile_options;

  // Trace paths are read here: TLS settings (a stale PROFDIFF_TOKEN_FILE) must
  // not get in the way.
  ServerConnection server;
  if (std::any_of(parsed.positionals.begin(), parsed.positionals.end(),
                  IsRunIdArgument)) {
    PD_ASSIGN_OR_RETURN(server, ServerConnectionOf(f.connection));
  }
  PD_ASSIGN_OR_RETURN(
      v1::RunProfile run,
      LoadRunFromPathsOrServer(parsed.positionals, server, profile_options));
  // Runs before `run` is destroyed.
  const absl::Cleanup discard = [&run] { base::Discard(run); };
  PD_RETURN_IF_ERROR(ApplyRowControls(options, run));
  AddPerStepValues(run);
  if (options.format == OutputFormat::kJson && stream != nullptr &&
      IsStandardOutput(output)) {
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
  if (!IsStandardOutput(output)) {
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
