// A hash of bytes that is the same in every process, build and machine, for
// values that are stored or compared across restarts and replicas (agent state
// file names, shortened span ids, the ClickHouse store's name ids). absl::Hash
// and std::hash are seeded or implementation-defined: not usable.
#ifndef PROFDIFF_BASE_STABLE_HASH_H_
#define PROFDIFF_BASE_STABLE_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace profdiff::base {

// 64-bit FNV-1a of `bytes` (offset basis 0xcbf29ce484222325, prime
// 0x100000001b3, each byte taken unsigned). The values are stored: they never
// change. Not cryptographic: it tells names apart, it does not authenticate.
uint64_t StableHash64(std::string_view bytes);

// StableHash64 as 16 lowercase hex digits.
std::string StableHashHex(std::string_view bytes);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_STABLE_HASH_H_
