#include "base/version.h"

namespace profdiff::base {

// PROFDIFF_VERSION is defined for this file alone (base/CMakeLists.txt), so a
// new version recompiles one file.
std::string_view Version() { return PROFDIFF_VERSION; }

}  // namespace profdiff::base
