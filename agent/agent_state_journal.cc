#include "agent/agent_state_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <absl/strings/str_format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include "base/atomic_file.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// A record is a few hundred bytes; a line much longer is not ours.
constexpr size_t kMaxLineBytes = size_t{1} << 20;
// Lines that did not parse, kept for LoadAll; more are counted in the last.
constexpr size_t kMaxBadLines = 64;

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

absl::Status ErrnoError(std::string_view path, std::string_view what) {
  return absl::ErrnoToStatus(errno, base::StrCat(path, ": ", what));
}

// Holds the journal's exclusive flock for a scope.
class ExclusiveFileLock {
 public:
  explicit ExclusiveFileLock(int fd) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        error_ = errno;
        break;
      }
    }
  }
  ~ExclusiveFileLock() {
    if (error_ == 0) ::flock(fd_, LOCK_UN);
  }
  ExclusiveFileLock(const ExclusiveFileLock&) = delete;
  ExclusiveFileLock& operator=(const ExclusiveFileLock&) = delete;
  int error() const { return error_; }

 private:
  int fd_;
  int error_ = 0;
};

absl::StatusOr<std::string> RecordLine(const std::string& journal,
                                       const v1::AgentFileState& state) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);  // strings are escaped: no newline inside
  std::string line;
  if (!printer.PrintToString(state, &line)) {
    return absl::InternalError(base::StrCat(
        journal, ": cannot print the state record of ", state.path()));
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  line += '\n';
  return line;
}

}  // namespace

absl::StatusOr<v1::AgentFileState> ParseAgentFileState(
    std::string_view where, const std::string& text) {
  v1::AgentFileState state;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &state)) {
    return absl::DataLossError(base::StrCat(
        where, ": not an AgentFileState record: ", errors.error()));
  }
  if (state.path().empty()) {
    return absl::DataLossError(
        base::StrCat(where, ": AgentFileState without a path"));
  }
  return state;
}

std::string KeyString(std::string_view path, std::string_view aggregator,
                      std::string_view run) {
  return base::StrCat(aggregator, std::string_view("\0", 1), run,
                      std::string_view("\0", 1), path);
}

absl::StatusOr<std::unique_ptr<AgentStateJournal>> AgentStateJournal::Open(
    const std::string& dir, size_t compact_lines) {
  auto journal = std::make_unique<AgentStateJournal>(
      OpenToken{}, (std::filesystem::path(dir) / kFileName).string(),
      compact_lines);
  absl::MutexLock lock(&journal->mu_);
  if (absl::Status opened = journal->ReopenLocked(); !opened.ok())
    return opened;
  // The journal's entry in the folder is durable before a record is.
  if (absl::Status synced = base::Env::Default()->SyncDir(dir); !synced.ok())
    return synced;
  if (absl::Status read = journal->CatchUpLocked(); !read.ok()) return read;
  return journal;
}

absl::Status AgentStateJournal::ReopenLocked() {
  base::ScopedFd fd(
      ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoError(path_, "cannot open the state journal");
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return ErrnoError(path_, "fstat");
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        base::StrCat(path_, ": the state journal is not a file"));
  }
  fd_ = std::move(fd);
  inode_ = info.st_ino;
  read_bytes_ = 0;
  lines_ = 0;
  latest_.clear();
  bad_lines_.clear();
  return absl::OkStatus();
}

void AgentStateJournal::ReadLineLocked(std::string_view line) {
  ++lines_;
  if (line.empty()) return;  // the end of a torn line (Append)
  const auto bad = [&](absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (bad_lines_.size() < kMaxBadLines)
      bad_lines_.push_back(std::move(status));
  };
  if (line.size() > kMaxLineBytes) {
    bad(absl::DataLossError(
        absl::StrFormat("%s line %d: %d bytes, over the %d a record may have",
                        path_, lines_, line.size(), kMaxLineBytes)));
    return;
  }
  std::string text(line);
  absl::StatusOr<v1::AgentFileState> state =
      ParseAgentFileState(base::StrCat(path_, " line ", lines_), text);
  if (!state.ok()) {
    bad(state.status());
    return;
  }
  latest_[KeyString(state->path(), state->aggregator(), state->run())] =
      std::move(text);
}

absl::Status AgentStateJournal::CatchUpLocked() {
  struct stat now {};
  if (::stat(path_.c_str(), &now) != 0 || now.st_ino != inode_) {
    // Compacted by another process (or removed): read the file there is now.
    PD_RETURN_IF_ERROR(ReopenLocked());
  }
  return ReadNewLinesLocked();
}

