// Inflates gzip bytes a piece at a time with ISA-L, member after member, as
// gzip(1) reads them: concatenated members are one text, and zero bytes after
// the last member are ignored. A reader can parse each piece while it is still
// in the cache (streamed_events.h), or gather them all (trace_file.h).
#ifndef PROFDIFF_TRACE_GZIP_STREAM_H_
#define PROFDIFF_TRACE_GZIP_STREAM_H_

#include <cstddef>
#include <memory>
#include <string_view>

#include <absl/status/statusor.h>

struct inflate_state;

namespace profdiff::trace {

// True when `bytes` start with the gzip magic number.
bool IsGzip(std::string_view bytes);

class GzipStream {
 public:
  // `compressed` must outlive the stream; `source` names it in errors.
  GzipStream(std::string_view compressed, std::string_view source);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Inflates up to `room` bytes into `out` and returns how many; fewer than
  // `room` only at the end of the text, and done() once the text's last byte
  // has been returned. DataLoss naming the source and the
  // compressed byte: a corrupt or truncated member (its CRC is checked), or
  // bytes after a member that start no other.
  absl::StatusOr<size_t> Read(char* out, size_t room);

  // The whole text has been read.
  bool done() const { return done_; }

 private:
  // Starts the member at in_offset_, or finds the end of the text.
  absl::Status NextMember();
  absl::Status Corrupt() const;

  std::string_view in_;
  std::string_view source_;
  size_t in_offset_ = 0;      // consumed so far
  size_t member_offset_ = 0;  // where the member being inflated starts
  bool in_member_ = false;
  bool done_ = false;
  std::unique_ptr<inflate_state> state_;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_GZIP_STREAM_H_
