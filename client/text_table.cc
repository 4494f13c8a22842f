#include "client/text_table.h"

#include <algorithm>

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

std::string Cut(const std::string& cell, size_t max_width) {
  if (cell.size() <= max_width) return cell;
  return cell.substr(0, max_width - 3) + "...";
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
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c)
    widths[c] = columns_[c].header.size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] =
          std::max(widths[c], std::min(TerminalSafe(row[c]).size(), max_width));
    }
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell =
          c < cells.size() ? Cut(TerminalSafe(cells[c]), max_width) : "";
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
  for (const auto& row : rows_) append_row(row);
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
