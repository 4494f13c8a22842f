#include "differ/findings/operators_that_ran.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/findings/name_lists.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// The autograd engine's wrapper around a backward node: the same work as the
// node it wraps, so it is left out of name lists.
constexpr std::string_view kEvaluateFunction =
    "autograd::engine::evaluate_function: ";

// What an operator is, for the few families whose names do not say it to a
// reader of the sentence.
std::string_view OperatorFamily(std::string_view name) {
  if (name.starts_with(kEvaluateFunction))
    name.remove_prefix(kEvaluateFunction.size());
  if (name == "aten::to" || name == "aten::_to_copy" ||
      name == "ToCopyBackward0" ||
      name == "aten::_autocast_to_reduced_precision" ||
      name == "aten::_autocast_to_full_precision")
    return "dtype conversion";
  return "";
}

// One name of a list, with what it is when its name does not say so (once
// per family and sentence: `told` holds the families already said).
std::string Named(std::string_view name, std::string_view shapes,
                  std::vector<std::string_view>& told) {
  std::string out(name);
  if (!shapes.empty()) base::StrAppend(&out, " ", shapes);
  const std::string_view family = OperatorFamily(name);
  if (!family.empty() &&
      std::find(told.begin(), told.end(), family) == told.end()) {
    base::StrAppend(&out, " (", family, ")");
    told.push_back(family);
  }
  return out;
}

// Backward nodes ("DivBackward0") after forward operators in name lists: the
// forward names are the ones a user wrote.
bool IsBackwardNode(std::string_view name) {
  return name.find("Backward") != std::string_view::npos ||
         name.find("_backward") != std::string_view::npos;
}

bool AnyModuleAddedOrRemoved(const v1::ModuleDiffNode& node) {
  if (node.status() == v1::DIFF_STATUS_ADDED ||
      node.status() == v1::DIFF_STATUS_REMOVED)
    return true;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (AnyModuleAddedOrRemoved(child)) return true;
  }
  return false;
}

}  // namespace

std::optional<v1::Finding> OperatorsThatRanFinding(const FindingContext& c) {
  const FindingInputs& in = c.in();
  if (in.operators == nullptr) return std::nullopt;
  std::vector<const v1::OperatorDiff*> added, deleted, calls;
  const bool modules_same =
      in.modules == nullptr || !AnyModuleAddedOrRemoved(*in.modules);
  for (const v1::OperatorDiff& row : *in.operators) {
    // What ran is a fact, not a timing: an operator that ran on one side
    // in at least half of the steps is named however short it was.
    if (row.change() == v1::CHANGE_ADDED &&
        row.experimental().calls() >= kMinCallsDelta)
      added.push_back(&row);
    if (row.change() == v1::CHANGE_DELETED &&
        row.baseline().calls() >= kMinCallsDelta)
      deleted.push_back(&row);
    if (!Changed(row, c.threshold())) continue;
    const double a = row.baseline().calls(), b = row.experimental().calls();
    if (modules_same &&
        (row.change() == v1::CHANGE_INCREASED ||
         row.change() == v1::CHANGE_DECREASED) &&
        std::abs(b - a) >= kMinCallsDelta &&
        std::abs(b - a) >= kMinCallsShare * a &&
        !std::string_view(row.name()).starts_with(kEvaluateFunction))
      calls.push_back(&row);
  }
  if (added.empty() && deleted.empty() && calls.empty()) return std::nullopt;
  auto by_delta = [](const v1::OperatorDiff* x, const v1::OperatorDiff* y) {
    return std::abs(Total(*x, x->experimental()) - Total(*x, x->baseline())) >
           std::abs(Total(*y, y->experimental()) - Total(*y, y->baseline()));
  };
  // The time of the calls that came or went.
  auto calls_time = [](const v1::OperatorDiff* r) {
    const double a = r->baseline().calls(), b = r->experimental().calls();
    const double mean = b > 0 ? Total(*r, r->experimental()) / b
                              : Total(*r, r->baseline()) / std::max(a, 1.0);
    return std::abs(b - a) * mean;
  };
  auto forward_first = [&](const v1::OperatorDiff* x,
                           const v1::OperatorDiff* y) {
    const bool bx = IsBackwardNode(x->name()), by = IsBackwardNode(y->name());
    return bx != by ? by : by_delta(x, y);
  };
  std::stable_sort(added.begin(), added.end(), forward_first);
  std::stable_sort(deleted.begin(), deleted.end(), forward_first);
  std::vector<std::string_view> told;
  std::stable_sort(calls.begin(), calls.end(),
                   [&](const v1::OperatorDiff* x, const v1::OperatorDiff* y) {
                     return calls_time(x) > calls_time(y);
                   });
  FindingEvidenceList evidence;
  double delta = 0;
  auto names = [&](const std::vector<const v1::OperatorDiff*>& rows) {
    std::vector<std::string> out;
    for (const v1::OperatorDiff* row : rows) {
      delta += SelfDelta(*row);
      std::string_view name = row->name();
      if (name.starts_with(kEvaluateFunction)) continue;
      if (static_cast<int>(out.size()) < kNamesShown)
        *evidence.Add() = OperatorEvidence(*row, "", c.threshold());
      out.push_back(Named(name, row->input_shapes(), told));
    }
    return out;
  };
  const std::vector<std::string> deleted_names = names(deleted);
  const std::vector<std::string> added_names = names(added);
  std::vector<std::string> parts;
  if (!deleted_names.empty() && !added_names.empty()) {
    parts.push_back(base::StrCat(NameList(deleted_names, kNamesShown),
                                 " replaced by ",
                                 NameList(added_names, kNamesShown)));
  } else if (!deleted_names.empty()) {
    parts.push_back(
        base::StrCat(NameList(deleted_names, kNamesShown), " no longer ran"));
  } else if (!added_names.empty()) {
    parts.push_back(
        base::StrCat(NameList(added_names, kNamesShown), " newly ran"));
  }
  if (!calls.empty()) {
    std::vector<std::string> items;
    for (const v1::OperatorDiff* row : calls) {
      if (static_cast<int>(items.size()) < kNamesShown) {
        delta += SelfDelta(*row);
        *evidence.Add() = OperatorEvidence(*row, "", c.threshold());
      }
      items.push_back(
          base::StrCat(Named(row->name(), row->input_shapes(), told), " ",
                       base::CountText(row->baseline().calls()), " -> ",
                       base::CountText(row->experimental().calls())));
    }
    parts.push_back(base::StrCat("calls", c.per_step(), " of ",
                                 NameList(items, kNamesShown)));
  }
  std::string text = "Operators that ran changed: ";
  for (size_t i = 0; i < parts.size(); ++i)
    base::StrAppend(&text, i == 0 ? "" : "; ", parts[i]);
  return c.Make(v1::FINDING_KIND_STRUCTURE, text + ".", delta, true,
                std::move(evidence));
}

}  // namespace profdiff::differ