absl::Status AgentStateJournal::ReadNewLinesLocked() {
  std::string tail;
  char buffer[1 << 16];
  for (uint64_t at = read_bytes_;;) {
    const ssize_t got =
        ::pread(fd_.get(), buffer, sizeof(buffer), static_cast<off_t>(at));
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path_, "reading the state journal");
    }
    if (got == 0) break;
    tail.append(buffer, static_cast<size_t>(got));
    at += static_cast<uint64_t>(got);
  }
  // Whole lines only: a line still being appended is read next time.
  size_t from = 0;
  for (size_t end; (end = tail.find('\n', from)) != std::string::npos;
       from = end + 1) {
    ReadLineLocked(std::string_view(tail).substr(from, end - from));
  }
  read_bytes_ += from;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::AgentFileState>> AgentStateJournal::Find(
    const std::string& key) {
  absl::MutexLock lock(&mu_);
  PD_RETURN_IF_ERROR(CatchUpLocked());
  const auto found = latest_.find(key);
  if (found == latest_.end()) return std::nullopt;
  return ParseAgentFileState(path_, found->second);
}

absl::Status AgentStateJournal::WriteAllLocked(const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t wrote =
        ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return ErrnoError(path_, "appending to the state journal");
    }
    done += static_cast<size_t>(wrote);
  }
  return absl::OkStatus();
}

absl::Status AgentStateJournal::Append(const v1::AgentFileState& state) {
  if (state.path().empty()) {
    return absl::InvalidArgumentError(
        "AgentStateJournal::Append: state without a path");
  }
  PD_ASSIGN_OR_RETURN(const std::string line, RecordLine(path_, state));
  absl::MutexLock lock(&mu_);
  bool compacted = false;
  PD_RETURN_IF_ERROR(AppendLocked(line, compacted));
  if (!compacted) return absl::OkStatus();
  // The file lock was the old file's: the new one is read now.
  PD_RETURN_IF_ERROR(ReopenLocked());
  return CatchUpLocked();
}

absl::Status AgentStateJournal::AppendLocked(const std::string& line,
                                             bool& compacted) {
  // Locks the file that is the journal now: a compaction in another process
  // may replace it between the open and the lock.
  for (int tries = 0;; ++tries) {
    PD_RETURN_IF_ERROR(CatchUpLocked());
    ExclusiveFileLock file_lock(fd_.get());
    if (file_lock.error() != 0) {
      errno = file_lock.error();
      return ErrnoError(path_, "locking the state journal");
    }
    struct stat now {};
    if (::stat(path_.c_str(), &now) != 0 || now.st_ino != inode_) {
      if (tries < 100) continue;
      return absl::UnavailableError(base::StrCat(
          path_, ": replaced by another process 100 times while appending"));
    }
    // What others appended before the lock, then a torn line's end: with
    // the lock held, bytes after the last whole line are a crashed append's.
    // (Not CatchUpLocked: the locked file must stay the one read.)
    PD_RETURN_IF_ERROR(ReadNewLinesLocked());
    struct stat opened {};
    if (::fstat(fd_.get(), &opened) != 0) return ErrnoError(path_, "fstat");
    std::string bytes = line;
    if (static_cast<uint64_t>(opened.st_size) > read_bytes_)
      bytes.insert(bytes.begin(), '\n');
    PD_RETURN_IF_ERROR(WriteAllLocked(bytes));
    if (::fdatasync(fd_.get()) != 0)
      return ErrnoError(path_, "fdatasync of the state journal");
    PD_RETURN_IF_ERROR(ReadNewLinesLocked());  // this line, as any other
    if (lines_ > compact_lines_ && lines_ > 2 * latest_.size()) {
      compacted = true;
      return CompactLocked();
    }
    return absl::OkStatus();
  }
}

absl::Status AgentStateJournal::CompactLocked() {
  std::vector<const std::pair<const std::string, std::string>*> records;
  records.reserve(latest_.size());
  for (const auto& record : latest_) records.push_back(&record);
  std::sort(records.begin(), records.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string bytes;
  for (const auto* record : records) bytes += record->second + "\n";
  return base::WriteFileAtomically(path_, bytes);
}

AgentStateJournal::Records AgentStateJournal::LoadAll() {
  Records records;
  absl::MutexLock lock(&mu_);
  if (absl::Status read = CatchUpLocked(); !read.ok()) {
    records.errors.push_back(std::move(read));
    return records;
  }
  records.errors = bad_lines_;
  records.states.reserve(latest_.size());
  for (const auto& [key, text] : latest_) {
    absl::StatusOr<v1::AgentFileState> state = ParseAgentFileState(path_, text);
    if (state.ok()) {
      records.states.push_back(*std::move(state));
    } else {
      records.errors.push_back(state.status());
    }
  }
  return records;
}

size_t AgentStateJournal::lines() const {
  absl::MutexLock lock(&mu_);
  return lines_;
}

}  // namespace profdiff::agent
