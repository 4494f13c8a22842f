// `profdiff diff` end to end on small trace folders written by the test:
// formats, the JSON contract, HTA mode and errors that name what was wrong.
#include "client/diff_command.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include <absl/strings/ascii.h>
#include <absl/strings/match.h>
#include <absl/strings/str_split.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/command_line.h"
#include "client/diff_csv.h"
#include "client/diff_renderer.h"
#include "client/gate_output.h"
#include "client/json_output.h"
#include "client/show_command.h"
#include "differ/communication_diff.h"
#include "profdiff/v1/diff.pb.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// One worker with `steps` steps of 100 us; each step runs aten::mm for `mm_us`
// and, when `with_add`, aten::add for 5 us.
fs::path WriteRun(const std::string& name, int mm_us, bool with_add,
                  int steps = 3) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream out(dir / "worker0.1000.pt.trace.json");
  out << R"({"traceEvents": [)";
  for (int s = 0; s < steps; ++s) {
    const int t = 1000 * s;
    if (s > 0) out << ",";
    out << R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)"
        << s + 1 << R"(", "pid": 1, "tid": 1, "ts": )" << t
        << R"(, "dur": 100},)"
        << R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )"
        << t + 10 << R"(, "dur": )" << mm_us + s << "}";
    if (with_add) {
      out << R"(,{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": )"
          << t + 80 << R"(, "dur": 5})";
    }
  }
  out << "]}";
  return dir;
}

v1::DiffReport ParseReport(const std::string& json) {
  v1::DiffReport report;
  const absl::Status status = FromJson(json, report);
  EXPECT_TRUE(status.ok()) << status << "\n" << json.substr(0, 200);
  return report;
}

