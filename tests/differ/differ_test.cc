// DiffRuns on hand-built profiles (normalisation, rank selection, missing
// values, the slowest compute) and the differ on real traces from
// PROFDIFF_TRACES (hardware pair, repeat runs, DataLoader, row controls). The
// module diff's and the row order's own tests are module_diff_test.cc and
// row_order_test.cc.
#include "differ/differ.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/run_digest.h"
#include "analysis/run_loader.h"
#include "base/str_cat.h"
#include "tests/differ/hand_built_run.h"
#include "tests/support/real_pairs.h"
#include "tests/support/traces_dir.h"

namespace profdiff::differ {
namespace {

namespace fs = std::filesystem;
using testing::Child;
using testing::MakeRun;

// --- hand-built profiles (tests/differ/hand_built_run.h)
// ---------------------------------------------------------------------

void Walk(const v1::ModuleDiffNode& node,
          const std::function<void(const v1::ModuleDiffNode&)>& f) {
  f(node);
  for (const v1::ModuleDiffNode& c : node.children()) Walk(c, f);
}

TEST(DiffRunsTest, NormalizePerStepOrTotal) {
  const auto a = MakeRun("a", {{"M_0", 100}}, /*steps=*/2);
  const auto b = MakeRun("b", {{"M_0", 100}}, /*steps=*/4);
  auto per_step = DiffRuns(a, b, {});
  ASSERT_TRUE(per_step.ok());
  EXPECT_DOUBLE_EQ(Child(per_step->modules(), "M_0").delta().host_us(), 0);
  v1::DiffOptions total;
  total.set_normalize(v1::NORMALIZATION_TOTAL);
  auto totals = DiffRuns(a, b, total);
  ASSERT_TRUE(totals.ok());
  EXPECT_DOUBLE_EQ(Child(totals->modules(), "M_0").baseline().host_us(), 200);
  EXPECT_DOUBLE_EQ(Child(totals->modules(), "M_0").experimental().host_us(),
                   400);
}

TEST(DiffRunsTest, UnknownRankIsAnError) {
  v1::DiffOptions options;
  options.add_ranks(3);
  auto report = DiffRuns(MakeRun("a", {}), MakeRun("b", {}), options);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(report.status().message().find("ranks 0"), std::string::npos)
      << report.status();
}

TEST(DiffRunsTest, AValueASideDoesNotHaveIsMissingNotZero) {
  // A CPU run against a ROCm-like GPU run: kernels and SM efficiency, no
  // occupancy, no memory.
  const v1::RunProfile cpu = MakeRun("cpu", {});
  v1::RunProfile gpu = MakeRun("gpu", {});
  v1::DeviceMetrics& device = *gpu.mutable_workers(0)->add_devices();
  device.set_gpu_utilization(0.5);
  device.set_sm_efficiency(0.449);
  device.set_has_sm_efficiency(true);
  gpu.mutable_workers(0)->set_gpu_utilization(0.5);
  gpu.mutable_workers(0)->set_sm_efficiency(0.449);
  auto report = DiffRuns(cpu, gpu, {});
  ASSERT_TRUE(report.ok()) << report.status();
  std::map<v1::OverviewMetric, const v1::OverviewRow*> rows;
  for (const v1::OverviewRow& row : report->overview().rows())
    rows[row.metric()] = &row;
  for (const v1::OverviewMetric metric :
       {v1::OVERVIEW_METRIC_GPU_UTILIZATION, v1::OVERVIEW_METRIC_SM_EFFICIENCY,
        v1::OVERVIEW_METRIC_KERNEL, v1::OVERVIEW_METRIC_MEMCPY,
        v1::OVERVIEW_METRIC_RUNTIME}) {
    SCOPED_TRACE(v1::OverviewMetric_Name(metric));
    ASSERT_TRUE(rows.contains(metric));
    EXPECT_TRUE(rows[metric]->baseline_missing());  // the CPU run has none
    EXPECT_FALSE(rows[metric]->experimental_missing());
    EXPECT_EQ(rows[metric]->delta(), 0);
    EXPECT_FALSE(rows[metric]->noise().has_interval());
  }
  EXPECT_TRUE(rows[v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY]->baseline_missing());
  EXPECT_TRUE(rows[v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY]
                  ->experimental_missing());  // not recorded
  EXPECT_TRUE(rows[v1::OVERVIEW_METRIC_PEAK_MEMORY]->experimental_missing());
  EXPECT_FALSE(rows[v1::OVERVIEW_METRIC_CPU_EXEC]
                   ->baseline_missing());  // every run has host time
  EXPECT_FALSE(rows[v1::OVERVIEW_METRIC_STEP_TIME]->baseline_missing());
}

TEST(DiffRunsTest, TheSlowestComputeIsTheRankThatWaitsLeastNotTheLongestStep) {
  // Two ranks, synchronised: rank 1's step is 0.09% longer, but rank 0 computes
  // 648 us of it and waits 390 in communication, rank 1 computes 357 and waits
  // 683. Rank 0 holds them up.
  auto run = [](const std::string& name) {
    v1::RunProfile out = MakeRun(name, {});
    *out.add_workers() = out.workers(0);
    const double step[2] = {1045.0, 1046.0};
    const double communication[2] = {390.0, 683.0};
    for (int r = 0; r < 2; ++r) {
      v1::WorkerProfile& w = *out.mutable_workers(r);
      w.mutable_worker()->set_rank(r);
      w.mutable_worker()->set_worker_name("rank" + std::to_string(r));
      w.mutable_average_step()->set_duration_us(step[r]);
      w.mutable_average_step()->set_communication_us(communication[r]);
      for (v1::StepStats& s : *w.mutable_steps()) s.set_duration_us(step[r]);
    }
    return out;
  };
  v1::DiffOptions options;
  options.set_per_rank(true);
  auto report = DiffRuns(run("a"), run("b"), options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->ranks_size(), 4);
  for (const v1::RankSteps& r : report->ranks()) {
    EXPECT_EQ(r.slowest_compute(), r.rank() == 0)
        << v1::RunSide_Name(r.side()) << " rank " << r.rank();
    EXPECT_DOUBLE_EQ(r.compute_us(), r.rank() == 0 ? 655 : 363);
  }
}

TEST(DiffRunsTest, NoSlowestComputeWhenNoRankIsFivePercentOverTheOthers) {
  v1::RunProfile even = MakeRun("even", {});
  *even.add_workers() = even.workers(0);
  even.mutable_workers(1)->mutable_worker()->set_rank(1);
  even.mutable_workers(1)->mutable_average_step()->set_duration_us(
      1040);  // 4% more than 1000
  v1::DiffOptions options;
  options.set_per_rank(true);
  auto report = DiffRuns(even, even, options);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const v1::RankSteps& r : report->ranks())
    EXPECT_FALSE(r.slowest_compute()) << r.rank();
}

// --- real traces
// -----------------------------------------------------------------------------

class RealTraceDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = profdiff::test_support::TracesDir();
    if (!fs::is_directory(root_))
      GTEST_SKIP() << "no trace folder at " << root_
                   << " (set PROFDIFF_TRACES)";
  }

  // The first of `paths` (trace files or run folders) that is not under
  // root_, or "" when all are. Only a missing trace skips a test: an error
  // loading one that is there (NotFound included) fails it.
  std::string Missing(std::initializer_list<std::string> paths) const {
    for (const std::string& p : paths) {
      if (!fs::exists(root_ / p)) return (root_ / p).string();
    }
    return "";
  }

  absl::StatusOr<v1::DiffReport> Diff(const std::string& a,
                                      const std::string& b,
                                      const v1::DiffOptions& options = {}) {
    auto runs = analysis::LoadRuns(
        {{(root_ / a).string()}, {(root_ / b).string()}}, {});
    if (!runs.ok()) return runs.status();
    return DiffRuns((*runs)[0], (*runs)[1], options);
  }

  // Calls `check` on the diff of every real pair present (RealTracePairs);
  // returns how many there were.
  template <typename Check>
  int ForEachRealPair(Check check);

  fs::path root_;
};

