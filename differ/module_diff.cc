#include "differ/module_diff.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_split.h>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/module_alignment.h"
#include "differ/noise.h"
#include "differ/row_order.h"

namespace profdiff::differ {
namespace {

constexpr char kUnknownName[] = "(unknown)";

// Backward values are a forward module's <module>.backward node's, reported
// beside its own.
enum ModuleMetric {
  kCalls,
  kHost,
  kDevice,
  kBackwardHost,
  kBackwardDevice,
  kModuleMetrics
};
using ModuleSeries = RowSeries<kModuleMetrics>;

// What siblings align on besides their kind: the class name without the
// instance suffix
// ("Linear_3.backward" -> "Linear.backward"), the optimizer call without the
// optimizer class
// ("Optimizer.step#SGD.step" -> "Optimizer.step", so SGD against Adam is one
// changed node).
std::string AlignmentName(v1::ModuleNodeKind kind, std::string_view name) {
  auto without_suffix = [](std::string_view n, std::string_view suffix) {
    if (!n.ends_with(suffix)) return std::string(ClassName(n));
    return base::StrCat(ClassName(n.substr(0, n.size() - suffix.size())),
                        suffix);
  };
  switch (kind) {
    case v1::MODULE_NODE_KIND_MODULE:
      return std::string(ClassName(name));
    case v1::MODULE_NODE_KIND_BACKWARD:
      return without_suffix(name, ".backward");
    case v1::MODULE_NODE_KIND_GRADIENT_SYNC:
      return without_suffix(name, ".gradient_sync");
    case v1::MODULE_NODE_KIND_OPTIMIZER:
      return std::string(name.substr(0, name.find('#')));
    default:
      return std::string(name);
  }
}

// One side's node: the same path in every worker's tree.
struct MergedNode {
  std::string name;
  v1::ModuleNodeKind kind = v1::MODULE_NODE_KIND_UNSPECIFIED;
  std::vector<const v1::ModuleNode*>
      per_worker;  // nullptr where a worker lacks it
  std::vector<std::unique_ptr<MergedNode>> children;  // in first-seen order
  std::optional<ModuleSeries>
      series;  // its values over every worker, computed once
};

void MergeChildren(MergedNode& merged, size_t workers) {
  absl::flat_hash_map<std::string, size_t> by_name;
  for (size_t w = 0; w < workers; ++w) {
    if (merged.per_worker[w] == nullptr) continue;
    for (const v1::ModuleNode& child : merged.per_worker[w]->children()) {
      auto [it, inserted] =
          by_name.try_emplace(child.name(), merged.children.size());
      if (inserted) {
        auto node = std::make_unique<MergedNode>();
        node->name = child.name();
        node->kind = child.kind();
        node->per_worker.assign(workers, nullptr);
        merged.children.push_back(std::move(node));
      }
      merged.children[it->second]->per_worker[w] = &child;
    }
  }
  for (auto& child : merged.children) MergeChildren(*child, workers);
}

ModuleSeries SeriesOf(const Side& side, const MergedNode& node) {
  ModuleSeries series(side);
  const bool root = node.kind == v1::MODULE_NODE_KIND_ROOT;
  for (size_t w = 0; w < node.per_worker.size(); ++w) {
    const v1::ModuleNode* n = node.per_worker[w];
    if (n == nullptr) continue;
    ModuleSeries::Values total = {static_cast<double>(n->calls()), n->host_us(),
                                  n->device_us(), n->backward_host_us(),
                                  n->backward_device_us()};
    if (root)
      total = {};  // the root's time is its steps' time: the sum of its samples
    for (const v1::ModuleStepSample& s : n->step_samples()) {
      const ModuleSeries::Values values = {
          static_cast<double>(s.calls()), s.host_us(), s.device_us(),
          s.backward_host_us(), s.backward_device_us()};
      series.AddStep(side, w, s.step_index(), values);
      if (root) {
        for (size_t m = 0; m < kModuleMetrics; ++m) total[m] += values[m];
      }
    }
    // AddTotal also fills the single slot of a worker without kept steps.
    series.AddTotal(side, w, total);
  }
  return series;
}

void FillSeries(const Side& side, MergedNode& node) {
  node.series.emplace(SeriesOf(side, node));
  for (auto& child : node.children) FillSeries(side, *child);
}

std::unique_ptr<MergedNode> MergeTrees(const Side& side) {
  auto root = std::make_unique<MergedNode>();
  root->kind = v1::MODULE_NODE_KIND_ROOT;
  for (const v1::WorkerProfile* w : side.workers())
    root->per_worker.push_back(&w->modules());
  MergeChildren(*root, side.workers().size());
  FillSeries(side, *root);
  return root;
}

// Differences below this share of the parent's value are floating-point
// residue, not time.
constexpr double kResidue = 1e-9;

// Time inside `parent` that none of its children covers, per worker and per
// slot (never < 0, residue 0).
ModuleSeries UnknownOf(const Side& side, const MergedNode* parent) {
  if (parent == nullptr) return ModuleSeries(side);
  const ModuleSeries& whole = *parent->series;
  ModuleSeries unknown = whole;
  for (const auto& child : parent->children) {
    const ModuleSeries& c = *child->series;
    for (size_t w = 0; w < unknown.totals.size(); ++w) {
      for (size_t m = kHost; m <= kDevice; ++m)
        unknown.totals[w][m] -= c.totals[w][m];
    }
    for (size_t s = 0; s < unknown.slots.size(); ++s) {
      for (size_t m = kHost; m <= kDevice; ++m)
        unknown.slots[s][m] -= c.slots[s][m];
    }
  }
  auto clean = [](ModuleSeries::Values& v,
                  const ModuleSeries::Values& parent_values) {
    v[kCalls] = v[kBackwardHost] = v[kBackwardDevice] = 0;
    for (size_t m = kHost; m <= kDevice; ++m) {
      if (v[m] <= kResidue * std::abs(parent_values[m])) v[m] = 0;
    }
  };
  for (size_t w = 0; w < unknown.totals.size(); ++w)
    clean(unknown.totals[w], whole.totals[w]);
  for (size_t s = 0; s < unknown.slots.size(); ++s)
    clean(unknown.slots[s], whole.slots[s]);
  return unknown;
}

// SEMANTICS.md §7: the time a node is compared by: device time where it
// launched device work (on either side, so that both sides are in one unit),
// host time otherwise; an (unknown) block in its parent's unit.
struct SideValues {
  v1::ModuleValues values;
  std::vector<double> compare_samples;
  bool present = false;
};

SideValues ValuesOf(const Side& side, const ModuleSeries& series,
                    bool use_device) {
  SideValues out;
  out.present = series.present;
  const double device = series.Value(side, kDevice);
  out.values.set_calls(series.Value(side, kCalls));
  out.values.set_host_us(series.Value(side, kHost));
  out.values.set_device_us(device);
  out.values.set_compare_us(use_device ? device : out.values.host_us());
  out.values.set_backward_us(
      series.Value(side, use_device ? kBackwardDevice : kBackwardHost));
  out.compare_samples = series.Samples(use_device ? kDevice : kHost);
  return out;
}

class TreeDiffer {
 public:
  TreeDiffer(const Side& a, const Side& b, const ChangeThreshold& threshold)
      : a_(a),
        b_(b),
        threshold_(threshold),
        absent_{ModuleSeries(a), ModuleSeries(b)} {}

