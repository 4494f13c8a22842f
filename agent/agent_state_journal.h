// The agent's upload records as one append-only file in its state dir
// ("records.journal"): a line per write (the record in protobuf text format,
// on one line), and the latest line of a key is its record.
//
// Why a journal and not a file per record: a record was replaced atomically (a
// temp file, fsync, rename over the old one, fsync of the folder), twice per
// trace file. Each replace freed an inode, and on ext4 without a journal every
// file created on the node then steps over the inodes freed in the last minute
// or more (`recently_deleted`, which reads each one's deletion time): at a
// thousand ranks the agents' own creates and the ClickHouse servers' part files
// beside them spent ~7 % of both cores there. An append and an fdatasync
// create and free nothing.
//
// Design:
// 1. Durable on return: Append writes the whole line and fdatasyncs. A crash
//    mid-append leaves a torn last line; the next append (in any process)
//    ends it first, so it is one line that does not parse, reported by
//    LoadAll, and the records around it are whole.
// 2. Several processes may share a state dir (a log-dir agent and a one-shot
//    upload): appends hold an exclusive flock on the journal, and every call
//    first reads the whole lines the others appended (a line still being
//    written waits for the next call).
// 3. Compaction: past kCompactLines lines, when at most half of them are the
//    latest of their key, the latest lines are written to a new file that is
//    renamed over the journal (under the exclusive lock). A process holding
//    the old file sees its inode replaced and reads the new one.
// Thread-safe.
#ifndef PROFDIFF_AGENT_AGENT_STATE_JOURNAL_H_
#define PROFDIFF_AGENT_AGENT_STATE_JOURNAL_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>

#include "base/scoped_fd.h"
#include "profdiff/v1/agent_state.pb.h"

namespace profdiff::agent {

class AgentStateJournal {
  struct OpenToken {};  // the constructor is Open's

 public:
  static constexpr char kFileName[] = "records.journal";
  // Lines a journal may hold before a compaction is considered.
  static constexpr size_t kCompactLines = 4096;

  // Opens (creating when missing) `dir`/records.journal and reads it. Errors
  // name the file and carry the errno's code. `compact_lines`: kCompactLines
  // but in tests.
  static absl::StatusOr<std::unique_ptr<AgentStateJournal>> Open(
      const std::string& dir, size_t compact_lines = kCompactLines);
  AgentStateJournal(OpenToken, std::string path, size_t compact_lines)
      : path_(std::move(path)), compact_lines_(compact_lines) {}
  AgentStateJournal(const AgentStateJournal&) = delete;
  AgentStateJournal& operator=(const AgentStateJournal&) = delete;

  const std::string& path() const { return path_; }

  // The latest record whose KeyOf is `key` (KeyString), nullopt when none.
  absl::StatusOr<std::optional<v1::AgentFileState>> Find(const std::string& key)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Appends `state` as the record of its key and makes it durable. Its path
  // must be set (InvalidArgument otherwise).
  absl::Status Append(const v1::AgentFileState& state) ABSL_LOCKS_EXCLUDED(mu_);

  // Every key's latest record, and a DataLoss naming the file and line for
  // each line that did not parse.
  struct Records {
    std::vector<v1::AgentFileState> states;
    std::vector<absl::Status> errors;
  };
  Records LoadAll() ABSL_LOCKS_EXCLUDED(mu_);

  // Lines in the journal as this process last read it (for tests).
  size_t lines() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Opens the journal's current file and forgets what was read of another.
  absl::Status ReopenLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reopens the journal when a compaction replaced its file, then reads the
  // whole lines appended since the last read.
  absl::Status CatchUpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The whole lines after those read, of the file open now.
  absl::Status ReadNewLinesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReadLineLocked(std::string_view line) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whole bytes at the end of the file, retrying short writes.
  absl::Status WriteAllLocked(const std::string& bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Append under the journal's file lock; `compacted` when it then replaced
  // the file (the caller reads the new one once the lock is released).
  absl::Status AppendLocked(const std::string& line, bool& compacted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the latest line of each key to a new file renamed over this one.
  absl::Status CompactLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const size_t compact_lines_;
  mutable absl::Mutex mu_;
  base::ScopedFd fd_ ABSL_GUARDED_BY(mu_);
  ino_t inode_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t read_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // whole lines read
  size_t lines_ ABSL_GUARDED_BY(mu_) = 0;
  // The latest line of each key (the text, parsed when asked: a few hundred
  // bytes a record).
  absl::flat_hash_map<std::string, std::string> latest_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Status> bad_lines_ ABSL_GUARDED_BY(mu_);
};

// A record's text (a journal line, or a state file of the layout before the
// journal): DataLoss naming `where` when it does not parse or has no path.
absl::StatusOr<v1::AgentFileState> ParseAgentFileState(std::string_view where,
                                                       const std::string& text);

// The journal's key of a record: aggregator, run and path, NUL-separated (none
// of them can hold one).
std::string KeyString(std::string_view path, std::string_view aggregator,
                      std::string_view run);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_AGENT_STATE_JOURNAL_H_