TEST(DiffCommandTest, AskedForViewsWithNothingToShowSaySo) {
  // CPU runs without collectives or memory events.
  const fs::path a = WriteRun("diff_empty_a", 40, true);
  const fs::path b = WriteRun("diff_empty_b", 60, true);
  auto out =
      RunDiffCommand({a.string(), b.string(), "--view", "kernels,comm,memory"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("\nKernels: none in either run (CPU only)\n"));
  EXPECT_THAT(*out,
              HasSubstr("\nCommunication: no collectives in either run\n"));
  EXPECT_THAT(*out, HasSubstr("\nMemory: no memory events in either run"));
  // --view given twice combines, as commas do.
  auto repeated = RunDiffCommand(
      {a.string(), b.string(), "--view", "kernels", "--view", "comm"});
  ASSERT_TRUE(repeated.ok()) << repeated.status();
  EXPECT_THAT(*repeated, HasSubstr("\nKernels: none in either run"));
  EXPECT_THAT(*repeated, HasSubstr("\nCommunication: no collectives"));
  // A node's scope names the node even without the module view.
  auto scoped = RunDiffCommand(
      {a.string(), b.string(), "--view", "kernels", "--path", "0"});
  ASSERT_TRUE(scoped.ok()) << scoped.status();
  EXPECT_THAT(*scoped,
              HasSubstr("\nKernels inside 0: none in either run (CPU only)\n"));
  // Views not asked for stay quiet; CSV has no such lines.
  auto quiet = RunDiffCommand({a.string(), b.string()});
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  EXPECT_THAT(*quiet, Not(HasSubstr("none in either run")));
  auto csv = RunDiffCommand(
      {a.string(), b.string(), "--view", "kernels", "--format", "csv"});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(*csv, Not(HasSubstr("none in either run")));
}

TEST(DiffCommandTest, SideLinesPrintRankRanges) {
  const fs::path dlrm = test_support::TracesDir() / "param/dlrm_kineto";
  if (!fs::exists(dlrm)) GTEST_SKIP() << "needs " << dlrm;
  auto out = RunDiffCommand({dlrm.string(), dlrm.string(), "--view", "overview",
                             "--ranks", "0-2,4,6-7"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out,
              HasSubstr("dlrm_kineto: ranks 0-2,4,6,7, 1 kept step per rank"));
  auto all =
      RunDiffCommand({dlrm.string(), dlrm.string(), "--view", "overview"});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(*all, HasSubstr("dlrm_kineto: ranks 0-7, 1 kept step per rank"));
  const fs::path one = WriteRun("diff_one_rank", 40, true);
  auto single =
      RunDiffCommand({one.string(), one.string(), "--view", "overview"});
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_THAT(*single,
              HasSubstr("diff_one_rank: rank 0, 3 kept steps per rank"));
}

TEST(DiffCommandTest, RunsNamedAlikeAreToldApartByTheirFolders) {
  // Two folders "cmp/before/run" and "cmp/after/run": both runs are "run".
  const fs::path root = fs::path(testing::TempDir()) / "diff_alike";
  fs::remove_all(root);
  for (const char* side : {"before", "after"}) {
    const fs::path made = WriteRun(std::string("diff_alike_") + side, 40, true);
    fs::create_directories(root / side);
    fs::rename(made, root / side / "run");
  }
  const std::string a = (root / "before" / "run").string();
  const std::string b = (root / "after" / "run").string();
  auto out = RunDiffCommand({a, b, "--view", "overview"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("baseline     before/run: rank 0"));
  EXPECT_THAT(*out, HasSubstr("experimental after/run: rank 0"));
  // The same file, twice: nothing to tell apart.
  auto self = RunDiffCommand({a, a, "--view", "overview"});
  ASSERT_TRUE(self.ok()) << self.status();
  EXPECT_THAT(*self, HasSubstr("baseline     run: rank 0"));
}

// A note under a table: "(left out to fit ...)", "(11 more module rows ...)".
bool IsNote(absl::string_view line) {
  return absl::StartsWith(line, "(left out") ||
         (line.size() > 1 && line[0] == '(' && absl::ascii_isdigit(line[1]));
}

// An H100 against an MI300 pair: the MI300's Tensile kernels differ only deep
// inside their names. Every kernel the table shows prints apart, and
// --kernels-by op puts the operator in a column of its own.
TEST(DiffCommandTest, KernelNamesThatDifferPrintApartOnARealPair) {
  const fs::path root = test_support::TracesDir() / "tracelens";
  const fs::path a =
      root / "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz";
  const fs::path b =
      root / "mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz";
  if (!fs::exists(a) || !fs::exists(b))
    GTEST_SKIP() << "needs " << a << " and " << b;
  for (const char* by : {"name", "op"}) {
    SCOPED_TRACE(by);
    const std::vector<std::string> args = {a.string(),     b.string(), "--view",
                                           "kernels",      "--top",    "60",
                                           "--kernels-by", by};
    auto table = RunDiffCommand(args);
    ASSERT_TRUE(table.ok()) << table.status();
    std::vector<std::string> json_args = args;
    json_args.insert(json_args.end(), {"--format", "json"});
    auto json = RunDiffCommand(json_args);
    ASSERT_TRUE(json.ok()) << json.status();
    const v1::DiffReport report = ParseReport(*json);
    std::set<std::pair<std::string, std::string>> distinct;
    for (const v1::KernelDiff& k : report.kernels())
      distinct.insert({k.name(), k.op_name()});
    // The table's rows, cut into cells where the rule's dashes are.
    std::set<std::string> printed;
    int rows = 0;
    std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) per column
    bool in_kernels = false;
    for (absl::string_view line : absl::StrSplit(*table, '\n')) {
      if (absl::StartsWith(line, "Kernels ")) {
        in_kernels = true;
        continue;
      }
      // The header (a kernel's short name may start with "kernel" too).
      const bool header = absl::StartsWith(line, "kernel ") &&
                          absl::StrContains(line, "  change  ");
      // A note ends the table (its words may wrap onto a second line).
      if (IsNote(line)) in_kernels = false;
      if (!in_kernels || line.empty() || header) continue;
      if (absl::StartsWith(line, "---")) {
        for (size_t at = 0; at < line.size();) {
          const size_t end = std::min(line.find(' ', at), line.size());
          spans.push_back({at, end});
          at = line.find('-', end);
          if (at == absl::string_view::npos) break;
        }
        continue;
      }
      auto cell = [&](size_t c) {
        return std::string(absl::StripAsciiWhitespace(
            line.substr(spans[c].first, spans[c].second - spans[c].first)));
      };
      printed.insert(cell(0) + (std::string(by) == "op" ? "|" + cell(1) : ""));
      ++rows;
    }
    ASSERT_EQ(rows, report.kernels_size());
    EXPECT_EQ(printed.size(), distinct.size());
    if (std::string(by) == "op") {
      EXPECT_THAT(*table, HasSubstr("kernel  "));
      EXPECT_THAT(*table, testing::ContainsRegex("\n-+  -+  -+"));
      EXPECT_THAT(*table, Not(HasSubstr(" <- ")));
    }
  }
}

// One worker, 3 steps of `ops` operators op_0..op_N-1 in a row, op_k taking
// k + 1 us times `scale` (no nn.Module events: the operators are the root's
// children in the module tree).
fs::path WriteOps(const std::string& name, int ops, int scale) {
  fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream out(dir / "worker0.1000.pt.trace.json");
  out << R"({"traceEvents": [)";
  for (int s = 0; s < 3; ++s) {
    const int t = 100000 * s;
    if (s > 0) out << ",";
    out << R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)"
        << s + 1 << R"(", "pid": 1, "tid": 1, "ts": )" << t
        << R"(, "dur": 90000})";
    int at = t + 10;
    for (int k = 0; k < ops; ++k) {
      const int dur = (k + 1) * scale + s;
      out << R"(,{"ph": "X", "cat": "cpu_op", "name": "op_)" << k
          << R"(", "pid": 1, "tid": 1, "ts": )" << at << R"(, "dur": )" << dur
          << "}";
      at += dur + 1;
    }
  }
  out << "]}";
  return dir;
}

// The lines of the module table (under its header and rule).
std::vector<std::string> ModuleLines(const std::string& text) {
  std::vector<std::string> out;
  bool in = false;
  int skip = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "Modules (")) {
      in = true;
      skip = 2;
      continue;
    }
    if (!in) continue;
    if (line.empty() || IsNote(line)) break;
    if (skip > 0) {
      --skip;
      continue;
    }
    out.emplace_back(line);
  }
  return out;
}

