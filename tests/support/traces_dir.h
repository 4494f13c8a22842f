// Where tests find the real traces: $PROFDIFF_TRACES (ctest sets it), else
// ../shared/traces.
#ifndef PROFDIFF_TESTS_SUPPORT_TRACES_DIR_H_
#define PROFDIFF_TESTS_SUPPORT_TRACES_DIR_H_

#include <filesystem>
#include <vector>

namespace profdiff::test_support {

std::filesystem::path TracesDir();

// Every trace file (*.json, *.json.gz) under TracesDir(), sorted; empty when
// there is none.
std::vector<std::filesystem::path> RealTraceFiles();

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_TRACES_DIR_H_
