// Hand-built profiles for the findings' tests (differ/findings.h and
// differ/findings/*.h): a run described by its modules, operators, kernels and
// step breakdown, per step, turned into WorkerProfiles whose per-step samples
// spread a little (so both sides have a noise estimate), then diffed.
#ifndef PROFDIFF_TESTS_DIFFER_FINDINGS_FINDING_FIXTURE_H_
#define PROFDIFF_TESTS_DIFFER_FINDINGS_FINDING_FIXTURE_H_

#include <string>
#include <vector>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ::testing {

// Per-step spread: step s of n is scaled by 1 + kJitter * (s - (n-1)/2), so
// both sides have a noise estimate and equal means stay equal.
inline constexpr double kJitter = 0.01;
inline constexpr int kSteps = 4;

double Scale(int step);

struct Op {
  std::string name;
  double self_us = 0;         // per step, host
  double calls = 1;           // per step
  double total_us = -1;       // per step; -1: = self
  double device_self_us = 0;  // per step; the device total is the same
};

// A kernel of the whole step or of a module, per step.
struct Kernel {
  std::string name;
  std::string op;  // launching operator; "" when not grouped by it
  double us = 0;
  double calls = 1;
};

struct Node {
  Node(std::string n, double host, std::vector<Node> c = {},
       std::vector<Op> ops = {})
      : name(std::move(n)),
        host_us(host),
        children(std::move(c)),
        operators(std::move(ops)) {}
  std::string name;
  double host_us = 0;  // per step
  std::vector<Node> children;
  std::vector<Op> operators;
  v1::ModuleNodeKind kind = v1::MODULE_NODE_KIND_MODULE;
  double device_us = 0;         // per step; > 0: compared in device time
  std::vector<Kernel> kernels;  // launched from inside it
};

Node Backward(std::string name, double host_us,
              std::vector<Node> children = {});

struct Rank {
  double step_us = 1000;
  double communication_us = 0;
  std::vector<Node> modules;     // the root's children
  std::vector<Op> operators;     // the whole step's
  double peak_memory_bytes = 0;  // 0: no memory events
  // Where the peak is, and one operator's allocations per step (0: none).
  std::string peak_operator, peak_module;
  double mm_allocation_bytes = 0;
  // All-reduces per step: each one's duration (scaled per step like the rest).
  std::vector<double> all_reduce_us;
  int64_t all_reduce_bytes = 4 << 20;
  // A GPU run when gpu_utilization >= 0 (a fraction); its step breakdown's
  // kernel and DataLoader time; the rest of the step is CPU Exec.
  double gpu_utilization = -1;
  double kernel_us = 0;
  double dataloader_us = 0;
  std::vector<Kernel> kernels;  // the whole step's
};

// A model of two linear layers and their backward nodes: Model_0 with Linear_0
// and Linear_1 (aten::addmm each), Model_0.backward (aten::mm) at
// `backward_scale` times the forward's time, and 100 us outside them.
Rank Model(double linear0, double linear1, double backward_scale = 2);

v1::WorkerProfile Worker(int rank, const Rank& spec);
v1::RunProfile Profile(const std::string& name, const std::vector<Rank>& ranks);
v1::RunProfile Profile(const std::string& name, const Rank& rank);
v1::DiffReport Diff(const v1::RunProfile& a, const v1::RunProfile& b,
                    const v1::DiffOptions& options = {});
// Every finding as "KIND: text" lines, for failure messages.
std::string Texts(const v1::DiffReport& report);
const v1::Finding* FirstOf(const v1::DiffReport& report, v1::FindingKind kind);

}  // namespace profdiff::differ::testing

#endif  // PROFDIFF_TESTS_DIFFER_FINDINGS_FINDING_FIXTURE_H_