TEST(DiffCommandTest, TopAndFilterPickTheModuleRowsAndSayWhatIsLeftOut) {
  const fs::path a = WriteOps("diff_ops_a", 30, 10);
  const fs::path b = WriteOps("diff_ops_b", 30, 20);
  // Table format: 20 rows by default, the largest changes: the root's
  // (unknown) time, and op_29 .. op_11, in tree order.
  auto out = RunDiffCommand({a.string(), b.string(), "--view", "modules"});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<std::string> lines = ModuleLines(*out);
  ASSERT_EQ(lines.size(), 21u) << *out;  // the root and 20
  EXPECT_THAT(lines[1], HasSubstr("op_11"));
  EXPECT_THAT(lines[20], HasSubstr("(unknown)"));
  EXPECT_THAT(*out, HasSubstr("(11 more module rows to --depth 3, the largest "
                              "changes shown: --top 0 lists them all"));
  auto all = RunDiffCommand(
      {a.string(), b.string(), "--view", "modules", "--top", "0"});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(ModuleLines(*all).size(), 32u);
  EXPECT_THAT(*all, Not(HasSubstr("more module row")));
  // --filter keeps the matches (and the root above them).
  auto picked = RunDiffCommand(
      {a.string(), b.string(), "--view", "modules", "--filter", "^op_2.$"});
  ASSERT_TRUE(picked.ok()) << picked.status();
  lines = ModuleLines(*picked);
  ASSERT_EQ(lines.size(), 11u) << *picked;
  for (size_t i = 1; i < lines.size(); ++i)
    EXPECT_THAT(lines[i], HasSubstr("op_2")) << lines[i];
  // Flags no asked-for view reads are refused, naming the view.
  auto sort = RunDiffCommand(
      {a.string(), b.string(), "--view", "modules", "--sort", "calls"});
  EXPECT_THAT(sort.status().message(),
              HasSubstr("--sort orders the operator and kernel tables; --view "
                        "modules has neither"));
  auto depth = RunDiffCommand(
      {a.string(), b.string(), "--view", "overview", "--depth", "2"});
  EXPECT_THAT(depth.status().message(),
              HasSubstr("--depth is the module table's; --view overview"));
}

// The longest line of the tables in `text`: each one's header, its rule and
// its rows (titles and notes are prose).
size_t LongestLine(const std::string& text) {
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  size_t longest = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (!absl::StartsWith(lines[i], "---")) continue;
    longest = std::max(longest, lines[i - 1].size());
    for (size_t j = i;
         j < lines.size() && !lines[j].empty() && !IsNote(lines[j]); ++j)
      longest = std::max(longest, lines[j].size());
  }
  return longest;
}

TEST(DiffCommandTest, TablesFitTheTerminalWidthAndWidePrintsEveryColumn) {
  const fs::path a = WriteOps("diff_width_a", 12, 10);
  const fs::path b = WriteOps("diff_width_b", 12, 20);
  const std::vector<std::string> args = {a.string(), b.string(), "--view",
                                         "modules,operators"};
  ASSERT_EQ(setenv("COLUMNS", "100", 1), 0);
  auto narrow = RunDiffCommand(args);
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  EXPECT_LE(LongestLine(*narrow), 100u) << *narrow;
  EXPECT_THAT(*narrow, HasSubstr("(left out to fit 100 columns: calls base, "
                                 "calls exp"));
  // The compared totals and the delta stay.
  EXPECT_THAT(*narrow, HasSubstr("host total base"));
  EXPECT_THAT(*narrow, HasSubstr("delta compared (us)"));
  auto wide = RunDiffCommand(
      {a.string(), b.string(), "--view", "modules,operators", "--wide"});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_GT(LongestLine(*wide), 100u);
  EXPECT_THAT(*wide, Not(HasSubstr("left out to fit")));
  EXPECT_THAT(*wide, HasSubstr("calls base"));
  // Not a number: the terminal's width, or 120 off a terminal (ctest's pipe).
  ASSERT_EQ(setenv("COLUMNS", "wide", 1), 0);
  auto fallback = RunDiffCommand(args);
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  if (!isatty(STDOUT_FILENO)) {
    EXPECT_LE(LongestLine(*fallback), 120u);
  }
  unsetenv("COLUMNS");
  // CSV and JSON keep every column.
  auto csv = RunDiffCommand(
      {a.string(), b.string(), "--view", "operators", "--format", "csv"});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(*csv, HasSubstr(",baseline_calls,"));
  EXPECT_THAT(*csv, HasSubstr(",experimental_device_self_us,"));
}

TEST(DiffCommandTest, JsonCarriesBothSidesDeltasAndChangeClasses) {
  const fs::path a = WriteRun("diff_a", 40, true);
  const fs::path b = WriteRun("diff_b", 60, false);
  auto out = RunDiffCommand({a.string(), b.string(), "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("\"delta_pct\""));
  EXPECT_THAT(*out, HasSubstr("\"host_total_us\""));
  // Enums are written as the words the tables print, as before they were
  // enums: scripts that read the JSON keep working.
  EXPECT_THAT(*out, HasSubstr("\"change\": \"increased\""));
  EXPECT_THAT(*out, HasSubstr("\"change\": \"deleted\""));
  EXPECT_THAT(*out, HasSubstr("\"compared\": \"host_total_us\""));
  EXPECT_THAT(*out, HasSubstr("\"status\": \"matched\""));
  EXPECT_THAT(*out, HasSubstr("\"compared\": \"host_us\""));
  EXPECT_THAT(*out, HasSubstr("\"metric\": \"Average step time\""));
  EXPECT_THAT(*out, testing::Not(HasSubstr("CHANGE_")));
  const v1::DiffReport report = ParseReport(*out);
  EXPECT_EQ(report.baseline().run(), "diff_a");
  EXPECT_EQ(report.experimental().run(), "diff_b");
  std::map<std::string, const v1::OperatorDiff*> ops;
  for (const v1::OperatorDiff& op : report.operators()) ops[op.name()] = &op;
  ASSERT_TRUE(ops.contains("aten::mm") && ops.contains("aten::add"));
  // mm: 40, 41, 42 us -> 60, 61, 62 us per step: +20 us, +48.8%.
  EXPECT_DOUBLE_EQ(ops["aten::mm"]->baseline().host_total_us(), 41);
  EXPECT_DOUBLE_EQ(ops["aten::mm"]->delta().host_total_us(), 20);
  EXPECT_EQ(ops["aten::mm"]->change(), v1::CHANGE_INCREASED);
  EXPECT_EQ(ops["aten::mm"]->compared(), v1::OPERATOR_COMPARED_HOST_TOTAL_US);
  EXPECT_TRUE(ops["aten::mm"]->noise().significant());
  EXPECT_EQ(ops["aten::add"]->change(), v1::CHANGE_DELETED);
  // The overview's first rows name the device; step time rows carry noise.
  ASSERT_GT(report.overview().rows_size(), 8);
  EXPECT_EQ(report.overview().rows(0).metric(), v1::OVERVIEW_METRIC_DEVICE);
  EXPECT_EQ(report.modules().status(), v1::DIFF_STATUS_MATCHED);
}

