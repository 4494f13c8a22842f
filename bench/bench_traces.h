// The real traces the benchmarks run on, relative to test_support::TracesDir()
// ($PROFDIFF_TRACES, else ../shared/traces).
#ifndef PROFDIFF_BENCH_BENCH_TRACES_H_
#define PROFDIFF_BENCH_BENCH_TRACES_H_

#include <string>

#include "tests/support/traces_dir.h"

namespace profdiff::bench {

// The largest traces, for reader throughput and `profdiff show` against the
// floor.
inline constexpr const char* kLargestTraces[] = {
    "hta/mtia_trace_single_rank/mtia_rank_0.json.gz",  // 87 MB, 456k
                                                       // events
    "tracelens/inference/xdit_flux_aiter_sage/"
    "profile_trace_rank_0.json.gz",  // 64 MB, nn.Modules
    "kineto/tb_plugin_samples/resnet50_num_workers_0/"
    "worker0.1623143089861.pt.trace.json.gz",
};

// Two runs of one model that differ in one thing (attention kernels), for diff
// benchmarks.
inline constexpr const char* kDiffPair[] = {
    "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz",
};

// The story pair (issue 43): one Transformer on an H200, fp32 against bf16
// autocast; every finding rule has something to say about it.
inline constexpr const char* kStoryPair[] = {
    "profdiff_h200/transformer-fp32.pt.trace.json.gz",
    "profdiff_h200/transformer-bf16.pt.trace.json.gz",
};

inline std::string BenchTracePath(const char* relative) {
  return (test_support::TracesDir() / relative).string();
}

}  // namespace profdiff::bench

#endif  // PROFDIFF_BENCH_BENCH_TRACES_H_
