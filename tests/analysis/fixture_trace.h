// The hand-written trace the analysis tests work their expected numbers out
// from (docs/semantics.md §2-§5 and §7), and the profile built from a trace
// text.
#ifndef PROFDIFF_TESTS_ANALYSIS_FIXTURE_TRACE_H_
#define PROFDIFF_TESTS_ANALYSIS_FIXTURE_TRACE_H_

#include <string>
#include <string_view>

#include "analysis/worker_profile.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis::fixture {

// Host thread (pid 1, tid 1):
//   ProfilerStep#1 [0,100]
//     enumerate(DataLoader)#...__next__ [5,20]
//     aten::conv2d [20,60] (ext 10)
//       aten::convolution [25,55] (ext 11)
//         cudaLaunchKernel [30,40] corr 100 -> conv_kernel [45,95]
//                                              (blocks/SM 0.5, occ 40)
//     aten::add [65,75] (ext 12)
//       cudaMemcpyAsync [66,70] corr 101 -> memcpy [96,104]
//   ProfilerStep#2 [100,150]
//     aten::mm [110,130] (ext 13)
//       cudaLaunchKernel [112,117] corr 102 -> mm_kernel [130,170]
//                                              (blocks/SM 2, occ 60)
//       cudaMemsetAsync [120,123] corr 103 -> memset [125,128]
//                                             (omitted by kSingleStepMm)
//   ProfilerStep#3 [150,160]   no device work
// Memory (cuda:0): allocated 100 at t=10, 300 at t=110, 50 at t=160.
std::string Fixture(bool with_memset);

// The profile of a Kineto trace text; a trace that does not read fails the
// test.
v1::WorkerProfile Profile(const std::string& json, ProfileOptions options = {});

// The operator row named `name`, or null.
const v1::OperatorStats* FindOperator(const v1::WorkerProfile& p,
                                      std::string_view name);

}  // namespace profdiff::analysis::fixture

#endif  // PROFDIFF_TESTS_ANALYSIS_FIXTURE_TRACE_H_
