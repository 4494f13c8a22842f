// Reads a trace file from disk into memory, gunzipping `.gz` content (detected
// by its magic bytes, not the name), into a buffer padded for simdjson.
#ifndef PROFDIFF_TRACE_TRACE_FILE_H_
#define PROFDIFF_TRACE_TRACE_FILE_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "base/page_buffer.h"
#include "trace/gzip_stream.h"
#include "trace/reader_limits.h"

namespace profdiff::trace {

// Extra bytes simdjson may read past the end of the JSON text.
inline constexpr size_t kJsonPadding = 64;

// How many bytes gzip `compressed` holds, as far as its trailer tells (bounded
// by a plausible ratio): the first size of a buffer for them.
size_t GunzippedSizeGuess(std::string_view compressed);

// The most bytes `compressed_bytes` of gzip may inflate to before the read
// stops: max_json_bytes, or max_gzip_ratio times the compressed size past a
// floor of 64 MiB (a decompression bomb).
uint64_t MaxGunzippedBytes(size_t compressed_bytes, const ReaderLimits& limits);

// Reusable buffers for reading trace files; one per thread.
class TraceFileBuffer {
 public:
  // Replaces the contents with the JSON text of `path`. Errors name the path:
  // NotFound, ResourceExhausted (max_file_bytes / max_json_bytes), DataLoss
  // (corrupt or truncated gzip).
  absl::Status Load(const std::string& path, const ReaderLimits& limits);
  // Reads the file's bytes as they are (gzip or JSON) without loading them:
  // valid until the next read. Errors as Load's.
  absl::StatusOr<std::string_view> ReadFileBytes(const std::string& path,
                                                 const ReaderLimits& limits);
  // Replaces the contents with `bytes`, gunzipping them when they are gzip.
  absl::Status LoadBytes(std::string_view bytes, std::string_view source,
                         const ReaderLimits& limits);

  // The JSON text; at least kJsonPadding bytes of capacity follow it.
  std::string_view json() const { return {json_.data(), json_size_}; }
  size_t capacity() const { return json_.size(); }
  const char* data() const { return json_.data(); }
  // For a reader that cuts the text in place and puts it back
  // (event_part_reader.cc).
  char* mutable_data() { return json_.data(); }

 private:
  absl::Status Gunzip(std::string_view compressed, std::string_view source,
                      const ReaderLimits& limits);

  base::PageBuffer file_bytes_;  // the file as read (gzip, or JSON moved on)
  void SetSize(size_t bytes);

  base::PageBuffer json_;  // json_size_ bytes of text, then padding
  size_t json_size_ = 0;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_TRACE_FILE_H_
