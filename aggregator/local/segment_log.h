// The stored events of one span: a folder of segment files (`seg-000000.log`,
// ...), each a sequence of records, one record per uploaded chunk: a fixed
// header, then the chunk's EventBatch serialized and zstd-compressed.
//
// Design:
// 1. Append-only with fdatasync per record: a chunk is acknowledged only once
//    its record is on disk, so after a crash every acknowledged chunk is there
//    in full.
// 2. Every record carries a CRC-32 over its header fields and payload, and its
//    sequence number: a torn tail (crash mid-write) or damaged bytes are found
//    by scanning, never served.
// 3. Segments roll at a size bound so no single file grows without limit.
//
// Record layout (little-endian, 32-byte header):
//   u32 magic 'PDSR' | u32 crc32(bytes 8..31 + payload) | u64 sequence | u32
//   event_count | u32 raw_bytes | u32 compressed_bytes | u32 reserved (0) |
//   payload
#ifndef PROFDIFF_AGGREGATOR_LOCAL_SEGMENT_LOG_H_
#define PROFDIFF_AGGREGATOR_LOCAL_SEGMENT_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "aggregator/store/batch_codec.h"
#include "aggregator/store/batch_cursor.h"
#include "base/env.h"

namespace profdiff::aggregator {

// Bound on one record's uncompressed payload: a chunk is at most 4 MiB on the
// wire; twice that leaves room and still refuses a nonsense length read from a
// damaged header.
inline constexpr uint32_t kMaxRecordRawBytes = 8 << 20;

// What a scan of a span's segments found.
struct SpanScan {
  int64_t last_sequence =
      -1;  // records 0..last_sequence are present and valid, in order
  int64_t event_count = 0;    // events in those records
  uint64_t stored_bytes = 0;  // bytes of those records on disk
  std::vector<std::string>
      segment_paths;  // segments holding those records, in order
  // Intact records found after a gap (a record in between was damaged): kept on
  // disk, never served; a writer cuts them off (the agent sends them again
  // after the gap).
  int64_t records_after_gap = 0;
  // Where a writer cuts: the prefix's last segment is truncated to
  // `prefix_end_bytes` and the segments in `paths_after_prefix` are removed.
  // Empty when there is nothing after the prefix.
  std::string prefix_end_path;
  uint64_t prefix_end_bytes = 0;
  std::vector<std::string> paths_after_prefix;
  // Files the damaged bytes were moved to (quarantine/ beside the segments).
  std::vector<std::string> quarantined;
  // Empty when every byte was a valid record in sequence; else what was found,
  // for logs/GetRun.
  std::string problem;
};

// Every function here does its I/O through `env` (base/env.h), which must
// outlive what it returns.

// Scans the segments in `span_dir` in order. Records 0, 1, 2, ... form the
// valid prefix. A damaged record (bad CRC, bad header, bad sizes) is not the
// end: the scan resynchronises on the next valid record header, moves the
// damaged bytes into `span_dir`/quarantine/<segment>.<byte>.bad (durably,
// before the segment is rewritten without them) and goes on, so no intact
// record is deleted. Intact records after a gap stay where they are
// (records_after_gap). Only a torn tail (the last segment's last record cut
// short by a crash mid-write, never acknowledged) is cut. Unavailable on I/O
// errors.
absl::StatusOr<SpanScan> ScanAndRepairSpanSegments(base::Env& env,
                                                   const std::string& span_dir);

// The segment files of a span folder ("seg-NNNNNN.log"), in order.
std::vector<std::string> ListSegments(base::Env& env,
                                      const std::string& span_dir);

// Moves every segment of `span_dir` into its quarantine/ folder (durably);
// returns their bytes. For a span whose records cannot be tied to a header any
// more (its span.pb is damaged).
absl::StatusOr<uint64_t> QuarantineSegments(base::Env& env,
                                            const std::string& span_dir);

// A cursor over the records of `span_dir`'s segments, in order, reading one
// record at a time (pread of its header, then its payload). Next() is DataLoss
// naming the file and byte offset when a record is damaged or a sequence is
// missing. The segments must not be written meanwhile (closed spans only).
std::unique_ptr<BatchCursor> OpenSpanSegments(base::Env& env,
                                              const std::string& span_dir);

// Appends records to a span's segments. Not thread-safe: one writer per span at
// a time.
class SegmentWriter {
 public:
  // Continues the span described by `scan` (from ScanAndRepairSpanSegments; a
  // new span has an empty scan) after its valid prefix: records after a gap are
  // cut off first (their agent sends them again). Segments roll once they reach
  // `max_segment_bytes`.
  static absl::StatusOr<SegmentWriter> Open(base::Env& env,
                                            const std::string& span_dir,
                                            const SpanScan& scan,
                                            uint64_t max_segment_bytes);
  SegmentWriter(SegmentWriter&&) noexcept;
  SegmentWriter& operator=(SegmentWriter&&) noexcept;
  ~SegmentWriter();

  // Compresses `batch_bytes`, appends the record and fdatasyncs it; returns the
  // record's size on disk. On error the segment is cut back to where it was
  // (nothing half-written stays).
  absl::StatusOr<uint64_t> Append(uint64_t sequence, uint32_t event_count,
                                  std::string_view batch_bytes);

 private:
  SegmentWriter(base::Env* env, std::string span_dir,
                uint64_t max_segment_bytes, int next_segment_index,
                std::unique_ptr<base::WritableFile> file);
  absl::Status RollIfNeeded();

  base::Env* env_;
  std::string span_dir_;
  uint64_t max_segment_bytes_;
  int next_segment_index_;
  std::unique_ptr<base::WritableFile> file_;
  BatchCompressor compressor_;
  std::string record_;  // reused record buffer
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_LOCAL_SEGMENT_LOG_H_
