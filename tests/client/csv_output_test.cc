// `--format csv` end to end (issue 45, item 4): one plain table per view that
// loads, several views refused on standard output and written one file each
// to -o DIR/; and `-o FILE` picking the format from its extension (item 3).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <absl/strings/numbers.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/command_line.h"
#include "client/diff_command.h"
#include "client/json_output.h"
#include "client/show_command.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A CSV table read back as RFC 4180 says: the header, then rows of cells.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // The cell of `column` in row `row` ("" and a failure without the column).
  std::string Cell(size_t row, const std::string& column) const {
    const auto it = std::find(header.begin(), header.end(), column);
    if (it == header.end() || row >= rows.size()) {
      ADD_FAILURE() << "no " << column << " in row " << row;
      return "";
    }
    return rows[row][static_cast<size_t>(it - header.begin())];
  }
  // The first row whose `column` is `value` (rows.size() when none).
  size_t Find(const std::string& column, const std::string& value) const {
    for (size_t r = 0; r < rows.size(); ++r) {
      if (Cell(r, column) == value) return r;
    }
    return rows.size();
  }
};

Csv ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> lines(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell.push_back(c);
      }
    } else if (c == '"' && cell.empty()) {
      quoted = true;
    } else if (c == ',') {
      lines.back().push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      lines.back().push_back(std::move(cell));
      cell.clear();
      lines.emplace_back();
    } else {
      cell.push_back(c);
    }
  }
  EXPECT_FALSE(quoted) << "an unterminated quote";
  EXPECT_TRUE(lines.back().empty() && cell.empty()) << "no final newline";
  lines.pop_back();
  Csv csv;
  if (lines.empty()) {
    ADD_FAILURE() << "no header row";
    return csv;
  }
  csv.header = lines.front();
  csv.rows.assign(lines.begin() + 1, lines.end());
  for (const std::vector<std::string>& row : csv.rows)
    EXPECT_EQ(row.size(), csv.header.size()) << text.substr(0, 300);
  return csv;
}

double Number(const std::string& cell) {
  double value = 0;
  EXPECT_TRUE(absl::SimpleAtod(cell, &value)) << "not a number: " << cell;
  return value;
}

// A text cell of a table: names, paths, shapes, enum words.
bool IsTextColumn(const std::string& column) {
  static const std::set<std::string> kText = {"name",
                                              "input_shapes",
                                              "op_name",
                                              "change",
                                              "compared",
                                              "path",
                                              "index_path",
                                              "baseline_name",
                                              "experimental_name",
                                              "status",
                                              "kind",
                                              "metric",
                                              "unit",
                                              "baseline_text",
                                              "experimental_text",
                                              "text",
                                              "side",
                                              "worker_name",
                                              "collective",
                                              "process_group",
                                              "dtype",
                                              "device",
                                              "operator_name",
                                              "verdict",
                                              "straggler_collective",
                                              "backend",
                                              "device_name",
                                              "peak_operator",
                                              "peak_module",
                                              "baseline_peak_operator_name",
                                              "baseline_peak_module_path",
                                              "experimental_peak_operator_name",
                                              "experimental_peak_module_path"};
  return kText.contains(column);
}

bool IsBoolColumn(const std::string& column) {
  return column.ends_with("significant") || column == "slowest_compute" ||
         column == "straggler_found" || column == "allocated_from_bytes";
}

