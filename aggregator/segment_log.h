// The stored events of one span: a folder of segment files (`seg-000000.log`, ...), each a
// sequence of records, one record per uploaded chunk: a fixed header, then the chunk's
// EventBatch serialized and zstd-compressed.
//
// Design:
// 1. Append-only with fdatasync per record: a chunk is acknowledged only once its record is on
//    disk, so after a crash every acknowledged chunk is there in full.
// 2. Every record carries a CRC-32 over its header fields and payload, and its sequence number:
//    a torn tail (crash mid-write) or damaged bytes are found by scanning, never served.
// 3. Segments roll at a size bound so no single file grows without limit.
//
// Record layout (little-endian, 32-byte header):
//   u32 magic 'PDSR' | u32 crc32(bytes 8..31 + payload) | u64 sequence | u32 event_count |
//   u32 raw_bytes | u32 compressed_bytes | u32 reserved (0) | payload
#ifndef PROFDIFF_AGGREGATOR_SEGMENT_LOG_H_
#define PROFDIFF_AGGREGATOR_SEGMENT_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "aggregator/batch_codec.h"
#include "base/atomic_file.h"

namespace profdiff::aggregator {

// Bound on one record's uncompressed payload: a chunk is at most 4 MiB on the wire; twice that
// leaves room and still refuses a nonsense length read from a damaged header.
inline constexpr uint32_t kMaxRecordRawBytes = 8 << 20;

// What a scan of a span's segments found.
struct SpanScan {
  int64_t last_sequence = -1;   // records 0..last_sequence are present and valid
  int64_t event_count = 0;      // events in those records
  uint64_t stored_bytes = 0;    // bytes of those records on disk
  std::vector<std::string> segment_paths;  // valid segments, in order
  // Empty when every byte was a valid record; else what was found and cut, for logs/GetRun.
  std::string problem;
};

// Scans the segments in `span_dir` in order and keeps the longest valid prefix of records with
// sequences 0, 1, 2, ...: the first bad record (torn, bad CRC, wrong sequence) and everything
// after it (later segments too) is cut off the disk, so later appends follow valid data.
// Unavailable on I/O errors.
absl::StatusOr<SpanScan> ScanAndRepairSpanSegments(const std::string& span_dir);

// Calls `visit(sequence, serialized_event_batch)` for every record in order. DataLoss naming
// the file and byte offset when a record is damaged or a sequence is missing.
absl::Status ReadSpanSegments(
    const std::string& span_dir,
    absl::FunctionRef<absl::Status(uint64_t sequence, std::string_view batch_bytes)> visit);

// Appends records to a span's segments. Not thread-safe: one writer per span at a time.
class SegmentWriter {
 public:
  // Continues the span described by `scan` (from ScanAndRepairSpanSegments; a new span has an
  // empty scan). Segments roll once they reach `max_segment_bytes`.
  static absl::StatusOr<SegmentWriter> Open(const std::string& span_dir, const SpanScan& scan,
                                            uint64_t max_segment_bytes);
  SegmentWriter(SegmentWriter&&) noexcept;
  SegmentWriter& operator=(SegmentWriter&&) noexcept;
  ~SegmentWriter();

  // Compresses `batch_bytes`, appends the record and fdatasyncs it; returns the record's size on
  // disk. On error the segment is cut back to where it was (nothing half-written stays).
  absl::StatusOr<uint64_t> Append(uint64_t sequence, uint32_t event_count,
                                  std::string_view batch_bytes);

 private:
  SegmentWriter(std::string span_dir, uint64_t max_segment_bytes, int next_segment_index,
                base::AppendOnlyFile file);
  absl::Status RollIfNeeded();

  std::string span_dir_;
  uint64_t max_segment_bytes_;
  int next_segment_index_;
  base::AppendOnlyFile file_;
  BatchCompressor compressor_;
  std::string record_;  // reused record buffer
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_SEGMENT_LOG_H_
