#include "client/output_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <absl/strings/ascii.h>

#include "base/atomic_file.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::client {
namespace {

// "table, json or csv".
std::string Listing(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    const char* gap = i == 0 ? "" : i + 1 == words.size() ? " or " : ", ";
    base::StrAppend(&out, gap, words[i]);
  }
  return out;
}

// The format a file name's extension names; "" for any other.
std::string FormatOfExtension(const std::string& path) {
  const std::string extension = absl::AsciiStrToLower(
      base::ToAbsl(std::filesystem::path(path).extension().string()));
  if (extension == ".html" || extension == ".htm") return "html";
  if (extension == ".json") return "json";
  if (extension == ".csv") return "csv";
  return "";
}

}  // namespace

void AddOutputFlag(base::FlagSet& flags, std::string* path,
                   std::string_view help) {
  flags.AddString("output", path, "FILE", help);
  flags.AddShortName('o', "output");
}

bool IsStandardOutput(const std::string& path) {
  return path.empty() || path == "-";
}

absl::StatusOr<std::string> WriteOutput(const std::string& path,
                                        std::string output) {
  if (IsStandardOutput(path)) return output;
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

bool IsOutputFolder(const std::string& path) {
  if (path.ends_with('/')) return true;
  std::error_code error;
  return std::filesystem::is_directory(path, error);
}

absl::StatusOr<std::string> WriteOutputFolder(
    const std::string& folder,
    const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    return absl::UnavailableError(base::StrCat(
        "-o ", folder, ": cannot create the folder: ", error.message()));
  }
  const std::string prefix = folder.ends_with('/') ? folder : folder + "/";
  std::string printed;
  for (const auto& [name, bytes] : files) {
    const std::string path = prefix + name;
    if (absl::Status written = base::WriteFileAtomically(path, bytes);
        !written.ok()) {
      return base::Annotate(written, base::StrCat("-o ", folder));
    }
    base::StrAppend(&printed, "wrote ", path, " (", bytes.size(), " bytes)\n");
  }
  return printed;
}

absl::StatusOr<std::string> ResolveOutputFormat(
    std::string_view command, const std::string& path,
    const std::string& format_flag, const std::vector<std::string>& formats,
    const std::string& fallback) {
  auto known = [&](const std::string& format) {
    return std::find(formats.begin(), formats.end(), format) != formats.end();
  };
  if (!format_flag.empty() && !known(format_flag)) {
    return absl::InvalidArgumentError(base::StrCat(
        "--format ", format_flag, ": expected ", Listing(formats)));
  }
  const bool folder = !IsStandardOutput(path) && IsOutputFolder(path);
  const std::string asked = folder ? "csv" : FormatOfExtension(path);
  if (asked.empty()) return format_flag.empty() ? fallback : format_flag;
  if (!known(asked)) {
    if (folder) {
      return absl::InvalidArgumentError(
          base::StrCat("-o ", path, ": a folder, and ", command,
                       " writes one file (", Listing(formats), ")"));
    }
    return absl::InvalidArgumentError(base::StrCat(
        "-o ", path, ": ", command, " has no ", asked, " format (it writes ",
        Listing(formats), ")",
        asked == "html" ? "; the HTML report is profdiff diff's" : ""));
  }
  if (!format_flag.empty() && format_flag != asked) {
    return absl::InvalidArgumentError(
        folder ? base::StrCat("-o ", path, " with --format ", format_flag,
                              ": a folder holds one CSV file per view "
                              "(--format csv); name a file for ",
                              format_flag)
               : base::StrCat("-o ", path, " with --format ", format_flag,
                              ": the file name asks for ", asked,
                              "; leave out --format, or name a .",
                              format_flag == "table" ? "txt" : format_flag,
                              " file"));
  }
  return asked;
}

}  // namespace profdiff::client
