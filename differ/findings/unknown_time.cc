#include "differ/findings/unknown_time.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "base/str_cat.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// The node at `index_path` below `root`, or nullptr.
const v1::ModuleDiffNode* NodeAt(const v1::ModuleDiffNode& root,
                                 const std::string& index_path) {
  if (root.index_path() == index_path) return &root;
  for (const v1::ModuleDiffNode& child : root.children()) {
    if (index_path == child.index_path() ||
        index_path.starts_with(child.index_path() + "/")) {
      return NodeAt(child, index_path);
    }
  }
  return nullptr;
}

// Self time by operator name, both sides, in `device` or host time; `sign`
// +1 adds the rows, -1 takes them away.
void AddSelf(const std::vector<v1::OperatorDiff>& rows, bool device,
             double sign,
             std::map<std::string, std::pair<double, double>>& out) {
  for (const v1::OperatorDiff& row : rows) {
    auto& [a, b] = out[row.name()];
    a += sign * (device ? row.baseline().device_self_us()
                        : row.baseline().host_self_us());
    b += sign * (device ? row.experimental().device_self_us()
                        : row.experimental().host_self_us());
  }
}

}  // namespace

std::string WhatUnknownHolds(const FindingContext& c,
                             const v1::ModuleDiffNode& root,
                             const v1::ModuleDiffNode& unknown) {
  const FindingInputs& in = c.in();
  const size_t slash = unknown.index_path().rfind('/');
  const std::string parent_path =
      slash == std::string::npos ? "" : unknown.index_path().substr(0, slash);
  const v1::ModuleDiffNode* parent = NodeAt(root, parent_path);
  if (parent == nullptr || !in.inside) return "";
  const bool device = unknown.compared() == v1::MODULE_COMPARED_DEVICE_US;
  std::map<std::string, std::pair<double, double>> outside;
  if (parent_path.empty()) {
    if (in.operators == nullptr) return "";
    AddSelf(*in.operators, device, +1, outside);
  } else {
    absl::StatusOr<ScopedTables> tables = in.inside(parent_path);
    if (!tables.ok()) return "";
    AddSelf(tables->operators, device, +1, outside);
  }
  for (const v1::ModuleDiffNode& child : parent->children()) {
    if (child.kind() == v1::MODULE_NODE_KIND_UNKNOWN) continue;
    absl::StatusOr<ScopedTables> tables = in.inside(child.index_path());
    if (!tables.ok()) return "";
    AddSelf(tables->operators, device, -1, outside);
  }
  const double sign = unknown.delta().compare_us();
  std::vector<std::pair<std::string, double>> moved;
  for (const auto& [name, sides] : outside) {
    const double delta = sides.second - sides.first;
    // Residue of floating-point sums is no change.
    if (std::abs(delta) < 0.5 || !SameSign(delta, sign)) continue;
    moved.emplace_back(name, delta);
  }
  if (moved.empty()) return "";
  std::stable_sort(moved.begin(), moved.end(),
                   [](const auto& x, const auto& y) {
                     return std::abs(x.second) > std::abs(y.second);
                   });
  std::vector<std::string> items;
  items.reserve(moved.size());
  for (const auto& [name, delta] : moved) {
    items.push_back(base::StrCat(name, " ", SignedDuration(delta)));
  }
  return base::StrCat(NameList(items, kUnknownOperatorsShown), " of self ",
                      device ? "device " : "", "time outside every module");
}

}  // namespace profdiff::differ
