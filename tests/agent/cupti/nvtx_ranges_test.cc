// NVTX pairing (push/pop per thread, start/end by id), PyTorch's range names,
// and message text.
#include "agent/cupti/nvtx_ranges.h"

#include <gtest/gtest.h>

#include "agent/cupti/nvtx_message.h"
#include "agent/cupti/torch_range_name.h"

namespace profdiff::agent::cupti {
namespace {

using trace::EventKind;

TEST(NvtxRangeRecorderTest, PushPopNestPerThread) {
  NvtxRangeRecorder recorder;
  recorder.Push(1, 0, 10, "outer");
  recorder.Push(2, 0, 11, "other thread");
  recorder.Push(1, 0, 20, "inner");
  std::optional<HostRange> inner = recorder.Pop(1, 0, 30);
  std::optional<HostRange> other = recorder.Pop(2, 0, 35);
  std::optional<HostRange> outer = recorder.Pop(1, 0, 40);
  ASSERT_TRUE(inner && other && outer);
  EXPECT_EQ(inner->message, "inner");
  EXPECT_EQ(inner->start_ns, 20u);
  EXPECT_EQ(inner->end_ns, 30u);
  EXPECT_EQ(other->message, "other thread");
  EXPECT_EQ(other->thread, 2);
  EXPECT_EQ(outer->message, "outer");
  EXPECT_EQ(outer->end_ns, 40u);
}

TEST(NvtxRangeRecorderTest, EachDomainHasItsOwnStack) {
  NvtxRangeRecorder recorder;
  recorder.Push(1, 0, 10, "aten::mm");
  recorder.Push(1, 0xd0, 20, "nccl range");
  std::optional<HostRange> global =
      recorder.Pop(1, 0, 30);  // closes aten::mm, not the NCCL one
  ASSERT_TRUE(global.has_value());
  EXPECT_EQ(global->message, "aten::mm");
  std::optional<HostRange> nccl = recorder.Pop(1, 0xd0, 40);
  ASSERT_TRUE(nccl.has_value());
  EXPECT_EQ(nccl->message, "nccl range");
}

TEST(NvtxRangeRecorderTest, StartEndPairByIdAcrossThreads) {
  NvtxRangeRecorder recorder;
  recorder.Start(7, 1, 100, "io");
  std::optional<HostRange> range =
      recorder.End(7, 250);  // ended by whoever holds the id
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->message, "io");
  EXPECT_EQ(range->thread, 1);
  EXPECT_EQ(range->end_ns, 250u);
  EXPECT_FALSE(recorder.End(7, 300).has_value());
}

TEST(NvtxRangeRecorderTest, UnbalancedPopsAreCountedNotFatal) {
  NvtxRangeRecorder recorder;
  EXPECT_FALSE(recorder.Pop(1, 0, 10).has_value());
  EXPECT_FALSE(recorder.End(99, 10).has_value());
  EXPECT_EQ(recorder.counters().unmatched_pops, 2);
}

TEST(NvtxRangeRecorderTest,
     PushesPastTheDepthBoundAreDroppedAndTheirPopsKeepOuterRanges) {
  NvtxRangeRecorder recorder(/*max_depth=*/2);
  recorder.Push(1, 0, 1, "a");
  recorder.Push(1, 0, 2, "b");
  recorder.Push(1, 0, 3, "dropped");
  EXPECT_EQ(recorder.counters().dropped, 1);
  EXPECT_FALSE(recorder.Pop(1, 0, 4).has_value());  // closes "dropped"
  std::optional<HostRange> b = recorder.Pop(1, 0, 5);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->message, "b");
}

TEST(TorchRangeNameTest, EmitNvtxOperatorRangesKeepNameSequenceAndShapes) {
  const TorchRangeName mm =
      ParseTorchRangeName("aten::mm, seq = 12, sizes = [[2, 3], [3, 4]]");
  EXPECT_EQ(mm.name, "aten::mm");
  EXPECT_EQ(mm.kind, EventKind::kCpuOp);
  EXPECT_EQ(mm.sequence_number, 12);
  EXPECT_EQ(mm.input_shapes, "[[2,3],[3,4]]");
  // PyTorch 2.x adds op_id and input_op_ids around them.
  const TorchRangeName add = ParseTorchRangeName(
      "aten::add, op_id = 5, seq = 3, sizes = [[4], [4]], input_op_ids = "
      "[(2,0)]");
  EXPECT_EQ(add.name, "aten::add");
  EXPECT_EQ(add.sequence_number, 3);
  EXPECT_EQ(add.input_shapes, "[[4],[4]]");
  const TorchRangeName plain = ParseTorchRangeName("aten::relu");
  EXPECT_EQ(plain.kind, EventKind::kCpuOp);
  EXPECT_EQ(plain.sequence_number, -1);
}

TEST(TorchRangeNameTest, StepsModulesAndUserRanges) {
  const TorchRangeName step = ParseTorchRangeName("ProfilerStep#42");
  EXPECT_EQ(step.kind, EventKind::kProfilerStep);
  EXPECT_EQ(step.step, 42);
  EXPECT_EQ(ParseTorchRangeName("ProfilerStep#x").kind,
            EventKind::kUserAnnotation);
  // emit_nvtx in PyTorch 2.x appends its fields to the step's record_function
  // too.
  const TorchRangeName emitted =
      ParseTorchRangeName("ProfilerStep#7, op_id = 12");
  EXPECT_EQ(emitted.kind, EventKind::kProfilerStep);
  EXPECT_EQ(emitted.step, 7);
  EXPECT_EQ(emitted.name, "ProfilerStep#7");
  const TorchRangeName module = ParseTorchRangeName("nn.Module: Linear_0");
  EXPECT_EQ(module.kind, EventKind::kUserAnnotation);
  EXPECT_EQ(module.name, "nn.Module: Linear_0");
  EXPECT_EQ(ParseTorchRangeName("data loading, epoch 3").kind,
            EventKind::kUserAnnotation);
  EXPECT_EQ(ParseTorchRangeName("data loading, epoch 3").name,
            "data loading, epoch 3");
}

TEST(NvtxMessageTest, AsciiWideAndRegisteredMessages) {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "forward";
  EXPECT_EQ(NvtxMessageText(&attributes, nullptr), "forward");
  attributes.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  attributes.message.unicode = L"sch\u00f6n \u6b65";
  EXPECT_EQ(NvtxMessageText(&attributes, nullptr), "sch\xc3\xb6n \xe6\xad\xa5");
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = reinterpret_cast<nvtxStringHandle_t>(0x10);
  EXPECT_EQ(
      NvtxMessageText(&attributes,
                      [](nvtxStringHandle_t h) {
                        return h == reinterpret_cast<nvtxStringHandle_t>(0x10)
                                   ? "backward"
                                   : "";
                      }),
      "backward");
  EXPECT_EQ(NvtxMessageText(nullptr, nullptr), "");
}

TEST(NvtxMessageTest, LongMessagesAreCut) {
  const std::string long_text(10'000, 'x');
  nvtxEventAttributes_t attributes = {};
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = long_text.c_str();
  EXPECT_EQ(NvtxMessageText(&attributes, nullptr).size(), kMaxNvtxMessageBytes);
}

}  // namespace
}  // namespace profdiff::agent::cupti
