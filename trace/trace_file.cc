#include "trace/trace_file.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "base/file_reader.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::trace {
namespace {

constexpr size_t kGzipTrailerBytes = 8;  // CRC32 + ISIZE
constexpr size_t kMinGuessBytes = 1 << 16;
// JSON traces compress 15-40x; the buffer still grows past this when needed.
constexpr uint64_t kMaxGuessRatio = 64;
// Below this many gunzipped bytes the max_gzip_ratio guard does not apply: the
// cost is bounded.
constexpr uint64_t kBombFloorBytes = uint64_t{64} << 20;
// ISA-L counts bytes in and out in 32 bits.
constexpr size_t kMaxInflateStep = size_t{1} << 30;

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

absl::Status TraceFileBuffer::Load(const std::string& path,
                                   const ReaderLimits& limits) {
  size_t size = 0;
  PD_RETURN_IF_ERROR(
      base::ReadFileInto(path, limits.max_file_bytes, file_bytes_, size));
  return LoadBytes(std::string_view(file_bytes_.data(), size), path, limits);
}

absl::Status TraceFileBuffer::LoadBytes(std::string_view bytes,
                                        std::string_view source,
                                        const ReaderLimits& limits) {
  if (IsGzip(bytes)) return Gunzip(bytes, source, limits);
  if (bytes.size() > limits.max_json_bytes) {
    return absl::ResourceExhaustedError(
        base::StrCat(source, ": JSON is ", bytes.size(),
                     " bytes, over max_json_bytes ", limits.max_json_bytes));
  }
  const bool in_place = !bytes.empty() && bytes.data() == json_.data();
  PD_RETURN_IF_ERROR(base::Annotate(
      json_.Grow(bytes.size() + kJsonPadding, in_place ? bytes.size() : 0),
      source));
  // memmove: `bytes` may be a view into this buffer (json() of an earlier
  // load).
  if (!bytes.empty() && !in_place)
    std::memmove(json_.data(), bytes.data(), bytes.size());
  SetSize(bytes.size());
  return absl::OkStatus();
}

absl::Status TraceFileBuffer::Gunzip(std::string_view compressed,
                                     std::string_view source,
                                     const ReaderLimits& limits) {
  // ISIZE (the last 4 bytes) is the size of the last member mod 2^32: a good
  // first guess for the usual single-member file; the buffer grows when it is
  // short.
  size_t guess = kMinGuessBytes;
  if (compressed.size() >= kGzipTrailerBytes + 10) {
    uint32_t isize;
    std::memcpy(&isize, compressed.data() + compressed.size() - 4,
                sizeof(isize));
    // A torn file's last bytes are not ISIZE: never trust them beyond a
    // plausible ratio.
    guess = std::max<size_t>(
        guess, std::min<uint64_t>(isize, compressed.size() * kMaxGuessRatio));
  }
  const uint64_t max_json_bytes = std::min<uint64_t>(
      limits.max_json_bytes,
      std::max<uint64_t>(kBombFloorBytes,
                         compressed.size() * limits.max_gzip_ratio));
  // One byte of room past the limit: a text that fills it is over the limit,
  // one that ends exactly at the limit is not.
  size_t capacity = std::min<uint64_t>(guess, max_json_bytes + 1);
  PD_RETURN_IF_ERROR(
      base::Annotate(json_.Grow(capacity + kJsonPadding, 0), source));
  // The buffer may be larger from an earlier file: use it, within this file's
  // limit.
  capacity =
      std::min<uint64_t>(json_.size() - kJsonPadding, max_json_bytes + 1);
  const auto over_limit = [&] {
    if (max_json_bytes < limits.max_json_bytes) {
      return absl::ResourceExhaustedError(
          base::StrCat(source, ": gunzipped JSON is over ", max_json_bytes,
                       " bytes, max_gzip_ratio ", limits.max_gzip_ratio,
                       " times its ", compressed.size(),
                       " compressed bytes (real traces compress 5-30x): a "
                       "decompression bomb?"));
    }
    return absl::ResourceExhaustedError(
        base::StrCat(source, ": gunzipped JSON is over max_json_bytes ",
                     limits.max_json_bytes));
  };
  // ISA-L's inflate: about a fifth faster than libdeflate's on trace JSON, and
  // it continues where it stopped when the buffer grows.
  auto state = std::make_unique<inflate_state>();
  size_t out_size = 0;
  size_t member_offset = 0;  // of the member being inflated
  const auto corrupt = [&] {
    return absl::DataLossError(base::StrCat(
        source,
        ": gzip data is corrupt or truncated (member at compressed byte ",
        member_offset, " of ", compressed.size(), ")"));
  };
  size_t in_offset = 0;  // consumed so far
  // Members are inflated one after another (gzip allows concatenation).
  while (member_offset < compressed.size()) {
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_GZIP;
    for (;;) {
      // The counts are 32-bit: feed and drain at most a GiB at a time.
      state->next_in = reinterpret_cast<uint8_t*>(
          const_cast<char*>(compressed.data() + in_offset));
      state->avail_in = static_cast<uint32_t>(
          std::min<size_t>(compressed.size() - in_offset, kMaxInflateStep));
      char* const out = json_.data() + out_size;
      const size_t consumed_before = in_offset;
      state->next_out = reinterpret_cast<uint8_t*>(out);
      state->avail_out = static_cast<uint32_t>(
          std::min<size_t>(capacity - out_size, kMaxInflateStep));
      const int result = isal_inflate(state.get());
      in_offset = static_cast<size_t>(
          reinterpret_cast<const char*>(state->next_in) - compressed.data());
      out_size +=
          static_cast<size_t>(reinterpret_cast<char*>(state->next_out) - out);
      if (out_size > max_json_bytes) return over_limit();
      const bool stuck = state->next_out == reinterpret_cast<uint8_t*>(out) &&
                         in_offset == consumed_before;
      if (result != ISAL_DECOMP_OK ||
          (stuck && state->block_state != ISAL_BLOCK_FINISH)) {
        return corrupt();
      }
      if (state->block_state == ISAL_BLOCK_FINISH) break;
      if (out_size == capacity) {
        capacity =
            std::min<uint64_t>(uint64_t{2} * capacity, max_json_bytes + 1);
        PD_RETURN_IF_ERROR(base::Annotate(
            json_.Grow(capacity + kJsonPadding, out_size), source));
      } else if (in_offset == compressed.size()) {
        return corrupt();
      }
    }
    member_offset = in_offset;
    // Trailing zero padding after the last member is tolerated, as gzip(1)
    // does.
    if (member_offset < compressed.size() &&
        !IsGzip(compressed.substr(member_offset))) {
      if (compressed.find_first_not_of('\0', member_offset) ==
          std::string_view::npos)
        break;
      return absl::DataLossError(
          base::StrCat(source, ": unexpected bytes after gzip member at ",
                       "compressed byte ", member_offset));
    }
  }
  SetSize(out_size);
  return absl::OkStatus();
}

void TraceFileBuffer::SetSize(size_t bytes) {
  json_size_ = bytes;
  // The padding simdjson may read: blanks, so nothing an earlier, longer text
  // left there is read.
  std::memset(json_.data() + bytes, ' ', kJsonPadding);
}

}  // namespace profdiff::trace