  void Diff(const MergedNode* na, const MergedNode* nb, v1::DiffStatus status,
            const std::string& parent_path, const std::string& index_path,
            v1::ModuleDiffNode& out) {
    nodes_by_index_path_[index_path] = {na, nb};
    const MergedNode* any = nb != nullptr ? nb : na;
    out.set_name(any->kind == v1::MODULE_NODE_KIND_ROOT ? "(root)" : any->name);
    if (na != nullptr) out.set_baseline_name(na->name);
    if (nb != nullptr) out.set_experimental_name(nb->name);
    const std::string path = any->kind == v1::MODULE_NODE_KIND_ROOT ? ""
                             : parent_path.empty()
                                 ? any->name
                                 : parent_path + "/" + any->name;
    out.set_path(path);
    out.set_index_path(index_path);
    out.set_status(status);
    out.set_kind(any->kind);
    const ModuleSeries& sa = na != nullptr ? *na->series : absent_[0];
    const ModuleSeries& sb = nb != nullptr ? *nb->series : absent_[1];
    const bool use_device =
        sa.Value(a_, kDevice) > 0 || sb.Value(b_, kDevice) > 0;
    Fill(sa, sb, use_device, out);

    auto child_index = [&index_path](size_t i) {
      return index_path.empty() ? base::StrCat(i)
                                : base::StrCat(index_path, "/", i);
    };
    size_t next = 0;
    auto add = [&](const MergedNode* ca, const MergedNode* cb,
                   v1::DiffStatus child_status) {
      Diff(ca, cb, child_status, path, child_index(next++),
           *out.add_children());
    };
    if (na != nullptr && nb != nullptr) {
      const std::vector<AlignItem> ka = Keys(a_, *na);
      const std::vector<AlignItem> kb = Keys(b_, *nb);
      for (const AlignedPair& p : AlignChildren(ka, kb)) {
        const MergedNode* ca = p.a >= 0 ? na->children[p.a].get() : nullptr;
        const MergedNode* cb = p.b >= 0 ? nb->children[p.b].get() : nullptr;
        add(ca, cb,
            ca != nullptr && cb != nullptr ? v1::DIFF_STATUS_MATCHED
            : ca != nullptr                ? v1::DIFF_STATUS_REMOVED
                                           : v1::DIFF_STATUS_ADDED);
      }
    } else {
      for (const auto& child : any->children) {
        add(na != nullptr ? child.get() : nullptr,
            nb != nullptr ? child.get() : nullptr, status);
      }
    }
    // Time outside every child module; an operator's own time is already its
    // self time.
    const bool module_like = any->kind == v1::MODULE_NODE_KIND_ROOT ||
                             any->kind == v1::MODULE_NODE_KIND_MODULE ||
                             any->kind == v1::MODULE_NODE_KIND_BACKWARD;
    if (module_like && !any->children.empty()) {
      AddUnknown(na, nb, path, child_index(next), use_device, out);
    }
  }

