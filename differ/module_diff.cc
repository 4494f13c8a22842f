#include "differ/module_diff.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_split.h>

#include "analysis/digest_module_tree.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/module_alignment.h"
#include "differ/noise.h"
#include "differ/row_order.h"

namespace profdiff::differ {
namespace {

constexpr char kUnknownName[] = "(unknown)";

using analysis::kModuleBackwardDevice;
using analysis::kModuleBackwardHost;
using analysis::kModuleCalls;
using analysis::kModuleDevice;
using analysis::kModuleHost;
using Metrics = google::protobuf::RepeatedPtrField<v1::ReducedMetric>;
using Node = v1::DigestModuleNode;

// What siblings align on besides their kind: the class name without the
// instance suffix ("Linear_3.backward" -> "Linear.backward"), the optimizer
// call without the optimizer class ("Optimizer.step#SGD.step" ->
// "Optimizer.step", so SGD against Adam is one changed node).
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

const Metrics* MetricsOf(const Node* node) {
  return node != nullptr ? &node->metrics() : nullptr;
}

// A node's time outside every child (the digest works it out per worker and
// slot); a node without children has all its time outside them, which is its
// host and device time. `scratch` holds that copy.
const Metrics* UnknownOf(const Node* node, Metrics& scratch) {
  if (node == nullptr) return nullptr;
  if (node->unknown_size() > 0) return &node->unknown();
  scratch = node->metrics();
  for (int m : {kModuleCalls, kModuleBackwardHost, kModuleBackwardDevice}) {
    if (m < scratch.size()) scratch[m].Clear();
  }
  return &scratch;
}

// docs/semantics.md §7: the time a node is compared by: device time where it
// launched device work (on either side, so that both sides are in one unit),
// host time otherwise; an (unknown) block in its parent's unit.
struct SideValues {
  v1::ModuleValues values;
  v1::Moments compare_samples;
};

SideValues ValuesOf(const Side& side, const Metrics* metrics, bool use_device) {
  SideValues out;
  const double device = side.Value(metrics, kModuleDevice);
  out.values.set_calls(side.Value(metrics, kModuleCalls));
  out.values.set_host_us(side.Value(metrics, kModuleHost));
  out.values.set_device_us(device);
  out.values.set_compare_us(use_device ? device : out.values.host_us());
  out.values.set_backward_us(side.Value(
      metrics, use_device ? kModuleBackwardDevice : kModuleBackwardHost));
  out.compare_samples =
      side.Samples(metrics, use_device ? kModuleDevice : kModuleHost);
  return out;
}

class TreeDiffer {
 public:
  TreeDiffer(const Side& a, const Side& b, const ChangeThreshold& threshold)
      : a_(a), b_(b), threshold_(threshold) {}

  void Diff(const Node* na, const Node* nb, v1::DiffStatus status,
            const std::string& parent_path, const std::string& index_path,
            v1::ModuleDiffNode& out) {
    nodes_by_index_path_[index_path] = {na, nb};
    const Node* any = nb != nullptr ? nb : na;
    const bool root = any->kind() == v1::MODULE_NODE_KIND_ROOT;
    out.set_name(root ? "(root)" : any->name());
    if (na != nullptr) out.set_baseline_name(na->name());
    if (nb != nullptr) out.set_experimental_name(nb->name());
    const std::string path = root ? ""
                             : parent_path.empty()
                                 ? any->name()
                                 : parent_path + "/" + any->name();
    out.set_path(path);
    out.set_index_path(index_path);
    out.set_status(status);
    out.set_kind(any->kind());
    const Metrics* ma = MetricsOf(na);
    const Metrics* mb = MetricsOf(nb);
    const bool use_device =
        a_.Value(ma, kModuleDevice) > 0 || b_.Value(mb, kModuleDevice) > 0;
    Fill(ma, mb, use_device, out);

    auto child_index = [&index_path](size_t i) {
      return index_path.empty() ? base::StrCat(i)
                                : base::StrCat(index_path, "/", i);
    };
    size_t next = 0;
    auto add = [&](const Node* ca, const Node* cb,
                   v1::DiffStatus child_status) {
      Diff(ca, cb, child_status, path, child_index(next++),
           *out.add_children());
    };
    if (na != nullptr && nb != nullptr) {
      const std::vector<AlignItem> ka = Keys(a_, *na);
      const std::vector<AlignItem> kb = Keys(b_, *nb);
      for (const AlignedPair& p : AlignChildren(ka, kb)) {
        const Node* ca = p.a >= 0 ? &na->children(p.a) : nullptr;
        const Node* cb = p.b >= 0 ? &nb->children(p.b) : nullptr;
        add(ca, cb,
            ca != nullptr && cb != nullptr ? v1::DIFF_STATUS_MATCHED
            : ca != nullptr                ? v1::DIFF_STATUS_REMOVED
                                           : v1::DIFF_STATUS_ADDED);
      }
    } else {
      for (const Node& child : any->children()) {
        add(na != nullptr ? &child : nullptr, nb != nullptr ? &child : nullptr,
            status);
      }
    }
    // Time outside every child module; an operator's own time is already its
    // self time.
    const bool module_like = any->kind() == v1::MODULE_NODE_KIND_ROOT ||
                             any->kind() == v1::MODULE_NODE_KIND_MODULE ||
                             any->kind() == v1::MODULE_NODE_KIND_BACKWARD;
    if (module_like && any->children_size() > 0) {
      AddUnknown(na, nb, path, child_index(next), use_device, out);
    }
  }

