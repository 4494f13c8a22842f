// A run's matched collectives (v1::RunCommunication) reduced into digest rows:
// per collective x process group x message size, and pooled over sizes, each
// metric reduced over the ranks' kept steps (a rank without kept steps has one
// slot), so the differ needs no per-rank slots; the per-rank rows stay.
#ifndef PROFDIFF_ANALYSIS_DIGEST_COMMUNICATION_H_
#define PROFDIFF_ANALYSIS_DIGEST_COMMUNICATION_H_

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Metric positions in DigestCollectiveRow.metrics.
enum DigestCollectiveMetric {
  kCollectiveCalls,
  kCollectiveBytes,
  kCollectiveTime,
  kCollectiveTransfer,
  kCollectiveWait,
  kCollectiveMetrics
};

v1::DigestCommunication DigestCommunicationOf(v1::RunCommunication run);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_DIGEST_COMMUNICATION_H_
