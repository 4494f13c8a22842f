#include "differ/finding_evidence.h"

#include "base/str_cat.h"
#include "differ/display_text.h"
#include "differ/module_walk.h"

namespace profdiff::differ {

const v1::OverviewRow* RowOf(const v1::Overview* overview,
                             v1::OverviewMetric metric) {
  if (overview == nullptr) return nullptr;
  for (const v1::OverviewRow& row : overview->rows()) {
    if (row.metric() == metric) return &row;
  }
  return nullptr;
}

bool RowChanged(const v1::OverviewRow& row, const ChangeThreshold& threshold) {
  if (row.baseline_missing() || row.experimental_missing()) return false;
  if (row.noise().has_interval()) return row.noise().significant();
  return row.delta() != 0 &&
         LargeEnough(row.delta(), row.baseline(), threshold);
}

namespace {

bool OnDevice(const v1::OperatorDiff& row) {
  return row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
}

// Added and deleted rows are changes only when large enough to matter;
// increased and decreased rows already passed the noise and thresholds.
bool Changed(v1::Change change, double delta,
             const ChangeThreshold& threshold) {
  switch (change) {
    case v1::CHANGE_INCREASED:
    case v1::CHANGE_DECREASED:
      return true;
    case v1::CHANGE_ADDED:
    case v1::CHANGE_DELETED:
      return delta != 0 && LargeEnough(delta, 0, threshold);
    default:
      return false;
  }
}

}  // namespace

double Total(const v1::OperatorDiff& row, const v1::OperatorValues& v) {
  return OnDevice(row) ? v.device_total_us() : v.host_total_us();
}
double SelfDelta(const v1::OperatorDiff& row) {
  return OnDevice(row) ? row.delta().device_self_us()
                       : row.delta().host_self_us();
}

bool Changed(const v1::OperatorDiff& row, const ChangeThreshold& threshold) {
  return Changed(row.change(),
                 Total(row, row.experimental()) - Total(row, row.baseline()),
                 threshold);
}
bool Changed(const v1::KernelDiff& row, const ChangeThreshold& threshold) {
  return Changed(row.change(), row.delta().total_us(), threshold);
}

v1::FindingEvidence OverviewEvidence(const v1::OverviewRow& row,
                                     const ChangeThreshold& threshold) {
  v1::FindingEvidence e;
  e.set_table(v1::EVIDENCE_TABLE_OVERVIEW);
  e.set_name(DisplayText(row.metric()));
  e.set_unit(row.unit());
  e.set_baseline(row.baseline());
  e.set_experimental(row.experimental());
  e.set_delta(row.delta());
  e.set_significant(RowChanged(row, threshold));
  return e;
}

namespace {

// A row's identity and its two sides, in microseconds and calls.
v1::FindingEvidence RowEvidence(v1::EvidenceTable table,
                                const std::string& name,
                                const std::string& index_path, double baseline,
                                double experimental, double baseline_calls,
                                double experimental_calls, bool significant) {
  v1::FindingEvidence e;
  e.set_table(table);
  e.set_name(name);
  e.set_index_path(index_path);
  e.set_unit(v1::VALUE_UNIT_US);
  e.set_baseline(baseline);
  e.set_experimental(experimental);
  e.set_delta(experimental - baseline);
  e.set_baseline_calls(baseline_calls);
  e.set_experimental_calls(experimental_calls);
  e.set_significant(significant);
  return e;
}

}  // namespace

v1::FindingEvidence ModuleEvidence(const v1::ModuleDiffNode& node,
                                   const ChangeThreshold& threshold) {
  v1::FindingEvidence e =
      RowEvidence(v1::EVIDENCE_TABLE_MODULES, node.name(), node.index_path(),
                  node.baseline().compare_us(),
                  node.experimental().compare_us(), node.baseline().calls(),
                  node.experimental().calls(), NodeChanged(node, threshold));
  e.set_delta(node.delta().compare_us());  // the differ's, residue cleaned
  e.set_path(node.path());
  e.set_status(node.status());
  return e;
}

v1::FindingEvidence OperatorEvidence(const v1::OperatorDiff& row,
                                     const std::string& scope,
                                     const ChangeThreshold& threshold) {
  v1::FindingEvidence e =
      RowEvidence(v1::EVIDENCE_TABLE_OPERATORS, row.name(), scope,
                  Total(row, row.baseline()), Total(row, row.experimental()),
                  row.baseline().calls(), row.experimental().calls(),
                  Changed(row, threshold));
  e.set_input_shapes(row.input_shapes());
  e.set_change(row.change());
  return e;
}

v1::FindingEvidence KernelEvidence(const v1::KernelDiff& row,
                                   const std::string& scope,
                                   const ChangeThreshold& threshold) {
  v1::FindingEvidence e = RowEvidence(
      v1::EVIDENCE_TABLE_KERNELS, row.name(), scope, row.baseline().total_us(),
      row.experimental().total_us(), row.baseline().calls(),
      row.experimental().calls(), Changed(row, threshold));
  e.set_delta(row.delta().total_us());
  e.set_change(row.change());
  return e;
}

v1::FindingEvidence RankEvidence(const v1::RankSteps& rank) {
  v1::FindingEvidence e;
  e.set_table(v1::EVIDENCE_TABLE_RANKS);
  e.set_name(base::StrCat(DisplayText(rank.side()), " rank ", rank.rank()));
  e.set_unit(v1::VALUE_UNIT_US);
  (rank.side() == v1::RUN_SIDE_BASELINE
       ? e.set_baseline(rank.compute_us())
       : e.set_experimental(rank.compute_us()));
  e.set_significant(rank.slowest_compute());
  return e;
}

v1::FindingEvidence CollectiveEvidence(const v1::CollectiveDiff& row) {
  v1::FindingEvidence e;
  e.set_table(v1::EVIDENCE_TABLE_COMMUNICATION);
  e.set_name(row.collective());
  e.set_path(row.process_group());
  e.set_unit(v1::VALUE_UNIT_US);
  e.set_baseline(row.baseline().time_us());
  e.set_experimental(row.experimental().time_us());
  e.set_delta(row.delta().time_us());
  e.set_baseline_calls(row.baseline().calls());
  e.set_experimental_calls(row.experimental().calls());
  e.set_significant(row.time_noise().significant() ||
                    row.calls_noise().significant());
  e.set_change(row.change());
  return e;
}

v1::FindingEvidence RankWaitEvidence(const v1::RankCommunicationDiff& rank) {
  v1::FindingEvidence e;
  e.set_table(v1::EVIDENCE_TABLE_COMMUNICATION);
  e.set_name(base::StrCat("rank ", rank.rank()));
  e.set_unit(v1::VALUE_UNIT_US);
  e.set_baseline(rank.baseline().wait_us());
  e.set_experimental(rank.experimental().wait_us());
  e.set_delta(rank.delta().wait_us());
  e.set_significant(rank.wait_noise().significant());
  return e;
}

}  // namespace profdiff::differ