// Every column is snake_case and named once; every number is a plain number
// (no '+', '%', unit or word) or empty; every boolean true or false.
void ExpectLoads(const Csv& csv, const std::string& what) {
  SCOPED_TRACE(what);
  std::set<std::string> seen;
  for (const std::string& column : csv.header) {
    EXPECT_TRUE(seen.insert(column).second) << "twice: " << column;
    EXPECT_FALSE(column.empty());
    EXPECT_TRUE(std::all_of(column.begin(), column.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    })) << column;
  }
  for (const std::vector<std::string>& row : csv.rows) {
    for (size_t c = 0; c < csv.header.size() && c < row.size(); ++c) {
      const std::string& column = csv.header[c];
      const std::string& cell = row[c];
      if (IsTextColumn(column)) continue;
      if (IsBoolColumn(column)) {
        EXPECT_TRUE(cell == "true" || cell == "false" || cell.empty())
            << column << "=" << cell;
        continue;
      }
      if (cell.empty()) continue;
      EXPECT_EQ(cell.find_first_not_of("-0123456789.e"), std::string::npos)
          << column << "=" << cell;
      double value = 0;
      EXPECT_TRUE(absl::SimpleAtod(cell, &value)) << column << "=" << cell;
    }
  }
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One worker with 3 steps of 100 us; step s runs aten::mm for mm_us + s and,
// when `with_add`, aten::add for 5 us.
fs::path WriteRun(const std::string& name, int mm_us, bool with_add) {
  fs::path dir = fs::path(testing::TempDir()) / "csv_output" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream out(dir / "worker0.1000.pt.trace.json");
  out << R"({"traceEvents": [)";
  for (int s = 0; s < 3; ++s) {
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

// A folder of the test's own, empty.
fs::path EmptyFolder(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / "csv_output" / name;
  fs::remove_all(dir);
  return dir;
}

// The diff tables, in the order -o DIR/ writes them.
const std::vector<std::string> kDiffTables = {
    "findings",           "overview",         "modules",
    "operators",          "kernels",          "ranks",
    "comm_by_collective", "comm_collectives", "comm_ranks",
    "comm_stragglers",    "memory_devices",   "memory_holders",
    "memory_operators",   "memory_modules"};

TEST(DiffCsvTest, OneViewIsOnePlainTableOfNumbers) {
  const std::string a = WriteRun("ops_a", 40, true).string();
  const std::string b = WriteRun("ops_b", 60, false).string();
  auto out = RunDiffCommand({a, b, "--format", "csv", "--view", "operators"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(*out, StartsWith("name,input_shapes,change,compared,"
                               "baseline_calls,baseline_host_self_us,"
                               "baseline_host_total_us,"));
  const Csv csv = ParseCsv(*out);
  ExpectLoads(csv, "operators");
  ASSERT_EQ(csv.rows.size(), 2u);
  // aten::mm ran 40, 41, 42 us a step in the baseline (mean 41) and 60, 61,
  // 62 in the experimental run (mean 61): +20 us, 20 / 41 = +48.78%.
  const size_t mm = csv.Find("name", "aten::mm");
  ASSERT_LT(mm, csv.rows.size());
  EXPECT_EQ(csv.Cell(mm, "change"), "increased");
  EXPECT_EQ(csv.Cell(mm, "compared"), "host_total_us");
  EXPECT_EQ(csv.Cell(mm, "baseline_calls"), "1");
  EXPECT_EQ(csv.Cell(mm, "baseline_host_total_us"), "41");
  EXPECT_EQ(csv.Cell(mm, "experimental_host_total_us"), "61");
  EXPECT_EQ(csv.Cell(mm, "delta_host_total_us"), "20");
  EXPECT_EQ(csv.Cell(mm, "delta_pct_host_total_us"), "48.7804878049");
  // Each side's three samples are 1 us apart: standard deviation 1.
  EXPECT_EQ(csv.Cell(mm, "noise_baseline_stddev_us"), "1");
  EXPECT_EQ(csv.Cell(mm, "noise_significant"), "true");
  EXPECT_LT(Number(csv.Cell(mm, "noise_ci_low_us")), 20);
  EXPECT_GT(Number(csv.Cell(mm, "noise_ci_high_us")), 20);
  // aten::add ran 5 us a step, then not at all.
  const size_t add = csv.Find("name", "aten::add");
  ASSERT_LT(add, csv.rows.size());
  EXPECT_EQ(csv.Cell(add, "change"), "deleted");
  EXPECT_EQ(csv.Cell(add, "experimental_calls"), "0");
  EXPECT_EQ(csv.Cell(add, "delta_host_total_us"), "-5");
  EXPECT_EQ(csv.Cell(add, "delta_pct_host_total_us"), "-100");
}

TEST(DiffCsvTest, WhatASideDoesNotHaveIsAnEmptyCell) {
  const std::string a = WriteRun("missing_a", 40, true).string();
  const std::string b = WriteRun("missing_b", 60, false).string();
  auto out = RunDiffCommand({a, b, "--format", "csv", "--view", "overview"});
  ASSERT_TRUE(out.ok()) << out.status();
  const Csv csv = ParseCsv(*out);
  ExpectLoads(csv, "overview");
  // CPU runs: no GPU utilization on either side, no delta of it.
  const size_t gpu = csv.Find("metric", "GPU utilization");
  ASSERT_LT(gpu, csv.rows.size());
  EXPECT_EQ(csv.Cell(gpu, "baseline"), "");
  EXPECT_EQ(csv.Cell(gpu, "delta"), "");
  EXPECT_EQ(csv.Cell(gpu, "delta_pct"), "");
  // The device row is text.
  const size_t device = csv.Find("metric", "Device");
  ASSERT_LT(device, csv.rows.size());
  EXPECT_EQ(csv.Cell(device, "baseline"), "");
  EXPECT_EQ(csv.Cell(device, "baseline_text"), "CPU");
  // CPU Exec: mm and add, 41 + 5 = 46 us a step, then mm alone, 61 us.
  const size_t exec = csv.Find("metric", "CPU Exec");
  ASSERT_LT(exec, csv.rows.size());
  EXPECT_EQ(csv.Cell(exec, "unit"), "us");
  EXPECT_EQ(csv.Cell(exec, "baseline"), "46");
  EXPECT_EQ(csv.Cell(exec, "experimental"), "61");
  EXPECT_EQ(csv.Cell(exec, "delta"), "15");
}

TEST(DiffCsvTest, SeveralTablesToStandardOutputAreRefusedWithTheWayOut) {
  const std::string a = WriteRun("refused_a", 40, true).string();
  for (const std::vector<std::string>& views :
       {std::vector<std::string>{},
        {"--view", "overview,operators"},
        {"--view", "operators", "--view", "kernels"},
        {"--view", "comm"},
        {"--view", "memory"}}) {
    std::vector<std::string> args = {a, a, "--format", "csv"};
    args.insert(args.end(), views.begin(), views.end());
    auto out = RunDiffCommand(args);
    ASSERT_FALSE(out.ok()) << args.size();
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ExitCodeOf(out.status()), 2);
    EXPECT_THAT(out.status().message(),
                HasSubstr("--format csv prints one table"));
    EXPECT_THAT(
        out.status().message(),
        HasSubstr("pick one with --view, or write every view with -o DIR/"));
  }
  // One file holds one table too.
  const fs::path file = EmptyFolder("refused_file") / "report.csv";
  auto out = RunDiffCommand({a, a, "-o", file.string()});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("-o " + file.string() + " holds one CSV table"));
  EXPECT_FALSE(fs::exists(file));
  // A table of a view of several is one.
  auto table =
      RunDiffCommand({a, a, "--format", "csv", "--view", "comm_ranks"});
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(*table, StartsWith("rank,baseline_collective_us,"));
  // Other formats take the view, not its tables.
  EXPECT_THAT(RunDiffCommand({a, a, "--view", "comm_ranks"}).status().message(),
              HasSubstr("--view comm_ranks: a table of --format csv; the "
                        "other formats take its view (comm)"));
}

TEST(DiffCsvTest, AFolderGetsOneFilePerTable) {
  const std::string a = WriteRun("folder_a", 40, true).string();
  const std::string b = WriteRun("folder_b", 60, false).string();
  const fs::path dir = EmptyFolder("folder_out");
  // No --format: a folder is CSV, every view by default.
  auto out = RunDiffCommand({a, b, "-o", dir.string() + "/"});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<std::string> written;
  for (const std::string& table : kDiffTables) {
    const fs::path file = dir / (table + ".csv");
    EXPECT_THAT(*out, HasSubstr("wrote " + file.string() + " ("));
    ASSERT_TRUE(fs::exists(file)) << file;
    ExpectLoads(ParseCsv(ReadFile(file)), table);
  }
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, kDiffTables.size());
  EXPECT_EQ(ParseCsv(ReadFile(dir / "operators.csv")).rows.size(), 2u);
  // The per-rank table is in every view's CSV: one row per side.
  EXPECT_EQ(ParseCsv(ReadFile(dir / "ranks.csv")).rows.size(), 2u);

  // An existing folder named without the slash; the views asked only.
  const fs::path some = EmptyFolder("folder_some");
  fs::create_directories(some);
  auto two = RunDiffCommand({a, b, "--format", "csv", "--view",
                             "kernels,comm_ranks", "-o", some.string()});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_TRUE(fs::exists(some / "kernels.csv"));
  EXPECT_TRUE(fs::exists(some / "comm_ranks.csv"));
  EXPECT_FALSE(fs::exists(some / "operators.csv"));
  EXPECT_FALSE(fs::exists(some / "comm_collectives.csv"));
}

TEST(DiffCsvTest, TheModuleTreeIsWholeUnlessDepthOrFilterPickRows) {
  const std::string a = WriteRun("tree_a", 40, true).string();
  const std::string b = WriteRun("tree_b", 60, false).string();
  auto names = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {a,     b,        "--format",
                                     "csv", "--view", "modules"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto out = RunDiffCommand(args);
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<std::string> rows;
    if (!out.ok()) return rows;
    const Csv csv = ParseCsv(*out);
    ExpectLoads(csv, "modules");
    for (size_t r = 0; r < csv.rows.size(); ++r)
      rows.push_back(csv.Cell(r, "depth") + " " + csv.Cell(r, "name"));
    return rows;
  };
  // The operator tree under the step: aten::mm, aten::add and the time
  // neither covers.
  EXPECT_THAT(names({}), ElementsAre("0 (root)", "1 aten::mm", "1 aten::add",
                                     "1 (unknown)"));
  EXPECT_THAT(names({"--depth", "0"}), ElementsAre("0 (root)"));
  EXPECT_THAT(names({"--filter", "mm"}), ElementsAre("0 (root)", "1 aten::mm"));
}

TEST(DiffCsvTest, HtaModeHasTheColumnsOfCompareTraces) {
  const std::string a = WriteRun("hta_a", 40, true).string();
  const std::string b = WriteRun("hta_b", 60, false).string();
  auto out = RunDiffCommand({a, b, "--compare", "hta", "--format", "csv"});
  ASSERT_TRUE(out.ok()) << out.status();
  // TraceDiff.compare_traces(dir_a, dir_b).to_csv(): its labels are Control
  // and Test.
  const Csv csv = ParseCsv(*out);
  EXPECT_THAT(csv.header,
              ElementsAre("name", "Control_counts", "Control_total_duration",
                          "Test_counts", "Test_total_duration", "diff_counts",
                          "diff_duration", "counts_change_categories"));
  // HTA takes the first step: aten::mm 40 us, then 60 us; aten::add 5 us,
  // then none.
  const size_t mm = csv.Find("name", "aten::mm");
  ASSERT_LT(mm, csv.rows.size());
  EXPECT_EQ(csv.Cell(mm, "Control_total_duration"), "40");
  EXPECT_EQ(csv.Cell(mm, "Test_total_duration"), "60");
  EXPECT_EQ(csv.Cell(mm, "diff_duration"), "20");
  EXPECT_EQ(csv.Cell(mm, "counts_change_categories"), "=");
  const size_t add = csv.Find("name", "aten::add");
  ASSERT_LT(add, csv.rows.size());
  EXPECT_EQ(csv.Cell(add, "Test_counts"), "0");
  EXPECT_EQ(csv.Cell(add, "diff_counts"), "-1");
  EXPECT_EQ(csv.Cell(add, "counts_change_categories"), "-");
  // use_short_name=True names the column short_name; HTA mode is one table
  // whatever --view says, and -o DIR/ writes it as hta.csv.
  auto short_names = RunDiffCommand(
      {a, b, "--compare", "hta", "--format", "csv", "--short-names"});
  ASSERT_TRUE(short_names.ok()) << short_names.status();
  EXPECT_THAT(*short_names, StartsWith("short_name,Control_counts,"));
  const fs::path dir = EmptyFolder("hta_out");
  auto folder =
      RunDiffCommand({a, b, "--compare", "hta", "-o", dir.string() + "/"});
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(ReadFile(dir / "hta.csv"), *out);
}

// The H200 pair (fp32 against bf16 autocast): every table loads, and its
// numbers are the JSON report's.
TEST(DiffCsvTest, EveryTableOfTheH200PairLoadsAndAgreesWithTheJson) {
  const fs::path dir = test_support::TracesDir() / "profdiff_h200";
  const fs::path a = dir / "transformer-fp32.pt.trace.json.gz";
  const fs::path b = dir / "transformer-bf16.pt.trace.json.gz";
  if (!fs::exists(a) || !fs::exists(b))
    GTEST_SKIP() << "needs " << a << ", " << b;
  std::map<std::string, Csv> tables;
  for (const std::string& table : kDiffTables) {
    auto out = RunDiffCommand(
        {a.string(), b.string(), "--format", "csv", "--view", table});
    ASSERT_TRUE(out.ok()) << table << ": " << out.status();
    tables[table] = ParseCsv(*out);
    ExpectLoads(tables[table], table);
  }
  auto json = RunDiffCommand(
      {a.string(), b.string(), "--format", "json", "--per-rank"});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::DiffReport report;
  ASSERT_TRUE(FromJson(*json, report).ok());

  // A number as the CSV writes it, read back, is the JSON's to 12 digits.
  auto expect_same = [](const std::string& cell, double json_value,
                        const std::string& what) {
    EXPECT_NEAR(Number(cell), json_value, 1e-9 + 1e-11 * std::abs(json_value))
        << what;
  };
  const Csv& operators = tables["operators"];
  ASSERT_EQ(operators.rows.size(),
            static_cast<size_t>(report.operators_size()));
  for (int i = 0; i < report.operators_size(); ++i) {
    const v1::OperatorDiff& row = report.operators(i);
    const size_t r = static_cast<size_t>(i);
    EXPECT_EQ(operators.Cell(r, "name"), row.name());
    expect_same(operators.Cell(r, "baseline_host_total_us"),
                row.baseline().host_total_us(), row.name());
    expect_same(operators.Cell(r, "experimental_device_total_us"),
                row.experimental().device_total_us(), row.name());
    expect_same(operators.Cell(r, "delta_device_self_us"),
                row.delta().device_self_us(), row.name());
  }
  // Issue 43's pair: aten::mm ran 38 times a step on both sides, its device
  // time fell by 92%.
  const size_t mm = operators.Find("name", "aten::mm");
  ASSERT_LT(mm, operators.rows.size());
  EXPECT_EQ(operators.Cell(mm, "baseline_calls"), "38");
  EXPECT_EQ(operators.Cell(mm, "experimental_calls"), "38");
  EXPECT_EQ(operators.Cell(mm, "change"), "decreased");
  EXPECT_LT(Number(operators.Cell(mm, "delta_pct_device_total_us")), -90);

  const Csv& kernels = tables["kernels"];
  ASSERT_EQ(kernels.rows.size(), static_cast<size_t>(report.kernels_size()));
  for (int i = 0; i < report.kernels_size(); ++i) {
    const v1::KernelDiff& row = report.kernels(i);
    const size_t r = static_cast<size_t>(i);
    EXPECT_EQ(kernels.Cell(r, "name"), row.name());  // whole, never cut
    expect_same(kernels.Cell(r, "delta_total_us"), row.delta().total_us(),
                row.name());
    // A kernel one side never launched has no mean there.
    if (row.change() == v1::CHANGE_DELETED)
      EXPECT_EQ(kernels.Cell(r, "experimental_mean_us"), "");
  }

  // The module tree, every node (no --depth), in tree order.
  const Csv& modules = tables["modules"];
  std::vector<const v1::ModuleDiffNode*> nodes;
  std::function<void(const v1::ModuleDiffNode&)> walk =
      [&](const v1::ModuleDiffNode& node) {
        nodes.push_back(&node);
        for (const v1::ModuleDiffNode& child : node.children()) walk(child);
      };
  walk(report.modules());
  ASSERT_EQ(modules.rows.size(), nodes.size());
  for (size_t r = 0; r < nodes.size(); ++r) {
    EXPECT_EQ(modules.Cell(r, "index_path"), nodes[r]->index_path());
    expect_same(modules.Cell(r, "delta_compare_us"),
                nodes[r]->delta().compare_us(), nodes[r]->path());
  }
  EXPECT_EQ(modules.Cell(0, "depth"), "0");

  EXPECT_EQ(tables["findings"].Cell(0, "kind"), "step_time");
  EXPECT_EQ(tables["findings"].rows.size(),
            static_cast<size_t>(report.findings_size()));
  const Csv& devices = tables["memory_devices"];
  const size_t cuda = devices.Find("device", "cuda:0");
  ASSERT_LT(cuda, devices.rows.size());
  for (const v1::DeviceMemoryDiff& d : report.memory().devices()) {
    if (d.device() != "cuda:0") continue;
    expect_same(devices.Cell(cuda, "baseline_peak_bytes"),
                d.baseline_peak_bytes(), "peak");
    EXPECT_EQ(devices.Cell(cuda, "baseline_peak_step"),
              std::to_string(d.baseline_peak().step()));
  }
  EXPECT_EQ(tables["memory_operators"].rows.size(),
            static_cast<size_t>(report.memory().operators_size()));
  EXPECT_EQ(tables["ranks"].rows.size(), 2u);
}

// The 8-rank DLRM run against itself: the communication tables load, with
// every rank and the straggler verdict.
TEST(DiffCsvTest, CommunicationOfTheDlrmRunLoads) {
  const fs::path dlrm = test_support::TracesDir() / "param/dlrm_kineto";
  if (!fs::exists(dlrm)) GTEST_SKIP() << "needs " << dlrm;
  const fs::path dir = EmptyFolder("dlrm_out");
  auto out = RunDiffCommand({dlrm.string(), dlrm.string(), "--view", "comm",
                             "-o", dir.string() + "/"});
  ASSERT_TRUE(out.ok()) << out.status();
  for (const char* table : {"comm_by_collective", "comm_collectives",
                            "comm_ranks", "comm_stragglers"}) {
    ExpectLoads(ParseCsv(ReadFile(dir / (std::string(table) + ".csv"))), table);
  }
  const Csv ranks = ParseCsv(ReadFile(dir / "comm_ranks.csv"));
  EXPECT_EQ(ranks.rows.size(), 8u);
  const Csv stragglers = ParseCsv(ReadFile(dir / "comm_stragglers.csv"));
  ASSERT_EQ(stragglers.rows.size(), 2u);
  EXPECT_EQ(stragglers.Cell(0, "side"), "baseline");
  EXPECT_THAT(stragglers.Cell(0, "verdict"), HasSubstr("rank"));
  const Csv pooled = ParseCsv(ReadFile(dir / "comm_by_collective.csv"));
  const size_t all_reduce = pooled.Find("collective", "all_reduce");
  ASSERT_LT(all_reduce, pooled.rows.size());
  // Pooled over message sizes: no one size.
  EXPECT_EQ(pooled.Cell(all_reduce, "bytes_per_call"), "");
  EXPECT_EQ(pooled.Cell(all_reduce, "change"), "unchanged");
  EXPECT_EQ(pooled.Cell(all_reduce, "delta_time_us"), "0");
}

// A two-rank gloo run: rank 1's step is 30 us longer.
fs::path WriteTwoRanks(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) / "csv_output" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    std::ofstream(dir / ("rank" + std::to_string(rank) + ".1000.pt.trace.json"))
        << R"({"distributedInfo": {"backend": "gloo", "rank": )" << rank
        << R"(, "world_size": 2},
              "traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": )"
        << 100 + 30 * rank << R"(},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
          {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 60, "dur": 5}]})";
  }
  return dir;
}

