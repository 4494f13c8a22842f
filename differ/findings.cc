#include "differ/findings.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string_view>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_format.h>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/communication_diff.h"
#include "differ/display_text.h"
#include "differ/finding_evidence.h"
#include "differ/findings/bottleneck.h"
#include "differ/findings/finding_context.h"
#include "differ/findings/material_kernels.h"
#include "differ/findings/replacements.h"
#include "differ/findings/uniform_change.h"
#include "differ/findings/unknown_time.h"
#include "differ/module_alignment.h"
#include "differ/module_comparability.h"
#include "differ/module_walk.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// The autograd engine's wrapper around a backward node: the same work as the
// node it wraps, so it is left out of name lists.
constexpr std::string_view kEvaluateFunction =
    "autograd::engine::evaluate_function: ";
// Names per list in a sentence; the evidence and the tables hold the rest.
constexpr int kNamesShown = 3;
// Call counts that moved by less than this per step (or this share) are not a
// change of what ran.
constexpr double kMinCallsDelta = 0.5;
constexpr double kMinCallsShare = 0.10;
// With two ranks "the others' median" is one rank, and a shared machine makes
// one of two ranks 5% slower by chance: the slowest compute is named from three
// ranks.
constexpr size_t kMinRanksForSlowestCompute = 3;
// An operator or kernel is listed after the largest only when its change is
// at least this share of the largest's.
constexpr double kMinItemShare = 0.10;

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

std::string Calls(double calls) { return absl::StrFormat("%g", calls); }

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
    base::StrAppend(&out, " (", Calls(c.baseline_calls), " -> ",
                    Calls(c.experimental_calls), " calls)");
  }
  return out;
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

class FindingBuilder {
 public:
  explicit FindingBuilder(const FindingInputs& in)
      : in_(in),
        context_(in),
        per_step_(context_.per_step()),
        step_(context_.step()),
        step_delta_(context_.step_delta()),
        step_changed_(context_.step_changed()) {}

  absl::StatusOr<std::vector<v1::Finding>> Build() {
    // What bounds the step, and a change of the machine rather than the
    // code, come right after the headline: they say how to read the rest.
    std::vector<v1::Finding> first = BottleneckFindings(context_);
    std::optional<v1::Finding> uniform = UniformChangeFinding(context_);
    std::vector<v1::Finding> structure, timing, rest;
    if (in_.modules != nullptr) {
      Comparability(structure);
      walk_ = WalkModules(*in_.modules, in_.threshold);
      // A uniform change is no module's: none is blamed.
      if (std::optional<v1::Finding> where = Where();
          where.has_value() && !uniform.has_value()) {
        (where->kind() == v1::FINDING_KIND_STRUCTURE ? structure : timing)
            .push_back(std::move(*where));
      }
    }
    if (uniform.has_value()) first.push_back(*std::move(uniform));
    if (std::optional<v1::Finding> ops = OperatorsThatRan())
      structure.push_back(std::move(*ops));
    PairedKernels paired;
    PD_ASSIGN_OR_RETURN(std::optional<v1::Finding> replaced,
                        ReplacementFinding(context_, paired));
    if (replaced.has_value()) structure.push_back(*std::move(replaced));
    if (first.empty() || first.back().kind() != v1::FINDING_KIND_UNIFORM) {
      PD_RETURN_IF_ERROR(WhatChangedInside(timing, paired));
    }
    for (v1::Finding& f :
         MaterialKernelFindings(context_, paired, structure, timing)) {
      timing.push_back(std::move(f));
    }
    // A rank the others wait for explains their wait: it goes first among
    // the rest, so the cap does not cut it.
    bool last_arrival_named[2] = {false, false};
    std::vector<v1::Finding> arrivals;
    LastArrival(arrivals, last_arrival_named);
    Categories(rest);
    Collectives(rest);
    Memory(rest);
    SlowestCompute(rest, last_arrival_named);
    rest.insert(rest.begin(), std::make_move_iterator(arrivals.begin()),
                std::make_move_iterator(arrivals.end()));

    std::vector<v1::Finding> out;
    const bool anything = !first.empty() || !structure.empty() ||
                          !timing.empty() || !rest.empty();
    if (std::optional<v1::Finding> headline = Headline(anything))
      out.push_back(std::move(*headline));
    for (auto* group : {&first, &structure, &timing, &rest}) {
      for (v1::Finding& f : *group) {
        if (static_cast<int>(out.size()) < kMaxFindings)
          out.push_back(std::move(f));
      }
    }
    return out;
  }

