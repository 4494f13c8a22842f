// Where `--format csv` goes (issue 45, item 4): one table to standard output
// or to one file; the tables of several views to a folder (`-o DIR/`), a file
// each, for `diff` and `show` alike.
#ifndef PROFDIFF_CLIENT_CSV_OUTPUT_H_
#define PROFDIFF_CLIENT_CSV_OUTPUT_H_

#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

namespace profdiff::client {

// One table of `--format csv`: `name` is its view ("operators"), or its view
// and table for a view of several ("comm_ranks"); `-o DIR/` writes it as
// DIR/<name>.csv, and `--view <name>` asks for it alone.
struct CsvFile {
  std::string name;
  std::string text;
};

// Whether the tables named `tables` (what `--view views` asks for) can go to
// `-o output`: any number to a folder (IsOutputFolder), exactly one anywhere
// else. Checked before any trace is read. InvalidArgument otherwise, naming
// the tables and both ways out ("--format csv prints one view; pick one with
// --view, or write every view with -o DIR/").
absl::Status CheckCsvDestination(const std::string& output,
                                 const std::vector<std::string>& tables,
                                 const std::string& views);

// Writes `files` to `-o output` (WriteOutput for one, WriteOutputFolder for a
// folder) and returns what the command prints.
absl::StatusOr<std::string> WriteCsvFiles(const std::string& output,
                                          std::vector<CsvFile> files);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_CSV_OUTPUT_H_
