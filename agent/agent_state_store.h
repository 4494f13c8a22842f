// profdiff-agent's progress on disk (its --state-dir): one AgentFileState per
// trace file and destination, so a restarted agent never uploads an
// acknowledged span again and resumes a partial one, while the same file sent
// to another run or another aggregator is a new upload.
//
// Design:
// 1. The records are lines of one append-only journal in the folder
//    (agent_state_journal.h, "records.journal"): a write appends a line and
//    fdatasyncs, and the latest line of a record's key is the record. A record
//    is a trace file's (aggregator, run, trace path).
// 2. Protobuf text format, a record to a line: readable with cat or grep when
//    debugging a stuck upload, and a torn or foreign line fails to parse
//    instead of decoding to nonsense.
// 3. The layout before the journal, one file per record named
//    "<16 hex of a stable hash of the key>-<base name>.state" and replaced
//    atomically, is still read: a key with no journal line reads its file,
//    so an upgraded agent resumes where the old one stopped. Records from
//    before the aggregator was part of the key are not found again: their
//    files are offered once more, and a span already stored under the same run
//    and content is acknowledged without being stored twice.
#ifndef PROFDIFF_AGENT_AGENT_STATE_STORE_H_
#define PROFDIFF_AGENT_AGENT_STATE_STORE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "agent/agent_state_journal.h"
#include "profdiff/v1/agent_state.pb.h"

namespace profdiff::agent {

// The default state folder: $XDG_STATE_HOME/profdiff-agent, else
// $HOME/.local/state/profdiff-agent (arguments are those environment values,
// empty when unset). Empty when both are empty.
std::string DefaultAgentStateDir(std::string_view xdg_state_home,
                                 std::string_view home);

// The state records of one folder. A value type: copies share the folder's
// journal. Methods are thread-safe; writes of one trace path must be
// serialised by the caller (the last line wins).
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
  static absl::StatusOr<AgentStateStore> Open(
      const std::string& dir,
      size_t journal_compact_lines = AgentStateJournal::kCompactLines);

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

  // Where the record of `key` lived before the journal (design note 3).
  std::string StateFilePath(const Key& key) const;
  // The journal's file.
  const std::string& JournalPath() const { return journal_->path(); }

  // The record of `key`; nullopt when there is none. DataLoss naming the
  // journal, or the state file of the old layout, when it does not parse or
  // records another key; the errno's code for other read failures.
  absl::StatusOr<std::optional<v1::AgentFileState>> Read(const Key& key) const;

  // Replaces the record of KeyOf(state) (its path must be set:
  // InvalidArgument otherwise) and makes it durable before returning. I/O
  // errors carry the errno's code and name the journal.
  absl::Status Write(const v1::AgentFileState& state) const;

  // Reads every record in the folder (the journal's, and the old layout's files
  // the journal has no line for). A line or file that does not parse is an
  // entry in `errors` (DataLoss naming it), not a failure of the whole load.
  Loaded LoadAll() const;

 private:
  AgentStateStore(std::string dir, std::shared_ptr<AgentStateJournal> journal)
      : dir_(std::move(dir)), journal_(std::move(journal)) {}

  std::string dir_;
  std::shared_ptr<AgentStateJournal> journal_;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_STATE_STORE_H_
