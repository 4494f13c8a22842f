#include "client/text_table.h"

#include <algorithm>
#include <limits>
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

// `cell` in `width` characters around where it differs from a name it would
// otherwise print like (`differs_at`, its common prefix with the likest):
// "hea...<from the difference>...ail", or "hea...<its end>" when the
// difference is near the end.
std::string CutAround(const std::string& cell, size_t differs_at,
                      size_t width) {
  constexpr size_t kHead = 3, kTail = 3, kDots = 3;
  if (cell.size() <= width) return cell;
  if (width < kHead + kTail + 2 * kDots + 4) return cell.substr(0, width);
  const size_t from = std::max(kHead, differs_at > 0 ? differs_at - 1 : 0);
  const size_t end_part = width - kHead - kDots;
  if (from + end_part >= cell.size()) {
    return cell.substr(0, kHead) + "..." + cell.substr(cell.size() - end_part);
  }
  const size_t middle = width - kHead - kTail - 2 * kDots;
  return cell.substr(0, kHead) + "..." + cell.substr(from, middle) + "..." +
         cell.substr(cell.size() - kTail);
}

size_t CommonPrefix(const std::string& a, const std::string& b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<size_t>(ia - a.begin());
}

// One column's cells as printed: cut to `width` keeping a third of it for the
// tail; cells that would print alike though they differ keep a longer tail,
// and then more width up to `limit`, until they print apart; past `limit`
// they are cut around where they differ.
std::vector<std::string> CutColumn(const std::vector<std::string>& cells,
                                   size_t width, size_t limit) {
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
    // A few splits per width, and widths growing by half: a table of long,
    // alike names (--top 0) stays quick to print.
    for (size_t w = width; !done && w < longest && w <= limit;
         w += std::max<size_t>(8, w / 2)) {
      for (int sixth = 2; sixth <= 6; ++sixth) {
        const size_t tail = (w - 3) * sixth / 6;
        if (!apart(w, tail)) continue;
        for (size_t i : rows) out[i] = CutMiddle(cells[i], w, tail);
        done = true;
        break;
      }
    }
    if (!done && longest <= limit) {
      for (size_t i : rows) out[i] = cells[i];
    } else if (!done) {
      // Cut each around where it differs from those it still prints like;
      // a few rounds, as a name apart from one may meet another.
      std::vector<std::vector<size_t>> alike = {rows};
      for (int round = 0; round < 4 && !alike.empty(); ++round) {
        for (const std::vector<size_t>& same : alike) {
          for (size_t i : same) {
            size_t differs_at = 0;
            for (size_t j : same) {
              if (cells[j] != cells[i]) {
                differs_at =
                    std::max(differs_at, CommonPrefix(cells[i], cells[j]));
              }
            }
            out[i] = CutAround(cells[i], differs_at, width);
          }
        }
        std::map<std::string, std::vector<size_t>> now;
        for (size_t i : rows) now[out[i]].push_back(i);
        alike.clear();
        for (auto& [printed, same] : now) {
          std::set<std::string> distinct;
          for (size_t i : same) distinct.insert(cells[i]);
          if (distinct.size() > 1) alike.push_back(std::move(same));
        }
      }
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

std::string WrapWords(const std::string& label, std::string_view text,
                      size_t width) {
  const std::string indent(label.size(), ' ');
  std::string out, line = label;
  bool first_word = true;
  const std::string safe = TerminalSafe(text);
  size_t at = 0;
  while (at < safe.size()) {
    const size_t space = safe.find(' ', at);
    const size_t end = space == std::string::npos ? safe.size() : space;
    const std::string_view word(safe.data() + at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!first_word && width > 0 && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
      first_word = true;
    }
    if (!first_word) line += ' ';
    line += word;
    first_word = false;
  }
  return out + line + "\n";
}

std::string TextTable::RenderText(size_t max_width, size_t max_line) const {
  std::vector<std::vector<std::string>> safe(rows_.size());
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t c = 0; c < columns_.size(); ++c)
      safe[r].push_back(c < rows_[r].size() ? TerminalSafe(rows_[r][c]) : "");
  }
  // The cells of column `c` as printed at `width` (cut, and told apart: in a
  // table that must fit, within that width).
  auto printed_column = [&](size_t c, size_t width) {
    std::vector<std::string> cells(rows_.size());
    for (size_t r = 0; r < rows_.size(); ++r) cells[r] = safe[r][c];
    // A shortened name kept apart from another may still be too wide: it is
    // then cut like any cell.
    if (columns_[c].shorten) cells = columns_[c].shorten(cells, width);
    return CutColumn(cells, width,
                     max_line > 0 ? width : std::numeric_limits<size_t>::max());
  };
  std::vector<std::vector<std::string>> columns(columns_.size());
  std::vector<size_t> widths(columns_.size());
  auto measure = [&](size_t c, size_t width) {
    columns[c] = printed_column(c, width);
    widths[c] = columns_[c].header.size();
    for (const std::string& cell : columns[c])
      widths[c] = std::max(widths[c], cell.size());
  };
  for (size_t c = 0; c < columns_.size(); ++c) measure(c, max_width);
  std::vector<bool> shown(columns_.size(), true);
  auto line_width = [&] {
    size_t total = 0, count = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (!shown[c]) continue;
      total += widths[c];
      ++count;
    }
    return total + 2 * (count > 0 ? count - 1 : 0);
  };
  std::vector<std::string> dropped;
  if (max_line > 0) {
    // The widest left-aligned column first: the names.
    size_t names = columns_.size();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].align == Align::kLeft &&
          (names == columns_.size() || widths[c] > widths[names]))
        names = c;
    }
    auto fit_names = [&](size_t floor) {
      if (names == columns_.size() || line_width() <= max_line) return;
      const size_t others = line_width() - widths[names];
      const size_t room = max_line > others ? max_line - others : 0;
      const size_t width = std::max(room, floor);
      if (width < widths[names]) measure(names, width);
    };
    fit_names(kMinNameWidth);
    while (line_width() > max_line) {
      size_t worst = columns_.size();
      for (size_t c = 0; c < columns_.size(); ++c) {
        if (shown[c] && columns_[c].drop > 0 &&
            (worst == columns_.size() ||
             columns_[c].drop > columns_[worst].drop))
          worst = c;
      }
      if (worst == columns_.size()) break;
      shown[worst] = false;
      dropped.push_back(columns_[worst].header);
      if (names != columns_.size()) measure(names, max_width);
      fit_names(kMinNameWidth);
    }
    // Every column that may go has gone: the names give up more, then the
    // other left-aligned columns (an operator beside a kernel), widest first.
    fit_names(kLastNameWidth);
    std::vector<bool> cut(columns_.size(), false);
    if (names != columns_.size()) cut[names] = true;
    while (line_width() > max_line) {
      size_t widest = columns_.size();
      for (size_t c = 0; c < columns_.size(); ++c) {
        if (shown[c] && !cut[c] && columns_[c].align == Align::kLeft &&
            widths[c] > kLastNameWidth &&
            (widest == columns_.size() || widths[c] > widths[widest]))
          widest = c;
      }
      if (widest == columns_.size()) break;
      cut[widest] = true;
      names = widest;
      fit_names(kLastNameWidth);
    }
  }
  std::string out;
  auto append_row = [&](auto cell_of) {
    std::string line;
    bool first = true;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (!shown[c]) continue;
      const std::string& cell = cell_of(c);
      const std::string pad(widths[c] - std::min(widths[c], cell.size()), ' ');
      if (!first) line += "  ";
      first = false;
      line += columns_[c].align == Align::kRight ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  append_row(
      [&](size_t c) -> const std::string& { return columns_[c].header; });
  std::vector<std::string> rule(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c)
    rule[c] = std::string(widths[c], '-');
  append_row([&](size_t c) -> const std::string& { return rule[c]; });
  for (size_t r = 0; r < rows_.size(); ++r)
    append_row([&](size_t c) -> const std::string& { return columns[c][r]; });
  if (!dropped.empty()) {
    std::string note =
        "(left out to fit " + std::to_string(max_line) + " columns: ";
    for (size_t i = 0; i < dropped.size(); ++i)
      note += (i > 0 ? ", " : "") + dropped[i];
    out += WrapWords("", note + "; --wide prints every column)", max_line);
  }
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
