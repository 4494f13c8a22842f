#include "client/diff_command.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>

#include <absl/cleanup/cleanup.h>
#include <absl/strings/str_split.h>
#include <absl/time/time.h>

#include "analysis/run_loader.h"
#include "base/command_line.h"
#include "base/one_shot_process.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/command_line.h"
#include "client/csv_output.h"
#include "client/diff_csv.h"
#include "client/diff_flags.h"
#include "client/diff_renderer.h"
#include "client/differ_client.h"
#include "client/gate_output.h"
#include "client/json_output.h"
#include "client/multi_diff_renderer.h"
#include "client/output_file.h"
#include "client/run_source.h"
#include "client/run_store_client.h"
#include "client/server_connection.h"
#include "client/text_table.h"
#include "differ/differ.h"
#include "differ/regression_gate.h"
#include "differ/row_order.h"
#include "differ/run_completeness.h"
#include "report/html_report.h"
#include "report/multi_diff_page.h"

namespace profdiff::client {
namespace {

// Two different paths whose runs are named alike (both files
// `capture_trace_rank_0.json`) get the nearest folder that tells them apart:
// "a/capture_trace_rank_0", or "a/…/capture_trace_rank_0" further up.
void DistinguishRunNames(const std::string& baseline_path,
                         const std::string& experimental_path,
                         v1::RunProfile& baseline,
                         v1::RunProfile& experimental) {
  namespace fs = std::filesystem;
  if (baseline.run() != experimental.run()) return;
  auto folders = [](const std::string& path) {
    fs::path p = fs::absolute(path).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();
    std::vector<std::string> out;  // the parents, nearest first
    for (p = p.parent_path(); p.has_relative_path(); p = p.parent_path())
      out.push_back(p.filename().string());
    return out;
  };
  const std::vector<std::string> a = folders(baseline_path);
  const std::vector<std::string> b = folders(experimental_path);
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    if (a[k] == b[k]) continue;
    const char* gap = k == 0 ? "/" : "/…/";
    baseline.set_run(base::StrCat(a[k], gap, baseline.run()));
    experimental.set_run(base::StrCat(b[k], gap, experimental.run()));
    return;
  }
}

absl::StatusOr<int64_t> ParseNumber(const std::string& flag,
                                    std::string_view text) {
  int64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return absl::InvalidArgumentError(
        base::StrCat("--", flag, " ", text, ": expected a number >= 0"));
  }
  return value;
}

absl::StatusOr<v1::DiffView> ParseView(const std::string& text) {
  if (text == "overview") return v1::DIFF_VIEW_OVERVIEW;
  if (text == "modules") return v1::DIFF_VIEW_MODULES;
  if (text == "operators") return v1::DIFF_VIEW_OPERATORS;
  if (text == "kernels") return v1::DIFF_VIEW_KERNELS;
  if (text == "ranks") return v1::DIFF_VIEW_RANKS;
  if (text == "findings") return v1::DIFF_VIEW_FINDINGS;
  if (text == "comm" || text == "communication")
    return v1::DIFF_VIEW_COMMUNICATION;
  if (text == "memory") return v1::DIFF_VIEW_MEMORY;
  return absl::InvalidArgumentError(base::StrCat(
      "--view ", text,
      ": expected findings, overview, modules, operators, kernels, comm, "
      "memory, ranks or all"));
}

// "comm_by_collective, comm_collectives, ...": the tables of the views with
// several, each view's after `indent` and before `end`.
std::string SeveralTableNames(std::string_view indent, std::string_view end) {
  std::string names;
  for (const v1::DiffView view : DiffCsvViews()) {
    const std::vector<std::string> tables = DiffCsvTables(view);
    if (tables.size() < 2) continue;
    std::string line;
    for (const std::string& table : tables)
      base::StrAppend(&line, line.empty() ? "" : ", ", table);
    base::StrAppend(&names, indent, line, end);
  }
  return names;
}

// What `--view` asks of a diff: the views for the differ and, with --format
// csv, the tables to write (a view's name is all its tables; a table's name,
// such as comm_ranks, that one).
struct AskedViews {
  std::vector<v1::DiffView> views;  // empty: all
  std::vector<std::string> csv_tables;
};

