#include "base/keep_freed_memory.h"

#include <malloc.h>

namespace profdiff::base {

void KeepFreedMemoryForReuse() {
  // Serve large blocks from the heap rather than mmap, and trim the heap only
  // past 1 GiB free.
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace profdiff::base
