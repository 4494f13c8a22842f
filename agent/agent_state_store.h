// profdiff-agent's progress on disk (its --state-dir): one AgentFileState per
// trace file and destination, so a restarted agent never uploads an
// acknowledged span again and resumes a partial one, while the same file sent
// to another run or another aggregator is a new upload.
//
// Design:
// 1. One small file per (aggregator, run, trace path), named
//    "<16 hex of a stable hash of the three>-<base name>.state": the hash keeps
//    names unique and fixed-length, the suffix lets a person find a file's
//    state with ls. Records from before the aggregator was part of the key are
//    not found again: their files are offered once more, and a span already
//    stored under the same run and content is acknowledged without being stored
//    twice.
// 2. Protobuf text format: readable with cat when debugging a stuck upload, and
//    a torn or foreign file fails to parse instead of decoding to nonsense.
// 3. Replaced atomically: written to a temp file, fsync'd, renamed over, then
//    the folder is fsync'd, so after a crash the state is the old record or the
//    new one, never a mix.
#ifndef PROFDIFF_AGENT_AGENT_STATE_STORE_H_
#define PROFDIFF_AGENT_AGENT_STATE_STORE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "profdiff/v1/agent_state.pb.h"

namespace profdiff::agent {

// The default state folder: $XDG_STATE_HOME/profdiff-agent, else
// $HOME/.local/state/profdiff-agent (arguments are those environment values,
// empty when unset). Empty when both are empty.
std::string DefaultAgentStateDir(std::string_view xdg_state_home,
                                 std::string_view home);

// The state records of one folder. A value type holding only the folder's path;
// methods are thread-safe for different trace paths, and writes of one trace
// path must be serialised by the caller (the last rename wins).
class AgentStateStore {
 public:
  // Everything LoadAll found: the records that parsed, and one error per file
  // that did not.
  struct Loaded {
    std::vector<v1::AgentFileState> states;
    std::vector<absl::Status> errors;
  };

  // Opens `dir`, creating it (and its parents) when missing. Errors name the
  // folder: the errno's code when it cannot be created, FailedPrecondition when
  // it is not a folder.
  static absl::StatusOr<AgentStateStore> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }

  // What a record is the record of: the trace file (absolute path) and where it
  // goes.
  struct Key {
    std::string_view path;
    std::string_view aggregator;
    std::string_view run;
  };
  static Key KeyOf(const v1::AgentFileState& state) {
    return {state.path(), state.aggregator(), state.run()};
  }

  // Where the record of `key` lives.
  std::string StateFilePath(const Key& key) const;

  // The record of `key`; nullopt when there is none. DataLoss naming the state
  // file when it does not parse or records another key; the errno's code for
  // other read failures.
  absl::StatusOr<std::optional<v1::AgentFileState>> Read(const Key& key) const;

  // Atomically replaces the record of KeyOf(state) (its path must be set:
  // InvalidArgument otherwise) and makes it durable before returning. I/O
  // errors carry the errno's code and name the file.
  absl::Status Write(const v1::AgentFileState& state) const;

  // Reads every record in the folder. A file that does not parse is an entry in
  // `errors` (DataLoss naming it), not a failure of the whole load.
  Loaded LoadAll() const;

 private:
  explicit AgentStateStore(std::string dir) : dir_(std::move(dir)) {}

  std::string dir_;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_STATE_STORE_H_