absl::StatusOr<AskedViews> ParseViews(const std::string& text, bool csv) {
  AskedViews asked;
  auto add_table = [&](const std::string& table) {
    if (std::find(asked.csv_tables.begin(), asked.csv_tables.end(), table) ==
        asked.csv_tables.end())
      asked.csv_tables.push_back(table);
  };
  auto add_view = [&](v1::DiffView view) {
    if (std::find(asked.views.begin(), asked.views.end(), view) ==
        asked.views.end())
      asked.views.push_back(view);
  };
  if (text == "all") {
    for (const v1::DiffView view : DiffCsvViews()) {
      for (const std::string& table : DiffCsvTables(view)) add_table(table);
    }
    return asked;
  }
  for (absl::string_view v :
       absl::StrSplit(base::ToAbsl(text), ',', absl::SkipEmpty())) {
    const std::string name(v);
    absl::StatusOr<v1::DiffView> view = ParseView(name);
    if (view.ok()) {
      add_view(*view);
      for (const std::string& table : DiffCsvTables(*view)) add_table(table);
      continue;
    }
    const std::optional<v1::DiffView> of_table = DiffViewOfCsvTable(name);
    if (!of_table.has_value()) {
      std::string tables = SeveralTableNames("", ", ");
      tables.resize(tables.size() - 2);
      return absl::InvalidArgumentError(
          base::StrCat(view.status().message(),
                       "; --format csv takes a table of them too: ", tables));
    }
    if (!csv) {
      return absl::InvalidArgumentError(base::StrCat(
          "--view ", name,
          ": a table of --format csv; the other formats take its view (",
          DiffCsvTables(*of_table).size() > 1 ? name.substr(0, name.find('_'))
                                              : name,
          ")"));
    }
    add_view(*of_table);
    add_table(name);
  }
  return asked;
}

// What `profdiff diff` compares: two paths, two run ids, or one of each.
struct DiffSides {
  std::string baseline;
  std::string experimental;
  ServerConnection server;
  absl::Duration timeout;
};

// What one diff is asked: the differ's options and the profiles' groupings.
struct DiffAsk {
  v1::DiffOptions options;
  analysis::ProfileOptions profile_options;
};

// One diff of the two sides per ask: two run ids go to the server's differ;
// paths are read here once for every ask, and a stored run's profile is fetched
// to be diffed here. The profiles are given up to `release` once diffed.
absl::StatusOr<std::vector<v1::DiffReport>> DiffSidesEach(
    const DiffSides& sides, const std::vector<DiffAsk>& asks,
    base::Discarder& release) {
  const bool baseline_stored = IsRunIdArgument(sides.baseline);
  const bool experimental_stored = IsRunIdArgument(sides.experimental);
  std::vector<v1::DiffReport> reports;
  if (baseline_stored && experimental_stored) {
    // Both runs live on the server: the differ diffs them next to the store.
    for (const DiffAsk& ask : asks) {
      v1::DiffRequest request;
      request.set_baseline_run(sides.baseline);
      request.set_experimental_run(sides.experimental);
      *request.mutable_options() = ask.options;
      const RequestGroupings groupings = GroupingsOf(ask.profile_options);
      request.set_operator_grouping(groupings.operators);
      request.set_kernel_grouping(groupings.kernels);
      absl::StatusOr<v1::DiffReport> report = DiffOnServer(
          sides.server.address, sides.server.security, request, sides.timeout);
      // Maybe mistyped paths rather than run ids: a server that cannot be
      // asked says so after the missing files (the server's NotFound names
      // the run it lacks).
      if (report.status().code() != absl::StatusCode::kNotFound) {
        PD_RETURN_IF_ERROR(
            MissingPathOrRun({sides.baseline, sides.experimental}, sides.server,
                             report.status()));
      }
      if (!report.ok()) return report.status();
      reports.push_back(*std::move(report));
    }
    return reports;
  }
  std::vector<analysis::ProfileOptions> groupings;
  groupings.reserve(asks.size());
  for (const DiffAsk& ask : asks) groupings.push_back(ask.profile_options);
  // runs[a] = {baseline, experimental} for ask a.
  std::vector<std::vector<v1::RunProfile>> runs;
  std::vector<std::string> warnings;
  // deferred[a] = {baseline, experimental} module-node tables of ask a, made
  // for the nodes its diff reads (most diffs read one node's of hundreds).
  std::vector<std::vector<analysis::DeferredRunTables>> deferred;
  if (!baseline_stored && !experimental_stored) {
    const bool defer =
        std::none_of(asks.begin(), asks.end(), [](const DiffAsk& ask) {
          return ask.options.node_tables() ||
                 ask.options.compare() == v1::COMPARE_MODE_HTA;
        });
    PD_ASSIGN_OR_RETURN(runs, analysis::LoadRunsWithEachOptions(
                                  {{sides.baseline}, {sides.experimental}},
                                  groupings, defer ? &deferred : nullptr));
    for (std::vector<v1::RunProfile>& pair : runs) {
      DistinguishRunNames(sides.baseline, sides.experimental, pair[0], pair[1]);
    }
  } else {
    // One side is a path, the other a stored run: its state, then its profile
    // (so the warning describes the profile or an older state), then the diff
    // here.
    runs.resize(asks.size());
    RunStoreClient client(sides.server.address, sides.server.security,
                          sides.timeout);
    for (const std::string& side : {sides.baseline, sides.experimental}) {
      if (!IsRunIdArgument(side)) {
        PD_ASSIGN_OR_RETURN(
            std::vector<std::vector<v1::RunProfile>> local,
            analysis::LoadRunsWithEachOptions({{side}}, groupings));
        for (size_t a = 0; a < asks.size(); ++a)
          runs[a].push_back(std::move(local[a].front()));
        continue;
      }
      absl::StatusOr<v1::StoredRun> stored = client.GetRun(side);
      PD_RETURN_IF_ERROR(
          MissingPathOrRun({side}, sides.server, stored.status()));
      for (size_t a = 0; a < asks.size(); ++a) {
        PD_ASSIGN_OR_RETURN(v1::RunProfile run,
                            client.GetProfile(side, groupings[a]));
        runs[a].push_back(std::move(run));
      }
      for (std::string& warning : differ::RunWarnings(*stored))
        warnings.push_back(std::move(warning));
    }
  }
  for (size_t a = 0; a < asks.size(); ++a) {
    const analysis::DeferredRunTables* const sides_deferred[2] = {
        deferred.empty() ? nullptr : &deferred[a][0],
        deferred.empty() ? nullptr : &deferred[a][1]};
    PD_ASSIGN_OR_RETURN(
        v1::DiffReport report,
        differ::DiffRuns(runs[a][0], runs[a][1], asks[a].options,
                         deferred.empty() ? nullptr : sides_deferred));
    for (const std::string& warning : warnings) report.add_warnings(warning);
    reports.push_back(std::move(report));
  }
  // Freed while the report is rendered, if at all.
  release.Discard(std::move(runs));
  release.Discard(std::move(deferred));
  return reports;
}

