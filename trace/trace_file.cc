#include "trace/trace_file.h"

#include <cstring>
#include <memory>

#include <libdeflate.h>

#include "base/file_reader.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::trace {
namespace {

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const {
    libdeflate_free_decompressor(d);
  }
};
using Decompressor =
    std::unique_ptr<libdeflate_decompressor, DecompressorDeleter>;

constexpr size_t kGzipTrailerBytes = 8;  // CRC32 + ISIZE
constexpr size_t kMinGuessBytes = 1 << 16;
// JSON traces compress 15-40x; the buffer still grows past this when needed.
constexpr uint64_t kMaxGuessRatio = 64;
// Below this many gunzipped bytes the max_gzip_ratio guard does not apply: the
// cost is bounded.
constexpr uint64_t kBombFloorBytes = uint64_t{64} << 20;

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
  Decompressor decompressor(libdeflate_alloc_decompressor());
  if (decompressor == nullptr)
    return absl::ResourceExhaustedError("libdeflate: out of memory");
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
  size_t out_size = 0;
  size_t in_offset = 0;
  const uint64_t max_json_bytes = std::min<uint64_t>(
      limits.max_json_bytes,
      std::max<uint64_t>(kBombFloorBytes,
                         compressed.size() * limits.max_gzip_ratio));
  size_t capacity = std::min<uint64_t>(guess, max_json_bytes);
  PD_RETURN_IF_ERROR(
      base::Annotate(json_.Grow(capacity + kJsonPadding, 0), source));
  // Members are decompressed one after another (gzip allows concatenation).
  while (in_offset < compressed.size()) {
    size_t in_used = 0;
    size_t out_used = 0;
    // The buffer may be larger from an earlier file: never inflate past this
    // file's limit.
    const size_t avail =
        std::min<uint64_t>(json_.size() - kJsonPadding, max_json_bytes) -
        out_size;
    const libdeflate_result result = libdeflate_gzip_decompress_ex(
        decompressor.get(), compressed.data() + in_offset,
        compressed.size() - in_offset, json_.data() + out_size, avail, &in_used,
        &out_used);
    if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
      const uint64_t grown = uint64_t{2} * (json_.size() - kJsonPadding);
      if (json_.size() - kJsonPadding >= max_json_bytes) {
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
      }
      PD_RETURN_IF_ERROR(base::Annotate(
          json_.Grow(std::min<uint64_t>(grown, max_json_bytes) + kJsonPadding,
                     out_size),
          source));
      continue;
    }
    if (result != LIBDEFLATE_SUCCESS) {
      return absl::DataLossError(base::StrCat(
          source,
          ": gzip data is corrupt or truncated (member at compressed byte ",
          in_offset, " of ", compressed.size(), ")"));
    }
    in_offset += in_used;
    out_size += out_used;
    // Trailing zero padding after the last member is tolerated, as gzip(1)
    // does.
    if (in_offset < compressed.size() &&
        !IsGzip(compressed.substr(in_offset))) {
      if (compressed.find_first_not_of('\0', in_offset) ==
          std::string_view::npos)
        break;
      return absl::DataLossError(
          base::StrCat(source, ": unexpected bytes after gzip member at ",
                       "compressed byte ", in_offset));
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
