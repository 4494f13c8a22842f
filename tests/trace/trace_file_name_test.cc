// What a trace file's name says (trace_file_name.cc): whether it is a trace,
// and the worker that wrote it.
#include "trace/trace_file_name.h"

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

TEST(TraceFileNameTest, JsonAndGzippedJsonAreTraces) {
  EXPECT_TRUE(IsTraceFileName("worker0.1623143089861.pt.trace.json.gz"));
  EXPECT_TRUE(IsTraceFileName("worker0.pt.trace.json"));
  EXPECT_TRUE(IsTraceFileName("trace.json"));
  EXPECT_TRUE(IsTraceFileName(".json"));
}

TEST(TraceFileNameTest, OtherNamesAreNotTraces) {
  EXPECT_FALSE(IsTraceFileName("trace.json.bz2"));
  EXPECT_FALSE(IsTraceFileName("trace.gz"));
  EXPECT_FALSE(IsTraceFileName("trace.jsonl"));
  EXPECT_FALSE(IsTraceFileName("trace.JSON"));
  EXPECT_FALSE(IsTraceFileName("json"));
  EXPECT_FALSE(IsTraceFileName(""));
}

TEST(TraceFileNameTest, TensorBoardNamesGiveTheWorkerBeforeTheTimestamp) {
  EXPECT_EQ(WorkerNameOf("worker0.1623143089861.pt.trace.json.gz"), "worker0");
  EXPECT_EQ(WorkerNameOf("host_1234.1700000000.pt.trace.json"), "host_1234");
}

TEST(TraceFileNameTest, OtherNamesLoseOnlyTheirTraceSuffixes) {
  EXPECT_EQ(WorkerNameOf("rank3.pt.trace.json"), "rank3");
  EXPECT_EQ(WorkerNameOf("rank3.json.gz"), "rank3");
  EXPECT_EQ(WorkerNameOf("resnet50.v2.json"), "resnet50.v2");
  EXPECT_EQ(WorkerNameOf("noext"), "noext");
}

TEST(TraceFileNameTest, OnlyAllDigitLastPartsAreTimestamps) {
  EXPECT_EQ(WorkerNameOf("w.12a.json"), "w.12a");
  EXPECT_EQ(WorkerNameOf("w..json"), "w.");        // nothing after the dot
  EXPECT_EQ(WorkerNameOf("12345.json"), "12345");  // no dot: the whole name
}

}  // namespace
}  // namespace profdiff::trace
