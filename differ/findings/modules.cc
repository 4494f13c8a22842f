#include "differ/findings/modules.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/findings/name_lists.h"
#include "differ/findings/unknown_time.h"
#include "differ/module_alignment.h"
#include "differ/module_comparability.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// "30 Bottleneck" or "2 Linear and 1 ReLU", by class, most first.
std::string CountByClass(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& name : names) {
    const std::string_view cls = ClassName(name);
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == cls; });
    if (it == counts.end()) {
      counts.emplace_back(std::string(cls), 1);
    } else {
      ++it->second;
    }
  }
  std::stable_sort(
      counts.begin(), counts.end(),
      [](const auto& x, const auto& y) { return x.second > y.second; });
  std::vector<std::string> parts;
  parts.reserve(counts.size());
  for (const auto& [cls, n] : counts)
    parts.push_back(base::StrCat(n, " ", cls));
  return NameList(parts, kNamesShown);
}

// The unit a module's delta is in, when it is not the step's wall time.
std::string UnitOf(const v1::ModuleDiffNode& node) {
  return node.compared() == v1::MODULE_COMPARED_DEVICE_US ? " of device time"
                                                          : "";
}

std::string UnitDeltas(const FindingContext& c, const ModuleUnit& unit) {
  if (unit.backward == nullptr)
    return base::StrCat(SignedDuration(unit.delta), UnitOf(*unit.node),
                        c.per_step());
  return base::StrCat(
      SignedDuration(unit.delta), UnitOf(*unit.node), c.per_step(),
      " (forward ", SignedDuration(unit.node->delta().compare_us()),
      ", backward ", SignedDuration(unit.backward->delta().compare_us()), ")");
}

// Why a device-time delta moved against the step, for a device-compared
// node ("" otherwise).
std::string Against(const FindingContext& c, const v1::ModuleDiffNode& node,
                    double delta) {
  return node.compared() == v1::MODULE_COMPARED_DEVICE_US
             ? c.AgainstTheStep(delta)
             : "";
}

// "(unknown)" is not a name a reader can act on: the time outside every
// sub-module of the parent.
std::string DisplayName(const v1::ModuleDiffNode& node) {
  return node.kind() == v1::MODULE_NODE_KIND_UNKNOWN
             ? "the time outside its sub-modules"
             : node.name();
}

// The walk stopped at an (unknown) block: what it holds, never the block
// alone.
v1::Finding UnknownWhere(const FindingContext& c, const ModuleWalk& walk) {
  const ModuleUnit& unit = walk.where;
  const v1::ModuleDiffNode& node = *unit.node;
  std::string text =
      base::StrCat(Duration(std::abs(unit.delta)), UnitOf(node), c.per_step(),
                   " ", unit.delta > 0 ? "more" : "less",
                   " outside every module", c.ShareClause(unit.delta));
  std::string holds = WhatUnknownHolds(c, *c.in().modules, node);
  base::StrAppend(&text, holds.empty() ? "" : ": ", holds, ".");
  v1::Finding f = c.Make(v1::FINDING_KIND_MODULE, std::move(text), unit.delta,
                         unit.changed);
  *f.add_evidence() = ModuleEvidence(node, c.threshold());
  return f;
}

// The module the walk descended to, with its backward.
v1::Finding WhereDescended(const FindingContext& c, const ModuleWalk& walk) {
  const ModuleUnit& unit = walk.where;
  const v1::ModuleDiffNode& node = *unit.node;
  std::string text = node.name();
  const size_t slash = node.path().rfind('/');
  if (slash != std::string::npos) {
    const std::string_view path = node.path();
    const std::string_view parent = path.substr(0, slash);
    base::StrAppend(&text, " (in ",
                    parent.substr(parent.rfind('/') == std::string_view::npos
                                      ? 0
                                      : parent.rfind('/') + 1),
                    ")");
  }
  bool structural = false;
  if (node.status() == v1::DIFF_STATUS_ADDED ||
      node.status() == v1::DIFF_STATUS_REMOVED) {
    structural = true;
    base::StrAppend(
        &text, ", which ran only in the ",
        node.status() == v1::DIFF_STATUS_ADDED ? "experimental" : "baseline",
        " run,");
  }
  base::StrAppend(&text, " changed by ", UnitDeltas(c, unit),
                  c.ShareClause(unit.delta), Against(c, node, unit.delta));
  const std::vector<std::string> added =
      ChildNames(node, v1::DIFF_STATUS_ADDED);
  const std::vector<std::string> removed =
      ChildNames(node, v1::DIFF_STATUS_REMOVED);
  if (node.status() == v1::DIFF_STATUS_MATCHED &&
      (!added.empty() || !removed.empty())) {
    structural = true;
    const size_t matched = ChildNames(node, v1::DIFF_STATUS_MATCHED).size();
    base::StrAppend(&text, "; its sub-modules went from ",
                    matched + removed.size(), " to ", matched + added.size());
    if (!added.empty())
      base::StrAppend(&text, ", ", CountByClass(added), " added");
    if (!removed.empty())
      base::StrAppend(&text, ", ", CountByClass(removed), " removed");
  }
  if (!structural && !walk.spread.empty()) {
    std::vector<std::string> items;
    for (const ModuleUnit& child : walk.spread) {
      items.push_back(base::StrCat(DisplayName(*child.node), " ",
                                   SignedDuration(child.delta)));
    }
    base::StrAppend(&text, "; spread over its sub-modules ",
                    NameList(items, kNamesShown));
  }
  v1::Finding f =
      c.Make(structural ? v1::FINDING_KIND_STRUCTURE : v1::FINDING_KIND_MODULE,
             text + ".", unit.delta, unit.changed);
  *f.add_evidence() = ModuleEvidence(node, c.threshold());
  if (unit.backward != nullptr)
    *f.add_evidence() = ModuleEvidence(*unit.backward, c.threshold());
  return f;
}

}  // namespace

