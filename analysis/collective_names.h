// What a collective is called and how big its message is, whatever spelling the
// trace uses: Kineto's "Collective name" argument ("allreduce",
// "_allgather_base", "all_to_allv"), a `nccl:`/`gloo:` range name, or a
// `c10d::` dispatcher op all map to one canonical name, and the nccl-tests bus
// bandwidth factor follows from it.
#ifndef PROFDIFF_ANALYSIS_COLLECTIVE_NAMES_H_
#define PROFDIFF_ANALYSIS_COLLECTIVE_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace profdiff::analysis {

// all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce,
// gather, scatter, send, recv, barrier; other names lower-cased with their
// prefix and `_base`/`_coalesced`/`_into_tensor` decorations dropped. Empty for
// what is no collective: bare `record_param_comms` and `wait`.
std::string CanonicalCollective(std::string_view name);

// Bytes of one element of a dtype as Kineto spells it, in "dtype" ("Float",
// "BFloat16", "Long") or "Input type" ("float", "c10::BFloat16", "long
// int"); 0 when unknown.
int64_t ElementBytes(std::string_view dtype);

// nccl-tests' busbw / algbw for `group_size` ranks: all_reduce 2(n-1)/n;
// all_gather, reduce_scatter and all_to_all (n-1)/n; anything else 1.
double BusBandwidthFactor(std::string_view canonical_collective,
                          int32_t group_size);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_COLLECTIVE_NAMES_H_
