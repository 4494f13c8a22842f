// Collectives matched across ranks (analysis/run_communication.h): instances,
// transfer and wait, last arrivals and the straggler rule, on hand-built
// profiles and traces.
#include "analysis/run_communication.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

v1::CollectiveCall Call(const std::string& collective, const std::string& pg,
                        int32_t ordinal, double duration_us,
                        int64_t bytes = 400) {
  v1::CollectiveCall c;
  c.set_collective(collective);
  c.set_process_group(pg);
  c.set_group_size(3);
  c.set_bytes(bytes);
  c.set_step(1);
  c.set_step_index(0);
  c.set_ordinal(ordinal);
  c.set_duration_us(duration_us);
  return c;
}

v1::WorkerProfile Worker(int32_t rank, std::vector<v1::CollectiveCall> calls) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_rank(rank);
  w.add_steps()->set_step(1);
  for (v1::CollectiveCall& c : calls) *w.add_collective_calls() = std::move(c);
  return w;
}

const v1::RankCommunication& RankOf(const v1::RunCommunication& run, int r) {
  for (const v1::RankCommunication& rank : run.ranks()) {
    if (rank.rank() == r) return rank;
  }
  ADD_FAILURE() << "no rank " << r;
  return run.ranks(0);
}

// all_reduce #0 of process group 0 took 10, 30 and 25 µs on ranks 0-2: rank 0
// arrived last and moved the data in 10 µs; ranks 1 and 2 waited 20 and 15.
// all_reduce #1: 5, 5, 8 (a tie: nobody is last). A broadcast in group 1 on
// ranks 0 and 1 only: 4 and 6.
std::vector<v1::WorkerProfile> ThreeRanks() {
  return {
      Worker(0, {Call("all_reduce", "0", 0, 10), Call("all_reduce", "0", 1, 5),
                 Call("broadcast", "1", 0, 4, 64)}),
      Worker(1,
             {Call("all_reduce", "0", 0, 30), Call("broadcast", "1", 0, 6, 64),
              Call("all_reduce", "0", 1, 5)}),
      Worker(2,
             {Call("all_reduce", "0", 0, 25), Call("all_reduce", "0", 1, 8)})};
}

TEST(RunCommunicationTest, InstancesMatchByGroupCollectiveStepAndOrdinal) {
  const std::vector<v1::WorkerProfile> workers = ThreeRanks();
  const v1::RunCommunication run =
      RunCommunicationOf({&workers[0], &workers[1], &workers[2]}, {});
  EXPECT_EQ(run.instances(), 3);
  // Transfer 10 + 5, wait 20 + 0 on rank 1; 15 + 3 on rank 2.
  const v1::RankCommunicationStep& r1 = RankOf(run, 1).steps(0);
  EXPECT_DOUBLE_EQ(r1.transfer_us(), 10 + 5 + 4);
  EXPECT_DOUBLE_EQ(r1.wait_us(), 20 + 0 + 2);
  EXPECT_DOUBLE_EQ(r1.time_us(), 30 + 5 + 6);
  const v1::RankCommunicationStep& r2 = RankOf(run, 2).steps(0);
  EXPECT_DOUBLE_EQ(r2.transfer_us(), 15);
  EXPECT_DOUBLE_EQ(r2.wait_us(), 18);
  for (const v1::RankCommunication& r : run.ranks()) {
    EXPECT_DOUBLE_EQ(r.steps(0).wait_us() + r.steps(0).transfer_us(),
                     r.steps(0).time_us());
  }
  // Rank 0 was last in all_reduce #0 and the broadcast; #1 was a tie.
  EXPECT_EQ(RankOf(run, 0).last_arrivals(), 2);
  EXPECT_EQ(RankOf(run, 0).instances(), 3);
  EXPECT_EQ(RankOf(run, 2).instances(), 2);
  EXPECT_EQ(run.straggler().rank(), 0);
  EXPECT_EQ(run.straggler().instances(), 2);
  EXPECT_EQ(run.straggler().collective(), "collectives");
  EXPECT_FALSE(run.straggler().found());  // 2 instances say nothing
  // Groups: all_reduce of 400 bytes, broadcast of 64 bytes.
  ASSERT_EQ(run.groups_size(), 2);
  const v1::CollectiveGroup& all_reduce = run.groups(0);
  EXPECT_EQ(all_reduce.collective(), "all_reduce");
  EXPECT_DOUBLE_EQ(all_reduce.busbw_factor(), 2.0 * 2 / 3);
  ASSERT_EQ(all_reduce.slots_size(), 3);
  EXPECT_DOUBLE_EQ(all_reduce.slots(1).calls(), 2);
  EXPECT_DOUBLE_EQ(all_reduce.slots(1).bytes(), 800);
  EXPECT_DOUBLE_EQ(all_reduce.slots(1).wait_us(), 20);
}