using test_support::kNw0A;
using test_support::kNw4A;
using test_support::kNw4B;

template <typename Check>
int RealTraceDiffTest::ForEachRealPair(Check check) {
  int pairs = 0;
  for (const auto& [a, b] : test_support::RealTracePairs(root_)) {
    if (!Missing({a, b}).empty()) continue;
    auto report = Diff(a, b);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) continue;
    ++pairs;
    SCOPED_TRACE(base::StrCat(a, " vs ", b));
    check(*report);
  }
  return pairs;
}

// In its unit, on each side, a module-like node's children and its (unknown)
// block add up to it.
TEST_F(RealTraceDiffTest, ChildrenAndUnknownAddUpToTheParentOnEveryRealPair) {
  int unknown_nodes = 0;
  const int pairs = ForEachRealPair([&](const v1::DiffReport& report) {
    Walk(report.modules(), [&](const v1::ModuleDiffNode& n) {
      // Module-like nodes get an (unknown) block; an operator node's rest is
      // its self time.
      const bool module_like = n.kind() == v1::MODULE_NODE_KIND_ROOT ||
                               n.kind() == v1::MODULE_NODE_KIND_MODULE ||
                               n.kind() == v1::MODULE_NODE_KIND_BACKWARD;
      if (n.children_size() == 0 || !module_like) return;
      const bool device = n.compared() == v1::MODULE_COMPARED_DEVICE_US;
      for (const auto& side_and_name :
           {std::pair(&v1::ModuleDiffNode::baseline, "baseline"),
            std::pair(&v1::ModuleDiffNode::experimental, "experimental")}) {
        const auto side = side_and_name.first;
        const char* name = side_and_name.second;
        auto value = [&](const v1::ModuleDiffNode& x) {
          return device ? (x.*side)().device_us() : (x.*side)().host_us();
        };
        double children = 0;
        for (const v1::ModuleDiffNode& c : n.children()) {
          children += value(c);
          if (c.status() == v1::DIFF_STATUS_UNKNOWN) {
            ++unknown_nodes;
            EXPECT_EQ(c.compared(), n.compared()) << c.path();
            EXPECT_DOUBLE_EQ((c.*side)().compare_us(), value(c))
                << c.path() << " is in its parent's unit";
          }
        }
        EXPECT_NEAR(children, value(n), 1e-6 * std::abs(value(n)) + 1e-3)
            << n.path() << " " << name;
      }
    });
  });
  if (pairs == 0) GTEST_SKIP() << "none of the real pairs is under " << root_;
  EXPECT_GT(unknown_nodes, 0);
}

