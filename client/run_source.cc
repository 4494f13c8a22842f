#include "client/run_source.h"

#include <algorithm>
#include <filesystem>

#include <absl/strings/str_join.h>

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
  if (!profile.ok())
    return MissingPathOrRun({args.front()}, server, profile.status());
  return profile;
}

absl::Status MissingPathOrRun(const std::vector<std::string>& names,
                              const ServerConnection& server,
                              const absl::Status& status) {
  if (status.ok() || names.empty()) return status;
  const bool one = names.size() == 1;
  const std::string missing = base::StrCat(
      absl::StrJoin(names, ", "), one ? ": no such file or folder, and "
                                      : ": no such files or folders, and ");
  const std::string no_run =
      one ? "no run of that name" : "no runs of those names";
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      if (!server.named) {
        return absl::NotFoundError(base::StrCat(
            missing, no_run, " (no server: set PROFDIFF_SERVER or --server)"));
      }
      return absl::UnavailableError(base::StrCat(
          missing, "server ", server.address, " could not be asked for ",
          one ? "a run of that name: " : "runs of those names: ",
          status.message()));
    case absl::StatusCode::kNotFound:
      return absl::NotFoundError(base::StrCat(missing, no_run, " on server ",
                                              server.address, " (",
                                              status.message(), ")"));
    default:
      return status;
  }
}

}  // namespace profdiff::client
