#include "base/page_buffer.h"

#include <sys/mman.h>

#include <cstdint>
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
  // A huge buffer starts on a huge page: the kernel backs only aligned 2 MiB
  // ranges with one, so an unaligned buffer of 2 MiB would get none. It is
  // mapped a huge page longer, and the slack on either side unmapped.
  const size_t slack = huge ? kHugePageBytes : 0;
  void* p = mmap(nullptr, mapped + slack, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        StrCat("cannot map ", mapped, " bytes for a trace buffer"));
  }
  if (huge) {
    char* const start = static_cast<char*>(p);
    char* const aligned =
        start + (RoundUpTo(reinterpret_cast<uintptr_t>(start), kHugePageBytes) -
                 reinterpret_cast<uintptr_t>(start));
    if (aligned > start) munmap(start, static_cast<size_t>(aligned - start));
    const size_t tail = slack - static_cast<size_t>(aligned - start);
    if (tail > 0) munmap(aligned + mapped, tail);
    p = aligned;
    // Advice only: where transparent huge pages are off, the buffer is still
    // correct. Small buffers stay on small pages, which are cheaper to fault
    // in one at a time.
    madvise(p, mapped, MADV_HUGEPAGE);
  }
  std::unique_ptr<char, PageUnmap> grown(static_cast<char*>(p),
                                         PageUnmap{mapped});
  if (keep > 0) std::memcpy(grown.get(), data_.get(), keep);
  data_ = std::move(grown);
  size_ = mapped;
  return absl::OkStatus();
}

}  // namespace profdiff::base