TEST_F(RealTraceDiffTest, ACpuOnlyTracePrintsNoDeviceMetric) {
  const std::string cpu_only =
      "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
  if (const std::string m = Missing({cpu_only, kNw0A}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(cpu_only, kNw0A);
  ASSERT_TRUE(report.ok()) << report.status();
  int device_rows = 0;
  for (const v1::OverviewRow& row : report->overview().rows()) {
    switch (row.metric()) {
      case v1::OVERVIEW_METRIC_GPU_UTILIZATION:
      case v1::OVERVIEW_METRIC_SM_EFFICIENCY:
      case v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY:
      case v1::OVERVIEW_METRIC_KERNEL:
      case v1::OVERVIEW_METRIC_MEMCPY:
      case v1::OVERVIEW_METRIC_MEMSET:
      case v1::OVERVIEW_METRIC_RUNTIME:
      case v1::OVERVIEW_METRIC_DEVICE_MEMORY:
        ++device_rows;
        EXPECT_TRUE(row.baseline_missing())
            << v1::OverviewMetric_Name(row.metric());
        EXPECT_FALSE(row.noise().significant())
            << v1::OverviewMetric_Name(row.metric());
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(device_rows, 8);
}

TEST_F(RealTraceDiffTest, IdenticalInputsGiveZeroDeltasAndNothingSignificant) {
  if (const std::string m = Missing({kNw0A}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(kNw0A, kNw0A);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const v1::OverviewRow& row : report->overview().rows()) {
    EXPECT_EQ(row.delta(), 0) << v1::OverviewMetric_Name(row.metric());
    EXPECT_FALSE(row.noise().significant())
        << v1::OverviewMetric_Name(row.metric());
  }
  ASSERT_GT(report->operators_size(), 10);
  for (const v1::OperatorDiff& row : report->operators()) {
    EXPECT_EQ(row.delta().host_total_us(), 0) << row.name();
    EXPECT_EQ(row.delta().device_total_us(), 0) << row.name();
    EXPECT_EQ(row.change(), v1::CHANGE_UNCHANGED) << row.name();
  }
  for (const v1::KernelDiff& row : report->kernels())
    EXPECT_EQ(row.change(), v1::CHANGE_UNCHANGED) << row.name();
  Walk(report->modules(), [](const v1::ModuleDiffNode& n) {
    EXPECT_TRUE(n.status() == v1::DIFF_STATUS_MATCHED ||
                n.status() == v1::DIFF_STATUS_UNKNOWN)
        << n.path();
    EXPECT_EQ(n.delta().compare_us(), 0) << n.path();
    EXPECT_FALSE(n.noise().significant()) << n.path();
  });
}

TEST_F(RealTraceDiffTest, RepeatRunsShowNothingSignificant) {
  if (const std::string m = Missing({kNw4A, kNw4B}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(kNw4A, kNw4B);
  ASSERT_TRUE(report.ok()) << report.status();
  for (const v1::OverviewRow& row : report->overview().rows())
    EXPECT_FALSE(row.noise().significant())
        << v1::OverviewMetric_Name(row.metric());
  for (const v1::OperatorDiff& row : report->operators())
    EXPECT_FALSE(row.noise().significant()) << row.name();
  for (const v1::KernelDiff& row : report->kernels())
    EXPECT_FALSE(row.noise().significant()) << row.name();
  // Nodes compared by device time show nothing. Host-only nodes are compared by
  // host time (and labelled so): two processes' host time may really differ, as
  // aten::empty under CudnnBatchNormBackward does here (-19%, every step).
  Walk(report->modules(), [](const v1::ModuleDiffNode& n) {
    if (n.compared() == v1::MODULE_COMPARED_DEVICE_US) {
      EXPECT_FALSE(n.noise().significant()) << n.path();
    }
  });
}

TEST_F(RealTraceDiffTest, DataLoaderWorkersChangeComesFirst) {
  if (const std::string m = Missing({kNw0A, kNw4A}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(kNw0A, kNw4A);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_GT(report->operators_size(), 0);
  EXPECT_NE(report->operators(0).name().find("DataLoader"), std::string::npos)
      << report->operators(0).name();
  EXPECT_EQ(report->operators(0).change(), v1::CHANGE_DELETED);
  // Of the breakdown categories, the largest significant change is DataLoader.
  const v1::OverviewRow* largest = nullptr;
  for (const v1::OverviewRow& row : report->overview().rows()) {
    if (row.unit() != v1::VALUE_UNIT_US ||
        row.metric() == v1::OVERVIEW_METRIC_STEP_TIME ||
        !row.noise().significant())
      continue;
    if (largest == nullptr ||
        std::abs(row.delta()) > std::abs(largest->delta()))
      largest = &row;
  }
  ASSERT_NE(largest, nullptr);
  EXPECT_EQ(largest->metric(), v1::OVERVIEW_METRIC_DATALOADER);
  EXPECT_LT(largest->delta(), 0);
}

TEST_F(RealTraceDiffTest, SameModelOnH100AndMi300AlignsNearlyEveryModule) {
  for (const char* model : {"Falconsai_nsfw_image_detection__1016002",
                            "Qwen_Qwen1.5-0.5B-Chat__1016005",
                            "facebook_timesformer-base-finetuned-k400__1016002",
                            "gaunernst_bert-small-uncased__1016001"}) {
    const std::string a = std::string("tracelens/h100/") + model + ".json.gz";
    const std::string b = std::string("tracelens/mi300/") + model + ".json.gz";
    if (const std::string m = Missing({a, b}); !m.empty())
      GTEST_SKIP() << "missing " << m;
    v1::DiffOptions options;
    options.add_views(v1::DIFF_VIEW_MODULES);
    auto report = Diff(a, b, options);
    ASSERT_TRUE(report.ok()) << report.status();
    int matched = 0, nodes = 0;
    Walk(report->modules(), [&](const v1::ModuleDiffNode& n) {
      if (n.status() == v1::DIFF_STATUS_UNKNOWN ||
          n.kind() == v1::MODULE_NODE_KIND_ROOT)
        return;
      ++nodes;
      matched += n.status() == v1::DIFF_STATUS_MATCHED;
    });
    EXPECT_GT(nodes, 50) << model;
    EXPECT_GE(matched, nodes * 95 / 100)
        << model << ": " << matched << " of " << nodes;
  }
}

TEST_F(RealTraceDiffTest, PathScopesOperatorAndKernelTables) {
  v1::DiffOptions options;
  const std::string a =
      "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  const std::string b =
      "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz";
  if (const std::string m = Missing({a, b}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto whole = Diff(a, b);
  ASSERT_TRUE(whole.ok()) << whole.status();
  // A matched module holding a small share of the step.
  const v1::ModuleDiffNode* small = nullptr;
  const double root_host = whole->modules().baseline().host_us();
  Walk(whole->modules(), [&](const v1::ModuleDiffNode& n) {
    if (small == nullptr && n.kind() == v1::MODULE_NODE_KIND_MODULE &&
        n.status() == v1::DIFF_STATUS_MATCHED && n.baseline().host_us() > 0 &&
        n.baseline().host_us() < 0.2 * root_host) {
      small = &n;
    }
  });
  ASSERT_NE(small, nullptr);
  options.set_path(small->index_path());
  auto scoped = Diff(a, b, options);
  ASSERT_TRUE(scoped.ok()) << scoped.status();
  EXPECT_EQ(scoped->modules().path(), small->path());
  ASSERT_GT(scoped->operators_size(), 0);
  EXPECT_LT(scoped->operators_size(), whole->operators_size());
  // Inside a node, no operator takes longer on the host than the node itself.
  for (const v1::OperatorDiff& row : scoped->operators()) {
    EXPECT_LE(row.baseline().host_total_us(),
              scoped->modules().baseline().host_us() + 1e-6)
        << row.name();
  }
}

// The HTML report's per-node tables are exactly what `--path NODE` would answer
// for that node.
TEST_F(RealTraceDiffTest, NodeTablesEqualPathScopedTables) {
  const std::string a =
      "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  const std::string b =
      "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz";
  v1::DiffOptions options;
  options.set_node_tables(true);
  if (const std::string m = Missing({a, b}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto with_tables = Diff(a, b, options);
  ASSERT_TRUE(with_tables.ok()) << with_tables.status();
  EXPECT_EQ(with_tables->modules().operators_size(), 0)
      << "the root's tables are the report's";
  std::vector<const v1::ModuleDiffNode*> nodes;
  Walk(with_tables->modules(), [&](const v1::ModuleDiffNode& n) {
    if (n.kind() != v1::MODULE_NODE_KIND_ROOT) nodes.push_back(&n);
  });
  ASSERT_GT(nodes.size(), 20u);
  int checked = 0;
  for (size_t i = 0; i < nodes.size(); i += nodes.size() / 20) {
    const v1::ModuleDiffNode& node = *nodes[i];
    if (node.kind() == v1::MODULE_NODE_KIND_UNKNOWN) {
      EXPECT_EQ(node.operators_size() + node.kernels_size(), 0) << node.path();
      continue;
    }
    v1::DiffOptions scoped_options;
    scoped_options.set_path(node.index_path());
    auto scoped = Diff(a, b, scoped_options);
    ASSERT_TRUE(scoped.ok()) << scoped.status();
    ASSERT_EQ(node.operators_size(), scoped->operators_size()) << node.path();
    ASSERT_EQ(node.kernels_size(), scoped->kernels_size()) << node.path();
    for (int r = 0; r < node.operators_size(); ++r) {
      EXPECT_EQ(node.operators(r).SerializeAsString(),
                scoped->operators(r).SerializeAsString())
          << node.path();
    }
    for (int r = 0; r < node.kernels_size(); ++r) {
      EXPECT_EQ(node.kernels(r).SerializeAsString(),
                scoped->kernels(r).SerializeAsString())
          << node.path();
    }
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// Issue 44, item 6: every memory row says which column its change was judged
// on, allocation bytes unless neither side allocated (then the self increase).
TEST_F(RealTraceDiffTest, MemoryRowsSayWhatTheyWereJudgedOn) {
  const std::string a = "profdiff_h200/transformer-fp32.pt.trace.json.gz";
  const std::string b = "profdiff_h200/transformer-bf16.pt.trace.json.gz";
  if (const std::string m = Missing({a, b}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(a, b);
  ASSERT_TRUE(report.ok()) << report.status();
  int by_self = 0;
  ASSERT_GT(report->memory().operators_size(), 0);
  for (const v1::MemoryRowDiff& r : report->memory().operators()) {
    const bool allocated = r.baseline().allocation_bytes() != 0 ||
                           r.experimental().allocation_bytes() != 0;
    EXPECT_EQ(r.compared(), allocated ? v1::MEMORY_COMPARED_ALLOCATION_BYTES
                                      : v1::MEMORY_COMPARED_SELF_INCREASE_BYTES)
        << r.name();
    by_self += !allocated;
  }
  EXPECT_GT(by_self, 0) << "the pair has rows that only free";
}

TEST_F(RealTraceDiffTest, SortFilterTopAndBadColumns) {
  v1::DiffOptions options;
  options.set_filter("^aten::");
  options.set_sort("baseline_host_total_us");
  options.set_top(5);
  if (const std::string m = Missing({kNw0A, kNw4A}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(kNw0A, kNw4A, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->operators_size(), 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(report->operators(i).name().rfind("aten::", 0), 0u);
    if (i > 0) {
      EXPECT_GE(report->operators(i - 1).baseline().host_total_us(),
                report->operators(i).baseline().host_total_us());
    }
  }
  // The name `show` used, behind the same prefix, orders the same rows alike.
  options.set_sort("baseline_host_total");
  auto alias = Diff(kNw0A, kNw4A, options);
  ASSERT_TRUE(alias.ok()) << alias.status();
  alias->mutable_options()->set_sort(report->options().sort());
  EXPECT_EQ(alias->SerializeAsString(), report->SerializeAsString());
  options.set_sort("no_such_column");
  auto bad = Diff(kNw0A, kNw4A, options);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("host_total_us"), std::string::npos)
      << bad.status();
  options.set_sort("");
  options.set_filter("([");
  EXPECT_EQ(Diff(kNw0A, kNw4A, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(RealTraceDiffTest, EightRankRunPerRankAndRankSelection) {
  const std::string dlrm = "param/dlrm_kineto";
  v1::DiffOptions options;
  options.set_per_rank(true);
  if (const std::string m = Missing({dlrm}); !m.empty())
    GTEST_SKIP() << "missing " << m;
  auto report = Diff(dlrm, dlrm, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->baseline().ranks_size(), 8);
  ASSERT_EQ(report->ranks_size(), 16);
  int slowest = 0;
  for (const v1::RankSteps& r : report->ranks()) slowest += r.slowest_compute();
  EXPECT_EQ(slowest, 2);  // one per side
  options.add_ranks(0);
  options.add_ranks(5);
  auto two = Diff(dlrm, dlrm, options);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->baseline().ranks_size(), 2);
  EXPECT_EQ(two->ranks_size(), 4);
}

// DiffRuns reduces the module nodes' operator and kernel rows only for the
// nodes it reads (analysis/module_node_tables.h); a diff of the whole digests,
// as a server diffs stored runs, must say the same to the byte: findings that
// look inside modules, a --path and every node's tables.
TEST_F(RealTraceDiffTest, DiffRunsSaysWhatADiffOfWholeDigestsSays) {
  std::vector<std::pair<std::string, std::string>> pairs =
      test_support::RealTracePairs(root_);
  pairs.emplace_back("param/dlrm_kineto", "param/dlrm_kineto");
  int compared = 0;
  for (const auto& [a, b] : pairs) {
    if (!Missing({a, b}).empty()) continue;
    SCOPED_TRACE(base::StrCat(a, " vs ", b));
    auto runs = analysis::LoadRuns(
        {{(root_ / a).string()}, {(root_ / b).string()}}, {});
    ASSERT_TRUE(runs.ok()) << runs.status();
    const v1::RunProfile& ra = (*runs)[0];
    const v1::RunProfile& rb = (*runs)[1];
    std::vector<v1::DiffOptions> asks(4);
    asks[1].set_path("0");
    asks[2].set_node_tables(true);
    asks[3].add_ranks(1);
    asks[3].add_ranks(3);
    asks[3].set_path("0/0");
    for (const v1::DiffOptions& options : asks) {
      SCOPED_TRACE(options.ShortDebugString());
      const std::vector<int32_t> ranks(options.ranks().begin(),
                                       options.ranks().end());
      auto da = analysis::DigestOfRun(ra, ranks);
      auto db = analysis::DigestOfRun(rb, ranks);
      auto runs_report = DiffRuns(ra, rb, options);
      if (!da.ok() || !db.ok()) {  // a rank the run lacks: both refuse
        EXPECT_FALSE(runs_report.ok());
        continue;
      }
      auto digests_report = DiffDigests(*da, *db, options);
      ASSERT_EQ(runs_report.ok(), digests_report.ok())
          << runs_report.status() << " / " << digests_report.status();
      if (!runs_report.ok()) {
        EXPECT_EQ(runs_report.status(), digests_report.status());
        continue;
      }
      EXPECT_EQ(runs_report->SerializeAsString(),
                digests_report->SerializeAsString());
      ++compared;
    }
  }
  if (compared == 0) GTEST_SKIP() << "no real pair under " << root_;
  EXPECT_GE(compared, 8);
}

// Profiles whose module nodes' tables were left to DeferredNodeTables
// (analysis/deferred_node_tables.h), as a CLI diff of two trace paths loads
// them, diff to the byte as the profiles with every node's tables do: findings
// that look inside modules and a --path read the nodes they need. A diff that
// asks for every node's tables, or HTA's, cannot be served by them.
TEST_F(RealTraceDiffTest, DeferredNodeTablesDiffAsEveryNodesTablesDo) {
  std::vector<std::pair<std::string, std::string>> pairs =
      test_support::RealTracePairs(root_);
  pairs.emplace_back("param/dlrm_kineto", "param/dlrm_kineto");
  int compared = 0;
  size_t deferred_workers = 0;
  for (const auto& [a, b] : pairs) {
    if (!Missing({a, b}).empty()) continue;
    SCOPED_TRACE(base::StrCat(a, " vs ", b));
    const std::vector<std::vector<std::string>> paths = {
        {(root_ / a).string()}, {(root_ / b).string()}};
    auto eager = analysis::LoadRuns(paths, {});
    ASSERT_TRUE(eager.ok()) << eager.status();
    std::vector<std::vector<analysis::DeferredRunTables>> deferred;
    auto lazy = analysis::LoadRunsWithEachOptions(paths, {{}}, &deferred);
    ASSERT_TRUE(lazy.ok()) << lazy.status();
    ASSERT_EQ(deferred.size(), 1u);
    ASSERT_EQ(deferred[0].size(), 2u);
    deferred_workers += deferred[0][0].size() + deferred[0][1].size();
    const analysis::DeferredRunTables* const sides[2] = {&deferred[0][0],
                                                         &deferred[0][1]};
    std::vector<v1::DiffOptions> asks(4);
    asks[1].set_path("0");
    asks[2].set_path("0/0");
    asks[3].add_ranks(1);
    asks[3].add_ranks(3);
    asks[3].set_path("0/0");
    for (const v1::DiffOptions& options : asks) {
      SCOPED_TRACE(options.ShortDebugString());
      auto want = DiffRuns((*eager)[0], (*eager)[1], options);
      auto got = DiffRuns((*lazy)[0][0], (*lazy)[0][1], options, sides);
      ASSERT_EQ(want.ok(), got.ok()) << want.status() << " / " << got.status();
      if (!want.ok()) {
        EXPECT_EQ(want.status(), got.status());
        continue;
      }
      EXPECT_EQ(want->SerializeAsString(), got->SerializeAsString());
      ++compared;
    }
    for (const bool hta : {false, true}) {
      v1::DiffOptions options;
      if (hta) {
        options.set_compare(v1::COMPARE_MODE_HTA);
      } else {
        options.set_node_tables(true);
      }
      EXPECT_EQ(DiffRuns((*lazy)[0][0], (*lazy)[0][1], options, sides)
                    .status()
                    .code(),
                absl::StatusCode::kFailedPrecondition);
    }
  }
  if (compared == 0) GTEST_SKIP() << "no real pair under " << root_;
  EXPECT_GE(compared, 8);
  // Deferring happened: each trace pair is two workers, one a loading thread
  // where there are two cores (the loader defers only then).
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_GE(deferred_workers, 10u);
  }
}

}  // namespace
}  // namespace profdiff::differ
