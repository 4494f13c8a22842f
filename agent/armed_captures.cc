#include "agent/armed_captures.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

#include <absl/status/status.h>
#include <google/protobuf/text_format.h>

#include "base/atomic_file.h"
#include "base/file_reader.h"
#include "base/id_rules.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRecordSuffix = ".capture";
constexpr uint64_t kMaxRecordBytes = 4 << 20;

absl::Time DeadlineOf(const v1::ArmedCapture& capture) {
  return absl::FromUnixMillis(capture.deadline_unix_ms());
}

// The folder below LOGDIR/profdiff-captures/ that `path` is in, for messages:
// "<run>/<process folder>".
std::string CaptureFolderOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return (parent.parent_path().filename() / parent.filename()).string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ArmedCaptures>> ArmedCaptures::Open(
    const std::string& state_dir, absl::Time now) {
  const std::string folder = base::StrCat(state_dir, "/captures");
  PD_RETURN_IF_ERROR(base::CreateDirectoriesDurably(folder));
  auto armed = std::make_unique<ArmedCaptures>(folder);
  std::error_code error;
  std::vector<std::string> unreadable;
  for (fs::directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    const std::string file = it->path().string();
    if (!file.ends_with(kRecordSuffix)) continue;  // temp files of a crash
    std::string text;
    v1::ArmedCapture capture;
    absl::Status read = base::ReadFileInto(file, kMaxRecordBytes, text);
    if (read.ok() &&
        !google::protobuf::TextFormat::ParseFromString(text, &capture)) {
      read = absl::DataLossError(base::StrCat(file, ": does not parse"));
    }
    if (!read.ok()) {
      PD_LOG(WARNING, "unreadable capture record removed: %s", read.message());
      unreadable.push_back(file);
      continue;
    }
    const std::string id = capture.capture_id();
    absl::MutexLock lock(&armed->mu_);
    armed->captures_.emplace(id, std::move(capture));
  }
  if (error) {
    return absl::ErrnoToStatus(error.value(),
                               base::StrCat(folder, ": listing the captures"));
  }
  for (const std::string& file : unreadable) fs::remove(file, error);
  armed->Expire(now);
  return armed;
}

std::string ArmedCaptures::RecordPath(std::string_view capture_id) const {
  return base::StrCat(folder_, "/", capture_id, kRecordSuffix);
}

absl::Status ArmedCaptures::Write(const v1::ArmedCapture& capture) const {
  std::string text;
  google::protobuf::TextFormat::PrintToString(capture, &text);
  return base::WriteFileAtomically(RecordPath(capture.capture_id()), text);
}

void ArmedCaptures::Remove(std::string_view capture_id) const {
  std::error_code error;
  fs::remove(RecordPath(capture_id), error);
}

absl::Status ArmedCaptures::Record(v1::ArmedCapture capture) {
  PD_RETURN_IF_ERROR(base::ValidateId("capture id", capture.capture_id()));
  absl::MutexLock write_lock(&write_mu_);
  {
    absl::MutexLock lock(&mu_);
    captures_.insert_or_assign(capture.capture_id(), capture);
  }
  return Write(capture);
}

void ArmedCaptures::MarkConfigTaken(std::string_view capture_id,
                                    int32_t host_pid) {
  absl::MutexLock write_lock(&write_mu_);
  v1::ArmedCapture changed;
  {
    absl::MutexLock lock(&mu_);
    auto it = captures_.find(capture_id);
    if (it == captures_.end()) return;
    for (v1::ArmedProcess& process : *it->second.mutable_processes()) {
      if (process.host_pid() == host_pid) process.clear_config();
    }
    changed = it->second;
  }
  if (absl::Status written = Write(changed); !written.ok()) {
    PD_LOG(WARNING, "capture record not updated capture=%s error=%s",
           capture_id, written.message());
  }
}

bool ArmedCaptures::Cancel(std::string_view capture_id) {
  absl::MutexLock write_lock(&write_mu_);
  v1::ArmedCapture changed;
  {
    absl::MutexLock lock(&mu_);
    auto it = captures_.find(capture_id);
    if (it == captures_.end()) return false;
    it->second.set_cancelled(true);
    changed = it->second;
  }
  if (absl::Status written = Write(changed); !written.ok()) {
    PD_LOG(WARNING, "capture record not updated capture=%s error=%s",
           capture_id, written.message());
  }
  return true;
}

std::optional<v1::CaptureAnswer> ArmedCaptures::AnswerOf(
    std::string_view capture_id) const {
  absl::MutexLock lock(&mu_);
  auto it = captures_.find(capture_id);
  if (it == captures_.end()) return std::nullopt;
  return it->second.answer();
}

std::vector<v1::ArmedCapture> ArmedCaptures::Running(absl::Time now) const {
  std::vector<v1::ArmedCapture> running;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, capture] : captures_) {
    if (DeadlineOf(capture) > now) running.push_back(capture);
  }
  return running;
}

absl::Status ArmedCaptures::AdmitTraceFile(const std::string& path,
                                           absl::Time /*now*/) const {
  std::optional<v1::ArmedCapture> owner;
  uint32_t uid = 0;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, capture] : captures_) {
      for (const v1::ArmedProcess& process : capture.processes()) {
        if (process.trace_file() == path) {
          owner = capture;
          uid = process.uid();
        }
      }
    }
  }
  if (!owner.has_value()) {
    return absl::PermissionDeniedError(
        base::StrCat("no capture of this agent told a process to write ", path,
                     " (folder ", CaptureFolderOf(path), "): not uploaded"));
  }
  if (owner->cancelled()) {
    return absl::PermissionDeniedError(base::StrCat(
        path, ": capture ", owner->capture_id(), " was cancelled"));
  }
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    return absl::ErrnoToStatus(errno, base::StrCat("cannot stat ", path));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::PermissionDeniedError(
        base::StrCat(path, " is not a regular file (a link?): not uploaded"));
  }
  if (info.st_uid != uid) {
    return absl::PermissionDeniedError(
        base::StrCat(path, " is owned by uid ", info.st_uid, ", not by uid ",
                     uid, " of the process capture ", owner->capture_id(),
                     " asked for it: not uploaded"));
  }
  const absl::Time written = absl::TimeFromTimespec(info.st_mtim);
  if (written > DeadlineOf(*owner)) {
    return absl::PermissionDeniedError(base::StrCat(
        path, " was written at ",
        absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", written, absl::UTCTimeZone()),
        ", after the deadline of capture ", owner->capture_id(),
        ": not uploaded"));
  }
  return absl::OkStatus();
}

void ArmedCaptures::Expire(absl::Time now) {
  absl::MutexLock write_lock(&write_mu_);
  std::vector<std::string> expired;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = captures_.begin(); it != captures_.end();) {
      if (DeadlineOf(it->second) + kKeepAfterDeadline < now) {
        expired.push_back(it->first);
        it = captures_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const std::string& id : expired) Remove(id);
}

}  // namespace profdiff::agent