// The groupings the HTML page's toggle switches to.
analysis::ProfileOptions OtherGroupings(analysis::ProfileOptions options) {
  options.operator_grouping =
      options.operator_grouping == analysis::OperatorGrouping::kName
          ? analysis::OperatorGrouping::kNameAndShape
          : analysis::OperatorGrouping::kName;
  options.kernel_grouping =
      options.kernel_grouping == analysis::KernelGrouping::kName
          ? analysis::KernelGrouping::kNameAndOp
          : analysis::KernelGrouping::kName;
  return options;
}

// `diff --fail-on`: the conditions, and the row cut the user asked for (the
// differ is asked for every row when a condition reads them).
struct GateCheck {
  const std::vector<differ::GateCondition>* gate;
  const v1::DiffOptions* asked_options;
};

// The most experimental runs one `diff` takes (the service's bound too).
constexpr size_t kMaxExperimentalRuns = 16;

// `profdiff diff BASE EXP1 EXP2 ...` (issue 48, item 3): every run a path, or
// every run a run id (DiffMany on the differ).
absl::StatusOr<std::string> RunMultiDiff(
    const std::vector<std::string>& runs, const ServerConnection& server,
    absl::Duration timeout, v1::DiffOptions options,
    const analysis::ProfileOptions& profile_options,
    const DiffRenderOptions& render, bool html, const std::string& output,
    const GateCheck* check);

// Diffs `sides` and renders the report as asked; with `check`, evaluates the
// gate into it first (a failed gate: GateFailedError carrying the output).
// With `stream`, JSON bound for standard output is written to it as it is
// made, and what is returned holds only what follows it.
absl::StatusOr<std::string> RenderDiff(
    const DiffSides& sides, v1::DiffOptions options,
    const analysis::ProfileOptions& profile_options, const AskedViews& asked,
    const DiffRenderOptions& render, const DiffCsvOptions& csv_options,
    bool html, bool csv, const std::string& output, const GateCheck* check,
    std::FILE* stream);

}  // namespace

