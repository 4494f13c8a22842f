#include "differ/findings/what_changed_inside.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "base/number_format.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/display_text.h"
#include "differ/finding_evidence.h"
#include "differ/findings/name_lists.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// Rows of one name (and input shapes, or launching operator) gathered over
// the scopes of a module (the node and its backward node).
struct NamedChange {
  std::string name;
  std::string detail;
  double delta = 0;  // self time for operators, total for kernels
  double baseline_calls = 0;
  double experimental_calls = 0;
  v1::Change change = v1::CHANGE_UNSPECIFIED;
  bool on_device = false;  // a device-time delta
  std::vector<v1::FindingEvidence> evidence;
};

// "aten::mm [32, 64] -8.8 ms", "Kernel2<cutlass_80_simt_sgemm...> (under
// aten::mm) -2.9 ms (deleted)"; `unit` after the delta when items differ in
// units (" self device", " self").
std::string ChangeItem(const NamedChange& c, bool self, std::string_view unit) {
  // Operators keep their namespace ("aten::mm"); kernels are shortened.
  std::string out =
      self ? base::StrCat(c.name, c.detail.empty() ? "" : " ", c.detail)
           : base::StrCat(ShortName(c.name),
                          c.detail.empty()
                              ? ""
                              : base::StrCat(" (under ", c.detail, ")"));
  base::StrAppend(&out, " ", SignedDuration(c.delta), unit);
  if (c.change == v1::CHANGE_ADDED || c.change == v1::CHANGE_DELETED) {
    base::StrAppend(&out, " (", DisplayText(c.change), ")");
  } else if (std::abs(c.experimental_calls - c.baseline_calls) >=
             kMinCallsDelta) {
    base::StrAppend(&out, " (", base::CountText(c.baseline_calls), " -> ",
                    base::CountText(c.experimental_calls), " calls)");
  }
  return out;
}

NamedChange& Gather(std::vector<NamedChange>& changes, const std::string& name,
                    const std::string& detail) {
  for (NamedChange& c : changes) {
    if (c.name == name && c.detail == detail) return c;
  }
  NamedChange& c = changes.emplace_back();
  c.name = name;
  c.detail = detail;
  return c;
}

std::optional<v1::Finding> Largest(const FindingContext& c,
                                   std::vector<NamedChange>& changes,
                                   v1::FindingKind kind,
                                   const std::string& label, bool self) {
  if (changes.empty()) return std::nullopt;
  std::stable_sort(changes.begin(), changes.end(),
                   [](const NamedChange& x, const NamedChange& y) {
                     return std::abs(x.delta) > std::abs(y.delta);
                   });
  size_t shown = 0;
  bool device = false, host = false;  // the items' units
  for (; shown < changes.size() && shown < kNamesShown; ++shown) {
    // Rows far smaller than the largest would only lengthen the sentence.
    if (shown > 0 && std::abs(changes[shown].delta) <
                         kMinItemShare * std::abs(changes[0].delta))
      break;
    (changes[shown].on_device ? device : host) = true;
  }
  // The unit, said once when the items share it (issue 43: a device-time
  // delta must not read as the step's wall time).
  std::string heading_unit;
  if (!self) {
    heading_unit = " (device time)";
  } else if (device != host) {
    heading_unit = device ? " (self device time)" : " (self time)";
  }
  std::vector<std::string> items;
  double delta = 0;
  FindingEvidenceList evidence;
  for (size_t i = 0; i < shown; ++i) {
    const std::string_view unit = !heading_unit.empty()  ? ""
                                  : changes[i].on_device ? " self device"
                                                         : " self";
    items.push_back(ChangeItem(changes[i], self, unit));
    delta += changes[i].delta;
    for (v1::FindingEvidence& e : changes[i].evidence)
      *evidence.Add() = std::move(e);
  }
  const char* what =
      kind == v1::FINDING_KIND_OPERATOR ? "operators" : "kernels";
  return c.Make(
      kind,
      base::StrCat(label, ", the ", what, " that changed most", c.per_step(),
                   heading_unit, ": ", NameList(items, kNamesShown), "."),
      delta, true, std::move(evidence));
}

}  // namespace

absl::StatusOr<std::vector<v1::Finding>> WhatChangedInsideFindings(
    const FindingContext& c, const ModuleWalk& walk,
    const PairedKernels& paired) {
  const FindingInputs& in = c.in();
  std::vector<std::string> scopes;
  std::string label = "Across the step";
  const double sign = walk.where.delta;
  if (walk.descended) {
    scopes.push_back(walk.where.node->index_path());
    if (walk.where.backward != nullptr)
      scopes.push_back(walk.where.backward->index_path());
    label = "Inside " + walk.where.node->name();
  } else {
    scopes.push_back("");
  }
  std::vector<NamedChange> operators, kernels;
  for (const std::string& scope : scopes) {
    ScopedTables scoped;
    const std::vector<v1::OperatorDiff>* ops = in.operators;
    const std::vector<v1::KernelDiff>* kers = in.kernels;
    if (!scope.empty()) {
      if (!in.inside) break;
      PD_ASSIGN_OR_RETURN(scoped, in.inside(scope));
      ops = &scoped.operators;
      kers = &scoped.kernels;
    }
    if (ops != nullptr) {
      for (const v1::OperatorDiff& row : *ops) {
        const double d = SelfDelta(row);
        if (!Changed(row, c.threshold()) || d == 0 ||
            (sign != 0 && !SameSign(d, sign)))
          continue;
        NamedChange& n = Gather(operators, row.name(), row.input_shapes());
        n.on_device = row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
        n.delta += d;
        n.baseline_calls += row.baseline().calls();
        n.experimental_calls += row.experimental().calls();
        n.change = row.change();
        n.evidence.push_back(OperatorEvidence(row, scope, c.threshold()));
      }
    }
    if (kers != nullptr) {
      for (const v1::KernelDiff& row : *kers) {
        const double d = row.delta().total_us();
        if (!Changed(row, c.threshold()) || d == 0 ||
            (sign != 0 && !SameSign(d, sign)) ||
            paired.contains({row.name(), row.op_name()}))
          continue;
        NamedChange& n = Gather(kernels, row.name(), row.op_name());
        n.on_device = true;
        n.delta += d;
        n.baseline_calls += row.baseline().calls();
        n.experimental_calls += row.experimental().calls();
        n.change = row.change();
        n.evidence.push_back(KernelEvidence(row, scope, c.threshold()));
      }
    }
  }
  std::vector<v1::Finding> out;
  if (std::optional<v1::Finding> f =
          Largest(c, operators, v1::FINDING_KIND_OPERATOR, label, true))
    out.push_back(std::move(*f));
  if (std::optional<v1::Finding> f =
          Largest(c, kernels, v1::FINDING_KIND_KERNEL, label, false))
    out.push_back(std::move(*f));
  return out;
}

}  // namespace profdiff::differ
