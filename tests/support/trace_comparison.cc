#include "tests/support/trace_comparison.h"

#include <gtest/gtest.h>

namespace profdiff::test_support {

std::string IdText(const trace::Trace& trace, int64_t value) {
  if (value < 0 && static_cast<uint64_t>(-1 - value) < trace.strings.size()) {
    return "string " + std::string(trace.strings.Get(
                           trace::StringId{static_cast<uint32_t>(-1 - value)}));
  }
  return std::to_string(value);
}

void ExpectSameEvents(const trace::Trace& a, const trace::Trace& b) {
  const trace::EventTable& x = a.events;
  const trace::EventTable& y = b.events;
  ASSERT_EQ(x.size(), y.size());
  ASSERT_EQ(x.arg_begin, y.arg_begin);
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "event " << i);
    ASSERT_EQ(x.kind[i], y.kind[i]);
    ASSERT_EQ(x.phase[i], y.phase[i]);
    ASSERT_EQ(a.strings.Get(x.name[i]), b.strings.Get(y.name[i]));
    ASSERT_EQ(a.strings.Get(x.category[i]), b.strings.Get(y.category[i]));
    ASSERT_EQ(x.start_ns[i], y.start_ns[i]);
    ASSERT_EQ(x.duration_ns[i], y.duration_ns[i]);
    ASSERT_EQ(IdText(a, x.pid[i]), IdText(b, y.pid[i]));
    ASSERT_EQ(IdText(a, x.tid[i]), IdText(b, y.tid[i]));
    ASSERT_EQ(x.correlation[i], y.correlation[i]);
    ASSERT_EQ(x.external_id[i], y.external_id[i]);
    ASSERT_EQ(x.sequence_number[i], y.sequence_number[i]);
    ASSERT_EQ(x.forward_thread_id[i], y.forward_thread_id[i]);
    ASSERT_EQ(x.python_id[i], y.python_id[i]);
    ASSERT_EQ(x.python_parent_id[i], y.python_parent_id[i]);
    ASSERT_EQ(IdText(a, x.flow_id[i]), IdText(b, y.flow_id[i]));
    ASSERT_EQ(a.strings.Get(x.input_shapes[i]),
              b.strings.Get(y.input_shapes[i]));
  }
  ASSERT_EQ(a.args.size(), b.args.size());
  for (size_t r = 0; r < a.args.size(); ++r) {
    SCOPED_TRACE(::testing::Message() << "argument row " << r);
    ASSERT_EQ(a.args.key[r], b.args.key[r]);
    ASSERT_EQ(a.args.int_value[r], b.args.int_value[r]);
    ASSERT_EQ(a.args.double_value[r], b.args.double_value[r]);
    ASSERT_EQ(a.strings.Get(a.args.string_value[r]),
              b.strings.Get(b.args.string_value[r]));
  }
}

void ExpectSameMetadata(const trace::Trace& a, const trace::Trace& b) {
  EXPECT_EQ(a.metadata.rank, b.metadata.rank);
  EXPECT_EQ(a.metadata.world_size, b.metadata.world_size);
  EXPECT_EQ(a.metadata.base_time_ns, b.metadata.base_time_ns);
  EXPECT_EQ(a.metadata.devices.size(), b.metadata.devices.size());
}

}  // namespace profdiff::test_support
