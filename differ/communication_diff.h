// The communication diff (DiffReport.communication): each side's collectives
// matched across its ranks (analysis/run_communication.h) and reduced
// (analysis/digest_communication.h), compared per collective x process group x
// message size, per collective x process group with every size pooled, and per
// rank.
//
// Values follow the other tables (docs/semantics.md §8): a rank's
// per-step mean (or its total with --normalize total), averaged over the
// side's ranks; per-step samples, one per kept step of each rank, give the
// noise. Calls and bytes are judged by --min-change alone, times also by
// --min-change-us.
#ifndef PROFDIFF_DIFFER_COMMUNICATION_DIFF_H_
#define PROFDIFF_DIFFER_COMMUNICATION_DIFF_H_

#include <string>

#include "differ/noise.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

v1::CommunicationDiff DiffCommunication(
    const v1::DigestCommunication& baseline,
    const v1::DigestCommunication& experimental,
    const ChangeThreshold& threshold, bool per_step);

// The straggler is the rank the others wait for: the one that arrives last at
// the collectives, consistently (analysis/run_communication.h). Not the rank
// with the slowest compute (RankSteps.slowest_compute), a separate measure.
// "straggler: rank 1, last to arrive in 92% of all_reduces (46 of 50)",
// "no straggler: most often last to arrive rank 0, in 55% of collectives (11
// of 20)", "no rank was last alone in any of 8 instances" (ties), or "no
// collective ran on two ranks".
std::string StragglerVerdictText(const v1::StragglerVerdict& verdict);

// "in 92% of all_reduces (46 of 50)": how often the verdict's rank was last.
std::string LastArrivalShare(const v1::StragglerVerdict& verdict);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_COMMUNICATION_DIFF_H_
