#include "client/output_file.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "base/atomic_file.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::client {

absl::StatusOr<std::string> WriteOutput(const std::string& path,
                                        std::string output) {
  if (path.empty() || path == "-") return output;
  std::error_code error;
  const std::filesystem::file_status link =
      std::filesystem::symlink_status(path, error);
  const bool in_place = std::filesystem::is_symlink(link) ||
                        (std::filesystem::exists(link) &&
                         !std::filesystem::is_regular_file(link));
  if (in_place) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(output.data(), static_cast<std::streamsize>(output.size()));
    if (!out.flush()) {
      return absl::UnavailableError(
          base::StrCat("-o ", path, ": cannot write"));
    }
    return std::string();
  }
  if (absl::Status written = base::WriteFileAtomically(path, output);
      !written.ok()) {
    return base::Annotate(written, base::StrCat("-o ", path));
  }
  return base::StrCat("wrote ", path, " (", output.size(), " bytes)\n");
}

}  // namespace profdiff::client