const std::vector<std::string> kShowTables = {
    "overview", "steps", "operators", "kernels", "modules", "memory"};

TEST(ShowCsvTest, EveryViewIsOneTableLedByTheWorker) {
  const std::string run = WriteTwoRanks("show_views").string();
  for (const std::string& view : kShowTables) {
    auto out = RunShowCommand({run, "--format", "csv", "--view", view});
    ASSERT_TRUE(out.ok()) << view << ": " << out.status();
    EXPECT_THAT(*out, StartsWith("worker_name,rank,")) << view;
    ExpectLoads(ParseCsv(*out), view);
  }
  auto out = RunShowCommand({run, "--format", "csv", "--view", "operators"});
  ASSERT_TRUE(out.ok()) << out.status();
  const Csv csv = ParseCsv(*out);
  ASSERT_EQ(csv.rows.size(), 4u);  // two operators of two workers
  // One step: aten::mm's 40 us are its total and its value per step.
  EXPECT_EQ(csv.Cell(0, "worker_name"), "rank0");
  EXPECT_EQ(csv.Cell(0, "name"), "aten::mm");
  EXPECT_EQ(csv.Cell(0, "host_total_us"), "40");
  EXPECT_EQ(csv.Cell(0, "per_step_host_total_us"), "40");
  EXPECT_EQ(csv.Cell(2, "rank"), "1");
  auto steps = RunShowCommand({run, "--format", "csv", "--view", "steps"});
  ASSERT_TRUE(steps.ok()) << steps.status();
  const Csv step_rows = ParseCsv(*steps);
  ASSERT_EQ(step_rows.rows.size(), 2u);
  EXPECT_EQ(step_rows.Cell(0, "step"), "7");
  EXPECT_EQ(step_rows.Cell(1, "duration_us"), "130");
  // The overview: a CPU run has no GPU utilization, not 0.
  auto overview =
      RunShowCommand({run, "--format", "csv", "--view", "overview"});
  ASSERT_TRUE(overview.ok()) << overview.status();
  EXPECT_EQ(ParseCsv(*overview).Cell(1, "gpu_utilization"), "");
  EXPECT_EQ(ParseCsv(*overview).Cell(1, "average_step_duration_us"), "130");

  auto all = RunShowCommand({run, "--format", "csv"});
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(all.status().message(),
              HasSubstr("--format csv prints one table, and --view all has"));
}

