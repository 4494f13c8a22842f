#include "trace/gzip_stream.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdint>

#include "base/str_cat.h"

namespace profdiff::trace {
namespace {

// ISA-L counts bytes in and out in 32 bits.
constexpr size_t kMaxStep = size_t{1} << 30;

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

GzipStream::GzipStream(std::string_view compressed, std::string_view source)
    : in_(compressed),
      source_(source),
      state_(std::make_unique<inflate_state>()) {}

GzipStream::~GzipStream() = default;

absl::Status GzipStream::Corrupt() const {
  return absl::DataLossError(base::StrCat(
      source_,
      ": gzip data is corrupt or truncated (member at compressed byte ",
      member_offset_, " of ", in_.size(), ")"));
}

absl::Status GzipStream::NextMember() {
  member_offset_ = in_offset_;
  if (in_offset_ == in_.size()) {
    done_ = true;
    return absl::OkStatus();
  }
  if (!IsGzip(in_.substr(in_offset_))) {
    // Trailing zero padding after the last member is tolerated, as gzip(1)
    // does.
    if (in_.find_first_not_of('\0', in_offset_) == std::string_view::npos) {
      done_ = true;
      return absl::OkStatus();
    }
    return absl::DataLossError(
        base::StrCat(source_, ": unexpected bytes after gzip member at ",
                     "compressed byte ", in_offset_));
  }
  isal_inflate_init(state_.get());
  state_->crc_flag = ISAL_GZIP;  // parse the header, check CRC and size
  in_member_ = true;
  return absl::OkStatus();
}

absl::StatusOr<size_t> GzipStream::Read(char* out, size_t room) {
  size_t produced = 0;
  while (!done_) {
    // A member that has ended is followed up even when `out` is full, so
    // that the read that takes the text's last byte also says it is done.
    if (!in_member_) {
      if (absl::Status next = NextMember(); !next.ok()) return next;
      continue;
    }
    if (produced == room) break;
    const size_t consumed_before = in_offset_;
    state_->next_in =
        reinterpret_cast<uint8_t*>(const_cast<char*>(in_.data() + in_offset_));
    state_->avail_in = static_cast<uint32_t>(
        std::min<size_t>(in_.size() - in_offset_, kMaxStep));
    char* const to = out + produced;
    state_->next_out = reinterpret_cast<uint8_t*>(to);
    state_->avail_out =
        static_cast<uint32_t>(std::min<size_t>(room - produced, kMaxStep));
    const int result = isal_inflate(state_.get());
    in_offset_ = static_cast<size_t>(
        reinterpret_cast<const char*>(state_->next_in) - in_.data());
    const size_t written =
        static_cast<size_t>(reinterpret_cast<char*>(state_->next_out) - to);
    produced += written;
    if (result != ISAL_DECOMP_OK) return Corrupt();
    if (state_->block_state == ISAL_BLOCK_FINISH) {
      in_member_ = false;
      continue;
    }
    // Neither finished nor moved: the member ends before its data does.
    if (written == 0 && in_offset_ == consumed_before) return Corrupt();
  }
  return produced;
}

}  // namespace profdiff::trace