std::vector<v1::Finding> ComparabilityFindings(const FindingContext& c) {
  std::vector<v1::Finding> out;
  const v1::ModuleDiffNode& root = *c.in().modules;
  const BackwardIndex index(root);
  const std::vector<const v1::ModuleDiffNode*> nodes = IncomparableNodes(root);
  auto incomparable = [&](const v1::ModuleDiffNode* node) {
    return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
  };
  for (const v1::ModuleDiffNode* node : nodes) {
    if (index.IsBackwardOfModule(*node)) {
      // Said with its forward module when that one does not align either.
      bool said = false;
      for (const v1::ModuleDiffNode* other : nodes)
        said |= index.BackwardOf(*other) == node;
      if (said) continue;
    }
    const v1::ModuleDiffNode* backward = index.BackwardOf(*node);
    if (!incomparable(backward)) backward = nullptr;
    ModuleUnit unit;
    unit.node = node;
    unit.backward = backward;
    unit.delta = node->delta().compare_us() +
                 (backward ? backward->delta().compare_us() : 0);
    const std::string where =
        node->path().empty() ? "the top level" : node->name();
    std::string text = base::StrCat(
        "Only ", where, node->path().empty() ? "" : " and what is above it",
        " can be compared", backward ? " (forward and backward)" : "",
        ": below it nothing aligns (baseline ",
        NameList(ChildNames(*node, v1::DIFF_STATUS_REMOVED), kNamesShown),
        "; experimental ",
        NameList(ChildNames(*node, v1::DIFF_STATUS_ADDED), kNamesShown), ")");
    if (!node->path().empty()) {
      const bool changed =
          NodeChanged(*node, c.threshold()) ||
          (backward != nullptr && NodeChanged(*backward, c.threshold()));
      base::StrAppend(
          &text, "; ", node->name(), " ", UnitDeltas(c, unit),
          changed ? c.ShareClause(unit.delta) : ", not significant");
    }
    v1::Finding f =
        c.Make(v1::FINDING_KIND_STRUCTURE, text + ".", unit.delta, true);
    *f.add_evidence() = ModuleEvidence(*node, c.threshold());
    if (backward != nullptr)
      *f.add_evidence() = ModuleEvidence(*backward, c.threshold());
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<v1::Finding> WhereFinding(const FindingContext& c,
                                        const ModuleWalk& walk) {
  if (walk.descended &&
      walk.where.node->kind() == v1::MODULE_NODE_KIND_UNKNOWN) {
    return UnknownWhere(c, walk);
  }
  if (walk.descended) return WhereDescended(c, walk);
  if (walk.spread.empty()) return std::nullopt;
  // No one module holds most of the change: the largest parts, a module with
  // its backward.
  std::vector<std::string> items;
  double delta = 0;
  FindingEvidenceList evidence;
  for (size_t i = 0; i < walk.spread.size(); ++i) {
    const ModuleUnit& unit = walk.spread[i];
    if (i < static_cast<size_t>(kNamesShown)) {
      items.push_back(base::StrCat(DisplayName(*unit.node), " ",
                                   SignedDuration(unit.delta)));
      delta += unit.delta;
      *evidence.Add() = ModuleEvidence(*unit.node, c.threshold());
      if (unit.backward != nullptr)
        *evidence.Add() = ModuleEvidence(*unit.backward, c.threshold());
    } else {
      items.push_back(DisplayName(*unit.node));
    }
  }
  return c.Make(v1::FINDING_KIND_MODULE,
                base::StrCat("No one module holds most of the change; it is "
                             "spread over ",
                             NameList(items, kNamesShown), c.per_step(),
                             " (a module with its backward)."),
                delta, true, std::move(evidence));
}

}  // namespace profdiff::differ
