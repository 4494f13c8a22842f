// What telling a job's processes to capture did: the same answer from the
// Kineto daemon's processes and from the CUPTI injection libraries, merged
// into the agent's CaptureAnswer.
#ifndef PROFDIFF_AGENT_CAPTURE_ARMING_H_
#define PROFDIFF_AGENT_CAPTURE_ARMING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace profdiff::agent {

struct CaptureArming {
  std::vector<int32_t> armed;  // pids told to capture
  std::vector<int32_t> busy;   // pids already capturing: left alone
  // Processes that could not act on the order, each with why ("pid 7: ...").
  std::vector<std::string> errors;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CAPTURE_ARMING_H_
