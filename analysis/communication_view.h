// Collective communication (nccl:*, gloo:*, record_param_comms) by collective
// name.
#ifndef PROFDIFF_ANALYSIS_COMMUNICATION_VIEW_H_
#define PROFDIFF_ANALYSIS_COMMUNICATION_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/operator_view.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct CollectiveRow {
  std::string
      name;  // "Collective name" argument when present, else the operator name
  int32_t calls = 0;
  int64_t host_ns = 0;
  int64_t device_ns = 0;  // device total of the collective operators
  int64_t in_elements = 0;
  int64_t out_elements = 0;
};

// Outermost collective operators only (a record_param_comms inside
// nccl:all_reduce counts once).
std::vector<CollectiveRow> ComputeCommunication(const trace::Trace& trace,
                                                const EventLinks& links,
                                                const OperatorTimes& times);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_COMMUNICATION_VIEW_H_