TEST(ShowCsvTest, AFolderGetsOneFilePerView) {
  const std::string run = WriteTwoRanks("show_folder").string();
  const fs::path dir = EmptyFolder("show_folder_out");
  auto out = RunShowCommand({run, "-o", dir.string() + "/"});
  ASSERT_TRUE(out.ok()) << out.status();
  for (const std::string& view : kShowTables) {
    EXPECT_THAT(*out, HasSubstr("wrote " + (dir / (view + ".csv")).string()));
    ExpectLoads(ParseCsv(ReadFile(dir / (view + ".csv"))), view);
  }
}

TEST(ShowCsvTest, EveryViewOfTheH200TraceAgreesWithTheJson) {
  const fs::path trace = test_support::TracesDir() /
                         "profdiff_h200/transformer-fp32.pt.trace.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << "needs " << trace;
  const fs::path dir = EmptyFolder("show_h200");
  auto out = RunShowCommand({trace.string(), "-o", dir.string() + "/"});
  ASSERT_TRUE(out.ok()) << out.status();
  std::map<std::string, Csv> tables;
  for (const std::string& view : kShowTables) {
    tables[view] = ParseCsv(ReadFile(dir / (view + ".csv")));
    ExpectLoads(tables[view], view);
  }
  auto json = RunShowCommand({trace.string(), "--format", "json"});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::RunProfile run;
  ASSERT_TRUE(FromJson(*json, run).ok());
  const v1::WorkerProfile& w = run.workers(0);
  ASSERT_EQ(tables["kernels"].rows.size(),
            static_cast<size_t>(w.kernels_size()));
  for (int i = 0; i < w.kernels_size(); ++i) {
    EXPECT_EQ(tables["kernels"].Cell(static_cast<size_t>(i), "name"),
              w.kernels(i).name());
    EXPECT_NEAR(Number(tables["kernels"].Cell(static_cast<size_t>(i),
                                              "per_step_total_us")),
                w.kernels(i).per_step().total_us(),
                1e-9 + 1e-11 * w.kernels(i).per_step().total_us());
  }
  EXPECT_EQ(tables["steps"].rows.size(), static_cast<size_t>(w.steps_size()));
  EXPECT_EQ(tables["overview"].Cell(0, "device_name"), "NVIDIA H200");
  const size_t cuda = tables["memory"].Find("device", "cuda:0");
  ASSERT_LT(cuda, tables["memory"].rows.size());
  EXPECT_EQ(tables["memory"].Cell(cuda, "event_count"), "3710");
}

