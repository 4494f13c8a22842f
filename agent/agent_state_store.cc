#include "agent/agent_state_store.h"

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

#include <absl/strings/str_format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "agent/span_identity.h"
#include "base/atomic_file.h"
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

// Collects the text-format parser's first error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (error_.empty())
      error_ = absl::StrFormat("line %d column %d: %s", line + 1, column + 1,
                               message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

absl::Status ErrnoError(int error, std::string_view what) {
  return absl::ErrnoToStatus(error, base::ToAbsl(what));
}

absl::StatusOr<v1::AgentFileState> ParseState(const std::string& file,
                                              const std::string& text) {
  v1::AgentFileState state;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &state)) {
    return absl::DataLossError(
        base::StrCat(file, ": not an AgentFileState record: ", errors.error()));
  }
  if (state.path().empty()) {
    return absl::DataLossError(
        base::StrCat(file, ": AgentFileState without a path"));
  }
  return state;
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

absl::StatusOr<AgentStateStore> AgentStateStore::Open(const std::string& dir) {
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
  return AgentStateStore(dir);
}

std::string AgentStateStore::StateFilePath(const Key& key) const {
  std::string readable = SanitizeId(fs::path(key.path).filename().string());
  if (readable.size() > kMaxReadableSuffixBytes)
    readable.resize(kMaxReadableSuffixBytes);
  // NUL separates the parts: none of them can hold one.
  const std::string hashed =
      base::StrCat(key.aggregator, std::string_view("\0", 1), key.run,
                   std::string_view("\0", 1), key.path);
  return (fs::path(dir_) / base::StrCat(base::StableHashHex(hashed), "-",
                                        readable, kStateSuffix))
      .string();
}

absl::StatusOr<std::optional<v1::AgentFileState>> AgentStateStore::Read(
    const Key& key) const {
  const std::string file = StateFilePath(key);
  std::string text;
  const absl::Status read = base::ReadFileInto(file, kMaxStateFileBytes, text);
  if (absl::IsNotFound(read)) return std::nullopt;
  PD_RETURN_IF_ERROR(read);
  PD_ASSIGN_OR_RETURN(v1::AgentFileState state, ParseState(file, text));
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
  if (state.path().empty()) {
    return absl::InvalidArgumentError(
        "AgentStateStore::Write: state without a path");
  }
  const std::string final_path = StateFilePath(KeyOf(state));
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(state, &text)) {
    return absl::InternalError(
        base::StrCat(final_path, ": cannot print the state record"));
  }
  // Temp files ("<name>.tmp.<pid>.<n>") do not end in the state suffix: LoadAll
  // skips them.
  return base::WriteFileAtomically(final_path, text);
}

AgentStateStore::Loaded AgentStateStore::LoadAll() const {
  Loaded loaded;
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
    absl::StatusOr<v1::AgentFileState> state = ParseState(file, text);
    if (!state.ok()) {
      loaded.errors.push_back(state.status());
      continue;
    }
    loaded.states.push_back(*std::move(state));
  }
  if (error) {
    loaded.errors.push_back(ErrnoError(
        error.value(), base::StrCat(dir_, ": listing the state dir")));
  }
  return loaded;
}

}  // namespace profdiff::agent
