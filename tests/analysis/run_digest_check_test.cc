// What a digest must hold for the differ to read it
// (analysis/run_digest_check.h): every digest the builder makes passes, and
// each way a damaged one (cut, emptied, rows short of metrics, a rank twice)
// can differ from that is refused, naming the run and the field.
// Regression for #42: a 0-byte kept digest crashed the differ.
#include "analysis/run_digest_check.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/run_digest.h"

namespace profdiff::analysis {
namespace {

using ::testing::HasSubstr;

// Rank `rank` kept `steps` steps (each 10 µs) of aten::mm (2 µs a step)
// launching one kernel, inside module Net_0 > Linear_0, and one all_reduce.
v1::WorkerProfile Worker(int32_t rank, int steps) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_rank(rank);
  w.mutable_worker()->set_world_size(2);
  w.mutable_worker()->set_worker_name("w" + std::to_string(rank));
  for (int s = 0; s < steps; ++s) {
    v1::StepStats& step = *w.add_steps();
    step.set_step(s);
    step.set_duration_us(10);
  }
  w.mutable_average_step()->set_duration_us(10);
  v1::OperatorStats& mm = *w.add_operators();
  mm.set_name("aten::mm");
  mm.set_calls(steps);
  mm.set_host_self_us(2.0 * steps);
  v1::KernelStats& kernel = *w.add_kernels();
  kernel.set_name("gemm");
  kernel.set_op_name("aten::mm");
  kernel.set_calls(steps);
  v1::ModuleNode& root = *w.mutable_modules();
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  v1::ModuleNode& net = *root.add_children();
  net.set_name("Net_0");
  net.set_kind(v1::MODULE_NODE_KIND_MODULE);
  v1::ModuleNode& linear = *net.add_children();
  linear.set_name("Linear_0");
  linear.set_kind(v1::MODULE_NODE_KIND_MODULE);
  *linear.add_operators() = mm;
  return w;
}

v1::RunDigest TwoRankDigest() {
  RunDigestBuilder builder("r", {});
  EXPECT_TRUE(builder.Add(Worker(0, 3)).ok());
  EXPECT_TRUE(builder.Add(Worker(1, 0)).ok());
  absl::StatusOr<v1::RunDigest> digest = builder.Finish();
  EXPECT_TRUE(digest.ok()) << digest.status();
  return digest.ok() ? *digest : v1::RunDigest();
}

void ExpectRefused(const v1::RunDigest& digest, const std::string& what) {
  const absl::Status status = ValidateRunDigest(digest);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("run \"r\": digest cannot be diffed: " + what));
}

TEST(RunDigestCheckTest, EveryDigestTheBuilderMakesPasses) {
  const v1::RunDigest digest = TwoRankDigest();
  ASSERT_EQ(digest.slots(), 4);  // 3 kept steps, and 1 slot for rank 1's none
  ASSERT_EQ(digest.modules().children(0).children(0).operators_size(), 1);
  EXPECT_TRUE(ValidateRunDigest(digest).ok()) << ValidateRunDigest(digest);
}

TEST(RunDigestCheckTest, EmptyDigestIsRefused) {
  v1::RunDigest empty;
  empty.set_run("r");
  ExpectRefused(empty, "it has no ranks (an empty or cut digest)");
}

TEST(RunDigestCheckTest, OverviewWithoutItsStepMetricsIsRefused) {
  v1::RunDigest digest = TwoRankDigest();
  digest.mutable_overview()->mutable_step_metrics()->RemoveLast();
  ExpectRefused(digest,
                "overview.step_metrics: expected 9 metrics, found 8");  // 9 - 1
}

TEST(RunDigestCheckTest, OperatorRowShortOfMetricsIsRefusedNamingIt) {
  v1::RunDigest digest = TwoRankDigest();
  digest.mutable_operators(0)->mutable_metrics()->RemoveLast();
  ExpectRefused(digest,
                "operators[0] \"aten::mm\": expected 5 metrics, found 4");
}

TEST(RunDigestCheckTest, KernelRowShortOfMetricsIsRefusedNamingIt) {
  v1::RunDigest digest = TwoRankDigest();
  digest.mutable_kernels(0)->clear_metrics();
  ExpectRefused(digest, "kernels[0] \"gemm\": expected 2 metrics, found 0");
}

TEST(RunDigestCheckTest, ModuleRowDeepInTheTreeShortOfMetricsIsRefused) {
  v1::RunDigest digest = TwoRankDigest();
  v1::DigestModuleNode& linear =
      *digest.mutable_modules()->mutable_children(0)->mutable_children(0);
  linear.mutable_operators(0)->mutable_metrics()->RemoveLast();
  ExpectRefused(digest,
                "modules/0 \"Net_0\"/0 \"Linear_0\" operators[0] \"aten::mm\": "
                "expected 5 metrics, found 4");
}

TEST(RunDigestCheckTest, ModuleUnknownTimeThatIsNeitherWholeNorEmptyIsRefused) {
  v1::RunDigest digest = TwoRankDigest();
  v1::DigestModuleNode& net = *digest.mutable_modules()->mutable_children(0);
  ASSERT_EQ(net.unknown_size(), 5);  // a module with a child keeps all five
  net.mutable_unknown()->RemoveLast();
  ExpectRefused(digest,
                "modules/0 \"Net_0\" (unknown): expected 5 metrics or none, "
                "found 4");
}

TEST(RunDigestCheckTest, CollectiveRowShortOfMetricsIsRefused) {
  v1::RunDigest digest = TwoRankDigest();
  v1::DigestCollectiveRow& row =
      *digest.mutable_communication()->add_collectives();
  row.set_collective("all_reduce");
  row.add_metrics();
  ExpectRefused(digest,
                "communication.collectives[0] \"all_reduce\": expected 5 "
                "metrics, found 1");
}

TEST(RunDigestCheckTest, NegativeSampleCountIsRefused) {
  v1::RunDigest digest = TwoRankDigest();
  digest.mutable_operators(0)->mutable_metrics(1)->mutable_samples()->set_count(
      -3);
  ExpectRefused(digest, "operators[0] \"aten::mm\" metric 1: sample count -3");
}

TEST(RunDigestCheckTest, RankRowsThatDoNotMatchTheRanksAreRefused) {
  v1::RunDigest cut = TwoRankDigest();
  cut.mutable_rank_rows()->RemoveLast();
  ExpectRefused(cut, "rank_rows: expected one per rank (2), found 1");
  v1::RunDigest other = TwoRankDigest();
  other.mutable_rank_rows(1)->set_rank(5);
  ExpectRefused(other, "rank_rows[1]: expected rank 1, found 5");
  v1::RunDigest descending = TwoRankDigest();
  descending.set_ranks(0, 4);
  descending.mutable_rank_rows(0)->set_rank(4);
  ExpectRefused(descending, "ranks: expected ascending, found 1 after 4");
}

TEST(RunDigestCheckTest, SlotsThatDisagreeWithTheRankRowsAreRefused) {
  v1::RunDigest digest = TwoRankDigest();
  digest.set_slots(9);
  ExpectRefused(digest,
                "slots: expected 4 (the rank rows' kept steps, at least 1 "
                "each), found 9");
}

TEST(RunDigestCheckTest, RankGivenTwiceIsRefusedNamingBothWorkers) {
  v1::RunDigest digest = TwoRankDigest();
  digest.set_ranks(1, 0);
  digest.mutable_rank_rows(1)->set_rank(0);
  ExpectRefused(digest, "rank 0 is given twice (workers \"w0\" and \"w1\")");
}

}  // namespace
}  // namespace profdiff::analysis
