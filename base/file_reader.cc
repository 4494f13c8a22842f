#include "base/file_reader.h"

#include "base/env.h"

namespace profdiff::base {

absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          std::string& out) {
  return Env::Default()->ReadFileInto(path, max_bytes, out);
}

}  // namespace profdiff::base
