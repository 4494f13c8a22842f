#include "client/name_columns.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "differ/kernel_names.h"

namespace profdiff::client {
namespace {

// The narrowest a name is cut to, however deep its indentation.
constexpr size_t kMinTreeName = 12;
constexpr std::string_view kDots = "...";

std::string CutName(std::string_view indent, std::string_view name, size_t room,
                    size_t tail) {
  if (name.size() <= room) return std::string(indent) + std::string(name);
  const size_t keep = room - kDots.size();
  tail = std::min(tail, keep);
  return std::string(indent) + std::string(name.substr(0, keep - tail)) +
         std::string(kDots) + std::string(name.substr(name.size() - tail));
}

}  // namespace

TextTable::Column KernelNameColumn(std::string header) {
  TextTable::Column column{std::move(header), Align::kLeft};
  column.shorten = &differ::ShortenKernelNames;
  return column;
}

TextTable::Column TreeNameColumn(std::string header) {
  TextTable::Column column{std::move(header), Align::kLeft};
  column.shorten = &ShortenTreeNames;
  return column;
}

std::vector<std::string> ShortenTreeNames(const std::vector<std::string>& cells,
                                          size_t width) {
  struct Split {
    std::string_view indent, name;
    size_t room = 0;
  };
  std::vector<Split> splits;
  splits.reserve(cells.size());
  for (const std::string& cell : cells) {
    const std::string_view text = cell;
    const size_t at = std::min(text.find_first_not_of(' '), text.size());
    const size_t indent = at;
    const size_t room =
        std::max(width > indent ? width - indent : 0, kMinTreeName);
    splits.push_back({text.substr(0, at), text.substr(at), room});
  }
  std::vector<std::string> out(cells.size());
  std::map<std::string, std::vector<size_t>> printed_as;
  for (size_t i = 0; i < cells.size(); ++i) {
    const Split& s = splits[i];
    out[i] = CutName(s.indent, s.name, s.room, (s.room - kDots.size()) / 3);
    printed_as[out[i]].push_back(i);
  }
  // Different names printed alike: more tail, then whole.
  for (const auto& [printed, rows] : printed_as) {
    std::set<std::string_view> names;
    for (size_t i : rows) names.insert(cells[i]);
    if (names.size() < 2) continue;
    bool apart = false;
    for (int sixth = 3; sixth <= 6 && !apart; ++sixth) {
      std::vector<std::string> cut;
      std::map<std::string_view, std::string_view> name_of_cut;
      apart = true;
      for (size_t i : rows) {
        const Split& s = splits[i];
        cut.push_back(CutName(s.indent, s.name, s.room,
                              (s.room - kDots.size()) * sixth / 6));
      }
      // The same name twice prints alike; different names must not.
      for (size_t k = 0; k < rows.size() && apart; ++k) {
        const auto [it, first] =
            name_of_cut.try_emplace(cut[k], cells[rows[k]]);
        apart = first || it->second == cells[rows[k]];
      }
      if (!apart) continue;
      for (size_t k = 0; k < rows.size(); ++k) out[rows[k]] = std::move(cut[k]);
    }
    if (!apart) {
      for (size_t i : rows) out[i] = cells[i];
    }
  }
  return out;
}

}  // namespace profdiff::client