// Every value of the diff's enums has its own word, and JSON carries it both
// ways (a report written by ToJson reads back the same).
TEST(DiffCommandTest, TableAndCsvName) {
  const fs::path a = WriteRun("diff_ta", 40, true);
  const fs::path b = WriteRun("diff_tb", 60, true);
  auto table = RunDiffCommand({a.string(), b.string()});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, HasSubstr("baseline     diff_ta"));
  EXPECT_THAT(*table, HasSubstr("Overview (mean per step)"));
  EXPECT_THAT(*table, HasSubstr("aten::mm"));
  // CSV: one plain table, its header first (issue 45, item 4).
  auto csv = RunDiffCommand(
      {a.string(), b.string(), "--format=csv", "--view", "operators"});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(*csv, testing::StartsWith("name,input_shapes,change,compared,"
                                        "baseline_calls,"));
  EXPECT_THAT(*csv, Not(HasSubstr("# ")));
}

// "What changed" comes first in the table, before the overview, fits 100
// columns, and is a CSV table (--view findings); `--view findings` prints
// only it.
TEST(DiffCommandTest, FindingsComeFirstAndFitOneHundredColumns) {
  const fs::path a = WriteRun("diff_fa", 40, true);
  const fs::path b = WriteRun("diff_fb", 60, false);
  auto table = RunDiffCommand({a.string(), b.string()});
  ASSERT_TRUE(table.ok()) << table.status();
  const size_t what = table->find("What changed\n 1. Step time ");
  ASSERT_NE(what, std::string::npos) << *table;
  EXPECT_LT(what, table->find("Overview (mean per step)"));
  EXPECT_THAT(*table, HasSubstr("aten::add no longer ran"));
  const std::string findings =
      table->substr(what, table->find("\n\n", what) - what);
  for (absl::string_view line : absl::StrSplit(findings, '\n'))
    EXPECT_LE(line.size(), 100u) << line;

  auto only = RunDiffCommand({a.string(), b.string(), "--view", "findings"});
  ASSERT_TRUE(only.ok()) << only.status();
  EXPECT_THAT(*only, HasSubstr("What changed"));
  EXPECT_THAT(*only, Not(HasSubstr("Overview")));
  EXPECT_THAT(*only, Not(HasSubstr("Operators (per step")));

  auto csv = RunDiffCommand(
      {a.string(), b.string(), "--format", "csv", "--view", "findings"});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(
      *csv, testing::StartsWith("finding,kind,significant,delta_us,delta_bytes,"
                                "share_of_step_change,text\n1,step_time,"));
}

// `diff` sorts by its columns and by the names `show` used before, behind the
// same side prefixes (differ/row_order.h).
TEST(DiffCommandTest, SortTakesTheShowNamesAsAliases) {
  const fs::path a = WriteRun("diff_sa", 40, true);
  const fs::path b = WriteRun("diff_sb", 60, true);
  for (const auto& [name, alias] :
       {std::pair("host_total_us", "host_total"),
        std::pair("baseline_host_self_us", "baseline_host_self"),
        std::pair("delta_pct_device_total_us", "delta_pct_device_total"),
        std::pair("total_us", "total"), std::pair("mean_us", "mean")}) {
    auto by_name = RunDiffCommand({a.string(), b.string(), "--sort", name});
    auto by_alias = RunDiffCommand({a.string(), b.string(), "--sort", alias});
    ASSERT_TRUE(by_name.ok()) << by_name.status();
    ASSERT_TRUE(by_alias.ok()) << by_alias.status();
    EXPECT_EQ(*by_name, *by_alias) << name;
  }
  // aten::mm changed by +20 us, aten::add by 0: mm first; by name, add first.
  auto by_delta =
      RunDiffCommand({a.string(), b.string(), "--format", "csv", "--view",
                      "operators", "--sort", "host_total"});
  ASSERT_TRUE(by_delta.ok()) << by_delta.status();
  EXPECT_LT(by_delta->find("aten::mm"), by_delta->find("aten::add"));
  auto by_name = RunDiffCommand({a.string(), b.string(), "--format", "csv",
                                 "--view", "operators", "--sort", "name"});
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_LT(by_name->find("aten::add"), by_name->find("aten::mm"));
  EXPECT_THAT(RunDiffCommand({a.string(), b.string(), "--sort", "speed"})
                  .status()
                  .message(),
              HasSubstr("--sort speed: not an operator diff column"));
}

