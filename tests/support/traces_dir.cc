#include "tests/support/traces_dir.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "trace/trace_file_name.h"

namespace profdiff::test_support {

std::filesystem::path TracesDir() {
  const char* env = std::getenv("PROFDIFF_TRACES");
  return env != nullptr && *env != '\0' ? env : "../shared/traces";
}

std::vector<std::filesystem::path> RealTraceFiles() {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(TracesDir(), error)) {
    if (entry.is_regular_file() &&
        trace::IsTraceFileName(entry.path().filename().string())) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace profdiff::test_support
