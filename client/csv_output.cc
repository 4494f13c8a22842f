#include "client/csv_output.h"

#include <utility>

#include "base/log.h"
#include "base/str_cat.h"
#include "client/output_file.h"

namespace profdiff::client {

absl::Status CheckCsvDestination(const std::string& output,
                                 const std::vector<std::string>& tables,
                                 const std::string& views) {
  const bool stream = IsStandardOutput(output);
  if (tables.size() == 1 || (!stream && IsOutputFolder(output)))
    return absl::OkStatus();
  std::string names;
  for (const std::string& table : tables)
    base::StrAppend(&names, names.empty() ? "" : ", ", table);
  return absl::InvalidArgumentError(base::StrCat(
      stream ? "--format csv prints one table"
             : base::StrCat("-o ", output, " holds one CSV table"),
      ", and --view ", views, " has ", tables.size(), " (", names,
      "): pick one with --view, or write every view with -o DIR/"));
}

absl::StatusOr<std::string> WriteCsvFiles(const std::string& output,
                                          std::vector<CsvFile> files) {
  const bool stream = IsStandardOutput(output);
  if (stream || !IsOutputFolder(output)) {
    PD_CHECK(files.size() == 1, "%d CSV tables for one file (%s)", files.size(),
             output);
    return WriteOutput(output, std::move(files.front().text));
  }
  std::vector<std::pair<std::string, std::string>> named;
  named.reserve(files.size());
  for (CsvFile& file : files)
    named.emplace_back(file.name + ".csv", std::move(file.text));
  return WriteOutputFolder(output, named);
}

}  // namespace profdiff::client
