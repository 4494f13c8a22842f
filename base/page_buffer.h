// A growable byte buffer mapped straight from the kernel, for texts of tens of
// MB read once and overwritten whole (a gunzipped trace). Unlike std::string it
// never zero-fills what is about to be overwritten, and a large buffer asks for
// transparent huge pages: a cold `profdiff show` of an 80 MB trace otherwise
// takes a page fault per 4 KiB of it (tens of thousands).
#ifndef PROFDIFF_BASE_PAGE_BUFFER_H_
#define PROFDIFF_BASE_PAGE_BUFFER_H_

#include <cstddef>
#include <memory>

#include <absl/status/status.h>

namespace profdiff::base {

// Unmaps a PageBuffer's pages.
struct PageUnmap {
  size_t bytes = 0;
  void operator()(char* p) const;
};

class PageBuffer {
 public:
  char* data() const { return data_.get(); }
  size_t size() const { return size_; }

  // Makes size() at least `bytes`, keeping the first `keep` bytes (keep <=
  // size()). New bytes are unspecified. ResourceExhausted when the kernel gives
  // no memory.
  absl::Status Grow(size_t bytes, size_t keep);

 private:
  std::unique_ptr<char, PageUnmap> data_;
  size_t size_ = 0;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_PAGE_BUFFER_H_
