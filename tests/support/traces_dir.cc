#include "tests/support/traces_dir.h"

#include <cstdlib>

namespace profdiff::test_support {

std::filesystem::path TracesDir() {
  const char* env = std::getenv("PROFDIFF_TRACES");
  return env != nullptr && *env != '\0' ? env : "../shared/traces";
}

}  // namespace profdiff::test_support
