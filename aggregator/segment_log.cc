#include "aggregator/segment_log.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <absl/strings/str_format.h>
#include <libdeflate.h>

#include "aggregator/batch_codec.h"
#include "base/file_reader.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kRecordMagic = 0x52534450;  // "PDSR" little-endian
constexpr size_t kHeaderBytes = 32;
// A segment bigger than this cannot have been written by us (it rolls at max_segment_bytes).
constexpr uint64_t kMaxSegmentFileBytes = uint64_t{4} << 30;

struct RecordHeader {
  uint32_t magic = kRecordMagic;
  uint32_t crc = 0;
  uint64_t sequence = 0;
  uint32_t event_count = 0;
  uint32_t raw_bytes = 0;
  uint32_t compressed_bytes = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(RecordHeader) == kHeaderBytes);

uint32_t RecordCrc(const char* header_bytes, std::string_view payload) {
  uint32_t crc = libdeflate_crc32(0, header_bytes + 8, kHeaderBytes - 8);
  return libdeflate_crc32(crc, payload.data(), payload.size());
}

std::string SegmentName(int index) { return absl::StrFormat("seg-%06d.log", index); }

// Segment files of a span folder, by index.
std::vector<std::string> ListSegments(const std::string& span_dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(span_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("seg-") && name.ends_with(".log")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back(base::StrCat(span_dir, "/", name));
  return paths;
}

// One record parsed from a segment's bytes at `offset`, or why it is not a valid record.
struct ParsedRecord {
  RecordHeader header;
  std::string_view payload;
  std::string problem;  // empty when valid
};

ParsedRecord ParseRecord(std::string_view bytes, size_t offset) {
  ParsedRecord record;
  if (bytes.size() - offset < kHeaderBytes) {
    record.problem = base::StrCat("record header cut short (", bytes.size() - offset, " of ",
                                  kHeaderBytes, " bytes)");
    return record;
  }
  std::memcpy(&record.header, bytes.data() + offset, kHeaderBytes);
  const RecordHeader& h = record.header;
  if (h.magic != kRecordMagic) {
    record.problem = "bad record magic";
  } else if (h.raw_bytes > kMaxRecordRawBytes || h.compressed_bytes > CompressedBound(h.raw_bytes)) {
    record.problem = base::StrCat("record sizes out of bounds (raw ", h.raw_bytes, ", compressed ",
                                  h.compressed_bytes, ")");
  } else if (bytes.size() - offset - kHeaderBytes < h.compressed_bytes) {
    record.problem = base::StrCat("record payload cut short (", bytes.size() - offset - kHeaderBytes,
                                  " of ", h.compressed_bytes, " bytes)");
  } else {
    record.payload = bytes.substr(offset + kHeaderBytes, h.compressed_bytes);
    if (RecordCrc(bytes.data() + offset, record.payload) != h.crc) record.problem = "record CRC mismatch";
  }
  return record;
}

absl::Status TruncateFile(const std::string& path, uint64_t size_bytes) {
  if (::truncate(path.c_str(), static_cast<off_t>(size_bytes)) != 0) {
    return absl::UnavailableError(base::StrCat(path, ": truncate to ", size_bytes, " bytes: ",
                                               std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SpanScan> ScanAndRepairSpanSegments(const std::string& span_dir) {
  SpanScan scan;
  std::string bytes;
  const std::vector<std::string> paths = ListSegments(span_dir);
  bool cut = false;
  for (const std::string& path : paths) {
    if (cut) {
      // Everything after a bad record goes: it cannot be reached in sequence.
      std::error_code error;
      fs::remove(path, error);
      continue;
    }
    PD_RETURN_IF_ERROR(base::ReadFileInto(path, kMaxSegmentFileBytes, bytes));
    size_t offset = 0;
    while (offset < bytes.size()) {
      ParsedRecord record = ParseRecord(bytes, offset);
      if (record.problem.empty() &&
          record.header.sequence != static_cast<uint64_t>(scan.last_sequence + 1)) {
        record.problem = base::StrCat("record sequence ", record.header.sequence, ", expected ",
                                      scan.last_sequence + 1);
      }
      if (!record.problem.empty()) {
        scan.problem = base::StrCat(fs::path(path).filename().string(), ": byte ", offset, ": ",
                                    record.problem, "; cut ", bytes.size() - offset,
                                    " bytes from there on");
        PD_RETURN_IF_ERROR(TruncateFile(path, offset));
        cut = true;
        break;
      }
      scan.last_sequence = static_cast<int64_t>(record.header.sequence);
      scan.event_count += record.header.event_count;
      offset += kHeaderBytes + record.payload.size();
    }
    scan.stored_bytes += offset;
    if (offset > 0) scan.segment_paths.push_back(path);
  }
  return scan;
}

absl::Status ReadSpanSegments(
    const std::string& span_dir,
    absl::FunctionRef<absl::Status(uint64_t sequence, std::string_view batch_bytes)> visit) {
  BatchDecompressor decompressor;
  std::string bytes;
  uint64_t expected = 0;
  for (const std::string& path : ListSegments(span_dir)) {
    PD_RETURN_IF_ERROR(base::ReadFileInto(path, kMaxSegmentFileBytes, bytes));
    size_t offset = 0;
    while (offset < bytes.size()) {
      const ParsedRecord record = ParseRecord(bytes, offset);
      std::string problem = record.problem;
      if (problem.empty() && record.header.sequence != expected) {
        problem = base::StrCat("record sequence ", record.header.sequence, ", expected ", expected);
      }
      std::string_view raw;
      if (problem.empty()) {
        absl::StatusOr<std::string_view> decompressed =
            decompressor.Decompress(record.payload, record.header.raw_bytes);
        if (decompressed.ok()) {
          raw = *decompressed;
        } else {
          problem = base::StrCat("record ", decompressed.status().message());
        }
      }
      if (!problem.empty()) {
        return absl::DataLossError(base::StrCat(path, ": byte ", offset, ": ", problem));
      }
      PD_RETURN_IF_ERROR(visit(record.header.sequence, raw));
      ++expected;
      offset += kHeaderBytes + record.payload.size();
    }
  }
  return absl::OkStatus();
}

SegmentWriter::SegmentWriter(std::string span_dir, uint64_t max_segment_bytes,
                             int next_segment_index, base::AppendOnlyFile file)
    : span_dir_(std::move(span_dir)),
      max_segment_bytes_(max_segment_bytes),
      next_segment_index_(next_segment_index),
      file_(std::move(file)) {}

SegmentWriter::SegmentWriter(SegmentWriter&&) noexcept = default;
SegmentWriter& SegmentWriter::operator=(SegmentWriter&&) noexcept = default;
SegmentWriter::~SegmentWriter() = default;

absl::StatusOr<SegmentWriter> SegmentWriter::Open(const std::string& span_dir,
                                                  const SpanScan& scan,
                                                  uint64_t max_segment_bytes) {
  const int segments = static_cast<int>(scan.segment_paths.size());
  // Continue the last valid segment, or start the first.
  const std::string path =
      segments > 0 ? scan.segment_paths.back() : base::StrCat(span_dir, "/", SegmentName(0));
  PD_ASSIGN_OR_RETURN(base::AppendOnlyFile file, base::AppendOnlyFile::Open(path));
  if (segments == 0) PD_RETURN_IF_ERROR(base::SyncDirectory(span_dir));
  return SegmentWriter(span_dir, max_segment_bytes, std::max(segments, 1), std::move(file));
}

absl::Status SegmentWriter::RollIfNeeded() {
  if (file_.size_bytes() < max_segment_bytes_) return absl::OkStatus();
  const std::string path = base::StrCat(span_dir_, "/", SegmentName(next_segment_index_));
  PD_ASSIGN_OR_RETURN(base::AppendOnlyFile file, base::AppendOnlyFile::Open(path));
  PD_RETURN_IF_ERROR(base::SyncDirectory(span_dir_));
  file_ = std::move(file);
  ++next_segment_index_;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> SegmentWriter::Append(uint64_t sequence, uint32_t event_count,
                                               std::string_view batch_bytes) {
  if (batch_bytes.size() > kMaxRecordRawBytes) {
    return absl::ResourceExhaustedError(base::StrCat("chunk ", sequence, ": ", batch_bytes.size(),
                                                     " bytes, more than the record limit of ",
                                                     kMaxRecordRawBytes));
  }
  PD_RETURN_IF_ERROR(RollIfNeeded());
  PD_RETURN_IF_ERROR(base::Annotate(compressor_.Compress(batch_bytes, record_, kHeaderBytes),
                                    base::StrCat("chunk ", sequence)));
  const size_t compressed = record_.size() - kHeaderBytes;
  RecordHeader header;
  header.sequence = sequence;
  header.event_count = event_count;
  header.raw_bytes = static_cast<uint32_t>(batch_bytes.size());
  header.compressed_bytes = static_cast<uint32_t>(compressed);
  std::memcpy(record_.data(), &header, kHeaderBytes);
  header.crc = RecordCrc(record_.data(), std::string_view(record_).substr(kHeaderBytes));
  std::memcpy(record_.data(), &header, kHeaderBytes);
  const uint64_t size_before = file_.size_bytes();
  PD_RETURN_IF_ERROR(file_.Append(record_));
  if (absl::Status status = file_.Sync(); !status.ok()) {
    // Not durable, so not acknowledged: the chunk will come again and must not follow itself.
    if (absl::Status cut = file_.CutBackTo(size_before); !cut.ok()) {
      return base::Annotate(status, std::string_view(cut.message().data(), cut.message().size()));
    }
    return status;
  }
  return record_.size();
}

}  // namespace profdiff::aggregator
