#include "differ/module_alignment.h"

#include <algorithm>

namespace profdiff::differ {
namespace {

struct Score {
  int32_t matches = 0;
  double weight = 0;
  friend bool operator<(const Score& x, const Score& y) {
    return x.matches != y.matches ? x.matches < y.matches : x.weight < y.weight;
  }
};

// Greedy first match: each `a` takes the first equal key after the previous
// match.
void AlignGreedy(const std::vector<AlignItem>& a,
                 const std::vector<AlignItem>& b, size_t a0, size_t a1,
                 size_t b0, size_t b1, std::vector<AlignedPair>& out) {
  size_t j = b0;
  for (size_t i = a0; i < a1; ++i) {
    size_t k = j;
    while (k < b1 && b[k].key != a[i].key) ++k;
    if (k == b1) {
      out.push_back({static_cast<int32_t>(i), -1});
      continue;
    }
    for (; j < k; ++j) out.push_back({-1, static_cast<int32_t>(j)});
    out.push_back({static_cast<int32_t>(i), static_cast<int32_t>(k)});
    j = k + 1;
  }
  for (; j < b1; ++j) out.push_back({-1, static_cast<int32_t>(j)});
}

// Dynamic programming over a[a0, a1) x b[b0, b1).
void AlignOptimal(const std::vector<AlignItem>& a,
                  const std::vector<AlignItem>& b, size_t a0, size_t a1,
                  size_t b0, size_t b1, std::vector<AlignedPair>& out) {
  const size_t n = a1 - a0;
  const size_t m = b1 - b0;
  // best[i][j]: best score of a[a0 + i ..) x b[b0 + j ..), so the walk below
  // runs forwards.
  std::vector<Score> best((n + 1) * (m + 1));
  auto at = [m](size_t i, size_t j) { return i * (m + 1) + j; };
  // The score of matching a[a0 + i] with b[b0 + j], then aligning what follows
  // both.
  auto diagonal = [&](size_t i, size_t j) {
    Score s = best[at(i + 1, j + 1)];
    ++s.matches;
    s.weight += a[a0 + i].weight + b[b0 + j].weight;
    return s;
  };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      Score s = std::max(best[at(i + 1, j)], best[at(i, j + 1)]);
      if (a[a0 + i].key == b[b0 + j].key) s = std::max(s, diagonal(i, j));
      best[at(i, j)] = s;
    }
  }
  size_t i = 0;
  size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i].key == b[b0 + j].key) {
      if (!(diagonal(i, j) < best[at(i, j)])) {
        out.push_back(
            {static_cast<int32_t>(a0 + i), static_cast<int32_t>(b0 + j)});
        ++i;
        ++j;
        continue;
      }
    }
    // Removals before additions at the same place.
    if (i < n && (j == m || !(best[at(i + 1, j)] < best[at(i, j)]))) {
      out.push_back({static_cast<int32_t>(a0 + i), -1});
      ++i;
    } else {
      out.push_back({-1, static_cast<int32_t>(b0 + j)});
      ++j;
    }
  }
}

}  // namespace

std::vector<AlignedPair> AlignChildren(const std::vector<AlignItem>& a,
                                       const std::vector<AlignItem>& b,
                                       size_t max_cells) {
  std::vector<AlignedPair> out;
  out.reserve(a.size() + b.size());
  if ((a.size() + 1) * (b.size() + 1) <= max_cells) {
    AlignOptimal(a, b, 0, a.size(), 0, b.size(), out);
    return out;
  }
  // Too large for the table: equal heads and tails match one to one (they are
  // part of some alignment with the most matches), and only the middle needs
  // work.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head].key == b[head].key) {
    out.push_back({static_cast<int32_t>(head), static_cast<int32_t>(head)});
    ++head;
  }
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail].key == b[b.size() - 1 - tail].key) {
    ++tail;
  }
  const size_t a1 = a.size() - tail;
  const size_t b1 = b.size() - tail;
  if ((a1 - head + 1) * (b1 - head + 1) <= max_cells) {
    AlignOptimal(a, b, head, a1, head, b1, out);
  } else {
    AlignGreedy(a, b, head, a1, head, b1, out);
  }
  for (size_t k = 0; k < tail; ++k) {
    out.push_back({static_cast<int32_t>(a1 + k), static_cast<int32_t>(b1 + k)});
  }
  return out;
}

std::string_view ClassName(std::string_view node_name) {
  const size_t underscore = node_name.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0 ||
      underscore + 1 == node_name.size()) {
    return node_name;
  }
  for (size_t i = underscore + 1; i < node_name.size(); ++i) {
    if (node_name[i] < '0' || node_name[i] > '9') return node_name;
  }
  return node_name.substr(0, underscore);
}

}  // namespace profdiff::differ
