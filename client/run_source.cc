#include "client/run_source.h"

#include <filesystem>

#include "base/id_rules.h"
#include "base/str_cat.h"
#include "client/run_loader.h"
#include "client/run_store_client.h"
#include "trace/trace_file_name.h"

namespace profdiff::client {

absl::StatusOr<v1::RunProfile> LoadRunFromPathsOrServer(const std::vector<std::string>& args,
                                                        const std::string& server,
                                                        const analysis::ProfileOptions& options) {
  std::vector<std::string> missing;
  for (const std::string& arg : args) {
    std::error_code error;
    if (!std::filesystem::exists(arg, error)) missing.push_back(arg);
  }
  // What cannot be a run id (base/id_rules.h, not a trace file name) is a missing path.
  const auto could_be_run_id = [](const std::string& arg) {
    return !trace::IsTraceFileName(arg) && base::IsValidId(arg);
  };
  if (missing.empty() || !could_be_run_id(missing.front())) return LoadRun(args, options);
  if (args.size() > 1) {
    return absl::InvalidArgumentError(base::StrCat(
        missing.front(), ": no such file or folder (several arguments must all be trace paths; "
                         "a run on the server is named by one run id)"));
  }
  RunStoreClient client(server);
  absl::StatusOr<v1::RunProfile> profile = client.GetProfile(args.front(), options);
  if (!profile.ok() && profile.status().code() == absl::StatusCode::kUnavailable) {
    return absl::UnavailableError(base::StrCat(args.front(), ": not a file or folder here, and ",
                                               profile.status().message()));
  }
  return profile;
}

}  // namespace profdiff::client
