#include "tests/aggregator/upload_test_client.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "rpc/channel.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"
#include "trace/trace_file_name.h"
#include "trace/worker_info.h"

namespace profdiff::testing {

PreparedSpan PrepareSpan(const std::string& path, const std::string& run,
                         size_t chunk_events) {
  PreparedSpan span;
  trace::KinetoReader reader;
  absl::StatusOr<trace::Trace> read = reader.ReadFile(path);
  EXPECT_TRUE(read.ok()) << read.status();
  if (!read.ok()) return span;
  span.trace = std::move(read).value();
  const std::string file_name = std::filesystem::path(path).filename().string();
  span.header.set_run(run);
  span.header.set_span(file_name);
  span.header.set_agent_id("test-agent");
  *span.header.mutable_worker() = trace::WorkerInfoOf(span.trace);
  span.header.mutable_worker()->set_run(run);
  span.header.mutable_worker()->set_worker_name(trace::WorkerNameOf(file_name));
  span.header.mutable_worker()->set_hostname("test-host");
  for (size_t begin = 0; begin < span.trace.events.size();) {
    v1::TraceChunk& chunk = span.chunks.emplace_back();
    chunk.set_sequence(span.chunks.size() - 1);
    absl::StatusOr<size_t> end = trace::EncodeEventBatchWithin(
        span.trace, begin, chunk_events, 4 << 20, *chunk.mutable_events());
    EXPECT_TRUE(end.ok()) << end.status();
    if (!end.ok()) break;
    begin = *end;
  }
  span.event_count = static_cast<int64_t>(span.trace.events.size());
  return span;
}

UploadStream::UploadStream(const std::shared_ptr<grpc::Channel>& channel)
    : stub_(v1::Collector::NewStub(channel)) {
  rpc::SetTimeout(context_, absl::Seconds(60));
  stream_ = stub_->Upload(&context_);
}

bool UploadStream::Write(const v1::UploadMessage& message) {
  return stream_->Write(message);
}

bool UploadStream::WriteHeader(const v1::UploadHeader& header) {
  v1::UploadMessage message;
  *message.mutable_header() = header;
  return Write(message);
}

bool UploadStream::WriteChunk(const v1::TraceChunk& chunk) {
  v1::UploadMessage message;
  *message.mutable_chunk() = chunk;
  return Write(message);
}

bool UploadStream::WriteEnd(uint64_t chunk_count, int64_t event_count) {
  v1::UploadMessage message;
  message.mutable_end()->set_chunk_count(chunk_count);
  message.mutable_end()->set_event_count(event_count);
  return Write(message);
}

bool UploadStream::ReadAck(v1::UploadAck& ack) { return stream_->Read(&ack); }

grpc::Status UploadStream::Cancel() {
  context_.TryCancel();
  return Finish();
}

grpc::Status UploadStream::Finish() {
  stream_->WritesDone();
  v1::UploadAck ignored;
  while (stream_->Read(&ignored)) {
  }
  return stream_->Finish();
}

grpc::Status UploadSpan(const std::shared_ptr<grpc::Channel>& channel,
                        const PreparedSpan& span, int64_t chunk_limit) {
  UploadStream stream(channel);
  v1::UploadAck ack;
  if (!stream.WriteHeader(span.header) || !stream.ReadAck(ack))
    return stream.Finish();
  if (ack.span_closed()) return stream.Finish();
  const int64_t chunks = static_cast<int64_t>(span.chunks.size());
  const int64_t last = chunk_limit < 0 ? chunks : std::min(chunk_limit, chunks);
  for (int64_t k = ack.durable_sequence() + 1; k < last; ++k) {
    if (!stream.WriteChunk(span.chunks[k]) || !stream.ReadAck(ack))
      return stream.Finish();
    EXPECT_EQ(ack.durable_sequence(), k);
  }
  if (chunk_limit < 0) {
    if (!stream.WriteEnd(span.chunks.size(), span.event_count) ||
        !stream.ReadAck(ack)) {
      return stream.Finish();
    }
    EXPECT_TRUE(ack.span_closed());
  }
  return stream.Finish();
}

}  // namespace profdiff::testing
