#include "client/run_source.h"

#include <algorithm>
#include <filesystem>

#include "analysis/run_loader.h"
#include "base/id_rules.h"
#include "base/str_cat.h"
#include "client/run_store_client.h"
#include "trace/trace_file_name.h"

namespace profdiff::client {

bool IsRunIdArgument(const std::string& arg) {
  std::error_code error;
  return !std::filesystem::exists(arg, error) && !trace::IsTraceFileName(arg) &&
         base::IsValidId(arg);
}

absl::StatusOr<v1::RunProfile> LoadRunFromPathsOrServer(
    const std::vector<std::string>& args, const ServerConnection& server,
    const analysis::ProfileOptions& options) {
  const auto run_id = std::find_if(args.begin(), args.end(), IsRunIdArgument);
  // What cannot be a run id is read as a path (a missing one: NotFound from the
  // reader).
  if (run_id == args.end()) return analysis::LoadRun(args, options);
  if (args.size() > 1) {
    return absl::InvalidArgumentError(base::StrCat(
        *run_id,
        ": no such file or folder (several arguments must all be trace paths; "
        "a run on the server is named by one run id)"));
  }
  RunStoreClient client(server.address, server.security);
  absl::StatusOr<v1::RunProfile> profile =
      client.GetProfile(args.front(), options);
  if (!profile.ok() &&
      profile.status().code() == absl::StatusCode::kUnavailable) {
    return absl::UnavailableError(
        base::StrCat(args.front(), ": not a file or folder here, and ",
                     profile.status().message()));
  }
  return profile;
}

}  // namespace profdiff::client
