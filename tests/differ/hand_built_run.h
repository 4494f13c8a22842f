// Hand-built one-worker profiles described by their module tree (the differ's
// module diff and DiffRuns tests): each node the same host and device time in
// every step.
#ifndef PROFDIFF_TESTS_DIFFER_HAND_BUILT_RUN_H_
#define PROFDIFF_TESTS_DIFFER_HAND_BUILT_RUN_H_

#include <string>
#include <utility>
#include <vector>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ::testing {

struct NodeSpec {
  // Not explicit: trees are written as nested braces, {"Linear", 3, 2}.
  // NOLINTNEXTLINE(google-explicit-constructor)
  NodeSpec(std::string n, double host = 0, double device = 0,
           std::vector<NodeSpec> c = {})
      : name(std::move(n)),
        host_per_step(host),
        device_per_step(device),
        children(std::move(c)) {}
  std::string name;
  double host_per_step;
  double device_per_step;
  std::vector<NodeSpec> children;
  v1::ModuleNodeKind kind = v1::MODULE_NODE_KIND_MODULE;
  double backward_host_per_step =
      0;  // a forward module's <module>.backward host time
};

// One worker whose steps each take `step_us` on the host and whose module tree
// is `top`.
v1::RunProfile MakeRun(const std::string& name,
                       const std::vector<NodeSpec>& top, int steps = 3,
                       double step_us = 1000);

// The child of `node` named `name`; a test failure (and `node`) when none is.
const v1::ModuleDiffNode& Child(const v1::ModuleDiffNode& node,
                                const std::string& name);

// `run` reduced over all its workers (analysis/run_digest.h), as the differ's
// sides are; a test failure (and an empty digest) when it cannot be.
v1::RunDigest DigestOf(const v1::RunProfile& run);

}  // namespace profdiff::differ::testing

#endif  // PROFDIFF_TESTS_DIFFER_HAND_BUILT_RUN_H_