std::string DiffUsage() {
  return "usage: profdiff diff BASELINE EXPERIMENTAL [EXPERIMENTAL...] "
         "[options]\n"
         "  BASELINE, EXPERIMENTAL: a trace file (.json / .json.gz) or a run "
         "folder of worker traces,\n"
         "                       read here; anything else is a run id on the "
         "server, and two run\n"
         "                       ids are diffed by the server's differ\n"
         "  several EXPERIMENTAL (up to 16; all paths or all run ids): each "
         "against BASELINE in one\n"
         "                       report: What changed per run, then tables "
         "with a delta column per run\n"
         "                       (table, json: a MultiDiffReport, html: a "
         "page with a tab per run)\n"
         "  --view findings|overview|modules|operators|kernels|comm|memory|"
         "ranks|all\n"
         "                       (several: commas, or --view again; default "
         "all; "
         "findings: "
         "\"What changed\" only;\n"
         "                       comm: collectives matched across ranks, "
         "wait vs transfer, overlap;\n"
         "                       memory: peaks, what was alive at them, "
         "operators and modules by allocation;\n"
         "                       ranks: each rank's step and breakdown, as "
         "--per-rank)\n"
         "  --path P             module drill-down: child indices (0/3/1) or "
         "names (ResNet/layer3/...);\n"
         "                       operator and kernel tables then show only "
         "what ran inside that node\n"
         "  --group-by name|shape, --kernels-by name|op\n"
         "  --ranks LIST|all     ranks to compare (e.g. 0,2-3; default all; "
         "HTA mode: the lowest)\n"
         "  --per-rank           each rank's step time and breakdown, "
         "slowest compute marked\n"
         "  --normalize per-step|total   (default per-step: profiling windows "
         "differ in steps)\n"
         "  --min-change PCT     smallest change called significant or changed "
         "(default 5)\n"
         "  --min-change-us US   and at least this per step (default 0.1% of "
         "the baseline step time)\n"
         "  --compare profdiff|hta   HTA mode: [--steps LIST|all] [--device "
         "cpu|gpu|all] [--short-names]\n"
         "  --sort COLUMN, --filter REGEX, --top N (table default 20 rows), "
         "--depth N (module levels:\n"
         "                       table default 3, csv every one)\n"
         "  --fail-on EXPR       a CI gate: exit 3 when a significant change "
         "crosses a condition, such as\n"
         "                       step_time>5%, memory.peak>+512MiB, "
         "kernel:.*nccl.*>10%, gpu_utilization<-10pp\n"
         "                       (several: commas; docs/ci.md); the "
         "conditions print last, and in JSON `gate`\n"
         "  --wide               table: every column, however wide (default: "
         "fit $COLUMNS or the\n"
         "                       terminal, else 120, leaving out the least "
         "needed columns)\n"
         "  --format table|json|csv|html   html: one self-contained page "
         "(module timeline with zoom,\n"
         "                       charts, sortable tables that follow the "
         "selected module)\n"
         "                       (html shows every view; the page sorts, "
         "filters and cuts its tables)\n"
         "                       csv: one plain table per view (numbers as "
         "numbers); one view\n"
         "                       prints, -o DIR/ writes a DIR/<view>.csv for "
         "every view asked (default\n"
         "                       all); comm and memory have several tables, "
         "each a --view of its own:\n" +
         SeveralTableNames("                         ", "\n") +
         "  -o, --output FILE    write to FILE instead of standard output (- "
         "is standard output);\n"
         "                       FILE.html, .json or .csv picks the format; "
         "a folder (DIR/) is csv\n"
         "  --timeout D          deadline of the server call (default 5m)\n" +
         ConnectionUsage();
}

absl::StatusOr<std::vector<int64_t>> ParseNumberList(const std::string& flag,
                                                     const std::string& text) {
  std::vector<int64_t> out;
  for (absl::string_view part :
       absl::StrSplit(base::ToAbsl(text), ',', absl::SkipEmpty())) {
    const std::string_view item(part.data(), part.size());
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      PD_ASSIGN_OR_RETURN(int64_t v, ParseNumber(flag, item));
      out.push_back(v);
      continue;
    }
    PD_ASSIGN_OR_RETURN(int64_t lo, ParseNumber(flag, item.substr(0, dash)));
    PD_ASSIGN_OR_RETURN(int64_t hi, ParseNumber(flag, item.substr(dash + 1)));
    if (hi < lo || hi - lo > 100000) {
      return absl::InvalidArgumentError(
          base::StrCat("--", flag, " ", item, ": not a range lo-hi"));
    }
    for (int64_t v = lo; v <= hi; ++v) out.push_back(v);
  }
  if (out.empty())
    return absl::InvalidArgumentError(base::StrCat("--", flag, ": empty list"));
  return out;
}