 private:
  using Evidence = google::protobuf::RepeatedPtrField<v1::FindingEvidence>;

  v1::Finding Make(v1::FindingKind kind, std::string text, double delta_us,
                   bool significant, Evidence evidence = {}) const {
    return context_.Make(kind, std::move(text), delta_us, significant,
                         std::move(evidence));
  }

  std::string ShareClause(double delta_us) const {
    return context_.ShareClause(delta_us);
  }

  // The unit a module's delta is in, when it is not the step's wall time.
  static std::string UnitOf(const v1::ModuleDiffNode& node) {
    return node.compared() == v1::MODULE_COMPARED_DEVICE_US ? " of device time"
                                                            : "";
  }

  std::string UnitDeltas(const ModuleUnit& unit) const {
    if (unit.backward == nullptr)
      return base::StrCat(SignedDuration(unit.delta), UnitOf(*unit.node),
                          per_step_);
    return base::StrCat(
        SignedDuration(unit.delta), UnitOf(*unit.node), per_step_, " (forward ",
        SignedDuration(unit.node->delta().compare_us()), ", backward ",
        SignedDuration(unit.backward->delta().compare_us()), ")");
  }

  // Why a device-time delta moved against the step, for a device-compared
  // node ("" otherwise).
  std::string Against(const v1::ModuleDiffNode& node, double delta) const {
    return node.compared() == v1::MODULE_COMPARED_DEVICE_US
               ? context_.AgainstTheStep(delta)
               : "";
  }

  std::optional<v1::Finding> Headline(bool anything) const {
    if (step_ == nullptr || step_->baseline_missing() ||
        step_->experimental_missing())
      return std::nullopt;
    const v1::OverviewRow& row = *step_;
    const v1::Noise& noise = row.noise();
    const bool changed = RowChanged(row, in_.threshold);
    const std::string values = base::StrCat(
        Duration(row.baseline()), " -> ", Duration(row.experimental()),
        per_step_, " (", SignedDuration(row.delta()), ", ",
        ChangePercent(row.baseline(), row.experimental()), ")");
    const std::string interval =
        noise.has_interval()
            ? base::StrCat("95% CI of the delta ",
                           SignedDuration(noise.ci_low()), " to ",
                           SignedDuration(noise.ci_high()))
            : "";
    v1::Finding f;
    if (changed) {
      f = Make(v1::FINDING_KIND_STEP_TIME,
               base::StrCat("Step time ", values, ", significant (",
                            noise.has_interval()
                                ? interval
                                : "one step on a side: by the thresholds alone",
                            ")."),
               row.delta(), true);
    } else if (anything) {
      f = Make(v1::FINDING_KIND_STEP_TIME,
               base::StrCat("Step time ", values, ": not significant",
                            noise.has_interval() ? " (" + interval + ")" : "",
                            "; what did change follows."),
               row.delta(), false);
    } else {
      std::string why;
      if (noise.has_interval()) {
        const bool excludes_zero = noise.ci_low() > 0 || noise.ci_high() < 0;
        why = base::StrCat(
            "; the 95% CI of the delta, ", SignedDuration(noise.ci_low()),
            " to ", SignedDuration(noise.ci_high()),
            excludes_zero
                ? ", excludes 0 but the delta is under the thresholds ("
                : ", includes 0 (thresholds: ",
            absl::StrFormat("%g", in_.threshold.min_pct), "% and ",
            Duration(in_.threshold.min_abs), "); per-step spread ",
            Duration(noise.baseline_stddev()), " baseline, ",
            Duration(noise.experimental_stddev()), " experimental");
      } else {
        why =
            base::StrCat("; one step on a side, so the thresholds alone (",
                         absl::StrFormat("%g", in_.threshold.min_pct), "% and ",
                         Duration(in_.threshold.min_abs), ") judge");
      }
      f = Make(
          v1::FINDING_KIND_NOISE,
          base::StrCat("No significant change: step time ", values, why, "."),
          row.delta(), false);
    }
    *f.add_evidence() = OverviewEvidence(row, in_.threshold);
    return f;
  }

