// Fuzzes Differ.Diff's handling of a request: bytes parsed as a DiffRequest,
// then what the service does with it (run id and grouping checks, then the
// differ with every option the client set: views, path, ranks, steps, sort,
// filter, top, normalize, HTA mode, node tables). The runs are profiles of real
// traces under $PROFDIFF_TRACES, named base, test, tf1, tf2 and dlrm (8 ranks);
// any other valid id is NotFound, as from the aggregator. Any input must give a
// report or a status, never a crash, a sanitizer report or a hang. Without the
// traces it exits 77 (skipped).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/run_digest.h"
#include "analysis/run_loader.h"
#include "differ/service/store_differ.h"
#include "profdiff/v1/differ.pb.h"

namespace {

namespace fs = std::filesystem;
using profdiff::differ::RunKey;
using profdiff::differ::StoredDigest;
using profdiff::differ::StoredProfile;

// Run id -> trace files, relative to the traces folder.
const std::map<std::string, std::vector<std::string>>& RunFiles() {
  static const std::map<std::string, std::vector<std::string>> files = {
      {"base", {"hta/trace_compare/base/base.json.gz"}},
      {"test", {"hta/trace_compare/test/test.json.gz"}},
      {"tf1",
       {"torch_profiling_tutorial/log/transformer/"
        "dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz"}},
      {"tf2",
       {"torch_profiling_tutorial/log/transformer/"
        "dc3b0e7228dd_851.1752215574025896717.pt.trace.json.gz"}},
      {"dlrm", {"param/dlrm_kineto"}},
  };
  return files;
}

fs::path TracesDir() {
  const char* dir = std::getenv("PROFDIFF_TRACES");
  return dir != nullptr && *dir != '\0'
             ? fs::path(dir)
             : fs::path(PROFDIFF_SOURCE_DIR) / "../shared/traces";
}

// Every run's profile in each of the four groupings, built once.
class Profiles {
 public:
  Profiles() {
    const fs::path traces = TracesDir();
    for (const auto& [run, files] : RunFiles()) {
      std::vector<std::string> paths;
      for (const std::string& file : files) {
        if (!fs::exists(traces / file)) {
          std::fprintf(
              stderr,
              "diff_request_fuzzer: SKIPPED: needs %s (set PROFDIFF_TRACES)\n",
              (traces / file).c_str());
          std::exit(77);
        }
        paths.push_back((traces / file).string());
      }
      for (const bool shapes : {false, true}) {
        for (const bool ops : {false, true}) {
          absl::StatusOr<profdiff::analysis::ProfileOptions> options =
              profdiff::analysis::ParseProfileOptions(shapes ? "shape" : "name",
                                                      ops ? "op" : "name");
          absl::StatusOr<profdiff::v1::RunProfile> profile =
              profdiff::analysis::LoadRun(paths, *options);
          if (!profile.ok()) {
            std::fprintf(stderr, "diff_request_fuzzer: %s\n",
                         profile.status().ToString().c_str());
            std::abort();
          }
          profiles_[Key(run, shapes, ops)] =
              std::make_shared<const profdiff::v1::RunProfile>(
                  *std::move(profile));
        }
      }
    }
  }

  // What StoredRuns::FetchProfile answers for a key (the service has checked
  // the groupings).
  absl::StatusOr<StoredProfile> Fetch(const RunKey& key) const {
    const auto found = profiles_.find(Key(
        key.run, key.operator_grouping == profdiff::v1::GROUPING_NAME_AND_SHAPE,
        key.kernel_grouping == profdiff::v1::GROUPING_NAME_AND_OP));
    if (found == profiles_.end())
      return absl::NotFoundError("run " + key.run + ": not stored");
    return StoredProfile{.profile = found->second, .warnings = {}};
  }

  // What StoredRuns::FetchDigest answers: the store reduces the profile.
  absl::StatusOr<StoredDigest> FetchDigest(const RunKey& key) const {
    absl::StatusOr<StoredProfile> profile = Fetch(key);
    if (!profile.ok()) return profile.status();
    absl::StatusOr<profdiff::v1::RunDigest> digest =
        profdiff::analysis::DigestOfRun(*profile->profile, key.ranks);
    if (!digest.ok()) return digest.status();
    return StoredDigest{
        .digest =
            std::make_shared<const profdiff::v1::RunDigest>(*std::move(digest)),
        .warnings = {}};
  }

 private:
  static std::string Key(const std::string& run, bool shapes, bool ops) {
    return run + (shapes ? "/shape" : "/name") + (ops ? "/op" : "/name");
  }
  std::map<std::string, std::shared_ptr<const profdiff::v1::RunProfile>>
      profiles_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Profiles profiles;
  profdiff::v1::DiffRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  const absl::StatusOr<profdiff::v1::DiffReport> report =
      profdiff::differ::DiffFetchedRuns(
          request,
          {.digest =
               [](const RunKey& key) { return profiles.FetchDigest(key); },
           .profile = [](const RunKey& key) { return profiles.Fetch(key); }});
  static const bool verbose = std::getenv("PROFDIFF_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s\n",
                 report.ok() ? "report" : report.status().ToString().c_str());
  // The report must serialize (a later gRPC reply); an error must say
  // something.
  if (report.ok()) {
    std::string bytes;
    if (!report->SerializeToString(&bytes)) std::abort();
  } else if (report.status().message().empty()) {
    std::abort();
  }
  return 0;
}