absl::StatusOr<std::string> RunDiffCommand(const std::vector<std::string>& args,
                                           std::FILE* stream) {
  DiffFlags f;
  base::FlagSet flags = CommandFlags();
  AddDiffFlags(flags, &f);
  PD_ASSIGN_OR_RETURN(const base::ParsedCommandLine parsed,
                      ParseCommandLine(flags, args));
  if (parsed.help) return DiffUsage();
  if (parsed.version) return base::VersionLine("profdiff");
  if (parsed.positionals.size() < 2) {
    return UsageError(
        base::StrCat("diff: expected BASELINE and EXPERIMENTAL, got ",
                     parsed.positionals.size(), " paths"));
  }
  if (parsed.positionals.size() > kMaxExperimentalRuns + 1) {
    return UsageError(base::StrCat(
        "diff: ", parsed.positionals.size() - 1, " experimental runs; at most ",
        kMaxExperimentalRuns, " against one baseline"));
  }
  // The gate's conditions, checked before any trace is read (exit 2).
  std::vector<differ::GateCondition> gate;
  if (parsed.Given("fail-on")) {
    PD_ASSIGN_OR_RETURN(gate, differ::ParseGate({JoinedList(f.fail_on, "")}));
  }
  v1::DiffOptions options;
  DiffRenderOptions render;
  const std::string& output = f.output;
  PD_ASSIGN_OR_RETURN(
      const std::string format,
      ResolveOutputFormat("diff", output, f.format,
                          {"table", "json", "csv", "html"}, "table"));
  const bool html = format == "html";
  if (!html) {
    PD_ASSIGN_OR_RETURN(render.format, ParseOutputFormat(format));
  }
  const bool csv = !html && render.format == OutputFormat::kCsv;
  const std::string views = JoinedList(f.views, "all");
  PD_ASSIGN_OR_RETURN(AskedViews asked, ParseViews(views, csv));
  for (const v1::DiffView view : asked.views) options.add_views(view);
  // Flags no asked-for view reads are refused, naming the views.
  if (views != "all") {
    auto asks = [&](v1::DiffView view) {
      return std::find(options.views().begin(), options.views().end(), view) !=
             options.views().end();
    };
    const bool tables =
        asks(v1::DIFF_VIEW_OPERATORS) || asks(v1::DIFF_VIEW_KERNELS);
    if (parsed.Given("sort") && !tables && f.compare != v1::COMPARE_MODE_HTA) {
      return UsageError(base::StrCat(
          "--sort orders the operator and kernel tables; --view ", views,
          " has neither (module rows follow the tree: --top and --filter "
          "pick them)"));
    }
    if (parsed.Given("depth") && !asks(v1::DIFF_VIEW_MODULES)) {
      return UsageError(base::StrCat("--depth is the module table's; --view ",
                                     views, " has none"));
    }
  }
  options.set_path(f.path);
  options.set_per_rank(f.per_rank);
  options.set_sort(f.sort);
  options.set_filter(f.filter);
  const int64_t top =
      parsed.Given("top")
          ? f.top
          : (!html && render.format == OutputFormat::kTable ? 20 : 0);
  options.set_top(static_cast<int32_t>(std::min<int64_t>(top, INT32_MAX)));
  render.module_depth = static_cast<int>(std::min<int64_t>(f.depth, 1000));
  // A CSV of the module tree has every level unless --depth says otherwise.
  DiffCsvOptions csv_options;
  if (parsed.Given("depth")) csv_options.module_depth = render.module_depth;
  render.line_width = f.wide ? 0 : TerminalWidth();
  if (parsed.Given("min-change")) options.set_min_change_pct(f.min_change_pct);
  if (parsed.Given("min-change-us")) options.set_min_change_us(f.min_change_us);
  options.set_normalize(f.normalize);
  options.set_compare(f.compare);
  const std::string& ranks = f.ranks;
  if (ranks == "all") {
    options.set_hta_all_ranks(true);
  } else if (!ranks.empty()) {
    PD_ASSIGN_OR_RETURN(std::vector<int64_t> list,
                        ParseNumberList("ranks", ranks));
    for (int64_t r : list)
      options.add_ranks(static_cast<int32_t>(std::min<int64_t>(r, INT32_MAX)));
  }
  const std::string& steps = f.steps;
  if (steps == "all") {
    options.set_hta_all_steps(true);
  } else if (!steps.empty()) {
    PD_ASSIGN_OR_RETURN(std::vector<int64_t> list,
                        ParseNumberList("steps", steps));
    for (int64_t s : list) options.add_hta_steps(s);
  }
  options.set_hta_device(f.device);
  options.set_hta_short_names(f.short_names);
  if (options.compare() != v1::COMPARE_MODE_HTA &&
      (!steps.empty() || parsed.Given("device") || options.hta_short_names())) {
    return absl::InvalidArgumentError(
        "--steps, --device and --short-names apply to --compare hta");
  }
  analysis::ProfileOptions profile_options = f.profile_options;
  const absl::Duration timeout = f.timeout;
  if (html && options.compare() == v1::COMPARE_MODE_HTA) {
    return absl::InvalidArgumentError(
        "--format html shows profdiff's comparison; HTA mode prints table, "
        "json or csv");
  }
  if (csv) {
    // HTA mode has one table whatever --view says; every view's CSV includes
    // the per-rank one.
    if (options.compare() == v1::COMPARE_MODE_HTA) {
      asked.csv_tables = {std::string(kHtaCsvTable)};
    } else if (views == "all") {
      options.set_per_rank(true);
    }
    // Before any trace is read.
    PD_RETURN_IF_ERROR(CheckCsvDestination(output, asked.csv_tables, views));
  }
  // Two trace paths are diffed here: TLS settings (a stale PROFDIFF_TOKEN_FILE)
  // must not get in the way.
  ServerConnection server;
  if (std::any_of(parsed.positionals.begin(), parsed.positionals.end(),
                  IsRunIdArgument)) {
    PD_ASSIGN_OR_RETURN(server, ServerConnectionOf(f.connection));
  }
  if (parsed.positionals.size() > 2) {
    if (options.compare() == v1::COMPARE_MODE_HTA || csv) {
      return absl::InvalidArgumentError(
          "--compare hta and --format csv compare two runs; several runs print "
          "as table, json or html");
    }
    const GateCheck check{&gate, &options};
    return RunMultiDiff(parsed.positionals, server, timeout, options,
                        profile_options, render, html, output,
                        gate.empty() ? nullptr : &check);
  }
  const DiffSides sides{parsed.positionals[0], parsed.positionals[1],
                        std::move(server), timeout};
  // HTA's compare reads steps and events, not the module tree's per-node
  // tables: not building them saves a tenth of the command.
  if (options.compare() == v1::COMPARE_MODE_HTA)
    profile_options.module_tables = false;
  if (gate.empty()) {
    return RenderDiff(sides, options, profile_options, asked, render,
                      csv_options, html, csv, output, nullptr, stream);
  }
  if (options.compare() == v1::COMPARE_MODE_HTA) {
    return absl::InvalidArgumentError(
        "--fail-on judges profdiff's comparison, not --compare hta");
  }
  // A condition on rows reads every row: the differ's cut (--sort, --filter,
  // --top) is applied here after the gate is evaluated.
  const v1::DiffOptions asked_options = options;
  if (differ::GateReadsRows(gate)) {
    options.clear_sort();
    options.clear_filter();
    options.clear_top();
  }
  GateCheck check{&gate, &asked_options};
  return RenderDiff(sides, options, profile_options, asked, render, csv_options,
                    html, csv, output, &check, stream);
}

