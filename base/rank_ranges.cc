#include "base/rank_ranges.h"

#include "base/str_cat.h"

namespace profdiff::base {

std::string RankRanges(std::span<const int32_t> ascending, size_t max_ranges) {
  std::string out;
  size_t printed = 0;
  size_t unlisted = 0;
  // Each item is a run of three or more consecutive ranks, or one rank.
  auto item = [&](int32_t first, int32_t last, size_t ranks) {
    if (printed++ >= max_ranges) {
      unlisted += ranks;
      return;
    }
    StrAppend(&out, out.empty() ? "" : ",", first);
    if (last != first) StrAppend(&out, "-", last);
  };
  for (size_t i = 0; i < ascending.size();) {
    size_t j = i;
    while (j + 1 < ascending.size() && ascending[j + 1] == ascending[j] + 1)
      ++j;
    if (j >= i + 2) {
      item(ascending[i], ascending[j], j - i + 1);
    } else {
      for (size_t k = i; k <= j; ++k) item(ascending[k], ascending[k], 1);
    }
    i = j + 1;
  }
  if (unlisted > 0) StrAppend(&out, " and ", unlisted, " more");
  return out;
}

}  // namespace profdiff::base
