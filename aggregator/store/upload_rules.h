// What every store backend checks of an upload before it stores anything: the
// header's ids and bounds, that a span's content never changes (contract 6 in
// store.h), that a run has one world size (contract 7) and the chunk size.
#ifndef PROFDIFF_AGGREGATOR_STORE_UPLOAD_RULES_H_
#define PROFDIFF_AGGREGATOR_STORE_UPLOAD_RULES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>

#include "profdiff/v1/collector.pb.h"
#include "profdiff/v1/trace.pb.h"

namespace profdiff::aggregator {

// The largest world size a run may declare: a bound on what one upload can make
// a reader allocate (ranks listed as missing, per-rank rows).
inline constexpr int32_t kMaxWorldSize = 1 << 20;
// Agent ids and hostnames in headers: printable ASCII, at most this long.
inline constexpr size_t kMaxAgentIdBytes = 255;
// A content fingerprint: at most this many lowercase hex digits.
inline constexpr size_t kMaxFingerprintBytes = 64;

// The checks every backend makes of an upload header: ids, rank, world size (<=
// kMaxWorldSize), agent id and hostname (printable, bounded), content
// fingerprint (hex, bounded).
absl::Status ValidateUploadHeader(const v1::UploadHeader& header);

// Contract 6: OK unless both fingerprints are set and differ; then
// AlreadyExists naming the span, both fingerprints and the stored span's agent
// and source path.
absl::Status CheckSameContent(const v1::UploadHeader& stored,
                              const v1::UploadHeader& incoming);

// Contract 7: the world size a run's spans agree on. `Note` each stored span's
// worker (those without distributedInfo do not count: their world size is a
// guess), then `Check` a new one.
class WorldSizeAgreement {
 public:
  void Note(const v1::WorkerInfo& worker);
  // FailedPrecondition naming both values when `worker` has distributedInfo and
  // another world size than the spans noted (and the worker that said it).
  absl::Status Check(const std::string& run,
                     const v1::WorkerInfo& worker) const;

 private:
  int32_t world_size_ = 0;  // 0: no span with distributedInfo noted
  std::string said_by_;
};

// A chunk's events over rpc::kMaxChunkBytes (encoded) are refused:
// ResourceExhausted naming the chunk, its size and the limit (messages may be
// larger than that to carry the envelope).
absl::Status CheckChunkSize(const v1::TraceChunk& chunk);

// An id for a message: itself when it is a valid id, else escaped and cut
// (base::QuoteBytes), so a hostile megabyte id is never echoed whole.
std::string DisplayId(std::string_view id);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_UPLOAD_RULES_H_