namespace {

// Evaluates the gate into `report`, then cuts its rows as the user asked.
absl::Status ApplyGate(const GateCheck& check, v1::DiffReport& report) {
  for (v1::GateResult& result : differ::EvaluateGate(*check.gate, report))
    *report.add_gate() = std::move(result);
  const v1::DiffOptions& asked = *check.asked_options;
  if (asked.sort() == report.options().sort() &&
      asked.filter() == report.options().filter() &&
      asked.top() == report.options().top())
    return absl::OkStatus();
  PD_RETURN_IF_ERROR(differ::OrderRows(differ::OperatorDiffControls(asked),
                                       *report.mutable_operators()));
  PD_RETURN_IF_ERROR(differ::OrderRows(differ::KernelDiffControls(asked),
                                       *report.mutable_kernels()));
  report.mutable_options()->set_sort(asked.sort());
  report.mutable_options()->set_filter(asked.filter());
  report.mutable_options()->set_top(asked.top());
  return absl::OkStatus();
}

bool GateFailed(const v1::DiffReport& report) {
  for (const v1::GateResult& g : report.gate()) {
    if (g.failed()) return true;
  }
  return false;
}

absl::StatusOr<std::string> RenderDiff(
    const DiffSides& sides, v1::DiffOptions options,
    const analysis::ProfileOptions& profile_options, const AskedViews& asked,
    const DiffRenderOptions& render, const DiffCsvOptions& csv_options,
    bool html, bool csv, const std::string& output, const GateCheck* check,
    std::FILE* stream) {
  // What the command prints: the report (or where it went), then, in a table
  // report, the gate; a failed gate makes it exit 3 all the same.
  auto finish =
      [&](std::string printed,
          const v1::DiffReport& report) -> absl::StatusOr<std::string> {
    const bool table_to_standard_output =
        !html && !csv && render.format == OutputFormat::kTable &&
        IsStandardOutput(output);
    if (report.gate_size() > 0 &&
        (table_to_standard_output || !IsStandardOutput(output))) {
      printed += GateText(report.gate(), render.line_width);
    }
    if (GateFailed(report))
      return GateFailedError(std::move(printed), report.gate());
    return printed;
  };
  // Gives up the runs' profiles beside the rendering (destroying two large
  // traces' profiles on this thread took ~3 ms, the other core idle).
  base::Discarder release;
  std::string text;
  if (html) {
    // The page's tables follow the selected module, and its group-by toggle
    // shows the other grouping: each comes from the differ, with its own noise
    // and significance.
    const report::HtmlReportDiffs diffs = report::HtmlReportOptions(options);
    options = diffs.page;
    const v1::DiffOptions& other_options = diffs.other;
    PD_ASSIGN_OR_RETURN(
        std::vector<v1::DiffReport> reports,
        DiffSidesEach(sides,
                      {{options, profile_options},
                       {other_options, OtherGroupings(profile_options)}},
                      release));
    const absl::Cleanup discard = [&reports] { base::Discard(reports); };
    if (check != nullptr) PD_RETURN_IF_ERROR(ApplyGate(*check, reports[0]));
    PD_ASSIGN_OR_RETURN(
        std::string printed,
        WriteOutput(output, report::RenderHtmlReport(reports[0], &reports[1])));
    return finish(std::move(printed), reports[0]);
  } else if (csv) {
    PD_ASSIGN_OR_RETURN(
        std::vector<v1::DiffReport> reports,
        DiffSidesEach(sides, {{options, profile_options}}, release));
    const absl::Cleanup discard = [&reports] { base::Discard(reports); };
    if (check != nullptr) PD_RETURN_IF_ERROR(ApplyGate(*check, reports[0]));
    PD_ASSIGN_OR_RETURN(
        std::vector<CsvFile> files,
        RenderDiffCsv(reports.front(), asked.csv_tables, csv_options));
    PD_ASSIGN_OR_RETURN(std::string printed,
                        WriteCsvFiles(output, std::move(files)));
    // Written to files, the tables leave standard output free to say what
    // the report warns of (printed, a table has no place for it).
    if (!IsStandardOutput(output)) {
      for (const std::string& warning : reports.front().warnings())
        base::StrAppend(&printed, "warning: ", TerminalSafe(warning), "\n");
    }
    return finish(std::move(printed), reports.front());
  }
  PD_ASSIGN_OR_RETURN(
      std::vector<v1::DiffReport> reports,
      DiffSidesEach(sides, {{options, profile_options}}, release));
  const absl::Cleanup discard = [&reports] { base::Discard(reports); };
  if (check != nullptr) PD_RETURN_IF_ERROR(ApplyGate(*check, reports.front()));
  if (stream != nullptr && render.format == OutputFormat::kJson &&
      IsStandardOutput(output)) {
    // Written as it is made: the 1.7 MB of the xDiT pair's report, built
    // whole, faulted in fresh memory on the diff's serial tail.
    PD_RETURN_IF_ERROR(StreamJson(reports.front(), stream));
    return finish(std::string(), reports.front());
  }
  PD_ASSIGN_OR_RETURN(text, RenderDiffReport(reports.front(), render));
  PD_ASSIGN_OR_RETURN(std::string printed,
                      WriteOutput(output, std::move(text)));
  return finish(std::move(printed), reports.front());
}

// Each run against the baseline with `ask`: one DiffMany for run ids, or the
// paths read once each.
absl::StatusOr<std::vector<v1::DiffReport>> DiffEachAgainstBaseline(
    const std::vector<std::string>& runs, const ServerConnection& server,
    absl::Duration timeout, const DiffAsk& ask) {
  const size_t stored = static_cast<size_t>(
      std::count_if(runs.begin(), runs.end(), IsRunIdArgument));
  std::vector<v1::DiffReport> reports;
  if (stored == runs.size()) {
    v1::DiffManyRequest request;
    request.set_baseline_run(runs[0]);
    for (size_t k = 1; k < runs.size(); ++k)
      request.add_experimental_runs(runs[k]);
    *request.mutable_options() = ask.options;
    const RequestGroupings groupings = GroupingsOf(ask.profile_options);
    request.set_operator_grouping(groupings.operators);
    request.set_kernel_grouping(groupings.kernels);
    absl::StatusOr<v1::MultiDiffReport> many =
        DiffManyOnServer(server.address, server.security, request, timeout);
    if (!many.ok()) {
      if (many.status().code() != absl::StatusCode::kNotFound) {
        PD_RETURN_IF_ERROR(MissingPathOrRun(runs, server, many.status()));
      }
      return many.status();
    }
    reports.assign(many->reports().begin(), many->reports().end());
    return reports;
  }
  if (stored > 0) {
    return absl::InvalidArgumentError(
        "several runs are all trace paths or all run ids on the server, not a "
        "mix (diff a path against a stored run two at a time)");
  }
  std::vector<std::vector<std::string>> paths;
  paths.reserve(runs.size());
  for (const std::string& run : runs) paths.push_back({run});
  PD_ASSIGN_OR_RETURN(
      std::vector<std::vector<v1::RunProfile>> loaded,
      analysis::LoadRunsWithEachOptions(paths, {ask.profile_options}));
  std::vector<v1::RunProfile>& profiles = loaded.front();
  for (size_t k = 1; k < profiles.size(); ++k) {
    v1::RunProfile baseline = profiles[0];
    DistinguishRunNames(runs[0], runs[k], baseline, profiles[k]);
    PD_ASSIGN_OR_RETURN(v1::DiffReport report,
                        differ::DiffRuns(baseline, profiles[k], ask.options));
    reports.push_back(std::move(report));
  }
  return reports;
}

absl::StatusOr<std::string> RunMultiDiff(
    const std::vector<std::string>& runs, const ServerConnection& server,
    absl::Duration timeout, v1::DiffOptions options,
    const analysis::ProfileOptions& profile_options,
    const DiffRenderOptions& render, bool html, const std::string& output,
    const GateCheck* check) {
  // The side-by-side tables take the union of every run's rows and cut it
  // here: each report keeps every row.
  const int top = options.top();
  options.clear_top();
  options.clear_sort();
  if (html) options = report::HtmlReportOptions(options).page;
  PD_ASSIGN_OR_RETURN(std::vector<v1::DiffReport> reports,
                      DiffEachAgainstBaseline(runs, server, timeout,
                                              {options, profile_options}));
  bool failed = false;
  for (v1::DiffReport& report : reports) {
    if (check != nullptr) {
      for (v1::GateResult& result : differ::EvaluateGate(*check->gate, report))
        *report.add_gate() = std::move(result);
    }
    failed = failed || GateFailed(report);
    report.mutable_options()->set_top(top);
  }
  std::string text;
  if (html) {
    // Each pair's page, with its group-by toggle's other grouping.
    const v1::DiffOptions other = report::HtmlReportOptions(options).other;
    PD_ASSIGN_OR_RETURN(
        std::vector<v1::DiffReport> others,
        DiffEachAgainstBaseline(runs, server, timeout,
                                {other, OtherGroupings(profile_options)}));
    std::vector<std::string> pages;
    for (size_t k = 0; k < reports.size(); ++k) {
      v1::DiffReport page_report = reports[k];
      page_report.mutable_options()->clear_top();
      pages.push_back(report::RenderHtmlReport(page_report, &others[k]));
    }
    text = report::RenderMultiDiffHtml(reports, pages);
  } else if (render.format == OutputFormat::kJson) {
    v1::MultiDiffReport many;
    for (const v1::DiffReport& report : reports) *many.add_reports() = report;
    PD_ASSIGN_OR_RETURN(text, ToJson(many));
  } else {
    text = RenderMultiDiffText(reports, render);
  }
  PD_ASSIGN_OR_RETURN(std::string printed,
                      WriteOutput(output, std::move(text)));
  if (!failed) return printed;
  google::protobuf::RepeatedPtrField<v1::GateResult> all;
  for (const v1::DiffReport& report : reports) {
    for (const v1::GateResult& g : report.gate()) {
      v1::GateResult& named = *all.Add();
      named = g;
      named.set_condition(
          base::StrCat(report.experimental().run(), ": ", g.condition()));
    }
  }
  return GateFailedError(std::move(printed), all);
}

}  // namespace

}  // namespace profdiff::client
