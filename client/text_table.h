// A table of strings printed either as aligned columns for a terminal or as
// CSV.
#ifndef PROFDIFF_CLIENT_TEXT_TABLE_H_
#define PROFDIFF_CLIENT_TEXT_TABLE_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace profdiff::client {

// `text` with control characters (ESC, CR, newline, ...) and DEL written as
// \xNN, so a trace's strings cannot move the cursor, recolour or rewrite a
// user's terminal.
std::string TerminalSafe(std::string_view text);

// `text` (made TerminalSafe) after `label`, its words wrapped at `width` (0:
// not wrapped) onto lines indented under the text, each line ending in '\n';
// a word longer than a line keeps a line of its own.
std::string WrapWords(const std::string& label, std::string_view text,
                      size_t width);

enum class Align { kLeft, kRight };

class TextTable {
 public:
  struct Column {
    // Not explicit: tables list their columns as braces, {"share"}.
    // NOLINTNEXTLINE(google-explicit-constructor)
    Column(std::string header_text, Align alignment = Align::kRight,
           int drop_rank = 0)
        : header(std::move(header_text)), align(alignment), drop(drop_rank) {}
    std::string header;
    Align align = Align::kRight;
    // 0: always printed; otherwise left out, highest first, when the table
    // would be wider than RenderText's `max_line`.
    int drop = 0;
    // Cells with a structure of their own (kernel names) are shortened to a
    // width by this instead of cut in the middle; it returns one text per
    // cell, different cells printing apart.
    std::function<std::vector<std::string>(const std::vector<std::string>&,
                                           size_t)>
        shorten;
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
  // With `max_line` > 0 the lines fit it where they can: the widest
  // left-aligned column is cut further (down to kMinNameWidth), then columns
  // with a `drop` rank are left out, and a last line names them; then the
  // names are cut down to kLastNameWidth. Names that would print alike are
  // then cut around where they differ ("hea...x128_8x4_nt...ms)").
  std::string RenderText(size_t max_width = 80, size_t max_line = 0) const;
  static constexpr size_t kMinNameWidth = 32;
  static constexpr size_t kLastNameWidth = 20;
  // RFC 4180 CSV with a header row.
  std::string RenderCsv() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_TEXT_TABLE_H_
