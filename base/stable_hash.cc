#include "base/stable_hash.h"

#include <absl/strings/str_format.h>

namespace profdiff::base {
namespace {

// FNV-1a parameters for 64 bits (http://www.isthe.com/chongo/tech/comp/fnv/).
constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

}  // namespace

uint64_t StableHash64(std::string_view bytes) {
  uint64_t hash = kFnvOffsetBasis;
  for (const char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

std::string StableHashHex(std::string_view bytes) {
  return absl::StrFormat("%016x", StableHash64(bytes));
}

}  // namespace profdiff::base