  // Trees that stop aligning: only what is above can be compared.
  void Comparability(std::vector<v1::Finding>& out) const {
    const BackwardIndex index(*in_.modules);
    const std::vector<const v1::ModuleDiffNode*> nodes =
        IncomparableNodes(*in_.modules);
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
            NodeChanged(*node, in_.threshold) ||
            (backward != nullptr && NodeChanged(*backward, in_.threshold));
        base::StrAppend(
            &text, "; ", node->name(), " ", UnitDeltas(unit),
            changed ? ShareClause(unit.delta) : ", not significant");
      }
      v1::Finding f =
          Make(v1::FINDING_KIND_STRUCTURE, text + ".", unit.delta, true);
      *f.add_evidence() = ModuleEvidence(*node, in_.threshold);
      if (backward != nullptr)
        *f.add_evidence() = ModuleEvidence(*backward, in_.threshold);
      out.push_back(std::move(f));
    }
  }

  std::optional<v1::Finding> Where() const {
    if (walk_.descended &&
        walk_.where.node->kind() == v1::MODULE_NODE_KIND_UNKNOWN) {
      return UnknownWhere();
    }
    if (walk_.descended) {
      const ModuleUnit& unit = walk_.where;
      const v1::ModuleDiffNode& node = *unit.node;
      std::string text = node.name();
      const size_t slash = node.path().rfind('/');
      if (slash != std::string::npos) {
        const std::string_view path = node.path();
        const std::string_view parent = path.substr(0, slash);
        base::StrAppend(
            &text, " (in ",
            parent.substr(parent.rfind('/') == std::string_view::npos
                              ? 0
                              : parent.rfind('/') + 1),
            ")");
      }
      bool structural = false;
      if (node.status() == v1::DIFF_STATUS_ADDED ||
          node.status() == v1::DIFF_STATUS_REMOVED) {
        structural = true;
        base::StrAppend(&text, ", which ran only in the ",
                        node.status() == v1::DIFF_STATUS_ADDED ? "experimental"
                                                               : "baseline",
                        " run,");
      }
      base::StrAppend(&text, " changed by ", UnitDeltas(unit),
                      ShareClause(unit.delta), Against(node, unit.delta));
      const std::vector<std::string> added =
          ChildNames(node, v1::DIFF_STATUS_ADDED);
      const std::vector<std::string> removed =
          ChildNames(node, v1::DIFF_STATUS_REMOVED);
      if (node.status() == v1::DIFF_STATUS_MATCHED &&
          (!added.empty() || !removed.empty())) {
        structural = true;
        const size_t matched = ChildNames(node, v1::DIFF_STATUS_MATCHED).size();
        base::StrAppend(&text, "; its sub-modules went from ",
                        matched + removed.size(), " to ",
                        matched + added.size());
        if (!added.empty())
          base::StrAppend(&text, ", ", CountByClass(added), " added");
        if (!removed.empty())
          base::StrAppend(&text, ", ", CountByClass(removed), " removed");
      }
      if (!structural && !walk_.spread.empty()) {
        std::vector<std::string> items;
        for (const ModuleUnit& child : walk_.spread) {
          items.push_back(base::StrCat(DisplayName(*child.node), " ",
                                       SignedDuration(child.delta)));
        }
        base::StrAppend(&text, "; spread over its sub-modules ",
                        NameList(items, kNamesShown));
      }
      v1::Finding f = Make(
          structural ? v1::FINDING_KIND_STRUCTURE : v1::FINDING_KIND_MODULE,
          text + ".", unit.delta, unit.changed);
      *f.add_evidence() = ModuleEvidence(node, in_.threshold);
      if (unit.backward != nullptr)
        *f.add_evidence() = ModuleEvidence(*unit.backward, in_.threshold);
      return f;
    }
    if (walk_.spread.empty()) return std::nullopt;
    std::vector<std::string> items;
    double delta = 0;
    Evidence evidence;
    for (size_t i = 0; i < walk_.spread.size(); ++i) {
      const ModuleUnit& unit = walk_.spread[i];
      if (i < static_cast<size_t>(kNamesShown)) {
        items.push_back(base::StrCat(DisplayName(*unit.node), " ",
                                     SignedDuration(unit.delta)));
        delta += unit.delta;
        *evidence.Add() = ModuleEvidence(*unit.node, in_.threshold);
        if (unit.backward != nullptr)
          *evidence.Add() = ModuleEvidence(*unit.backward, in_.threshold);
      } else {
        items.push_back(DisplayName(*unit.node));
      }
    }
    v1::Finding made =
        Make(v1::FINDING_KIND_MODULE,
             base::StrCat(
                 "No one module holds most of the change; it is spread over ",
                 NameList(items, kNamesShown), per_step_,
                 " (a module with its backward)."),
             delta, true, std::move(evidence));
    return made;
  }

  // "(unknown)" is not a name a reader can act on: the time outside every
  // sub-module of the parent.
  static std::string DisplayName(const v1::ModuleDiffNode& node) {
    return node.kind() == v1::MODULE_NODE_KIND_UNKNOWN
               ? "the time outside its sub-modules"
               : node.name();
  }

  // The walk stopped at an (unknown) block: what it holds, never the block
  // alone.
  std::optional<v1::Finding> UnknownWhere() const {
    const ModuleUnit& unit = walk_.where;
    const v1::ModuleDiffNode& node = *unit.node;
    std::string text =
        base::StrCat(Duration(std::abs(unit.delta)), UnitOf(node), per_step_,
                     " ", unit.delta > 0 ? "more" : "less",
                     " outside every module", ShareClause(unit.delta));
    std::string holds = WhatUnknownHolds(context_, *in_.modules, node);
    base::StrAppend(&text, holds.empty() ? "" : ": ", holds, ".");
    v1::Finding f = Make(v1::FINDING_KIND_MODULE, std::move(text), unit.delta,
                         unit.changed);
    *f.add_evidence() = ModuleEvidence(node, in_.threshold);
    return f;
  }

  // Operators that ran on one side only, and call counts that moved while
  // the module tree did not (when modules were added, their operators'
  // counts follow and the module finding says why).
  std::optional<v1::Finding> OperatorsThatRan() const {
    if (in_.operators == nullptr) return std::nullopt;
    std::vector<const v1::OperatorDiff*> added, deleted, calls;
    const bool modules_same =
        in_.modules == nullptr || !AnyModuleAddedOrRemoved(*in_.modules);
    for (const v1::OperatorDiff& row : *in_.operators) {
      // What ran is a fact, not a timing: an operator that ran on one side
      // in at least half of the steps is named however short it was.
      if (row.change() == v1::CHANGE_ADDED &&
          row.experimental().calls() >= kMinCallsDelta)
        added.push_back(&row);
      if (row.change() == v1::CHANGE_DELETED &&
          row.baseline().calls() >= kMinCallsDelta)
        deleted.push_back(&row);
      if (!Changed(row, in_.threshold)) continue;
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
    Evidence evidence;
    double delta = 0;
    auto names = [&](const std::vector<const v1::OperatorDiff*>& rows) {
      std::vector<std::string> out;
      for (const v1::OperatorDiff* row : rows) {
        delta += SelfDelta(*row);
        std::string_view name = row->name();
        if (name.starts_with(kEvaluateFunction)) continue;
        if (static_cast<int>(out.size()) < kNamesShown)
          *evidence.Add() = OperatorEvidence(*row, "", in_.threshold);
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
          *evidence.Add() = OperatorEvidence(*row, "", in_.threshold);
        }
        items.push_back(
            base::StrCat(Named(row->name(), row->input_shapes(), told), " ",
                         Calls(row->baseline().calls()), " -> ",
                         Calls(row->experimental().calls())));
      }
      parts.push_back(base::StrCat("calls", per_step_, " of ",
                                   NameList(items, kNamesShown)));
    }
    std::string text = "Operators that ran changed: ";
    for (size_t i = 0; i < parts.size(); ++i)
      base::StrAppend(&text, i == 0 ? "" : "; ", parts[i]);
    v1::Finding made = Make(v1::FINDING_KIND_STRUCTURE, text + ".", delta, true,
                            std::move(evidence));
    return made;
  }

  // The operators and kernels that changed most inside the walk's module (the
  // whole step when the walk stayed at the root).
  absl::Status WhatChangedInside(std::vector<v1::Finding>& out,
                                 const PairedKernels& paired) const {
    std::vector<std::string> scopes;
    std::string label = "Across the step";
    const double sign = walk_.where.delta;
    if (walk_.descended) {
      scopes.push_back(walk_.where.node->index_path());
      if (walk_.where.backward != nullptr)
        scopes.push_back(walk_.where.backward->index_path());
      label = "Inside " + walk_.where.node->name();
    } else {
      scopes.push_back("");
    }
    std::vector<NamedChange> operators, kernels;
    for (const std::string& scope : scopes) {
      ScopedTables scoped;
      const std::vector<v1::OperatorDiff>* ops = in_.operators;
      const std::vector<v1::KernelDiff>* kers = in_.kernels;
      if (!scope.empty()) {
        if (!in_.inside) break;
        PD_ASSIGN_OR_RETURN(scoped, in_.inside(scope));
        ops = &scoped.operators;
        kers = &scoped.kernels;
      }
      if (ops != nullptr) {
        for (const v1::OperatorDiff& row : *ops) {
          const double d = SelfDelta(row);
          if (!Changed(row, in_.threshold) || d == 0 ||
              (sign != 0 && !SameSign(d, sign)))
            continue;
          NamedChange& c = Gather(operators, row.name(), row.input_shapes());
          c.on_device = row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
          c.delta += d;
          c.baseline_calls += row.baseline().calls();
          c.experimental_calls += row.experimental().calls();
          c.change = row.change();
          c.evidence.push_back(OperatorEvidence(row, scope, in_.threshold));
        }
      }
      if (kers != nullptr) {
        for (const v1::KernelDiff& row : *kers) {
          const double d = row.delta().total_us();
          if (!Changed(row, in_.threshold) || d == 0 ||
              (sign != 0 && !SameSign(d, sign)) ||
              paired.contains({row.name(), row.op_name()}))
            continue;
          NamedChange& c = Gather(kernels, row.name(), row.op_name());
          c.on_device = true;
          c.delta += d;
          c.baseline_calls += row.baseline().calls();
          c.experimental_calls += row.experimental().calls();
          c.change = row.change();
          c.evidence.push_back(KernelEvidence(row, scope, in_.threshold));
        }
      }
    }
    if (std::optional<v1::Finding> f =
            Largest(operators, v1::FINDING_KIND_OPERATOR, label, true))
      out.push_back(std::move(*f));
    if (std::optional<v1::Finding> f =
            Largest(kernels, v1::FINDING_KIND_KERNEL, label, false))
      out.push_back(std::move(*f));
    return absl::OkStatus();
  }

  static NamedChange& Gather(std::vector<NamedChange>& changes,
                             const std::string& name,
                             const std::string& detail) {
    for (NamedChange& c : changes) {
      if (c.name == name && c.detail == detail) return c;
    }
    NamedChange& c = changes.emplace_back();
    c.name = name;
    c.detail = detail;
    return c;
  }

  std::optional<v1::Finding> Largest(std::vector<NamedChange>& changes,
                                     v1::FindingKind kind,
                                     const std::string& label,
                                     bool self) const {
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
    Evidence evidence;
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
    v1::Finding made = Make(
        kind,
        base::StrCat(label, ", the ", what, " that changed most", per_step_,
                     heading_unit, ": ", NameList(items, kNamesShown), "."),
        delta, true, std::move(evidence));
    return made;
  }

  // A category as a reader of a GPU run understands it: the plugin's names
  // are the step's wall time by who is busy, so "CPU Exec" is host time while
  // the GPU is idle, not "the CPU did more work".
  std::string CategoryName(v1::OverviewMetric metric) const {
    const std::string& name = DisplayText(metric);
    if (!context_.on_device()) return name;
    switch (metric) {
      case v1::OVERVIEW_METRIC_CPU_EXEC:
        return base::StrCat(name, " (host time while the GPU is idle)");
      case v1::OVERVIEW_METRIC_RUNTIME:
        return base::StrCat(name,
                            " (CUDA runtime calls while the GPU is idle)");
      case v1::OVERVIEW_METRIC_OTHER:
        return base::StrCat(name,
                            " (neither the GPU nor a host operator busy)");
      default:
        return name;
    }
  }

  void Categories(std::vector<v1::Finding>& out) const {
    if (in_.overview == nullptr) return;
    std::vector<const v1::OverviewRow*> rows;
    double largest = std::abs(step_delta_);
    for (const v1::OverviewRow& row : in_.overview->rows()) {
      if (row.metric() < v1::OVERVIEW_METRIC_KERNEL ||
          row.metric() > v1::OVERVIEW_METRIC_OTHER ||
          !RowChanged(row, in_.threshold))
        continue;
      rows.push_back(&row);
      largest = std::max(largest, std::abs(row.delta()));
    }
    // Without a step-time change, shares of it mean nothing: a category is
    // named when it is 10% of the largest change, with its own percentage.
    std::erase_if(rows, [&](const v1::OverviewRow* row) {
      return std::abs(row->delta()) <
             kCategoryShare * (step_changed_ ? std::abs(step_delta_) : largest);
    });
    std::stable_sort(rows.begin(), rows.end(),
                     [](const v1::OverviewRow* x, const v1::OverviewRow* y) {
                       return std::abs(x->delta()) > std::abs(y->delta());
                     });
    std::vector<std::string> items;
    double delta = 0;
    Evidence evidence;
    for (const v1::OverviewRow* row : rows) {
      // Communication is a finding of its own: it is what DDP comparisons
      // are mostly about.
      if (row->metric() == v1::OVERVIEW_METRIC_COMMUNICATION) {
        v1::Finding c = Make(
            v1::FINDING_KIND_COMMUNICATION,
            base::StrCat("Communication ", Duration(row->baseline()), " -> ",
                         Duration(row->experimental()), per_step_, " (",
                         SignedDuration(row->delta()), ", ",
                         ChangePercent(row->baseline(), row->experimental()),
                         ")", ShareClause(row->delta()), "."),
            row->delta(), true);
        *c.add_evidence() = OverviewEvidence(*row, in_.threshold);
        out.push_back(std::move(c));
        continue;
      }
      std::string share = ChangePercent(row->baseline(), row->experimental());
      if (step_changed_) {
        share = SameSign(row->delta(), step_delta_)
                    ? Share(row->delta() / step_delta_)
                    : "against it";
      }
      items.push_back(base::StrCat(CategoryName(row->metric()), " ",
                                   SignedDuration(row->delta()), per_step_,
                                   " (", share, ")"));
      delta += row->delta();
      *evidence.Add() = OverviewEvidence(*row, in_.threshold);
    }
    if (items.empty()) return;
    v1::Finding made =
        Make(v1::FINDING_KIND_CATEGORY,
             base::StrCat(step_changed_
                              ? "By category (share of the step-time change): "
                              : "By category (change of each): ",
                          NameList(items, 8), "."),
             delta, true, std::move(evidence));
    // Before a communication finding: the categories say where time went.
    out.insert(out.begin(), std::move(made));
  }

  // "; on cuda:0 the experimental peak is in aten::addmm (Linear_0, step 2),
  // and aten::mm allocates 2.5 MiB -> 10.0 MiB per step (+300%), the largest
  // change": from the memory diff, on the device whose peak moved most; the
  // side with the higher peak; the operator row with the largest significant
  // allocation change of the peak's sign. "" without [memory] events.
  std::string MemoryPlaces(double peak_delta) const {
    if (in_.memory == nullptr) return "";
    const v1::DeviceMemoryDiff* device = nullptr;
    for (const v1::DeviceMemoryDiff& d : in_.memory->devices()) {
      const double delta =
          d.experimental_peak_bytes() - d.baseline_peak_bytes();
      if (SameSign(delta, peak_delta) &&
          (device == nullptr ||
           std::abs(delta) > std::abs(device->experimental_peak_bytes() -
                                      device->baseline_peak_bytes())))
        device = &d;
    }
    if (device == nullptr) return "";
    const bool grew = peak_delta > 0;
    const v1::MemoryPeakPlace& place =
        grew ? device->experimental_peak() : device->baseline_peak();
    std::string out;
    if (!place.operator_name().empty()) {
      const std::string_view path = place.module_path();
      const std::string_view module = path.substr(path.rfind('/') + 1);
      // The trace's step id, N of ProfilerStep#N, as the steps view prints it
      // (issue 44); a digest kept from before it knows only the kept step.
      const std::string step =
          place.has_step() ? base::StrCat("step ", place.step())
          : place.step_index() >= 0
              ? base::StrCat("kept step ", place.step_index() + 1)
              : "";
      const std::string_view comma = module.empty() || step.empty() ? "" : ", ";
      out = base::StrCat("; on ", device->device(), " the ",
                         grew ? "experimental" : "baseline", " peak is in ",
                         place.operator_name());
      if (!module.empty() || !step.empty())
        base::StrAppend(&out, " (", module, comma, step, ")");
    }
    for (const v1::MemoryRowDiff& r : in_.memory->operators()) {
      if (r.device() != device->device() ||
          !r.allocation_noise().significant() ||
          !SameSign(r.delta().allocation_bytes(), peak_delta))
        continue;
      const double x = r.baseline().allocation_bytes();
      const double y = r.experimental().allocation_bytes();
      base::StrAppend(&out, out.empty() ? "; " : ", and ", r.name(),
                      " allocates ", Bytes(x), " -> ", Bytes(y), per_step_,
                      " (", ChangePercent(x, y), "), the largest change");
      break;
    }
    return out;
  }

  void Memory(std::vector<v1::Finding>& out) const {
    const v1::OverviewRow* row =
        RowOf(in_.overview, v1::OVERVIEW_METRIC_PEAK_MEMORY);
    if (row == nullptr || row->baseline_missing() ||
        row->experimental_missing() || row->baseline() <= 0 ||
        std::abs(row->delta()) < kMemoryShare * row->baseline())
      return;
    v1::Finding f =
        Make(v1::FINDING_KIND_MEMORY,
             base::StrCat("Peak memory ", Bytes(row->baseline()), " -> ",
                          Bytes(row->experimental()), " (",
                          ChangePercent(row->baseline(), row->experimental()),
                          ")", MemoryPlaces(row->delta()), "."),
             0, true);
    f.clear_share_of_step_change();
    f.set_delta_bytes(row->delta());
    *f.add_evidence() = OverviewEvidence(*row, in_.threshold);
    out.push_back(std::move(f));
  }

  // A side's bytes per call, or "size not recorded" (not 0 B).
  static std::string SizeText(const v1::CollectiveDiff& row, int side) {
    if (side == 0 ? row.baseline_size_missing()
                  : row.experimental_size_missing())
      return "size not recorded";
    return Bytes(side == 0 ? row.baseline().bytes_per_call()
                           : row.experimental().bytes_per_call());
  }

  // The collective (every message size pooled) whose calls, bytes, time or
  // wait changed significantly, the largest time change first.
  void Collectives(std::vector<v1::Finding>& out) const {
    if (in_.communication == nullptr) return;
    const v1::CollectiveDiff* best = nullptr;
    for (const v1::CollectiveDiff& row : in_.communication->by_collective()) {
      const bool moved =
          row.change() == v1::CHANGE_ADDED ||
          row.change() == v1::CHANGE_DELETED ||
          row.calls_noise().significant() || row.bytes_noise().significant() ||
          row.bytes_per_call_noise().significant() ||
          row.time_noise().significant() || row.wait_noise().significant();
      if (moved && (best == nullptr || std::abs(row.delta().time_us()) >
                                           std::abs(best->delta().time_us())))
        best = &row;
    }
    if (best == nullptr) return;
    const v1::CollectiveValues& x = best->baseline();
    const v1::CollectiveValues& y = best->experimental();
    std::string text = base::StrCat(
        best->collective(),
        best->process_group().empty()
            ? ""
            : base::StrCat(" (process group ", best->process_group(), ")"),
        ": ", Calls(x.calls()), " -> ", Calls(y.calls()), " calls", per_step_,
        " (", ChangePercent(x.calls(), y.calls()), "), ",
        best->baseline_size_missing() || best->experimental_size_missing()
            ? base::StrCat(SizeText(*best, 0), " -> ", SizeText(*best, 1))
            : base::StrCat(Bytes(x.bytes_per_call()), " -> ",
                           Bytes(y.bytes_per_call())),
        " per call; time ", Duration(x.time_us()), " -> ",
        Duration(y.time_us()), " (transfer ", Duration(x.transfer_us()), " -> ",
        Duration(y.transfer_us()), ", wait ", Duration(x.wait_us()), " -> ",
        Duration(y.wait_us()), ")");
    if (x.busbw_gbps() > 0 && y.busbw_gbps() > 0) {
      text += base::StrCat(", bus bandwidth ", Bandwidth(x.busbw_gbps()),
                           " -> ", Bandwidth(y.busbw_gbps()));
    }
    text += ".";
    v1::Finding f = Make(v1::FINDING_KIND_COMMUNICATION, std::move(text),
                         best->delta().time_us(), true);
    *f.add_evidence() = CollectiveEvidence(*best);
    out.push_back(std::move(f));
  }

  // The other ranks' mean wait per step, both sides, and their wait rows.
  struct OthersWait {
    double wait[2] = {0, 0};
    int ranks = 0;
    bool all_significant = true;
    std::vector<v1::FindingEvidence> evidence;
  };
  static OthersWait OthersWaitFor(const v1::CommunicationDiff& c,
                                  int32_t rank) {
    OthersWait o;
    for (const v1::RankCommunicationDiff& r : c.ranks()) {
      if (r.rank() == rank) continue;
      o.wait[0] += r.baseline().wait_us();
      o.wait[1] += r.experimental().wait_us();
      o.all_significant = o.all_significant && r.wait_noise().significant();
      ++o.ranks;
      o.evidence.push_back(RankWaitEvidence(r));
    }
    if (o.ranks > 0) {
      o.wait[0] /= o.ranks;
      o.wait[1] /= o.ranks;
    }
    return o;
  }

  v1::Finding LastArrivalFinding(std::string text, OthersWait others) const {
    if (others.ranks > 0) {
      text += base::StrCat("; the other ranks wait ", Duration(others.wait[0]),
                           " -> ", Duration(others.wait[1]), per_step_, " (",
                           ChangePercent(others.wait[0], others.wait[1]), ")");
    }
    text += ".";
    v1::Finding f = Make(v1::FINDING_KIND_STRAGGLER, std::move(text),
                         others.wait[1] - others.wait[0], true);
    f.clear_share_of_step_change();
    for (v1::FindingEvidence& e : others.evidence)
      *f.add_evidence() = std::move(e);
    return f;
  }

  // The rank that arrives last at the collectives on one side only (or at
  // another rank): the others wait for it. The same rank on both sides is
  // named when the others' wait for it changed: every other rank's wait
  // significantly, and their mean by --min-change (a straggler that got
  // worse, or a machine that made one of its own in the baseline too).
  void LastArrival(std::vector<v1::Finding>& out, bool named[2]) const {
    if (in_.communication == nullptr) return;
    const v1::CommunicationDiff& c = *in_.communication;
    const v1::StragglerVerdict* verdict[2] = {&c.baseline_straggler(),
                                              &c.experimental_straggler()};
    if (verdict[0]->found() && verdict[1]->found() &&
        verdict[0]->rank() == verdict[1]->rank()) {
      OthersWait others = OthersWaitFor(c, verdict[1]->rank());
      const double delta = others.wait[1] - others.wait[0];
      if (others.ranks == 0 || !others.all_significant ||
          std::abs(delta) < in_.threshold.min_pct / 100 * others.wait[0])
        return;
      out.push_back(LastArrivalFinding(
          base::StrCat("Rank ", verdict[1]->rank(),
                       " is the straggler in both runs, last to arrive at the "
                       "collectives (baseline ",
                       LastArrivalShare(*verdict[0]), "; experimental ",
                       LastArrivalShare(*verdict[1]), ")"),
          std::move(others)));
      named[0] = named[1] = true;
      return;
    }
    for (int side : {1, 0}) {
      const v1::StragglerVerdict& s = *verdict[side];
      const v1::StragglerVerdict& o = *verdict[1 - side];
      if (!s.found() || (o.found() && o.rank() == s.rank())) continue;
      out.push_back(LastArrivalFinding(
          base::StrCat(side == 1 ? "Rank " : "Baseline rank ", s.rank(),
                       side == 1 ? " is the straggler in the experimental "
                                   "run: last to arrive at the collectives "
                                 : " was the straggler and no longer is: "
                                   "last to arrive at the collectives ",
                       LastArrivalShare(s)),
          OthersWaitFor(c, s.rank())));
      named[side] = true;
    }
  }

  // The slowest compute that one side marks and the other does not at that
  // rank, unless the collectives already named a straggler on that side.
  void SlowestCompute(std::vector<v1::Finding>& out,
                      const bool last_arrival_named[2]) const {
    if (in_.ranks == nullptr) return;
    const v1::RankSteps* slowest[2] = {nullptr, nullptr};
    std::vector<double> others[2];
    for (const v1::RankSteps& r : *in_.ranks) {
      const int side = r.side() == "baseline" ? 0 : 1;
      if (r.slowest_compute()) {
        slowest[side] = &r;
      } else {
        others[side].push_back(r.compute_us());
      }
    }
    for (int side : {1, 0}) {
      const v1::RankSteps* s = slowest[side];
      const v1::RankSteps* o = slowest[1 - side];
      if (s == nullptr || (o != nullptr && o->rank() == s->rank()) ||
          last_arrival_named[side])
        continue;
      std::vector<double>& v = others[side];
      std::sort(v.begin(), v.end());
      const size_t n = v.size();
      if (n + 1 < kMinRanksForSlowestCompute) continue;
      const double median =
          n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
      std::string text = base::StrCat(
          side == 1 ? "Rank " : "Baseline rank ", s->rank(),
          side == 1 ? " has the slowest compute in the experimental run: "
                    : " had the slowest compute and no longer does: ",
          Duration(s->compute_us()), " of compute", per_step_,
          " against a median of ", Duration(median), " on the other ranks (",
          ChangePercent(median, s->compute_us()), ").");
      v1::Finding f = Make(v1::FINDING_KIND_SLOWEST_COMPUTE, std::move(text),
                           s->compute_us() - median, true);
      f.clear_share_of_step_change();
      *f.add_evidence() = RankEvidence(*s);
      out.push_back(std::move(f));
    }
  }

  const FindingInputs& in_;
  const FindingContext context_;
  const std::string per_step_;
  const v1::OverviewRow* step_ = nullptr;
  const double step_delta_ = 0;
  const bool step_changed_ = false;  // significantly
  ModuleWalk walk_;
};

}  // namespace

absl::StatusOr<std::vector<v1::Finding>> FindFindings(const FindingInputs& in) {
  return FindingBuilder(in).Build();
}

}  // namespace profdiff::differ
