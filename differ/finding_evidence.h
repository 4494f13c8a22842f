// How findings judge rows and what they cite (differ/findings.h): whether an
// overview row, operator or kernel row changed, and the FindingEvidence copy
// of a row (its identity, where the UI links, and the values read).
#ifndef PROFDIFF_DIFFER_FINDING_EVIDENCE_H_
#define PROFDIFF_DIFFER_FINDING_EVIDENCE_H_

#include <string>

#include "differ/noise.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// nullptr when the overview has no such row.
const v1::OverviewRow* RowOf(const v1::Overview* overview,
                             v1::OverviewMetric metric);

// Significant by its interval, or with one step a side past the thresholds;
// never when a side lacks the value.
bool RowChanged(const v1::OverviewRow& row, const ChangeThreshold& threshold);

// An operator row's compared column (device where it has device time).
double Total(const v1::OperatorDiff& row, const v1::OperatorValues& v);
// The delta of the self time in that unit.
double SelfDelta(const v1::OperatorDiff& row);

// Increased and decreased rows passed the noise and thresholds already; added
// and deleted ones count when their time is large enough to matter.
bool Changed(const v1::OperatorDiff& row, const ChangeThreshold& threshold);
bool Changed(const v1::KernelDiff& row, const ChangeThreshold& threshold);

v1::FindingEvidence OverviewEvidence(const v1::OverviewRow& row,
                                     const ChangeThreshold& threshold);
v1::FindingEvidence ModuleEvidence(const v1::ModuleDiffNode& node,
                                   const ChangeThreshold& threshold);
// `scope`: the index path of the node whose table holds the row ("" = step).
v1::FindingEvidence OperatorEvidence(const v1::OperatorDiff& row,
                                     const std::string& scope,
                                     const ChangeThreshold& threshold);
v1::FindingEvidence KernelEvidence(const v1::KernelDiff& row,
                                   const std::string& scope,
                                   const ChangeThreshold& threshold);
v1::FindingEvidence RankEvidence(const v1::RankSteps& rank);
// A collective row (its time), and a rank's wait in the communication diff.
v1::FindingEvidence CollectiveEvidence(const v1::CollectiveDiff& row);
v1::FindingEvidence RankWaitEvidence(const v1::RankCommunicationDiff& rank);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDING_EVIDENCE_H_
