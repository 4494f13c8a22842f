// A Collector that keeps spans in memory, for testing the agent's side of the
// upload protocol (collector.proto): it acks each chunk as durable, closes a
// span on a matching end, and can break a stream or refuse a span on request. A
// sync service: a test double, not a pattern.
#ifndef PROFDIFF_TESTS_AGENT_FAKE_COLLECTOR_H_
#define PROFDIFF_TESTS_AGENT_FAKE_COLLECTOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include "profdiff/v1/collector.grpc.pb.h"
#include "trace/trace.h"

namespace profdiff::agent {

// What the fake stored for one (run, span).
struct FakeSpan {
  trace::Trace events;  // chunks appended in order
  int64_t durable_sequence = -1;
  bool closed = false;
  v1::SpanEnd end;
  size_t max_batch_bytes = 0;  // largest EventBatch received
};

// One Upload stream as the fake saw it.
struct FakeStream {
  v1::UploadHeader header;
  int64_t first_chunk =
      -1;  // sequence of the first chunk received on it, -1 when none
};

class FakeCollector final : public v1::Collector::Service {
 public:
  grpc::Status Upload(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::UploadAck, v1::UploadMessage>* stream)
      override;

  // The next stream that stores chunk `sequence` ends with UNAVAILABLE before
  // acking it.
  void BreakAfterChunk(int64_t sequence) ABSL_LOCKS_EXCLUDED(mu_);
  // Every stream ends with `status` right after its header.
  void RefuseWith(grpc::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // Every stream waits after its header until `n` streams are open at once
  // (30 s at most); once they were, none waits again. Shows that an agent
  // really keeps `n` uploads in flight together.
  void HoldUntilOpen(size_t n) ABSL_LOCKS_EXCLUDED(mu_);
  // The most Upload streams that were open at once.
  size_t max_open_streams() const ABSL_LOCKS_EXCLUDED(mu_);
  // Marks `run`/`span` closed, as if uploaded before.
  void CloseSpan(const std::string& run, const std::string& span)
      ABSL_LOCKS_EXCLUDED(mu_);

  std::vector<FakeStream> streams() const ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until at least `n` streams began (or 30 s); false on timeout.
  bool AwaitStreams(size_t n) const ABSL_LOCKS_EXCLUDED(mu_);
  // The stored span, nullptr when unknown. Read it only while no upload runs.
  const FakeSpan* span(const std::string& run, const std::string& span) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, FakeSpan> spans_ ABSL_GUARDED_BY(mu_);
  std::vector<FakeStream> streams_ ABSL_GUARDED_BY(mu_);
  int64_t break_after_chunk_ ABSL_GUARDED_BY(mu_) = -1;
  bool refuse_ ABSL_GUARDED_BY(mu_) = false;
  size_t open_streams_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_open_streams_ ABSL_GUARDED_BY(mu_) = 0;
  size_t hold_until_open_ ABSL_GUARDED_BY(mu_) = 0;  // 0: no hold
  grpc::Status refusal_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_TESTS_AGENT_FAKE_COLLECTOR_H_
