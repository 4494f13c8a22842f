// A run reduced over its workers for the differ
// (protos/profdiff/v1/digest.proto): the overview's sums, the per-rank rows,
// operator, kernel and memory tables, the merged module tree and the matched
// collectives, each row a sum over the workers and mergeable moments of their
// per-step samples. The CLI reduces the profiles it read; the aggregator
// reduces the profiles it stores, one at a time, and serves the digest
// (RunStore.GetRunDigest), so a diff of two runs of a thousand ranks moves no
// profile. Both run this code, so both give the differ the same numbers.
//
// Design:
// 1. Workers come one at a time in ascending rank order (sums and merges then
//    happen in one order wherever the digest is made), and only what a worker
//    adds is kept: the builder's memory grows with the rows of the run, and
//    with its ranks only through the per-rank rows and collective calls.
// 2. Collectives are matched over every rank of the run (an instance is the
//    k-th call of a collective in a group in a step on every rank), whichever
//    ranks are reduced: every worker's calls are kept until Finish.
#ifndef PROFDIFF_ANALYSIS_RUN_DIGEST_H_
#define PROFDIFF_ANALYSIS_RUN_DIGEST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Positions of the step metrics in DigestOverview.step_metrics.
enum DigestStepMetric {
  kStepTime,
  kStepKernel,
  kStepMemcpy,
  kStepMemset,
  kStepCommunication,
  kStepRuntime,
  kStepDataLoader,
  kStepCpuExec,
  kStepOther,
  kStepMetrics
};

// The value of step metric `metric` in `step`.
double StepMetricOf(const v1::StepStats& step, DigestStepMetric metric);

struct DigestOptions {
  // False leaves out the module nodes' operator and kernel rows, most of a
  // digest's size, for a diff that reads few of them: ModuleNodeTables
  // (analysis/module_node_tables.h) reduces a node's when asked. A digest that
  // is stored or served keeps them.
  bool node_tables = true;
};

class RunDigestBuilder {
 public:
  // Reduces the workers whose rank is in `ranks` (every worker when empty).
  RunDigestBuilder(std::string run, std::vector<int32_t> ranks,
                   DigestOptions options = {});
  ~RunDigestBuilder();
  RunDigestBuilder(const RunDigestBuilder&) = delete;
  RunDigestBuilder& operator=(const RunDigestBuilder&) = delete;

  // Adds a worker of the run. InvalidArgument when its rank is below the last
  // one added (design note 1).
  absl::Status Add(const v1::WorkerProfile& worker);
  // What reading the run passed over (RunProfile.warnings).
  void AddRunWarning(std::string warning);
  // The digest. FailedPrecondition naming the rank and its workers when a
  // rank was added twice (not one run: analysis/one_run.h), whichever ranks
  // are reduced; InvalidArgument naming the ranks asked for and those the run
  // has when none was selected. Call once, after the last Add (the builder's
  // row indexes view the rows it hands out).
  absl::StatusOr<v1::RunDigest> Finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// `run`'s workers in the order a digest takes them: by rank, in run order
// within a rank.
std::vector<const v1::WorkerProfile*> WorkersByRank(const v1::RunProfile& run);

// The digest of `run`'s workers whose rank is in `ranks` (all when empty),
// workers taken by rank; errors as RunDigestBuilder::Finish.
absl::StatusOr<v1::RunDigest> DigestOfRun(const v1::RunProfile& run,
                                          const std::vector<int32_t>& ranks,
                                          DigestOptions options = {});

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_RUN_DIGEST_H_
