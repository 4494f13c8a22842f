// Trace tables are tens of MB of columns built, analysed and freed per worker.
// glibc gives such blocks back to the kernel on free, and the next worker's
// tables then pay a page fault per 4 KiB to zero fresh pages again (about 30%
// of reading the largest trace). Binaries that read many traces call this once
// at start-up so freed tables are reused instead.
#ifndef PROFDIFF_BASE_KEEP_FREED_MEMORY_H_
#define PROFDIFF_BASE_KEEP_FREED_MEMORY_H_

namespace profdiff::base {

void KeepFreedMemoryForReuse();

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_KEEP_FREED_MEMORY_H_
