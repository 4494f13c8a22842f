#include "base/port_file.h"

#include "base/atomic_file.h"
#include "base/str_cat.h"

namespace profdiff::base {

absl::Status WritePortFile(const std::string& path, int port) {
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, StrCat(port, "\n"));
}

}  // namespace profdiff::base
