#include "client/csv_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <absl/strings/ascii.h>
#include <absl/strings/str_format.h>

#include "base/log.h"
#include "base/str_cat.h"
#include "differ/display_text.h"

namespace profdiff::client {
namespace {

// Significant digits of a number, at least: a difference's rounding error
// (92.9169999999997) prints as 92.917, a byte count stays whole up to 1 TB.
constexpr int kSignificantDigits = 12;
// Decimals kept, at least: a microsecond value keeps its nanoseconds however
// large (a step's start, 4.9e12 us after the clock's origin).
constexpr int kMinDecimals = 3;
// A double holds no more.
constexpr int kMaxSignificantDigits = 17;

void AppendCell(std::string_view cell, std::string& out) {
  if (cell.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(cell);
    return;
  }
  out.push_back('"');
  for (char c : cell) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

void AppendLine(const std::vector<std::string>& cells, std::string& out) {
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out.push_back(',');
    AppendCell(cells[c], out);
  }
  out.push_back('\n');
}

// "MODULE_NODE_KIND_" for ModuleNodeKind: the prefix protobuf's style guide
// gives every value of the enum.
std::string ValuePrefix(const google::protobuf::EnumDescriptor& type) {
  std::string prefix;
  for (char c : type.name()) {
    if (std::isupper(static_cast<unsigned char>(c)) && !prefix.empty())
      prefix.push_back('_');
    prefix.push_back(absl::ascii_toupper(static_cast<unsigned char>(c)));
  }
  return prefix + "_";
}

}  // namespace

CsvTable::CsvTable(std::vector<std::string> header)
    : header_(std::move(header)) {}

void CsvTable::AddRow(std::vector<std::string> cells) {
  PD_CHECK(cells.size() == header_.size(), "%d cells for %d columns",
           cells.size(), header_.size());
  rows_.push_back(std::move(cells));
}

std::string CsvTable::Render() const {
  std::string out;
  AppendLine(header_, out);
  for (const std::vector<std::string>& row : rows_) AppendLine(row, out);
  return out;
}

std::string CsvNumber(double value) {
  if (!std::isfinite(value)) return "";
  if (value == 0) return "0";
  const int integer_digits =
      static_cast<int>(std::floor(std::log10(std::abs(value)))) + 1;
  const int digits =
      std::min(kMaxSignificantDigits,
               std::max(kSignificantDigits, integer_digits + kMinDecimals));
  return absl::StrFormat("%.*g", digits, value);
}

std::string CsvInteger(int64_t value) { return base::StrCat(value); }

std::string CsvBool(bool value) { return value ? "true" : "false"; }

std::string CsvEnumWord(const google::protobuf::EnumDescriptor& type,
                        int number) {
  if (differ::HasDisplayText(type)) return differ::DisplayText(type, number);
  const google::protobuf::EnumValueDescriptor* value =
      type.FindValueByNumber(number);
  if (value == nullptr) return "";
  std::string name = value->name();
  if (const std::string prefix = ValuePrefix(type); name.starts_with(prefix))
    name.erase(0, prefix.size());
  if (name == "UNSPECIFIED") return "";
  return absl::AsciiStrToLower(name);
}

}  // namespace profdiff::client
