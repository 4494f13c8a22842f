#include "agent/span_identity.h"

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <limits>

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>

#include "base/id_rules.h"
#include "base/stable_hash.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/trace_file_name.h"

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

// A shortened id: head, '-', 16 hex digits = 128 characters.
constexpr size_t kHashHexDigits = 16;
constexpr size_t kShortenedHeadBytes = base::kMaxIdBytes - 1 - kHashHexDigits;

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The base name of a folder path, ignoring trailing separators ("/a/b/" ->
// "b").
std::string FolderName(const fs::path& folder) {
  fs::path normal = folder.lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();
  return normal.filename().string();
}

// Where the run id came from, for the error message.
struct RunChoice {
  std::string run;
  std::string source;
};

RunChoice ChooseRun(std::string_view logdir, std::string_view path,
                    const IdentitySources& sources) {
  const fs::path file = fs::path(path).lexically_normal();
  fs::path dir =
      logdir.empty() ? file.parent_path() : fs::path(logdir).lexically_normal();
  if (!dir.has_filename() && dir.has_relative_path())
    dir = dir.parent_path();  // "/logs/" -> "/logs"
  const fs::path relative = file.lexically_relative(dir);
  const auto depth = std::distance(relative.begin(), relative.end());
  // A capture's trace: its folder names the capture's run, whatever else says.
  if (!logdir.empty() && depth > 2 && *relative.begin() == kCaptureFolder) {
    return {std::next(relative.begin())->string(),
            base::StrCat("the capture folder ", kCaptureFolder, "/")};
  }
  if (!sources.run_flag.empty()) return {sources.run_flag, "--run"};
  if (!sources.torchelastic_run_id.empty()) {
    return {sources.torchelastic_run_id, "environment TORCHELASTIC_RUN_ID"};
  }
  // A file below a sub-folder of DIR: the sub-folder is the run (TensorBoard
  // convention).
  if (!relative.empty() && *relative.begin() != ".." && depth > 1) {
    return {relative.begin()->string(),
            base::StrCat("the sub-folder of ", dir.string())};
  }
  return {FolderName(dir),
          base::StrCat("the name of the folder ", dir.string())};
}

}  // namespace

IdentitySources IdentitySourcesFromEnvironment(std::string run_flag) {
  return {.run_flag = std::move(run_flag),
          .torchelastic_run_id = EnvOrEmpty("TORCHELASTIC_RUN_ID"),
          .rank_env = EnvOrEmpty("RANK")};
}

std::string SanitizeId(std::string_view name) {
  std::string id(name);
  for (char& c : id) {
    if (!base::IsIdChar(c)) c = '_';
  }
  if (id.size() > base::kMaxIdBytes) {
    id.resize(kShortenedHeadBytes);
    base::StrAppend(&id, "-", base::StableHashHex(name));
  }
  return id;
}

std::string SpanIdOf(std::string_view file_name, std::string_view fingerprint) {
  constexpr size_t kFingerprintDigits =
      12;  // 48 bits: one name's versions never collide
  return SanitizeId(
      base::StrCat(file_name, "-", fingerprint.substr(0, kFingerprintDigits)));
}

absl::StatusOr<std::string> ResolveRun(std::string_view logdir,
                                       std::string_view path,
                                       const IdentitySources& sources) {
  RunChoice run = ChooseRun(logdir, path, sources);
  if (!base::IsValidId(run.run)) {
    return absl::InvalidArgumentError(base::StrCat(
        path, ": run id ", base::QuoteBytes(run.run), " (from ", run.source,
        ") must match [A-Za-z0-9._-]{1,128}; pass --run or set "
        "TORCHELASTIC_RUN_ID"));
  }
  return std::move(run.run);
}

absl::StatusOr<SpanIdentity> ResolveSpanIdentity(std::string_view logdir,
                                                 std::string_view path,
                                                 const IdentitySources& sources,
                                                 std::string_view fingerprint) {
  const std::string file_name = fs::path(path).filename().string();
  PD_ASSIGN_OR_RETURN(std::string run, ResolveRun(logdir, path, sources));
  std::string worker_name = SanitizeId(trace::WorkerNameOf(file_name));
  if (worker_name.empty()) {
    return absl::InvalidArgumentError(
        base::StrCat(path,
                     ": the file name gives an empty worker name (expected "
                     "<worker>.<ts>.pt.trace.json[.gz])"));
  }
  return SpanIdentity{.run = std::move(run),
                      .span = SpanIdOf(file_name, fingerprint),
                      .worker_name = std::move(worker_name)};
}

absl::StatusOr<int32_t> ResolveRank(const v1::WorkerInfo& worker,
                                    std::string_view rank_env,
                                    std::string_view worker_name) {
  if (worker.distributed_info_present()) return worker.rank();
  if (!rank_env.empty()) {
    int32_t rank = 0;
    if (!absl::SimpleAtoi(base::ToAbsl(rank_env), &rank) || rank < 0) {
      return absl::InvalidArgumentError(
          base::StrCat("environment RANK=", base::QuoteBytes(rank_env),
                       ": expected an integer in [0, 2^31)"));
    }
    return rank;
  }
  // The number after "rank" or "worker" ("worker3" -> 3, "node1_rank12" -> 12,
  // "worker0_step_12" -> 0); else 0. Other digits are not a rank: Kineto's
  // default worker name is "<hostname>_<pid>" ("dc3b0e7228dd_851").
  const std::string lower = absl::AsciiStrToLower(base::ToAbsl(worker_name));
  for (std::string_view word : {"rank", "worker"}) {
    for (size_t at = lower.find(word); at != std::string::npos;
         at = lower.find(word, at + 1)) {
      size_t i = at + word.size();
      if (i < lower.size() && (lower[i] == '_' || lower[i] == '-')) ++i;
      int64_t rank = 0;
      bool any = false;
      for (; i < lower.size() && lower[i] >= '0' && lower[i] <= '9'; ++i) {
        any = true;
        rank = rank * 10 + (lower[i] - '0');
        if (rank > std::numeric_limits<int32_t>::max()) return 0;
      }
      if (any) return static_cast<int32_t>(rank);
    }
  }
  return 0;
}

}  // namespace profdiff::agent
