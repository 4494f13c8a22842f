// `profdiff show --view comm`: one run's collectives, their transfer and wait,
// and each rank's collective, exposed and wait time, with the straggler
// verdict. The values are the ones `profdiff diff` takes for that run (the
// differ's communication diff of the run against itself, its baseline side),
// so `show` and `diff` agree to the digit.
#ifndef PROFDIFF_CLIENT_RUN_COMMUNICATION_RENDERER_H_
#define PROFDIFF_CLIENT_RUN_COMMUNICATION_RENDERER_H_

#include <cstddef>
#include <string>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {

// The text tables (per step, mean over ranks), fitting `line_width` columns
// where they can (0: every column), or one line saying the run ran no
// collective.
std::string RenderRunCommunication(const v1::RunProfile& run,
                                   size_t line_width);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_RUN_COMMUNICATION_RENDERER_H_
