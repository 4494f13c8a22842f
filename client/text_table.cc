#include "client/text_table.h"

#include <algorithm>
#include <map>
#include <set>

namespace profdiff::client {
namespace {

std::string CsvCell(const std::string& cell) {
  if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char c : cell) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

// `cell` in `width` characters, its head and its last `tail` characters kept:
// "head...tail" (a kernel's name differs from its neighbour's in the middle or
// at the end as often as at the start).
std::string CutMiddle(const std::string& cell, size_t width, size_t tail) {
  if (cell.size() <= width) return cell;
  const size_t keep = width - 3;
  tail = std::min(tail, keep);
  return cell.substr(0, keep - tail) + "..." + cell.substr(cell.size() - tail);
}

// One column's cells as printed: cut to `width` keeping a third of it for the
// tail; cells that would print alike though they differ keep a longer tail,
// and then more width, until they print apart.
std::vector<std::string> CutColumn(const std::vector<std::string>& cells,
                                   size_t width) {
  std::vector<std::string> out(cells.size());
  std::map<std::string, std::vector<size_t>> printed_as;
  for (size_t i = 0; i < cells.size(); ++i) {
    out[i] = CutMiddle(cells[i], width, (width - 3) / 3);
    printed_as[out[i]].push_back(i);
  }
  for (auto& [text, rows] : printed_as) {
    std::set<std::string> originals;
    for (size_t i : rows) originals.insert(cells[i]);
    if (originals.size() < 2) continue;
    auto apart = [&](size_t w, size_t tail) {
      std::set<std::string> seen;
      for (const std::string& original : originals) {
        if (!seen.insert(CutMiddle(original, w, tail)).second) return false;
      }
      return true;
    };
    size_t longest = 0;
    for (const std::string& original : originals)
      longest = std::max(longest, original.size());
    bool done = false;
    for (size_t w = width; !done && w <= longest; w += 8) {
      for (size_t tail = (w - 3) / 3; tail <= w - 3; tail += 4) {
        if (!apart(w, tail)) continue;
        for (size_t i : rows) out[i] = CutMiddle(cells[i], w, tail);
        done = true;
        break;
      }
    }
    if (!done) {
      for (size_t i : rows) out[i] = cells[i];
    }
  }
  return out;
}

}  // namespace

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out.push_back(c);
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xf]);
  }
  return out;
}

std::string TextTable::RenderText(size_t max_width) const {
  // The cells as printed, column by column (cut, and told apart).
  std::vector<std::vector<std::string>> printed(
      rows_.size(), std::vector<std::string>(columns_.size()));
  for (size_t c = 0; c < columns_.size(); ++c) {
    std::vector<std::string> cells(rows_.size());
    for (size_t r = 0; r < rows_.size(); ++r)
      cells[r] = c < rows_[r].size() ? TerminalSafe(rows_[r][c]) : "";
    cells = CutColumn(cells, max_width);
    for (size_t r = 0; r < rows_.size(); ++r) printed[r][c] = cells[r];
  }
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c)
    widths[c] = columns_[c].header.size();
  for (const auto& row : printed) {
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : "";
      const std::string pad(widths[c] - std::min(widths[c], cell.size()), ' ');
      if (c > 0) line += "  ";
      line += columns_[c].align == Align::kRight ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  append_row(headers);
  std::vector<std::string> rule;
  for (size_t width : widths) rule.push_back(std::string(width, '-'));
  append_row(rule);
  for (const auto& row : printed) append_row(row);
  return out;
}

std::string TextTable::RenderCsv() const {
  std::string out;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (c > 0) out += ",";
    out += CsvCell(columns_[c].header);
  }
  out += "\n";
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ",";
      out += CsvCell(row[c]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace profdiff::client
