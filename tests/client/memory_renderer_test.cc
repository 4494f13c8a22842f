// The memory diff's tables (client/memory_renderer.h) on a hand-made memory
// diff: where each side's peak happened, in the trace's step numbering.
#include "client/memory_renderer.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// cuda:0 peaked in ProfilerStep#3 (the first kept step, index 0) on the
// baseline and in ProfilerStep#7 (the second kept step of a capture that began
// at #6, index 1) on the experimental side.
v1::MemoryDiff TwoPeaks() {
  v1::MemoryDiff memory;
  v1::DeviceMemoryDiff& d = *memory.add_devices();
  d.set_device("cuda:0");
  d.set_baseline_peak_bytes(2048);
  d.set_experimental_peak_bytes(1024);
  v1::MemoryPeakPlace& a = *d.mutable_baseline_peak();
  a.set_operator_name("aten::mm");
  a.set_step_index(0);
  a.set_step(3);
  v1::MemoryPeakPlace& b = *d.mutable_experimental_peak();
  b.set_operator_name("aten::addmm");
  b.set_rank(1);
  b.set_step_index(1);
  b.set_step(7);
  return memory;
}

// Regression for #44: the steps view prints ProfilerStep 3..7; the peak's
// place said "step 1" and "step 2" (index + 1).
TEST(MemoryRendererTest, PeakPlacesSayTheTracesStepIds) {
  const std::string text = MemoryDevicesTable(TwoPeaks()).RenderText(200);
  EXPECT_THAT(text, HasSubstr("aten::mm (step 3, rank 0)"));
  EXPECT_THAT(text, HasSubstr("aten::addmm (step 7, rank 1)"));
  EXPECT_THAT(text, Not(HasSubstr("step 1,")));
  EXPECT_THAT(text, Not(HasSubstr("step 2,")));
}

// A digest kept from before the step id was recorded knows only the index:
// it says which kept step, never a bare index that reads as a step id.
TEST(MemoryRendererTest, PeakWithoutStepIdSaysWhichKeptStep) {
  v1::MemoryDiff memory = TwoPeaks();
  memory.mutable_devices(0)->mutable_experimental_peak()->clear_step();
  const std::string text = MemoryDevicesTable(memory).RenderText(200);
  EXPECT_THAT(text, HasSubstr("aten::addmm (kept step 2, rank 1)"));
}

// Issue 44, item 6: an operator that allocated nothing on either side is
// judged on its self increase; its visible allocation columns read "0 B", so
// its change says which column it was judged on.
TEST(MemoryRendererTest, AChangeJudgedOnSelfIncreaseSaysSo) {
  v1::MemoryDiff memory;
  v1::MemoryRowDiff& freed = *memory.add_operators();
  freed.set_name("aten::resize_");
  freed.set_device("cpu");
  freed.mutable_baseline()->set_self_increase_bytes(1024);
  freed.mutable_experimental()->set_self_increase_bytes(4096);
  freed.set_change(v1::CHANGE_INCREASED);
  freed.set_compared(v1::MEMORY_COMPARED_SELF_INCREASE_BYTES);
  v1::MemoryRowDiff& allocated = *memory.add_operators();
  allocated.set_name("aten::mm");
  allocated.set_device("cpu");
  allocated.mutable_baseline()->set_allocation_bytes(1024);
  allocated.mutable_experimental()->set_allocation_bytes(4096);
  allocated.set_change(v1::CHANGE_INCREASED);
  allocated.set_compared(v1::MEMORY_COMPARED_ALLOCATION_BYTES);
  const std::string text =
      MemoryRowsTable(memory, /*modules=*/false, 0).RenderText(400);
  EXPECT_THAT(text, testing::ContainsRegex("aten::resize_ [^\n]*0 B +0 B "
                                           "[^\n]* increased \\(self "
                                           "increase\\)\n"));
  EXPECT_THAT(text, testing::ContainsRegex("aten::mm [^\n]* increased\n"));
}

}  // namespace
}  // namespace profdiff::client