  const absl::flat_hash_map<std::string,
                            std::pair<const MergedNode*, const MergedNode*>>&
  nodes() const {
    return nodes_by_index_path_;
  }

 private:
  std::vector<AlignItem> Keys(const Side& side,
                              const MergedNode& parent) const {
    std::vector<AlignItem> keys;
    keys.reserve(parent.children.size());
    for (const auto& child : parent.children) {
      keys.push_back({base::StrCat(static_cast<int>(child->kind), ":",
                                   AlignmentName(child->kind, child->name)),
                      ValuesOf(side, *child->series,
                               child->series->Value(side, kDevice) > 0)
                          .values.compare_us()});
    }
    return keys;
  }

  // `use_device`: the parent's unit, which the block is measured in on both
  // sides.
  void AddUnknown(const MergedNode* na, const MergedNode* nb,
                  const std::string& path, const std::string& index_path,
                  bool use_device, v1::ModuleDiffNode& parent) {
    const ModuleSeries ua = UnknownOf(a_, na);
    const ModuleSeries ub = UnknownOf(b_, nb);
    if (ua.Value(a_, kHost) <= 0 && ub.Value(b_, kHost) <= 0) return;
    v1::ModuleDiffNode& out = *parent.add_children();
    out.set_name(kUnknownName);
    out.set_path(path.empty() ? kUnknownName : path + "/" + kUnknownName);
    out.set_index_path(index_path);
    out.set_status(v1::DIFF_STATUS_UNKNOWN);
    out.set_kind(v1::MODULE_NODE_KIND_UNKNOWN);
    Fill(ua, ub, use_device, out);
  }

  void Fill(const ModuleSeries& sa, const ModuleSeries& sb, bool use_device,
            v1::ModuleDiffNode& out) const {
    const SideValues va = ValuesOf(a_, sa, use_device);
    const SideValues vb = ValuesOf(b_, sb, use_device);
    out.set_compared(use_device ? v1::MODULE_COMPARED_DEVICE_US
                                : v1::MODULE_COMPARED_HOST_US);
    *out.mutable_baseline() = va.values;
    *out.mutable_experimental() = vb.values;
    v1::ModuleValues& d = *out.mutable_delta();
    d.set_calls(vb.values.calls() - va.values.calls());
    d.set_host_us(vb.values.host_us() - va.values.host_us());
    d.set_device_us(vb.values.device_us() - va.values.device_us());
    d.set_compare_us(vb.values.compare_us() - va.values.compare_us());
    d.set_backward_us(vb.values.backward_us() - va.values.backward_us());
    out.set_delta_pct(DeltaPct(va.values.compare_us(), vb.values.compare_us()));
    // Added and removed nodes too: their absent side is a zero in every step.
    *out.mutable_noise() =
        CompareSamples(va.compare_samples, vb.compare_samples, threshold_);
  }

  const Side& a_;
  const Side& b_;
  ChangeThreshold threshold_;
  const ModuleSeries absent_[2];  // a side's values where it lacks the node
  absl::flat_hash_map<std::string,
                      std::pair<const MergedNode*, const MergedNode*>>
      nodes_by_index_path_;
};

bool IsIndexPath(const std::string& path) {
  return !path.empty() &&
         path.find_first_not_of("0123456789/") == std::string::npos;
}

// The child of `node` a path segment names: a child index, or a name on either
// side.
const v1::ModuleDiffNode* FindChild(const v1::ModuleDiffNode& node,
                                    std::string_view segment, bool by_index) {
  if (by_index) {
    size_t index = 0;
    for (char c : segment) index = index * 10 + static_cast<size_t>(c - '0');
    return index < static_cast<size_t>(node.children_size())
               ? &node.children(static_cast<int>(index))
               : nullptr;
  }
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (child.name() == segment || child.baseline_name() == segment ||
        child.experimental_name() == segment) {
      return &child;
    }
  }
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (AlignmentName(child.kind(), child.name()) == segment) return &child;
  }
  return nullptr;
}

