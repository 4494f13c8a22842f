#include "agent/agent_state_store.h"

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

#include <absl/container/flat_hash_set.h>

#include "agent/span_identity.h"
#include "base/file_reader.h"
#include "base/stable_hash.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kStateSuffix = ".state";
// Readable part of a state file name; the hash before it is what makes the name
// unique.
constexpr size_t kMaxReadableSuffixBytes = 64;
// A record is a few hundred bytes; anything much larger is not ours.
constexpr uint64_t kMaxStateFileBytes = 1 << 20;

absl::Status ErrnoError(int error, std::string_view what) {
  return absl::ErrnoToStatus(error, base::ToAbsl(what));
}

}  // namespace

std::string DefaultAgentStateDir(std::string_view xdg_state_home,
                                 std::string_view home) {
  if (!xdg_state_home.empty())
    return (fs::path(xdg_state_home) / "profdiff-agent").string();
  if (!home.empty())
    return (fs::path(home) / ".local" / "state" / "profdiff-agent").string();
  return std::string();
}

absl::StatusOr<AgentStateStore> AgentStateStore::Open(
    const std::string& dir, size_t journal_compact_lines) {
  if (dir.empty()) return absl::InvalidArgumentError("state dir: empty path");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return ErrnoError(error.value(),
                      base::StrCat(dir, ": creating the state dir"));
  }
  if (!fs::is_directory(dir, error)) {
    return absl::FailedPreconditionError(
        base::StrCat(dir, ": state dir is not a folder"));
  }
  PD_ASSIGN_OR_RETURN(std::unique_ptr<AgentStateJournal> journal,
                      AgentStateJournal::Open(dir, journal_compact_lines));
  return AgentStateStore(dir, std::move(journal));
}

std::string AgentStateStore::StateFilePath(const Key& key) const {
  std::string readable = SanitizeId(fs::path(key.path).filename().string());
  if (readable.size() > kMaxReadableSuffixBytes)
    readable.resize(kMaxReadableSuffixBytes);
  const std::string hashed = KeyString(key.path, key.aggregator, key.run);
  return (fs::path(dir_) / base::StrCat(base::StableHashHex(hashed), "-",
                                        readable, kStateSuffix))
      .string();
}

absl::StatusOr<std::optional<v1::AgentFileState>> AgentStateStore::Read(
    const Key& key) const {
  PD_ASSIGN_OR_RETURN(
      std::optional<v1::AgentFileState> journaled,
      journal_->Find(KeyString(key.path, key.aggregator, key.run)));
  if (journaled.has_value()) return journaled;
  const std::string file = StateFilePath(key);
  std::string text;
  const absl::Status read = base::ReadFileInto(file, kMaxStateFileBytes, text);
  if (absl::IsNotFound(read)) return std::nullopt;
  PD_RETURN_IF_ERROR(read);
  PD_ASSIGN_OR_RETURN(v1::AgentFileState state,
                      ParseAgentFileState(file, text));
  if (state.path() != key.path || state.aggregator() != key.aggregator ||
      state.run() != key.run) {
    return absl::DataLossError(base::StrCat(
        file, ": records path ", state.path(), " run ", state.run(),
        " aggregator ", state.aggregator(), ", expected ", key.path, " run ",
        key.run, " aggregator ", key.aggregator));
  }
  return state;
}

absl::Status AgentStateStore::Write(const v1::AgentFileState& state) const {
  return journal_->Append(state);
}

AgentStateStore::Loaded AgentStateStore::LoadAll() const {
  Loaded loaded;
  AgentStateJournal::Records journaled = journal_->LoadAll();
  loaded.errors = std::move(journaled.errors);
  absl::flat_hash_set<std::string> keys;
  for (const v1::AgentFileState& state : journaled.states)
    keys.insert(KeyString(state.path(), state.aggregator(), state.run()));
  loaded.states = std::move(journaled.states);
  std::error_code error;
  fs::directory_iterator it(dir_, error);
  if (error) {
    loaded.errors.push_back(ErrnoError(
        error.value(), base::StrCat(dir_, ": listing the state dir")));
    return loaded;
  }
  for (; it != fs::directory_iterator(); it.increment(error)) {
    if (error) break;
    const std::string file = it->path().string();
    if (!file.ends_with(kStateSuffix))
      continue;  // also skips temp files of a crashed write
    std::string text;
    absl::Status read = base::ReadFileInto(file, kMaxStateFileBytes, text);
    if (!read.ok()) {
      loaded.errors.push_back(std::move(read));
      continue;
    }
    absl::StatusOr<v1::AgentFileState> state = ParseAgentFileState(file, text);
    if (!state.ok()) {
      loaded.errors.push_back(state.status());
      continue;
    }
    // The journal's line is the newer record.
    if (keys.contains(
            KeyString(state->path(), state->aggregator(), state->run())))
      continue;
    loaded.states.push_back(*std::move(state));
  }
  if (error) {
    loaded.errors.push_back(ErrnoError(
        error.value(), base::StrCat(dir_, ": listing the state dir")));
  }
  return loaded;
}

}  // namespace profdiff::agent
