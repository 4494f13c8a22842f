// A profile stays bounded whatever the trace: thousands of nested calls fold
// below the depth limit, thousands of distinct names fold into "(other)", and
// the profile still parses.
#include "analysis/profile_limits.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "base/str_cat.h"
#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

using ::testing::HasSubstr;

v1::WorkerProfile ProfileOf(const std::string& events) {
  absl::StatusOr<trace::Trace> trace = trace::ReadKinetoTrace(
      base::StrCat(R"({"traceEvents": [)", events, "]}"), "limits.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return BuildWorkerProfile(*trace, {"run", "worker0", 1}, ProfileOptions{});
}

int Depth(const v1::ModuleNode& node) {
  int deepest = 0;
  for (const v1::ModuleNode& child : node.children())
    deepest = std::max(deepest, Depth(child));
  return deepest + 1;
}

bool HasWarning(const v1::WorkerProfile& profile, std::string_view text) {
  for (const std::string& warning : profile.warnings()) {
    if (warning.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ProfileLimitsTest, DeepNestingFoldsBelowTheDepthLimitAndStillParses) {
  constexpr int kLevels = 4000;
  std::string events;
  for (int level = 0; level < kLevels; ++level) {
    base::StrAppend(&events, level == 0 ? "" : ",",
                    R"({"ph": "X", "cat": "cpu_op", "name": "op_)", level,
                    R"(", "pid": 1, "tid": 1, "ts": )", level, R"(, "dur": )",
                    2 * (kLevels - level), "}");
  }
  const v1::WorkerProfile profile = ProfileOf(events);
  EXPECT_EQ(Depth(profile.modules()),
            kMaxModuleDepth + 1);  // the root, then 64 levels
  EXPECT_TRUE(HasWarning(profile, "deeper than 64 levels"))
      << profile.DebugString().substr(0, 200);
  // Everything is still there: the root's host time is the outermost call's.
  EXPECT_DOUBLE_EQ(profile.modules().host_us(), 2.0 * kLevels);
  v1::WorkerProfile parsed;
  ASSERT_TRUE(parsed.ParseFromString(
      profile.SerializeAsString()));  // under protobuf's limit
  EXPECT_EQ(profile.operators_size(), kLevels);
}

TEST(ProfileLimitsTest, ManyDistinctNamesFoldIntoOther) {
  constexpr int kNames = kMaxTableRows + 2000;
  std::string events;
  for (int i = 0; i < kNames; ++i) {
    base::StrAppend(&events, i == 0 ? "" : ",",
                    R"({"ph": "X", "cat": "cpu_op", "name": "op_)", i,
                    R"(", "pid": 1, "tid": 1, "ts": )", 10 * i, R"(, "dur": )",
                    1 + i % 7, "}");
  }
  const v1::WorkerProfile profile = ProfileOf(events);
  ASSERT_EQ(profile.operators_size(), static_cast<int>(kMaxTableRows));
  const v1::OperatorStats& other =
      profile.operators(profile.operators_size() - 1);
  EXPECT_EQ(other.name(), kOtherName);
  int64_t calls = 0;
  for (const v1::OperatorStats& row : profile.operators()) calls += row.calls();
  EXPECT_EQ(calls, kNames);  // folded, not dropped
  EXPECT_TRUE(HasWarning(profile, "operator table has more than"));
  EXPECT_LE(static_cast<size_t>(profile.modules().children_size()),
            kMaxModuleNodes + 1);
  EXPECT_EQ(
      profile.modules().children(profile.modules().children_size() - 1).name(),
      kOtherName);
  EXPECT_TRUE(HasWarning(profile, "module tree has more than"));
}

TEST(ProfileLimitsTest, FoldedKernelRowSumsTheTail) {
  google::protobuf::RepeatedPtrField<v1::KernelStats> rows;
  for (int i = 0; i < 5; ++i) {
    v1::KernelStats* row = rows.Add();
    row->set_name(base::StrCat("k", i));
    row->set_calls(1);
    row->set_total_us(10 - i);
    row->set_min_us(10 - i);
    row->set_max_us(10 - i);
    v1::KernelStepSample* sample = row->add_step_samples();
    sample->set_step_index(i % 2);
    sample->set_calls(1);
    sample->set_total_us(10 - i);
  }
  EXPECT_EQ(FoldKernelRows(rows, 3), 3u);
  ASSERT_EQ(rows.size(), 3);
  const v1::KernelStats& other = rows.Get(2);
  EXPECT_EQ(other.name(), kOtherName);
  EXPECT_EQ(other.calls(), 3);
  EXPECT_DOUBLE_EQ(other.total_us(), 8 + 7 + 6);
  EXPECT_DOUBLE_EQ(other.min_us(), 6);
  EXPECT_DOUBLE_EQ(other.max_us(), 8);
  ASSERT_EQ(other.step_samples_size(), 2);
  EXPECT_DOUBLE_EQ(other.step_samples(0).total_us(), 8 + 6);
  EXPECT_EQ(FoldKernelRows(rows, 3), 0u);  // fits now
}

}  // namespace
}  // namespace profdiff::analysis