TEST(RunCommunicationTest, SelectedRanksAreMatchedAgainstEveryRank) {
  const std::vector<v1::WorkerProfile> workers = ThreeRanks();
  const v1::RunCommunication run =
      RunCommunicationOf({&workers[0], &workers[1], &workers[2]}, {1});
  ASSERT_EQ(run.ranks_size(), 1);
  // Rank 1 alone would have waited for nobody.
  EXPECT_DOUBLE_EQ(run.ranks(0).steps(0).wait_us(), 22);
  for (const v1::CollectiveGroup& g : run.groups()) {
    for (const v1::CollectiveSlot& s : g.slots()) EXPECT_EQ(s.rank(), 1);
  }
}

TEST(RunCommunicationTest, StragglerNeedsAShareWellAboveChance) {
  EXPECT_TRUE(IsStraggler(16, 16, 2));
  EXPECT_TRUE(IsStraggler(14, 16, 2));
  EXPECT_FALSE(IsStraggler(13, 16, 2));  // two ranks: 8 by chance
  EXPECT_FALSE(IsStraggler(3, 3, 2));    // too few instances
  EXPECT_TRUE(IsStraggler(5, 8, 8));     // eight ranks: 1 by chance
  EXPECT_FALSE(IsStraggler(3, 8, 8));
}

// Two gloo ranks whose clocks differ by five seconds: only durations count.
std::string GlooRank(int rank, long shift_us, int first_us, int second_us) {
  auto at = [&](long ts) { return std::to_string(ts + shift_us); };
  return R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": )" +
         at(0) + R"(, "dur": 200},
    {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 2, "ts": )" +
         at(10) + R"(, "dur": )" + std::to_string(first_us) + R"(,
     "args": {"Input Dims": [[100]], "Input type": ["float"]}},
    {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 2, "ts": )" +
         at(120) + R"(, "dur": )" + std::to_string(second_us) + R"(,
     "args": {"Input Dims": [[100]], "Input type": ["float"]}}],
    "distributedInfo": {"backend": "gloo", "rank": )" +
         std::to_string(rank) + R"(, "world_size": 2}})";
}

TEST(RunCommunicationTest, ClocksShiftedBetweenRanksChangeNothing) {
  const v1::WorkerProfile a0 = fixture::Profile(GlooRank(0, 0, 40, 30));
  const v1::WorkerProfile a1 = fixture::Profile(GlooRank(1, 0, 90, 20));
  const v1::WorkerProfile b1 = fixture::Profile(GlooRank(1, 5'000'000, 90, 20));
  const v1::RunCommunication same = RunCommunicationOf({&a0, &a1}, {});
  const v1::RunCommunication shifted = RunCommunicationOf({&a0, &b1}, {});
  EXPECT_EQ(same.SerializeAsString(), shifted.SerializeAsString());
  // Rank 0 waited 0 then 10; rank 1 50 then 0.
  EXPECT_DOUBLE_EQ(RankOf(same, 0).steps(0).wait_us(), 10);
  EXPECT_DOUBLE_EQ(RankOf(same, 1).steps(0).wait_us(), 50);
  EXPECT_DOUBLE_EQ(RankOf(same, 1).steps(0).transfer_us(), 40 + 20);
}

}  // namespace
}  // namespace profdiff::analysis
