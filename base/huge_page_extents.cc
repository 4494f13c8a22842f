#include "base/huge_page_extents.h"

#include <jemalloc/jemalloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>

#include "base/page_size.h"

namespace profdiff::base {
namespace {

// Address space reserved at a time: reserving touches nothing, and extents are
// carved from it in turn.
constexpr size_t kRegionBytes = size_t{1} << 30;

// How far `p` is below the next multiple of `unit` (a power of two).
size_t PaddingOf(const char* p, size_t unit) {
  return (unit - (reinterpret_cast<uintptr_t>(p) & (unit - 1))) & (unit - 1);
}

// The regions extents are carved from: each extent starts on a 2 MiB boundary
// and the next one after it rounded up to 2 MiB, so that no two extents share a
// huge page that one of them may fault in first on small pages.
class HugeRegions {
 public:
  void* Take(size_t size, size_t alignment) {
    const size_t align =
        alignment > kHugePageBytes ? alignment : kHugePageBytes;
    const std::lock_guard<std::mutex> lock(mutex_);
    if (next_ == nullptr ||
        PaddingOf(next_, align) + size > static_cast<size_t>(end_ - next_)) {
      size_t bytes = RoundUpTo(size + align, kRegionBytes);
      void* region = Map(bytes);
      if (region == MAP_FAILED) {
        // Where overcommit is strict a reservation counts as used: take no
        // more than this extent needs.
        bytes = RoundUpTo(size + align, kHugePageBytes);
        region = Map(bytes);
      }
      if (region == MAP_FAILED) return nullptr;
      // Advice only: where huge pages are off, the memory is still memory.
      madvise(region, bytes, MADV_HUGEPAGE);
      next_ = static_cast<char*>(region);
      end_ = next_ + bytes;
    }
    char* const at = next_ + PaddingOf(next_, align);
    // The next extent starts on the next huge page, unless this one ends the
    // region.
    const size_t taken = RoundUpTo(size, kHugePageBytes);
    next_ = taken < static_cast<size_t>(end_ - at) ? at + taken : end_;
    return at;
  }

 private:
  static void* Map(size_t bytes) {
    return mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }

  std::mutex mutex_;
  char* next_ = nullptr;
  char* end_ = nullptr;
};

// Constant-initialised and never destroyed: jemalloc may take extents until
// the process ends.
constinit HugeRegions regions;
static_assert(std::is_trivially_destructible_v<HugeRegions>);

void* AllocExtent(extent_hooks_t* /*hooks*/, void* new_addr, size_t size,
                  size_t alignment, bool* zero, bool* commit,
                  unsigned /*arena*/) {
  // An extent at a given address (growing one in place): not offered.
  if (new_addr != nullptr) return nullptr;
  void* extent = regions.Take(size, alignment);
  if (extent != nullptr) {
    *zero = true;  // fresh anonymous memory
    *commit = true;
  }
  return extent;
}

// Splitting and merging extents of the regions is bookkeeping only (false is
// success).
bool SplitExtent(extent_hooks_t* /*hooks*/, void* /*addr*/, size_t /*size*/,
                 size_t /*size_a*/, size_t /*size_b*/, bool /*committed*/,
                 unsigned /*arena*/) {
  return false;
}
bool MergeExtents(extent_hooks_t* /*hooks*/, void* /*addr_a*/,
                  size_t /*size_a*/, void* /*addr_b*/, size_t /*size_b*/,
                  bool /*committed*/, unsigned /*arena*/) {
  return false;
}

// No dalloc, destroy, commit, decommit or purge hooks: jemalloc keeps what it
// took and reuses it.
extent_hooks_t huge_page_hooks = {AllocExtent, nullptr,     nullptr,
                                  nullptr,     nullptr,     nullptr,
                                  nullptr,     SplitExtent, MergeExtents};

}  // namespace

unsigned UseHugePageExtents() {
  unsigned arenas = 0;
  size_t size = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) return 0;
  // Hooking an arena creates it, with its metadata on a huge page of its own:
  // jemalloc's 4 per core were 14 MB and ~0.6 ms of the CLI's start-up. A
  // new thread takes an idle arena before it creates one, so at most one
  // arena per core and the main thread's are in use at once; a thread past
  // them gets an arena of jemalloc's own mappings, slower but sound.
  arenas =
      std::min(arenas, std::max(1u, std::thread::hardware_concurrency()) + 1);
  extent_hooks_t* hooks = &huge_page_hooks;
  unsigned hooked = 0;
  for (unsigned i = 0; i < arenas; ++i) {
    const std::string name = "arena." + std::to_string(i) + ".extent_hooks";
    extent_hooks_t* old = nullptr;
    // mallctl reads and writes the pointers themselves.
    size_t old_size = sizeof(old);  // NOLINT(bugprone-sizeof-expression)
    if (mallctl(name.c_str(), &old, &old_size, &hooks,
                sizeof(hooks)) == 0)  // NOLINT(bugprone-sizeof-expression)
      ++hooked;
  }
  return hooked;
}

}  // namespace profdiff::base
