// A hash of bytes that is the same in every process and build, for names that
// must survive a restart (state file names, shortened span ids). absl::Hash is
// seeded per process: not usable.
#ifndef PROFDIFF_AGENT_STABLE_HASH_H_
#define PROFDIFF_AGENT_STABLE_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace profdiff::agent {

// 64-bit FNV-1a of `bytes`. Not cryptographic: it tells names apart, it does
// not authenticate.
uint64_t StableHash64(std::string_view bytes);

// StableHash64 as 16 lowercase hex digits.
std::string StableHashHex(std::string_view bytes);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_STABLE_HASH_H_
