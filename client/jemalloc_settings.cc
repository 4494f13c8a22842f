// jemalloc's settings, read from this symbol at start-up (the CLI links
// jemalloc: client/CMakeLists.txt; the ratio benches keep their own,
// bench/jemalloc_settings.cc). Huge pages for its large extents: a diff of two
// 60 MB traces faults in 300 MB of fresh tables and buffers, and with 4 KiB
// pages a third of its system time is page faults (53k of them; 5k with
// this). A source of the binary, not a library member: nothing references the
// symbol, so a library would leave it out.
extern "C" {
// NOLINTNEXTLINE(readability-identifier-naming): the name jemalloc reads.
const char* malloc_conf = "thp:always,oversize_threshold:0";
}
