#include "trace/trace_file.h"

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

}  // namespace

size_t GunzippedSizeGuess(std::string_view compressed) {
  // ISIZE (the last 4 bytes) is the size of the last member mod 2^32: a good
  // first guess for the usual single-member file; a buffer grows when it is
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
  return guess;
}

uint64_t MaxGunzippedBytes(size_t compressed_bytes,
                           const ReaderLimits& limits) {
  return std::min<uint64_t>(
      limits.max_json_bytes,
      std::max<uint64_t>(kBombFloorBytes,
                         compressed_bytes * limits.max_gzip_ratio));
}

absl::StatusOr<std::string_view> TraceFileBuffer::ReadFileBytes(
    const std::string& path, const ReaderLimits& limits) {
  size_t size = 0;
  PD_RETURN_IF_ERROR(
      base::ReadFileInto(path, limits.max_file_bytes, file_bytes_, size));
  return std::string_view(file_bytes_.data(), size);
}

absl::Status TraceFileBuffer::Load(const std::string& path,
                                   const ReaderLimits& limits) {
  PD_ASSIGN_OR_RETURN(const std::string_view bytes,
                      ReadFileBytes(path, limits));
  return LoadBytes(bytes, path, limits);
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
  const size_t guess = GunzippedSizeGuess(compressed);
  const uint64_t max_json_bytes = MaxGunzippedBytes(compressed.size(), limits);
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
  GzipStream stream(compressed, source);
  size_t out_size = 0;
  for (;;) {
    PD_ASSIGN_OR_RETURN(const size_t read, stream.Read(json_.data() + out_size,
                                                       capacity - out_size));
    out_size += read;
    if (out_size > max_json_bytes) return over_limit();
    if (stream.done()) break;
    capacity = std::min<uint64_t>(uint64_t{2} * capacity, max_json_bytes + 1);
    PD_RETURN_IF_ERROR(
        base::Annotate(json_.Grow(capacity + kJsonPadding, out_size), source));
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