  const NodeSides& nodes() const { return nodes_by_index_path_; }
  NodeSides TakeNodes() { return std::move(nodes_by_index_path_); }

 private:
  std::vector<AlignItem> Keys(const Side& side, const Node& parent) const {
    std::vector<AlignItem> keys;
    keys.reserve(static_cast<size_t>(parent.children_size()));
    for (const Node& child : parent.children()) {
      const Metrics* m = &child.metrics();
      keys.push_back({base::StrCat(static_cast<int>(child.kind()), ":",
                                   AlignmentName(child.kind(), child.name())),
                      ValuesOf(side, m, side.Value(m, kModuleDevice) > 0)
                          .values.compare_us()});
    }
    return keys;
  }

  // `use_device`: the parent's unit, which the block is measured in on both
  // sides.
  void AddUnknown(const Node* na, const Node* nb, const std::string& path,
                  const std::string& index_path, bool use_device,
                  v1::ModuleDiffNode& parent) {
    Metrics scratch[2];
    const Metrics* ua = UnknownOf(na, scratch[0]);
    const Metrics* ub = UnknownOf(nb, scratch[1]);
    // Nothing outside the children in either unit: no block. (Children on
    // other threads can hold more host time than the node, its device time
    // still not all theirs.)
    auto empty = [](const Side& side, const Metrics* u) {
      return side.Value(u, kModuleHost) <= 0 &&
             side.Value(u, kModuleDevice) <= 0;
    };
    if (empty(a_, ua) && empty(b_, ub)) return;
    v1::ModuleDiffNode& out = *parent.add_children();
    out.set_name(kUnknownName);
    out.set_path(path.empty() ? kUnknownName : path + "/" + kUnknownName);
    out.set_index_path(index_path);
    out.set_status(v1::DIFF_STATUS_UNKNOWN);
    out.set_kind(v1::MODULE_NODE_KIND_UNKNOWN);
    Fill(ua, ub, use_device, out);
  }

  void Fill(const Metrics* sa, const Metrics* sb, bool use_device,
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
        CompareMoments(va.compare_samples, vb.compare_samples, threshold_);
  }

  const Side& a_;
  const Side& b_;
  ChangeThreshold threshold_;
  NodeSides nodes_by_index_path_;
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

// A side's reduced tables of a node (nullptr for no node).
void TablesOf(const Side& side, const Node* node, OperatorTables& operators,
              KernelTables& kernels) {
  const Node* tables = node != nullptr ? &side.WithTables(*node) : nullptr;
  operators = tables != nullptr ? &tables->operators() : nullptr;
  kernels = tables != nullptr ? &tables->kernels() : nullptr;
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
  TreeDiffer differ(a, b, threshold);
  ModuleDiff result;
  differ.Diff(&a.digest().modules(), &b.digest().modules(),
              v1::DIFF_STATUS_MATCHED, "", "", result.node);
  if (node_tables)
    PD_RETURN_IF_ERROR(AttachNodeTables(a, b, differ, threshold, result.node));
  if (path.empty() || path == "/") {
    result.sides = differ.TakeNodes();
    return result;
  }

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
  const Node* sides[2] = {nullptr, nullptr};
  if (it != differ.nodes().end())
    sides[0] = it->second.first, sides[1] = it->second.second;
  TablesOf(a, sides[0], scoped.operators[0], scoped.kernels[0]);
  TablesOf(b, sides[1], scoped.operators[1], scoped.kernels[1]);
  scoped.sides = differ.TakeNodes();
  return scoped;
}

void TablesInside(const Side& a, const Side& b, const NodeSides& sides,
                  const std::string& index_path, OperatorTables operators[2],
                  KernelTables kernels[2]) {
  auto it = sides.find(index_path);
  TablesOf(a, it != sides.end() ? it->second.first : nullptr, operators[0],
           kernels[0]);
  TablesOf(b, it != sides.end() ? it->second.second : nullptr, operators[1],
           kernels[1]);
}

}  // namespace profdiff::differ
