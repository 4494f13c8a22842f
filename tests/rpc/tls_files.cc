#include "tests/rpc/tls_files.h"

#include <fstream>

namespace profdiff::rpc {

namespace fs = std::filesystem;

std::string Tls(const char* name) {
  return (fs::path(PROFDIFF_SOURCE_DIR) / "tests/data/tls" / name).string();
}

std::string WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace profdiff::rpc