TEST(DiffCommandTest, HtaModeCountsTheFirstStep) {
  const fs::path a = WriteRun("diff_ha", 40, true);
  const fs::path b = WriteRun("diff_hb", 60, false);
  auto out = RunDiffCommand(
      {a.string(), b.string(), "--compare", "hta", "--format", "json"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, HasSubstr("\"change\": \"-\""));
  const v1::DiffReport report = ParseReport(*out);
  std::map<std::string, v1::HtaRow> rows;
  for (const v1::HtaRow& row : report.hta_rows()) rows[row.name()] = row;
  ASSERT_TRUE(rows.contains("aten::mm"));
  EXPECT_EQ(rows["aten::mm"].baseline_counts(), 1);
  EXPECT_DOUBLE_EQ(rows["aten::mm"].baseline_total_duration_us(), 40);
  EXPECT_DOUBLE_EQ(rows["aten::mm"].diff_duration_us(), 20);
  EXPECT_EQ(rows["aten::add"].change(), v1::HTA_CHANGE_FEWER);
  EXPECT_THAT(report.hta_ops_diff().deleted(),
              testing::ElementsAre("aten::add"));
  auto all = RunDiffCommand({a.string(), b.string(), "--compare", "hta",
                             "--steps", "all", "--format", "json"});
  ASSERT_TRUE(all.ok()) << all.status();
  const v1::DiffReport all_steps = ParseReport(*all);
  for (const v1::HtaRow& row : all_steps.hta_rows()) {
    if (row.name() == "aten::mm") {
      EXPECT_EQ(row.baseline_counts(), 3);
    }
  }
}

TEST(DiffCommandTest, ErrorsNameTheProblem) {
  const fs::path a = WriteRun("diff_ea", 40, true);
  auto one = RunDiffCommand({a.string()});
  EXPECT_THAT(one.status().message(),
              HasSubstr("expected BASELINE and EXPERIMENTAL"));
  auto missing = RunDiffCommand({a.string(), "/no/such/run"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/no/such/run"));
  EXPECT_THAT(RunDiffCommand({a.string(), a.string(), "--view", "bogus"})
                  .status()
                  .message(),
              HasSubstr("--view bogus"));
  EXPECT_THAT(RunDiffCommand({a.string(), a.string(), "--steps", "1"})
                  .status()
                  .message(),
              HasSubstr("apply to --compare hta"));
  EXPECT_THAT(RunDiffCommand(
                  {a.string(), a.string(), "--compare", "hta", "--steps", "9"})
                  .status()
                  .message(),
              HasSubstr("no step 9"));
  EXPECT_THAT(RunDiffCommand({a.string(), a.string(), "--path", "nope"})
                  .status()
                  .message(),
              HasSubstr("no node \"nope\""));
  EXPECT_THAT(RunDiffCommand({a.string(), a.string(), "--ranks", "2-1"})
                  .status()
                  .message(),
              HasSubstr("not a range"));
}

TEST(DiffCommandTest, NumberLists) {
  auto list = ParseNumberList("ranks", "0,2-4,7");
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(*list, testing::ElementsAre(0, 2, 3, 4, 7));
  EXPECT_FALSE(ParseNumberList("ranks", "x").ok());
  EXPECT_FALSE(ParseNumberList("ranks", "").ok());
}

// Issue 32: a run of 1,024 ranks prints its per-rank tables as the ranks that
// matter (the slowest compute and the straggler first) and a line saying how
// many were left out, not 1,024 lines; CSV keeps every rank.
TEST(DiffCommandTest, PerRankTablesOfAThousandRanksShowTheRanksThatMatter) {
  v1::DiffReport report;
  report.mutable_options()->set_top(20);
  report.mutable_options()->set_per_rank(true);
  for (int32_t rank = 0; rank < 1024; ++rank) {
    for (const v1::RunSide side :
         {v1::RUN_SIDE_BASELINE, v1::RUN_SIDE_EXPERIMENTAL}) {
      v1::RankSteps& r = *report.add_ranks();
      r.set_side(side);
      r.set_rank(rank);
      // Rank 700 computes longest on the experimental side.
      const bool slow = rank == 700 && side == v1::RUN_SIDE_EXPERIMENTAL;
      r.set_compute_us(slow ? 9000 : 1000 + rank);
      r.set_slowest_compute(slow);
    }
    v1::CommunicationDiff& c = *report.mutable_communication();
    v1::RankCommunicationDiff& r = *c.add_ranks();
    r.set_rank(rank);
    r.mutable_baseline()->set_instances(16);
    r.mutable_experimental()->set_instances(16);
    // Rank 700 arrives last 16 times in the experimental run; everyone else
    // waits for it.
    r.mutable_experimental()->set_last_arrivals(rank == 700 ? 16 : 0);
    r.mutable_delta()->set_wait_us(rank == 700 ? 0 : 100 + rank % 7);
  }
  v1::CollectiveDiff& row =
      *report.mutable_communication()->add_by_collective();
  row.set_collective("all_reduce");
  absl::StatusOr<std::string> table = RenderDiffReport(report, {});
  ASSERT_TRUE(table.ok()) << table.status();
  const size_t lines =
      static_cast<size_t>(std::count(table->begin(), table->end(), '\n'));
  EXPECT_LT(lines, 120u) << *table;
  EXPECT_THAT(*table, HasSubstr("(2028 more ranks: the slowest of each side"));
  EXPECT_THAT(*table, HasSubstr("(1004 more ranks: those that arrived last"));
  // The straggler is the first row of the communication table, 16/16 last.
  const size_t comm = table->find("Communication per rank");
  ASSERT_NE(comm, std::string::npos);
  const size_t first_row = table->find("\n ", table->find("----", comm));
  EXPECT_THAT(table->substr(first_row, 200), HasSubstr("700"));
  EXPECT_THAT(table->substr(first_row, 200), HasSubstr("16/16"));
  // CSV: a header and every rank, 2 x 1024 per-rank rows, 1024 of the
  // communication table.
  absl::StatusOr<std::vector<CsvFile>> csv =
      RenderDiffCsv(report, {"ranks", "comm_ranks"}, {});
  ASSERT_TRUE(csv.ok()) << csv.status();
  ASSERT_EQ(csv->size(), 2u);
  EXPECT_EQ(std::count((*csv)[0].text.begin(), (*csv)[0].text.end(), '\n'),
            1 + 2048);
  EXPECT_EQ(std::count((*csv)[1].text.begin(), (*csv)[1].text.end(), '\n'),
            1 + 1024);
}

// Issue 44, item 3: on a 2-rank run the per-rank table marked rank 1
// "straggler yes" (most compute) under a line that said "no straggler: rank 1
// last in 68% of collectives". The rank with the most compute and the rank the
// others wait for are named apart, and "straggler" means only the latter.
TEST(DiffCommandTest, SlowestComputeAndStragglerAreNamedApart) {
  v1::DiffReport report;
  report.mutable_options()->set_per_rank(true);
  for (int32_t rank = 0; rank < 2; ++rank) {
    v1::RankSteps& r = *report.add_ranks();
    r.set_side(v1::RUN_SIDE_BASELINE);
    r.set_rank(rank);
    r.set_compute_us(rank == 1 ? 900 : 800);
    r.set_slowest_compute(rank == 1);
  }
  v1::StragglerVerdict verdict;
  verdict.set_matched(50);
  verdict.set_instances(50);
  verdict.set_rank(1);
  verdict.set_last_arrivals(34);
  verdict.set_share(0.68);
  verdict.set_collective("collectives");
  v1::CommunicationDiff& c = *report.mutable_communication();
  c.set_baseline_verdict(differ::StragglerVerdictText(verdict));
  verdict.set_found(true);
  verdict.set_last_arrivals(46);
  verdict.set_share(0.92);
  verdict.set_collective("all_reduce");
  c.set_experimental_verdict(differ::StragglerVerdictText(verdict));
  c.add_by_collective()->set_collective("all_reduce");
  absl::StatusOr<std::string> table = RenderDiffReport(report, {});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table,
              HasSubstr("Communication\n"
                        "  baseline:     no straggler: most often last to "
                        "arrive rank 1, in 68% of collectives (34 of 50)\n"
                        "  experimental: straggler: rank 1, last to arrive in "
                        "92% of all_reduces (46 of 50)\n"));
  // The per-rank table's mark says what it measured, on rank 1's row.
  const size_t header = table->find("slowest compute\n");
  ASSERT_NE(header, std::string::npos) << *table;
  const size_t header_start = table->rfind('\n', header);
  EXPECT_THAT(table->substr(header_start, header - header_start),
              Not(HasSubstr("straggler")));
  const size_t row1 = table->find("\nbaseline     1 ");
  ASSERT_NE(row1, std::string::npos) << *table;
  EXPECT_THAT(table->substr(row1, table->find('\n', row1 + 1) - row1),
              HasSubstr("yes"));
  absl::StatusOr<std::string> json =
      RenderDiffReport(report, {.format = OutputFormat::kJson});
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"slowest_compute\": true"));
  EXPECT_THAT(*json, Not(HasSubstr("\"straggler\"")));
}

