// One CSV table as `--format csv` writes it (issue 45, item 4): a header row of
// snake_case names, then rows whose numbers are plain numbers, booleans
// true/false, missing values empty and text quoted per RFC 4180, so Python's
// csv module and pandas load it as it is.
#ifndef PROFDIFF_CLIENT_CSV_TABLE_H_
#define PROFDIFF_CLIENT_CSV_TABLE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/generated_enum_reflection.h>

namespace profdiff::client {

// A table of formatted cells. Not thread-safe.
class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> header);

  // `cells` as CsvNumber, CsvInteger, CsvBool write them, or text; one per
  // header column (a programmer error otherwise).
  void AddRow(std::vector<std::string> cells);
  size_t row_count() const { return rows_.size(); }

  // The header, then each row, lines ending in "\n"; a cell holding a comma,
  // quote, CR or LF is quoted, its quotes doubled (RFC 4180).
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// `value` to 12 significant digits and at least 3 decimals ("12.5", "1e-05",
// "4900293653360.123"), which float() and pandas read back; -0 is "0"; NaN
// and infinities are "" (no value).
std::string CsvNumber(double value);
std::string CsvInteger(int64_t value);
std::string CsvBool(bool value);

// An enum value as a word: its diff.proto `display_text` where the enum has
// them ("unchanged"), else its value name without the enum's prefix, lower
// case ("module" for MODULE_NODE_KIND_MODULE); "" for a 0 UNSPECIFIED value
// or a number this build does not know.
std::string CsvEnumWord(const google::protobuf::EnumDescriptor& type,
                        int number);
template <typename Enum>
std::string CsvEnumWord(Enum value) {
  return CsvEnumWord(*google::protobuf::GetEnumDescriptor<Enum>(),
                     static_cast<int>(value));
}

// A number column of a message (OperatorValues, StepStats, ...): its name and
// how to read it (an accessor: &v1::StepStats::duration_us).
template <typename Message>
struct CsvField {
  std::string name;
  std::function<double(const Message&)> get;
};

// The columns of a table over rows of type `Row`, each a name and how a row's
// cell is written, so a name and its value are written side by side.
template <typename Row>
class CsvColumns {
 public:
  using Cell = std::function<std::string(const Row&)>;

  void Add(std::string name, Cell cell) {
    names_.push_back(std::move(name));
    cells_.push_back(std::move(cell));
  }

  // The table of `rows` (any range of Row).
  template <typename Rows>
  std::string Render(const Rows& rows) const {
    CsvTable table(names_);
    for (const Row& row : rows) {
      std::vector<std::string> cells;
      cells.reserve(cells_.size());
      for (const Cell& cell : cells_) cells.push_back(cell(row));
      table.AddRow(std::move(cells));
    }
    return table.Render();
  }

 private:
  std::vector<std::string> names_;
  std::vector<Cell> cells_;
};

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_CSV_TABLE_H_
