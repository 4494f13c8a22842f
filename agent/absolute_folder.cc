#include "agent/absolute_folder.h"

#include <filesystem>
#include <system_error>

#include <absl/status/status.h>

#include "base/str_cat.h"

namespace profdiff::agent {

absl::StatusOr<std::string> AbsoluteFolder(const std::string& folder) {
  std::error_code error;
  std::filesystem::path path =
      std::filesystem::absolute(folder, error).lexically_normal();
  if (error) {
    return absl::ErrnoToStatus(
        error.value(), base::ToAbsl(base::StrCat(folder, ": absolute path")));
  }
  // "/logs/" -> "/logs"; "/" stays.
  if (!path.has_filename() && path.has_relative_path())
    path = path.parent_path();
  return path.string();
}

}  // namespace profdiff::agent
