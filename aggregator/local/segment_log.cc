#include "aggregator/local/segment_log.h"

#include <algorithm>
#include <cstring>

#include <libdeflate.h>

#include "aggregator/local/store_layout.h"
#include "aggregator/store/batch_codec.h"
#include "base/atomic_file.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

constexpr uint32_t kRecordMagic = 0x52534450;  // "PDSR" little-endian
constexpr size_t kHeaderBytes = 32;
// A segment bigger than this cannot have been written by us (it rolls at
// max_segment_bytes).
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

}  // namespace

std::vector<std::string> ListSegments(base::Env& env,
                                      const std::string& span_dir) {
  std::vector<std::string> names;
  // A folder that cannot be listed has no segments to offer.
  absl::StatusOr<std::vector<base::DirEntry>> entries = env.ListDir(span_dir);
  if (entries.ok()) {
    for (const base::DirEntry& entry : *entries) {
      if (!entry.is_directory && IsSegmentName(entry.name))
        names.push_back(entry.name);
    }
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> paths;
  paths.reserve(names.size());
  for (const std::string& name : names)
    paths.push_back(base::StrCat(span_dir, "/", name));
  return paths;
}

absl::StatusOr<uint64_t> QuarantineSegments(base::Env& env,
                                            const std::string& span_dir) {
  const std::string quarantine = QuarantineDir(span_dir);
  PD_RETURN_IF_ERROR(base::CreateDirectoriesDurably(env, quarantine));
  uint64_t bytes = 0;
  for (const std::string& path : ListSegments(env, span_dir)) {
    bytes += env.FileSize(path).value_or(0);  // a figure for the notes only
    PD_RETURN_IF_ERROR(base::Annotate(
        env.RenameFile(path, QuarantinedSegmentPath(span_dir, path)),
        "cannot move a segment to quarantine/"));
  }
  PD_RETURN_IF_ERROR(env.SyncDir(quarantine));
  PD_RETURN_IF_ERROR(env.SyncDir(span_dir));
  return bytes;
}

namespace {

// One record parsed from a segment's bytes at `offset`, or why it is not a
// valid record.
struct ParsedRecord {
  RecordHeader header;
  std::string_view payload;
  std::string problem;  // empty when valid
  bool cut_short =
      false;  // the bytes end inside the record (a torn write, at a file's end)
};

// A header whose magic and sizes a record can have (its payload is then safe to
// read).
bool PlausibleHeader(const RecordHeader& h) {
  return h.magic == kRecordMagic && h.raw_bytes <= kMaxRecordRawBytes &&
         h.compressed_bytes <= CompressedBound(h.raw_bytes);
}

ParsedRecord ParseRecord(std::string_view bytes, size_t offset) {
  ParsedRecord record;
  if (bytes.size() - offset < kHeaderBytes) {
    record.problem =
        base::StrCat("record header cut short (", bytes.size() - offset, " of ",
                     kHeaderBytes, " bytes)");
    record.cut_short = true;
    return record;
  }
  std::memcpy(&record.header, bytes.data() + offset, kHeaderBytes);
  const RecordHeader& h = record.header;
  if (h.magic != kRecordMagic) {
    record.problem = "bad record magic";
  } else if (!PlausibleHeader(h)) {
    record.problem =
        base::StrCat("record sizes out of bounds (raw ", h.raw_bytes,
                     ", compressed ", h.compressed_bytes, ")");
  } else if (bytes.size() - offset - kHeaderBytes < h.compressed_bytes) {
    record.problem = base::StrCat("record payload cut short (",
                                  bytes.size() - offset - kHeaderBytes, " of ",
                                  h.compressed_bytes, " bytes)");
    record.cut_short = true;
  } else {
    record.payload = bytes.substr(offset + kHeaderBytes, h.compressed_bytes);
    if (RecordCrc(bytes.data() + offset, record.payload) != h.crc)
      record.problem = "record CRC mismatch";
  }
  return record;
}

// The offset of the next valid record at or after `from`, or bytes.size() when
// there is none.
size_t NextValidRecord(std::string_view bytes, size_t from) {
  const std::string_view magic("PDSR", 4);  // kRecordMagic as it lies on disk
  for (size_t at = bytes.find(magic, from); at != std::string_view::npos;
       at = bytes.find(magic, at + 1)) {
    if (ParseRecord(bytes, at).problem.empty()) return at;
  }
  return bytes.size();
}

// One segment's bytes split into what stays (valid records) and what goes to
// quarantine.
struct SegmentRanges {
  std::vector<std::pair<size_t, size_t>> kept;  // [begin, end) of valid records
  std::vector<std::pair<size_t, size_t>> damaged;  // [begin, end) to quarantine
  size_t torn_tail_at = std::string::npos;  // last segment only: cut from here
};

// Moves the damaged ranges of `path` into quarantine files, then rewrites the
// segment with only its kept ranges (quarantine first: at every instant each
// byte is in one of the two, durably).
absl::Status QuarantineAndRewrite(base::Env& env, const std::string& span_dir,
                                  const std::string& path,
                                  std::string_view bytes,
                                  const SegmentRanges& ranges, SpanScan& scan) {
  const std::string quarantine = QuarantineDir(span_dir);
  PD_RETURN_IF_ERROR(base::CreateDirectoriesDurably(env, quarantine));
  for (const auto& [begin, end] : ranges.damaged) {
    const std::string file = QuarantinedRangePath(span_dir, path, begin);
    PD_RETURN_IF_ERROR(
        base::WriteFileAtomically(env, file, bytes.substr(begin, end - begin)));
    scan.quarantined.push_back(file);
  }
  std::string kept;
  for (const auto& [begin, end] : ranges.kept)
    kept.append(bytes.substr(begin, end - begin));
  return base::WriteFileAtomically(env, path, kept);
}

}  // namespace

absl::StatusOr<SpanScan> ScanAndRepairSpanSegments(
    base::Env& env, const std::string& span_dir) {
  SpanScan scan;
  std::string bytes;
  const std::vector<std::string> paths = ListSegments(env, span_dir);
  bool gap = false;  // a record past the prefix was seen: every later record is
                     // after the gap
  std::vector<std::string> problems;
  for (size_t index = 0; index < paths.size(); ++index) {
    const std::string& path = paths[index];
    const std::string name = FileName(path);
    PD_RETURN_IF_ERROR(env.ReadFileInto(path, kMaxSegmentFileBytes, bytes));
    SegmentRanges ranges;
    uint64_t prefix_bytes_here =
        0;  // this segment's bytes that belong to the prefix, once rewritten
    uint64_t kept_bytes = 0;
    size_t offset = 0;
    while (offset < bytes.size()) {
      ParsedRecord record = ParseRecord(bytes, offset);
      if (record.problem.empty() &&
          record.header.sequence <= static_cast<uint64_t>(scan.last_sequence) &&
          scan.last_sequence >= 0) {
        record.problem =
            base::StrCat("record sequence ", record.header.sequence,
                         " repeats an earlier one");
      }
      if (!record.problem.empty()) {
        const size_t next = NextValidRecord(bytes, offset + 1);
        if (next == bytes.size() && record.cut_short &&
            index + 1 == paths.size()) {
          // A crash mid-write: that record was never acknowledged.
          ranges.torn_tail_at = offset;
          problems.push_back(base::StrCat(
              name, ": byte ", offset, ": ", record.problem, "; cut ",
              bytes.size() - offset, " bytes of a torn write"));
        } else {
          ranges.damaged.emplace_back(offset, next);
          problems.push_back(base::StrCat(name, ": byte ", offset, ": ",
                                          record.problem, "; ", next - offset,
                                          " bytes moved to quarantine/"));
        }
        offset = next;
        continue;
      }
      const size_t size = kHeaderBytes + record.payload.size();
      ranges.kept.emplace_back(offset, offset + size);
      kept_bytes += size;
      if (!gap && record.header.sequence ==
                      static_cast<uint64_t>(scan.last_sequence + 1)) {
        scan.last_sequence = static_cast<int64_t>(record.header.sequence);
        scan.event_count += record.header.event_count;
        scan.stored_bytes += size;
        prefix_bytes_here = kept_bytes;
      } else {
        if (!gap) {
          problems.push_back(
              base::StrCat(name, ": chunks ", scan.last_sequence + 1, " to ",
                           record.header.sequence - 1, " are missing"));
        }
        gap = true;
        ++scan.records_after_gap;
      }
      offset += size;
    }
    if (!ranges.damaged.empty()) {
      PD_RETURN_IF_ERROR(
          QuarantineAndRewrite(env, span_dir, path, bytes, ranges, scan));
    } else if (ranges.torn_tail_at != std::string::npos) {
      PD_RETURN_IF_ERROR(env.TruncateFile(path, ranges.torn_tail_at));
    }
    if (prefix_bytes_here > 0) {
      scan.segment_paths.push_back(path);
      if (kept_bytes > prefix_bytes_here) {
        scan.prefix_end_path = path;
        scan.prefix_end_bytes = prefix_bytes_here;
      }
    } else if (kept_bytes > 0 || scan.records_after_gap > 0 ||
               !ranges.damaged.empty() ||
               scan.segment_paths.empty() /* empty, before any record */) {
      scan.paths_after_prefix.push_back(path);
    }
  }
  if (scan.records_after_gap > 0) {
    problems.push_back(base::StrCat(
        scan.records_after_gap,
        " intact chunks after the gap kept until the span is sent again"));
  }
  for (const std::string& problem : problems) {
    base::StrAppend(&scan.problem, scan.problem.empty() ? "" : "; ", problem);
  }
  return scan;
}

namespace {

class SegmentCursor final : public BatchCursor {
 public:
  SegmentCursor(base::Env* env, std::vector<std::string> paths)
      : env_(env), paths_(std::move(paths)) {}

  absl::StatusOr<std::optional<std::string_view>> Next() override {
    for (;;) {
      if (file_ == nullptr) {
        if (next_path_ == paths_.size()) return std::nullopt;
        path_ = paths_[next_path_++];
        PD_ASSIGN_OR_RETURN(file_, env_->NewRandomAccessFile(path_));
        offset_ = 0;
      }
      // The header, then the payload it announces (bounded by ParseRecord's
      // size checks).
      PD_ASSIGN_OR_RETURN(const size_t header_bytes,
                          ReadAt(offset_, kHeaderBytes, 0));
      if (header_bytes == 0) {
        file_.reset();  // this segment is done
        continue;
      }
      size_t have = header_bytes;
      if (header_bytes == kHeaderBytes) {
        RecordHeader header;
        std::memcpy(&header, record_.data(), kHeaderBytes);
        if (PlausibleHeader(header)) {
          PD_ASSIGN_OR_RETURN(const size_t payload,
                              ReadAt(offset_ + kHeaderBytes,
                                     header.compressed_bytes, kHeaderBytes));
          have += payload;
        }
      }
      const std::string_view bytes(record_.data(), have);
      const ParsedRecord record = ParseRecord(bytes, 0);
      std::string problem = record.problem;
      if (problem.empty() && record.header.sequence != expected_) {
        problem = base::StrCat("record sequence ", record.header.sequence,
                               ", expected ", expected_);
      }
      std::string_view raw;
      if (problem.empty()) {
        absl::StatusOr<std::string_view> decompressed =
            decompressor_.Decompress(record.payload, record.header.raw_bytes);
        if (decompressed.ok()) {
          raw = *decompressed;
        } else {
          problem = base::StrCat("record ", decompressed.status().message());
        }
      }
      if (!problem.empty()) {
        return absl::DataLossError(
            base::StrCat(path_, ": byte ", offset_, ": ", problem));
      }
      ++expected_;
      offset_ += kHeaderBytes + record.payload.size();
      return raw;
    }
  }

 private:
  // Reads up to `size` bytes at `offset` into record_ from `at`; returns how
  // many (0 at the end).
  absl::StatusOr<size_t> ReadAt(uint64_t offset, size_t size, size_t at) {
    record_.resize(at + size);
    PD_ASSIGN_OR_RETURN(const size_t done,
                        file_->Read(offset, size, record_.data() + at));
    record_.resize(at + done);
    return done;
  }

  base::Env* const env_;
  const std::vector<std::string> paths_;
  size_t next_path_ = 0;
  std::string path_;
  std::unique_ptr<base::RandomAccessFile> file_;
  uint64_t offset_ = 0;
  uint64_t expected_ = 0;
  std::string record_;
  BatchDecompressor decompressor_;
};

}  // namespace

std::unique_ptr<BatchCursor> OpenSpanSegments(base::Env& env,
                                              const std::string& span_dir) {
  return std::make_unique<SegmentCursor>(&env, ListSegments(env, span_dir));
}

SegmentWriter::SegmentWriter(base::Env* env, std::string span_dir,
                             uint64_t max_segment_bytes, int next_segment_index,
                             std::unique_ptr<base::WritableFile> file)
    : env_(env),
      span_dir_(std::move(span_dir)),
      max_segment_bytes_(max_segment_bytes),
      next_segment_index_(next_segment_index),
      file_(std::move(file)) {}

SegmentWriter::SegmentWriter(SegmentWriter&&) noexcept = default;
SegmentWriter& SegmentWriter::operator=(SegmentWriter&&) noexcept = default;
SegmentWriter::~SegmentWriter() = default;

absl::StatusOr<SegmentWriter> SegmentWriter::Open(base::Env& env,
                                                  const std::string& span_dir,
                                                  const SpanScan& scan,
                                                  uint64_t max_segment_bytes) {
  // Records after a gap go: appends continue the valid prefix, and the agent
  // sends them again.
  if (!scan.prefix_end_path.empty()) {
    PD_RETURN_IF_ERROR(
        env.TruncateFile(scan.prefix_end_path, scan.prefix_end_bytes));
  }
  for (const std::string& path : scan.paths_after_prefix) {
    if (absl::Status removed = env.RemoveFile(path);
        !removed.ok() && !absl::IsNotFound(removed))
      return removed;
  }
  if (!scan.paths_after_prefix.empty())
    PD_RETURN_IF_ERROR(env.SyncDir(span_dir));
  // Continue the last valid segment, or start the first; the next one is
  // numbered after it (numbers need not be contiguous: a segment may have been
  // emptied into quarantine).
  const bool any = !scan.segment_paths.empty();
  const std::string path =
      any ? scan.segment_paths.back() : SegmentPath(span_dir, 0);
  PD_ASSIGN_OR_RETURN(std::unique_ptr<base::WritableFile> file,
                      env.NewAppendableFile(path));
  if (!any) PD_RETURN_IF_ERROR(env.SyncDir(span_dir));
  return SegmentWriter(&env, span_dir, max_segment_bytes,
                       SegmentNumber(path) + 1, std::move(file));
}

absl::Status SegmentWriter::RollIfNeeded() {
  if (file_->size_bytes() < max_segment_bytes_) return absl::OkStatus();
  const std::string path = SegmentPath(span_dir_, next_segment_index_);
  PD_ASSIGN_OR_RETURN(std::unique_ptr<base::WritableFile> file,
                      env_->NewAppendableFile(path));
  PD_RETURN_IF_ERROR(env_->SyncDir(span_dir_));
  file_ = std::move(file);
  ++next_segment_index_;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> SegmentWriter::Append(uint64_t sequence,
                                               uint32_t event_count,
                                               std::string_view batch_bytes) {
  if (batch_bytes.size() > kMaxRecordRawBytes) {
    return absl::ResourceExhaustedError(base::StrCat(
        "chunk ", sequence, ": ", batch_bytes.size(),
        " bytes, more than the record limit of ", kMaxRecordRawBytes));
  }
  PD_RETURN_IF_ERROR(RollIfNeeded());
  PD_RETURN_IF_ERROR(
      base::Annotate(compressor_.Compress(batch_bytes, record_, kHeaderBytes),
                     base::StrCat("chunk ", sequence)));
  const size_t compressed = record_.size() - kHeaderBytes;
  RecordHeader header;
  header.sequence = sequence;
  header.event_count = event_count;
  header.raw_bytes = static_cast<uint32_t>(batch_bytes.size());
  header.compressed_bytes = static_cast<uint32_t>(compressed);
  std::memcpy(record_.data(), &header, kHeaderBytes);
  header.crc =
      RecordCrc(record_.data(), std::string_view(record_).substr(kHeaderBytes));
  std::memcpy(record_.data(), &header, kHeaderBytes);
  const uint64_t size_before = file_->size_bytes();
  PD_RETURN_IF_ERROR(file_->Append(record_));
  if (absl::Status status = file_->Sync(); !status.ok()) {
    // Not durable, so not acknowledged: the chunk will come again and must not
    // follow itself.
    if (absl::Status cut = file_->Truncate(size_before); !cut.ok()) {
      return base::Annotate(
          status, std::string_view(cut.message().data(), cut.message().size()));
    }
    return status;
  }
  return record_.size();
}

}  // namespace profdiff::aggregator
