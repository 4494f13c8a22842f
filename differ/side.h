// One side of a diff: a run reduced over its workers (v1::RunDigest,
// analysis/run_digest.h) and how its reduced rows become the run values and
// per-step samples the diff compares (docs/semantics.md §8).
//
// Design:
// 1. A row's run value is the mean over the side's workers of each worker's
//    per-step mean (default) or total (--normalize total): the reduced sum
//    divided by the workers; a worker without the row counts 0.
// 2. Its samples are every worker's slots pooled (one per kept step, one
//    holding the totals for a worker without kept steps): the reduced
//    moments, padded with zeros for the slots of the workers without the row.
#ifndef PROFDIFF_DIFFER_SIDE_H_
#define PROFDIFF_DIFFER_SIDE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/repeated_ptr_field.h>

#include "analysis/module_node_tables.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"

namespace profdiff::differ {

class Side {
 public:
  // `digest` must outlive the side; `label` names it in messages
  // ("baseline", "experimental"). `node_tables`, when the digest was made
  // without its module nodes' operator and kernel rows, reduces them when
  // asked (it must outlive the side).
  Side(const v1::RunDigest& digest, v1::Normalization normalize,
       std::string label,
       const analysis::ModuleNodeTables* node_tables = nullptr);

  const v1::RunDigest& digest() const { return *digest_; }
  const std::string& label() const { return label_; }
  size_t workers() const { return static_cast<size_t>(digest_->ranks_size()); }
  bool per_step() const { return per_step_; }

  // The run value of a reduced metric (design note 1).
  double Value(const v1::ReducedMetric& metric) const;
  // Its samples over the side's slots (design note 2).
  v1::Moments Samples(const v1::ReducedMetric& metric) const;
  // The same of metric `m` of a row's metrics; a row the side lacks (nullptr)
  // is 0 in every slot.
  double Value(
      const google::protobuf::RepeatedPtrField<v1::ReducedMetric>* metrics,
      int m) const;
  v1::Moments Samples(
      const google::protobuf::RepeatedPtrField<v1::ReducedMetric>* metrics,
      int m) const;
  // The mean over the side's workers of a sum over them.
  double Mean(double sum) const;
  // `node` (of this side's module tree) with its operator and kernel rows.
  const v1::DigestModuleNode& WithTables(
      const v1::DigestModuleNode& node) const;

 private:
  const v1::RunDigest* digest_;
  std::string label_;
  const analysis::ModuleNodeTables* node_tables_;
  bool per_step_;
};

// (b - a) / a in percent; 0 when a is 0.
double DeltaPct(double a, double b);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SIDE_H_