// Issue 44, item 6: a count of steps prints as an integer ("5.0 kept steps per
// rank" read as a measurement); a mean over ranks that kept different numbers
// keeps its decimal.
TEST(DiffCommandTest, KeptStepsPerRankPrintAsACount) {
  v1::DiffReport report;
  report.mutable_baseline()->set_run("a");
  report.mutable_baseline()->add_ranks(0);
  report.mutable_baseline()->set_steps_per_rank(5);
  report.mutable_experimental()->set_run("b");
  report.mutable_experimental()->add_ranks(0);
  report.mutable_experimental()->add_ranks(1);
  report.mutable_experimental()->set_steps_per_rank(4.5);
  absl::StatusOr<std::string> table = RenderDiffReport(report, {});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table,
              HasSubstr("a: rank 0, 5 kept steps per rank (0 dropped)"));
  EXPECT_THAT(*table,
              HasSubstr("b: ranks 0,1, 4.5 kept steps per rank (0 dropped)"));
  report.mutable_baseline()->set_steps_per_rank(1);
  table = RenderDiffReport(report, {});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, HasSubstr("a: rank 0, 1 kept step per rank"));
}

// Issue 44, item 2: a real 2-GPU NCCL trace whose collectives record no
// message size printed "0 B -> 0 B" and a bus bandwidth of 0. Unknown is "-",
// with a JSON flag, and no byte change is computed from it.
TEST(DiffCommandTest, CollectivesWithoutASizePrintADash) {
  const fs::path trace = test_support::TracesDir() /
                         "hta/df_index_resolver/df_index_resolver.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "needs " << trace;
  absl::StatusOr<std::string> table = RunDiffCommand(
      {trace.string(), trace.string(), "--view", "comm", "--wide"});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, Not(HasSubstr("0 B -> 0 B")));
  // The pooled row: bytes/call "-", 404 calls a side, bus bandwidth "-".
  EXPECT_THAT(*table, testing::ContainsRegex(
                          "\nall_reduce +default +- +404 +404 [^\n]* - +- +"
                          "unchanged\n"));
  absl::StatusOr<std::string> json = RunDiffCommand(
      {trace.string(), trace.string(), "--view", "comm", "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::DiffReport report;
  ASSERT_TRUE(FromJson(*json, report).ok());
  ASSERT_EQ(report.communication().by_collective_size(), 1);
  const v1::CollectiveDiff& row = report.communication().by_collective(0);
  EXPECT_TRUE(row.baseline_size_missing());
  EXPECT_TRUE(row.experimental_size_missing());
  EXPECT_FALSE(row.bytes_noise().significant());
  // A trace that records its sizes keeps them.
  const fs::path sized =
      test_support::TracesDir() / "hta/nccl_parser_config/nccl_data.json.gz";
  if (!fs::exists(sized)) return;
  json = RunDiffCommand(
      {sized.string(), sized.string(), "--view", "comm", "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  ASSERT_TRUE(FromJson(*json, report).ok());
  ASSERT_GT(report.communication().by_collective_size(), 0);
  for (const v1::CollectiveDiff& r : report.communication().by_collective()) {
    EXPECT_FALSE(r.baseline_size_missing()) << r.collective();
    EXPECT_GT(r.baseline().bytes_per_call(), 0) << r.collective();
  }
}

// Issue 45, item 2: at COLUMNS=120 the kernel, collective and per-rank
// tables of real runs were 141 to 344 columns wide. Every line of every view
// fits now: the H200 pair (kernels, by launching operator too, HTA mode) and
// the 8-rank DLRM run (per rank, communication), and `show` of both.
TEST(DiffCommandTest, EveryTableFitsOnRealRuns) {
  const fs::path traces = test_support::TracesDir();
  const std::string a =
      (traces / "profdiff_h200/transformer-fp32.pt.trace.json.gz").string();
  const std::string b =
      (traces / "profdiff_h200/transformer-bf16.pt.trace.json.gz").string();
  const std::string dlrm = (traces / "param/dlrm_kineto").string();
  if (!fs::exists(a) || !fs::exists(b) || !fs::exists(dlrm))
    GTEST_SKIP() << "needs the H200 pair and param/dlrm_kineto";
  ASSERT_EQ(setenv("COLUMNS", "120", 1), 0);
  const std::vector<std::vector<std::string>> diffs = {
      {a, b, "--view", "all"},
      {a, b, "--view", "kernels", "--kernels-by", "op"},
      {a, b, "--compare", "hta"},
      {dlrm, dlrm, "--view", "all", "--per-rank"},
      {dlrm, dlrm, "--view", "comm", "--ranks", "0,1"}};
  for (const std::vector<std::string>& args : diffs) {
    SCOPED_TRACE(testing::PrintToString(args));
    absl::StatusOr<std::string> out = RunDiffCommand(args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LE(LongestLine(*out), 120u) << *out;
  }
  for (const std::string& run : {a, dlrm}) {
    SCOPED_TRACE(run);
    absl::StatusOr<std::string> out = RunShowCommand({run, "--view", "all"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LE(LongestLine(*out), 120u) << *out;
  }
  unsetenv("COLUMNS");
}

// Issue 48: a gate on rows reads every row, whatever --top prints; the JSON
// carries it, and the command exits 3 with its output.
TEST(DiffCommandTest, AGateOnRowsJudgesEveryRowAndTheJsonCarriesIt) {
  const fs::path dir = test_support::TracesDir() / "profdiff_h200";
  const std::string a = (dir / "transformer-fp32.pt.trace.json.gz").string();
  const std::string b = (dir / "transformer-bf16.pt.trace.json.gz").string();
  if (!fs::exists(a) || !fs::exists(b)) GTEST_SKIP() << "needs " << dir;
  absl::StatusOr<std::string> out =
      RunDiffCommand({a, b, "--view", "kernels", "--top", "2", "--format",
                      "json", "--fail-on", "kernel:nvjet.*>100us"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(ExitCodeOf(out.status()), kExitGateFailed);
  const std::optional<std::string> json = GateFailedOutput(out.status());
  ASSERT_TRUE(json.has_value()) << out.status();
  const v1::DiffReport report = ParseReport(*json);
  EXPECT_EQ(report.kernels_size(), 2);  // --top as asked
  EXPECT_EQ(report.options().top(), 2);
  ASSERT_EQ(report.gate_size(), 1);
  EXPECT_TRUE(report.gate(0).failed());
  // Four nvjet kernels are new at over 100 us per step; none is in the top 2.
  EXPECT_EQ(report.gate(0).crossed_size(), 4);
  for (const v1::KernelDiff& k : report.kernels())
    EXPECT_THAT(k.name(), Not(HasSubstr("nvjet")));
  // Passing: exit 0, the gate in the JSON all the same.
  absl::StatusOr<std::string> passed =
      RunDiffCommand({a, b, "--view", "overview", "--format", "json",
                      "--fail-on", "memory.peak>+512MiB"});
  ASSERT_TRUE(passed.ok()) << passed.status();
  EXPECT_FALSE(ParseReport(*passed).gate(0).failed());
}

// What a stream holds once written: its bytes from the start.
std::string StreamText(std::FILE* stream) {
  std::string text(static_cast<size_t>(std::ftell(stream)), '\0');
  std::rewind(stream);
  EXPECT_EQ(std::fread(text.data(), 1, text.size(), stream), text.size());
  return text;
}

// The CLI hands its stdout over: a JSON report bound for standard output is
// written to it as it is made, byte for byte the text returned without a
// stream, and a failed gate still says so after it (exit 3); a file named by
// -o is written whole, not to the stream.
TEST(DiffCommandTest, JsonForStandardOutputIsStreamedToTheStream) {
  const fs::path dir = test_support::TracesDir() / "profdiff_h200";
  const std::string a = (dir / "transformer-fp32.pt.trace.json.gz").string();
  const std::string b = (dir / "transformer-bf16.pt.trace.json.gz").string();
  if (!fs::exists(a) || !fs::exists(b)) GTEST_SKIP() << "needs " << dir;
  const absl::StatusOr<std::string> whole =
      RunDiffCommand({a, b, "--format", "json"});
  ASSERT_TRUE(whole.ok()) << whole.status();
  std::FILE* stream = std::tmpfile();
  ASSERT_NE(stream, nullptr);
  const absl::StatusOr<std::string> out =
      RunDiffCommand({a, b, "--format", "json", "-o", "-"}, stream);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "");
  EXPECT_EQ(StreamText(stream), *whole);
  std::fclose(stream);

  const std::vector<std::string> gated = {a,      b,           "--format",
                                          "json", "--fail-on", "step_time>+0%"};
  const absl::StatusOr<std::string> failed = RunDiffCommand(gated);
  ASSERT_EQ(ExitCodeOf(failed.status()), kExitGateFailed) << failed.status();
  std::FILE* gate_stream = std::tmpfile();
  ASSERT_NE(gate_stream, nullptr);
  const absl::StatusOr<std::string> streamed_failed =
      RunDiffCommand(gated, gate_stream);
  EXPECT_EQ(ExitCodeOf(streamed_failed.status()), kExitGateFailed);
  EXPECT_EQ(streamed_failed.status().message(), failed.status().message());
  EXPECT_EQ(GateFailedOutput(streamed_failed.status()), "");
  EXPECT_EQ(StreamText(gate_stream), GateFailedOutput(failed.status()));
  std::fclose(gate_stream);

  const std::string file = testing::TempDir() + "/streamed_diff.json";
  std::FILE* unused = std::tmpfile();
  ASSERT_NE(unused, nullptr);
  const absl::StatusOr<std::string> wrote =
      RunDiffCommand({a, b, "--format", "json", "-o", file}, unused);
  ASSERT_TRUE(wrote.ok()) << wrote.status();
  EXPECT_EQ(std::ftell(unused), 0);
  std::fclose(unused);
}

// Issue 48, item 3: one baseline against several runs, in one report.
TEST(DiffCommandTest, SeveralRunsAgainstOneBaseline) {
  const fs::path dir = test_support::TracesDir() / "profdiff_h200";
  const std::string a = (dir / "transformer-fp32.pt.trace.json.gz").string();
  const std::string b = (dir / "transformer-bf16.pt.trace.json.gz").string();
  if (!fs::exists(a) || !fs::exists(b)) GTEST_SKIP() << "needs " << dir;
  ASSERT_EQ(setenv("COLUMNS", "120", 1), 0);
  absl::StatusOr<std::string> table = RunDiffCommand(
      {a, b, a, "--view", "findings,overview,modules,operators,kernels",
       "--top", "5"});
  unsetenv("COLUMNS");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, HasSubstr("run 1        transformer-bf16: rank 0"));
  EXPECT_THAT(*table, HasSubstr("run 2        transformer-fp32: rank 0"));
  EXPECT_THAT(*table, HasSubstr("== run 1 (transformer-bf16) against the "
                                "baseline ==\nWhat changed\n 1. Step time "
                                "24.6 ms -> 30.7 ms per step"));
  EXPECT_THAT(*table, HasSubstr("== run 2 (transformer-fp32) against the "
                                "baseline ==\nWhat changed\n 1. No "
                                "significant change"));
  EXPECT_THAT(*table, testing::ContainsRegex(
                          "Average step time \\(us\\) +24647.6 +30717.8 "
                          "+\\+24.6%\\* +24647.6 +\\+0.0%"));
  EXPECT_THAT(*table,
              testing::ContainsRegex(
                  "\naten::mm +device +12185.1 +-11230.8\\* +\\+0.0\n"));
  EXPECT_LE(LongestLine(*table), 120u) << *table;
  // JSON: each run's report, as the pair's own diff makes it.
  absl::StatusOr<std::string> json =
      RunDiffCommand({a, b, a, "--view", "overview", "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::MultiDiffReport many;
  ASSERT_TRUE(FromJson(*json, many).ok());
  ASSERT_EQ(many.reports_size(), 2);
  absl::StatusOr<std::string> pair =
      RunDiffCommand({a, b, "--view", "overview", "--format", "json"});
  ASSERT_TRUE(pair.ok()) << pair.status();
  v1::DiffReport first = many.reports(0);
  const v1::DiffReport alone = ParseReport(*pair);
  EXPECT_EQ(first.overview().DebugString(), alone.overview().DebugString());
  EXPECT_EQ(many.reports(1).experimental().run(), "transformer-fp32");
  // HTML: the side-by-side overview and each pair's page in a frame.
  const fs::path html =
      fs::path(::testing::TempDir()) / "several_runs_report.html";
  absl::StatusOr<std::string> wrote =
      RunDiffCommand({a, b, a, "-o", html.string()});
  ASSERT_TRUE(wrote.ok()) << wrote.status();
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_THAT(page, HasSubstr("<table id=\"overview\">"));
  size_t frames = 0;
  for (size_t at = page.find("<iframe"); at != std::string::npos;
       at = page.find("<iframe", at + 1))
    ++frames;
  EXPECT_EQ(frames, 2u);
  EXPECT_THAT(page, Not(testing::ContainsRegex("https?://")));
  // The gate judges every run: run 1 crosses it (exit 3).
  absl::StatusOr<std::string> gated = RunDiffCommand(
      {a, b, a, "--view", "overview", "--fail-on", "step_time>5%"});
  ASSERT_FALSE(gated.ok());
  EXPECT_EQ(ExitCodeOf(gated.status()), kExitGateFailed);
  EXPECT_THAT(gated.status().message(),
              HasSubstr("transformer-bf16: step_time>5%"));
  EXPECT_THAT(gated.status().message(), Not(HasSubstr("transformer-fp32:")));
  // What several runs do not take.
  absl::StatusOr<std::string> csv =
      RunDiffCommand({a, b, a, "--view", "overview", "--format", "csv"});
  EXPECT_FALSE(csv.ok());
  EXPECT_THAT(csv.status().message(),
              HasSubstr("--format csv compare two runs"));
  absl::StatusOr<std::string> mixed = RunDiffCommand(
      {a, b, "some-run", "--server", "127.0.0.1:1", "--view", "overview"});
  EXPECT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("not a mix"));
}

}  // namespace
}  // namespace profdiff::client