TEST(OutputByExtensionTest, DiffPicksTheFormatFromTheFileName) {
  const std::string a = WriteRun("ext_a", 40, true).string();
  const std::string b = WriteRun("ext_b", 60, false).string();
  const fs::path dir = EmptyFolder("ext_out");
  fs::create_directories(dir);
  auto html = RunDiffCommand({a, b, "-o", (dir / "report.html").string()});
  ASSERT_TRUE(html.ok()) << html.status();
  EXPECT_THAT(ReadFile(dir / "report.html"), StartsWith("<!DOCTYPE html>"));
  auto json = RunDiffCommand({a, b, "-o", (dir / "report.JSON").string()});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::DiffReport report;
  EXPECT_TRUE(FromJson(ReadFile(dir / "report.JSON"), report).ok());
  auto csv = RunDiffCommand(
      {a, b, "--view", "kernels", "--output", (dir / "kernels.csv").string()});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(ReadFile(dir / "kernels.csv"), StartsWith("name,op_name,"));
  // Any other name: --format, else the table.
  auto text = RunDiffCommand({a, b, "-o", (dir / "report.txt").string()});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(ReadFile(dir / "report.txt"), StartsWith("baseline     "));
  auto named = RunDiffCommand(
      {a, b, "--format", "json", "-o", (dir / "report.out").string()});
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_THAT(ReadFile(dir / "report.out"), StartsWith("{"));
  // The same format said twice is no conflict.
  EXPECT_TRUE(RunDiffCommand({a, b, "--format", "html", "-o",
                              (dir / "again.html").string()})
                  .ok());
}