std::string ChildList(const v1::ModuleDiffNode& node) {
  std::string list;
  int shown = 0;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (shown++ == 20) {
      base::StrAppend(&list, ", ...");
      break;
    }
    base::StrAppend(&list, list.empty() ? "" : ", ", child.index_path(), " ",
                    child.name());
  }
  return list.empty() ? "none" : list;
}

// A side's per-worker tables of a merged node (nullptr for workers that lack
// it, or no node).
void TablesOf(const Side& side, const MergedNode* node,
              OperatorTables& operators, KernelTables& kernels) {
  for (size_t w = 0; w < side.workers().size(); ++w) {
    const v1::ModuleNode* n = node != nullptr ? node->per_worker[w] : nullptr;
    operators.push_back(n != nullptr ? &n->operators() : nullptr);
    kernels.push_back(n != nullptr ? &n->kernels() : nullptr);
  }
}

// options.node_tables: each node below the root gets the diffs of what ran
// inside it, in the default order (the report's page sorts and filters them
// itself).
absl::Status AttachNodeTables(const Side& a, const Side& b,
                              const TreeDiffer& differ,
                              const ChangeThreshold& threshold,
                              v1::ModuleDiffNode& node) {
  auto it = differ.nodes().find(node.index_path());
  if (node.kind() != v1::MODULE_NODE_KIND_ROOT && it != differ.nodes().end()) {
    OperatorTables operators[2];
    KernelTables kernels[2];
    TablesOf(a, it->second.first, operators[0], kernels[0]);
    TablesOf(b, it->second.second, operators[1], kernels[1]);
    const RowControls default_order;
    for (v1::OperatorDiff& row :
         DiffOperators(a, operators[0], b, operators[1], threshold)) {
      *node.add_operators() = std::move(row);
    }
    PD_RETURN_IF_ERROR(OrderRows(default_order, *node.mutable_operators()));
    for (v1::KernelDiff& row :
         DiffKernels(a, kernels[0], b, kernels[1], threshold)) {
      *node.add_kernels() = std::move(row);
    }
    PD_RETURN_IF_ERROR(OrderRows(default_order, *node.mutable_kernels()));
  }
  for (v1::ModuleDiffNode& child : *node.mutable_children()) {
    PD_RETURN_IF_ERROR(AttachNodeTables(a, b, differ, threshold, child));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModuleDiff> DiffModules(const Side& a, const Side& b,
                                       const std::string& path,
                                       const ChangeThreshold& threshold,
                                       bool node_tables) {
  const std::unique_ptr<MergedNode> ta = MergeTrees(a);
  const std::unique_ptr<MergedNode> tb = MergeTrees(b);
  TreeDiffer differ(a, b, threshold);
  ModuleDiff result;
  differ.Diff(ta.get(), tb.get(), v1::DIFF_STATUS_MATCHED, "", "", result.node);
  if (node_tables)
    PD_RETURN_IF_ERROR(AttachNodeTables(a, b, differ, threshold, result.node));
  if (path.empty() || path == "/") return result;

  const bool by_index = IsIndexPath(path);
  const v1::ModuleDiffNode* node = &result.node;
  for (absl::string_view part :
       absl::StrSplit(base::ToAbsl(path), '/', absl::SkipEmpty())) {
    const std::string_view segment(part.data(), part.size());
    const v1::ModuleDiffNode* child = FindChild(*node, segment, by_index);
    if (child == nullptr) {
      return absl::NotFoundError(
          base::StrCat("--path ", path, ": no node \"", segment, "\" under \"",
                       node->path().empty() ? "(root)" : node->path(),
                       "\"; its children: ", ChildList(*node)));
    }
    node = child;
  }
  ModuleDiff scoped;
  scoped.node = *node;
  auto it = differ.nodes().find(node->index_path());
  const MergedNode* sides[2] = {nullptr, nullptr};
  if (it != differ.nodes().end())
    sides[0] = it->second.first, sides[1] = it->second.second;
  TablesOf(a, sides[0], scoped.operators[0], scoped.kernels[0]);
  TablesOf(b, sides[1], scoped.operators[1], scoped.kernels[1]);
  return scoped;
}

}  // namespace profdiff::differ
