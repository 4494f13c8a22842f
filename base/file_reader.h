// Reads whole files into memory with a size limit, from the real file system
// (Env::Default(); code that takes an Env calls Env::ReadFileInto).
#ifndef PROFDIFF_BASE_FILE_READER_H_
#define PROFDIFF_BASE_FILE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "base/page_buffer.h"

namespace profdiff::base {

// Replaces `out` with the bytes of the file at `path` (capacity is kept, so a
// reused string does not reallocate). Errors: NotFound (no such file),
// ResourceExhausted (larger than `max_bytes`), Unavailable/Internal for other
// I/O failures; each names the path.
absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          std::string& out);

// The same into the first bytes of `out`, setting `size` to how many: a
// string is zero-filled before it is read into, page by page, and a trace of
// megabytes read in a fresh process paid a page fault per 4 KiB for it.
absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          PageBuffer& out, size_t& size);

// What both are made of (and PosixEnv's ReadFileInto): the file at `path` read
// into the buffer `buffer(file size)` returns, errors as above; the bytes read
// (fewer than its size when the file shrank while it was read).
absl::StatusOr<uint64_t> ReadFileWith(
    const std::string& path, uint64_t max_bytes,
    absl::FunctionRef<absl::StatusOr<char*>(uint64_t)> buffer);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_FILE_READER_H_
