// Puts the memory jemalloc takes from the kernel from now on on transparent
// huge pages: every arena's new extents come from 2 MiB-aligned regions
// advised MADV_HUGEPAGE. With jemalloc's own mappings (sizes of 2.5, 3, 3.5
// MiB... at 4 KiB-aligned addresses) a 2 MiB block that straddles a mapping's
// edge, or already holds one 4 KiB page, is faulted in 4 KiB at a time: a
// diff of two 60 MB traces took 2,500 such faults, each ~14 us on a
// virtualised core, against ~2 us per 4 KiB of a huge page's. Measured on the
// xDiT pair: `profdiff diff --format json` 211 -> 165 ms (median of 12).
//
// For one-shot processes (the CLI, its ratio benches): memory is never given
// back to the kernel (no dalloc or purge hooks), only reused. Binaries that
// call it link jemalloc as their malloc and set `oversize_threshold:0` in
// their malloc_conf, so that large allocations stay in the hooked arenas.
#ifndef PROFDIFF_BASE_HUGE_PAGE_EXTENTS_H_
#define PROFDIFF_BASE_HUGE_PAGE_EXTENTS_H_

namespace profdiff::base {

// Call at the start of main, before any thread starts. Hooks the first
// arenas, one per core and the main thread's (the threads a process runs at
// once, which take them first). Returns how many arenas now take their
// extents from huge pages (0 when jemalloc refused, which leaves allocation
// as it was).
unsigned UseHugePageExtents();

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_HUGE_PAGE_EXTENTS_H_
