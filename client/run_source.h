// Where a run comes from on the command line: "A path argument (an existing
// file or folder) is read offline; anything else is a run id on the server."
#ifndef PROFDIFF_CLIENT_RUN_SOURCE_H_
#define PROFDIFF_CLIENT_RUN_SOURCE_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "analysis/worker_profile.h"
#include "client/server_connection.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {

// True when `arg` names a run on the server rather than a trace path: no such
// file or folder exists, and it can be a run id (base/id_rules.h; not a trace
// file name).
bool IsRunIdArgument(const std::string& arg);

// Reads the trace files when every argument names an existing file or folder,
// or when a missing one cannot be a run id (has a '/', or a trace file name:
// NotFound from the reader). Otherwise the single argument is a run id fetched
// from `server` (RunStore.GetProfile). InvalidArgument for several arguments
// that are not all paths.
absl::StatusOr<v1::RunProfile> LoadRunFromPathsOrServer(
    const std::vector<std::string>& args, const ServerConnection& server,
    const analysis::ProfileOptions& options);

// What to say when `names` (arguments read as run ids) could not be fetched
// from `server` with `status`: a missing path comes first, since a mistyped
// file name is likelier than a run id. "transformer-fp33: no such file or
// folder, and no run of that name (no server: set PROFDIFF_SERVER or
// --server)" when no server was named and none answers; the server's NotFound
// or its connection error otherwise. OK statuses pass through.
absl::Status MissingPathOrRun(const std::vector<std::string>& names,
                              const ServerConnection& server,
                              const absl::Status& status);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_RUN_SOURCE_H_
