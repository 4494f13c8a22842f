// The version every profdiff binary prints for --version: the CMake project's
// (CMakeLists.txt `project(profdiff VERSION ...)`), set when the build is
// configured.
#ifndef PROFDIFF_BASE_VERSION_H_
#define PROFDIFF_BASE_VERSION_H_

#include <string_view>

namespace profdiff::base {

// "0.1.0".
std::string_view Version();

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_VERSION_H_
