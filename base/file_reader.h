// Reads whole files into memory with a size limit, from the real file system
// (Env::Default(); code that takes an Env calls Env::ReadFileInto).
#ifndef PROFDIFF_BASE_FILE_READER_H_
#define PROFDIFF_BASE_FILE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>

namespace profdiff::base {

// Replaces `out` with the bytes of the file at `path` (capacity is kept, so a
// reused string does not reallocate). Errors: NotFound (no such file),
// ResourceExhausted (larger than `max_bytes`), Unavailable/Internal for other
// I/O failures; each names the path.
absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          std::string& out);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_FILE_READER_H_
