// jemalloc's settings for the ratio benches (bench/CMakeLists.txt): the CLI's
// (client/jemalloc_settings.cc: huge pages for large extents), so that their
// cold floor process pays for fresh memory as the CLI's process does, and
// freed memory kept rather than given back, so that the warm rounds in one
// process reuse their pages instead of faulting them in again each round (a
// one-shot process as the CLI never reaches jemalloc's 10 s decay anyway).
extern "C" {
// NOLINTNEXTLINE(readability-identifier-naming): the name jemalloc reads.
const char* malloc_conf =
    "thp:always,oversize_threshold:0,dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