TEST(OutputByExtensionTest, AFormatTheFileNameContradictsIsAnError) {
  const std::string a = WriteRun("conflict_a", 40, true).string();
  const fs::path dir = EmptyFolder("conflict_out");
  fs::create_directories(dir);
  const std::string html = (dir / "report.html").string();
  auto out = RunDiffCommand({a, a, "-o", html, "--format", "json"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ExitCodeOf(out.status()), 2);
  EXPECT_THAT(out.status().message(),
              StartsWith("-o " + html +
                         " with --format json: the file name "
                         "asks for html"));
  EXPECT_FALSE(fs::exists(html));
  auto table = RunDiffCommand(
      {a, a, "--format", "table", "-o", (dir / "x.csv").string()});
  EXPECT_THAT(table.status().message(),
              HasSubstr("with --format table: the file name asks for csv"));
  // A folder is CSV's.
  auto folder = RunDiffCommand(
      {a, a, "--format", "json", "-o", (dir / "tables").string() + "/"});
  EXPECT_THAT(folder.status().message(),
              HasSubstr("a folder holds one CSV file per view"));
}

TEST(OutputByExtensionTest, ShowHasNoHtmlAndSaysSo) {
  const std::string run = WriteTwoRanks("show_html").string();
  const fs::path dir = EmptyFolder("show_html_out");
  fs::create_directories(dir);
  const std::string html = (dir / "profile.html").string();
  auto out = RunShowCommand({run, "-o", html});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(ExitCodeOf(out.status()), 2);
  EXPECT_THAT(out.status().message(),
              HasSubstr("-o " + html +
                        ": show has no html format (it writes "
                        "table, json or csv)"));
  EXPECT_FALSE(fs::exists(html));
  auto json = RunShowCommand({run, "-o", (dir / "profile.json").string()});
  ASSERT_TRUE(json.ok()) << json.status();
  v1::RunProfile profile;
  EXPECT_TRUE(FromJson(ReadFile(dir / "profile.json"), profile).ok());
  EXPECT_EQ(profile.workers_size(), 2);
  auto csv = RunShowCommand(
      {run, "--view", "steps", "-o", (dir / "steps.csv").string()});
  ASSERT_TRUE(csv.ok()) << csv.status();
  EXPECT_THAT(ReadFile(dir / "steps.csv"),
              StartsWith("worker_name,rank,step,"));
}

}  // namespace
}  // namespace profdiff::client
