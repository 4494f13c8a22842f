#include "base/page_buffer.h"

#include <sys/mman.h>

#include <cstring>

#include "base/page_size.h"
#include "base/str_cat.h"

namespace profdiff::base {

void PageUnmap::operator()(char* p) const { munmap(p, bytes); }

absl::Status PageBuffer::Grow(size_t bytes, size_t keep) {
  if (bytes <= size_) return absl::OkStatus();
  const bool huge = bytes >= kHugePageBytes;
  const size_t mapped =
      RoundUpTo(bytes, huge ? kHugePageBytes : kSmallPageBytes);
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        StrCat("cannot map ", mapped, " bytes for a trace buffer"));
  }
  // Advice only: where transparent huge pages are off, the buffer is still
  // correct. Small buffers stay on small pages, which are cheaper to fault in
  // one at a time.
  if (huge) madvise(p, mapped, MADV_HUGEPAGE);
  std::unique_ptr<char, PageUnmap> grown(static_cast<char*>(p),
                                         PageUnmap{mapped});
  if (keep > 0) std::memcpy(grown.get(), data_.get(), keep);
  data_ = std::move(grown);
  size_ = mapped;
  return absl::OkStatus();
}

}  // namespace profdiff::base
