#include "analysis/digest_module_tree.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/digest_tables.h"
#include "analysis/worker_series.h"

namespace profdiff::analysis {
namespace {

bool ModuleLike(v1::ModuleNodeKind kind) {
  return kind == v1::MODULE_NODE_KIND_ROOT ||
         kind == v1::MODULE_NODE_KIND_MODULE ||
         kind == v1::MODULE_NODE_KIND_BACKWARD;
}

// A worker's node: its totals and per-slot values (the root's total is the sum
// of its step samples: its time is its steps' time).
WorkerSeries SeriesOf(const v1::ModuleNode& node, int kept_steps, bool root) {
  WorkerSeries series(kModuleMetrics, kept_steps);
  double total[kModuleMetrics] = {};
  for (const v1::ModuleStepSample& s : node.step_samples()) {
    const double values[kModuleMetrics] = {
        static_cast<double>(s.calls()), s.host_us(), s.device_us(),
        s.backward_host_us(), s.backward_device_us()};
    series.AddStep(s.step_index(),
                   {values[0], values[1], values[2], values[3], values[4]});
    for (int m = 0; m < kModuleMetrics; ++m) total[m] += values[m];
  }
  if (root) {
    series.AddTotal({total[0], total[1], total[2], total[3], total[4]});
  } else {
    series.AddTotal({static_cast<double>(node.calls()), node.host_us(),
                     node.device_us(), node.backward_host_us(),
                     node.backward_device_us()});
  }
  return series;
}

// What `whole` holds outside `children` (host and device; calls and backward
// 0), never below 0, residue 0.
WorkerSeries UnknownOf(const WorkerSeries& whole,
                       const WorkerSeries& children) {
  WorkerSeries unknown = whole;
  auto clean = [](double& v, double parent) {
    if (v <= kUnknownResidue * std::abs(parent)) v = 0;
  };
  for (int m = 0; m < kModuleMetrics; ++m) {
    const bool time = m == kModuleHost || m == kModuleDevice;
    unknown.total(m) = time ? whole.total(m) - children.total(m) : 0;
    if (time) clean(unknown.total(m), whole.total(m));
    for (int s = 0; s < whole.slots(); ++s) {
      unknown.slot(s, m) = time ? whole.slot(s, m) - children.slot(s, m) : 0;
      if (time) clean(unknown.slot(s, m), whole.slot(s, m));
    }
  }
  return unknown;
}

}  // namespace

struct ModuleTreeReducer::Node {
  v1::DigestModuleNode digest;  // children are assembled in Finish
  absl::flat_hash_map<std::string, size_t> child_index;
  std::vector<std::unique_ptr<Node>> children;
  RowIndex operators;
  RowIndex kernels;

  WorkerSeries Add(const v1::ModuleNode& node, int kept_steps, bool tables) {
    const bool root = digest.kind() == v1::MODULE_NODE_KIND_ROOT;
    WorkerSeries series = SeriesOf(node, kept_steps, root);
    series.FoldInto(*digest.mutable_metrics());
    if (tables) {
      AddOperatorRows(node.operators(), kept_steps, operators,
                      *digest.mutable_operators());
      AddKernelRows(node.kernels(), kept_steps, kernels,
                    *digest.mutable_kernels());
    }
    // One child per name: the later of two of one name counts, in the place
    // of the first (module_node_tables.cc walks a path the same way).
    absl::flat_hash_map<std::string, const v1::ModuleNode*> last;
    std::vector<const std::string*> order;
    for (const v1::ModuleNode& child : node.children()) {
      auto [it, inserted] = last.try_emplace(child.name(), &child);
      if (inserted) {
        order.push_back(&child.name());
      } else {
        it->second = &child;
      }
    }
    WorkerSeries inside(kModuleMetrics, kept_steps);
    for (const std::string* name : order) {
      const v1::ModuleNode& child = *last[*name];
      auto [it, inserted] = child_index.try_emplace(*name, children.size());
      if (inserted) {
        auto made = std::make_unique<Node>();
        made->digest.set_name(child.name());
        made->digest.set_kind(child.kind());
        children.push_back(std::move(made));
      }
      const WorkerSeries c =
          children[it->second]->Add(child, kept_steps, tables);
      for (int m = kModuleHost; m <= kModuleDevice; ++m) {
        inside.total(m) += c.total(m);
        for (int s = 0; s < c.slots(); ++s) inside.slot(s, m) += c.slot(s, m);
      }
    }
    if (ModuleLike(digest.kind()))
      UnknownOf(series, inside).FoldInto(*digest.mutable_unknown());
    return series;
  }

  v1::DigestModuleNode Assemble() {
    v1::DigestModuleNode out = std::move(digest);
    if (children.empty()) out.clear_unknown();
    for (std::unique_ptr<Node>& child : children)
      *out.add_children() = child->Assemble();
    return out;
  }
};

ModuleTreeReducer::ModuleTreeReducer(bool node_tables)
    : root_(std::make_unique<Node>()), node_tables_(node_tables) {
  root_->digest.set_kind(v1::MODULE_NODE_KIND_ROOT);
}

ModuleTreeReducer::~ModuleTreeReducer() = default;

void ModuleTreeReducer::Add(const v1::ModuleNode& root, int kept_steps) {
  root_->Add(root, kept_steps, node_tables_);
}

v1::DigestModuleNode ModuleTreeReducer::Finish() { return root_->Assemble(); }

}  // namespace profdiff::analysis
