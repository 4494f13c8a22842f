// A table of strings printed either as aligned columns for a terminal or as
// CSV.
#ifndef PROFDIFF_CLIENT_TEXT_TABLE_H_
#define PROFDIFF_CLIENT_TEXT_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

namespace profdiff::client {

// `text` with control characters (ESC, CR, newline, ...) and DEL written as
// \xNN, so a trace's strings cannot move the cursor, recolour or rewrite a
// user's terminal.
std::string TerminalSafe(std::string_view text);

enum class Align { kLeft, kRight };

class TextTable {
 public:
  struct Column {
    std::string header;
    Align align = Align::kRight;
  };
  explicit TextTable(std::vector<Column> columns)
      : columns_(std::move(columns)) {}

  void AddRow(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
  }
  size_t row_count() const { return rows_.size(); }

  // Aligned columns separated by two spaces; cells are TerminalSafe, and long
  // ones are cut to `max_width` in the middle ("head...tail"); two different
  // cells of a column never print alike (they keep more, up to whole).
  std::string RenderText(size_t max_width = 80) const;
  // RFC 4180 CSV with a header row.
  std::string RenderCsv() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_TEXT_TABLE_H_
