// Test-side uploader speaking the Collector protocol message by message, so
// tests can send exactly what they want (good spans, bad chunks, partial
// uploads) to a real server.
#ifndef PROFDIFF_TESTS_AGGREGATOR_UPLOAD_TEST_CLIENT_H_
#define PROFDIFF_TESTS_AGGREGATOR_UPLOAD_TEST_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "profdiff/v1/collector.grpc.pb.h"
#include "trace/trace.h"

namespace profdiff::testing {

// A trace file cut into chunks the way an agent cuts it, with its upload
// header.
struct PreparedSpan {
  v1::UploadHeader header;
  std::vector<v1::TraceChunk> chunks;
  int64_t event_count = 0;
  trace::Trace trace;
};

// Reads `path` and prepares it as span `span` of `run` (worker name from the
// file name).
PreparedSpan PrepareSpan(const std::string& path, const std::string& run,
                         size_t chunk_events);

// One Upload stream.
class UploadStream {
 public:
  explicit UploadStream(const std::shared_ptr<grpc::Channel>& channel);
  // Writes `message`; false when the stream is broken.
  bool Write(const v1::UploadMessage& message);
  bool WriteHeader(const v1::UploadHeader& header);
  bool WriteChunk(const v1::TraceChunk& chunk);
  bool WriteEnd(uint64_t chunk_count, int64_t event_count);
  // Reads the next ack; false when the server ended the stream.
  bool ReadAck(v1::UploadAck& ack);
  grpc::Status Finish();
  // Cancels the stream (as an agent that dies would), then waits for its
  // status.
  grpc::Status Cancel();

 private:
  std::unique_ptr<v1::Collector::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::UploadMessage, v1::UploadAck>>
      stream_;
};

// Uploads chunks [0, chunk_limit) of `span` (all, and the end, when chunk_limit
// is -1) and returns the final status. Expects an ack per message.
grpc::Status UploadSpan(const std::shared_ptr<grpc::Channel>& channel,
                        const PreparedSpan& span, int64_t chunk_limit = -1);

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_AGGREGATOR_UPLOAD_TEST_CLIENT_H_
