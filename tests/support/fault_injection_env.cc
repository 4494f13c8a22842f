#include "tests/support/fault_injection_env.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <utility>

#include "base/str_cat.h"

namespace profdiff::test_support {

using base::IoError;

class FaultInjectionEnv::File final : public base::WritableFile {
 public:
  File(FaultInjectionEnv* env, std::unique_ptr<base::WritableFile> target,
       std::string_view sync_call)
      : env_(env), target_(std::move(target)), sync_call_(sync_call) {}

  absl::Status Append(std::string_view bytes) override {
    absl::MutexLock lock(&env_->mu_);
    if (absl::Status refused =
            env_->Refusal(FaultKind::kWrite, path(), "write");
        !refused.ok())
      return refused;
    return target_->Append(bytes);
  }

  absl::Status Sync() override {
    absl::MutexLock lock(&env_->mu_);
    if (absl::Status refused =
            env_->Refusal(FaultKind::kSync, path(), sync_call_);
        !refused.ok())
      return refused;
    if (absl::Status stop = env_->TakeSync(path(), sync_call_); !stop.ok())
      return stop;
    if (absl::Status synced = target_->Sync(); !synced.ok()) return synced;
    ++env_->syncs_;
    // Only a file still tracked under the name it was opened by (header: close
    // a handle before renaming its file); never start tracking a stale name.
    auto it = env_->synced_bytes_.find(path());
    if (it != env_->synced_bytes_.end()) it->second = target_->size_bytes();
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size_bytes) override {
    absl::MutexLock lock(&env_->mu_);
    if (env_->stopped_) return IoError(path(), "ftruncate", EIO);
    if (absl::Status cut = target_->Truncate(size_bytes); !cut.ok()) return cut;
    // find(), not operator[]: an untracked file is durable as it is, and an
    // entry made here would say 0 bytes were synced.
    auto it = env_->synced_bytes_.find(path());
    if (it != env_->synced_bytes_.end())
      it->second = std::min(it->second, size_bytes);
    return absl::OkStatus();
  }

  uint64_t size_bytes() const override { return target_->size_bytes(); }
  const std::string& path() const override { return target_->path(); }

 private:
  FaultInjectionEnv* const env_;
  const std::unique_ptr<base::WritableFile> target_;
  const std::string_view sync_call_;
};

FaultInjectionEnv::FaultInjectionEnv(base::Env* target)
    : base::EnvWrapper(target) {}

FaultInjectionEnv::~FaultInjectionEnv() = default;

absl::Status FaultInjectionEnv::Refusal(FaultKind kind, const std::string& path,
                                        std::string_view call) const {
  if (stopped_) return IoError(path, call, EIO);
  auto it = faults_.find(kind);
  if (it != faults_.end() &&
      path.find(it->second.path_part) != std::string::npos)
    return IoError(path, call, it->second.error_number);
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::TakeSync(const std::string& path,
                                         std::string_view call) {
  if (sync_budget_ == 0) {
    stopped_ = true;
    return IoError(path, call, EIO);
  }
  if (sync_budget_ > 0) --sync_budget_;
  return absl::OkStatus();
}

std::optional<std::string> FaultInjectionEnv::DurableBytes(
    const std::string& path) {
  std::string bytes;
  if (target()->IsDirectory(path) ||
      !target()
           ->ReadFileInto(path, std::numeric_limits<uint64_t>::max(), bytes)
           .ok())
    return std::nullopt;
  auto it = synced_bytes_.find(path);
  if (it != synced_bytes_.end() && it->second < bytes.size())
    bytes.resize(it->second);
  return bytes;
}

absl::Status FaultInjectionEnv::WriteTarget(const std::string& path,
                                            const std::string& bytes) {
  absl::StatusOr<std::unique_ptr<base::WritableFile>> file =
      target()->NewWritableFile(path);
  if (!file.ok()) return file.status();
  return (*file)->Append(bytes);
}

absl::StatusOr<std::unique_ptr<base::WritableFile>> FaultInjectionEnv::Open(
    const std::string& path, bool truncate) {
  absl::MutexLock lock(&mu_);
  const bool existed = target()->FileExists(path);
  if (stopped_) return IoError(path, "open", EIO);
  if (!existed) {
    if (absl::Status refused = Refusal(FaultKind::kCreate, path, "open");
        !refused.ok())
      return refused;
  }
  absl::StatusOr<std::unique_ptr<base::WritableFile>> file =
      truncate ? target()->NewWritableFile(path)
               : target()->NewAppendableFile(path);
  if (!file.ok()) return file.status();
  if (!existed) {
    pending_.push_back(Pending{Pending::Kind::kCreated, path, "", std::nullopt,
                               std::set<std::string>{base::ParentDir(path)}});
  }
  if (truncate || !existed) {
    synced_bytes_[path] = 0;
  } else if (!synced_bytes_.contains(path)) {
    synced_bytes_[path] = (*file)->size_bytes();  // there before: durable
  }
  // The call names the POSIX Env uses for each kind of file.
  return std::make_unique<File>(this, *std::move(file),
                                truncate ? "fsync" : "fdatasync");
}

absl::StatusOr<std::unique_ptr<base::WritableFile>>
FaultInjectionEnv::NewWritableFile(const std::string& path) {
  return Open(path, /*truncate=*/true);
}

absl::StatusOr<std::unique_ptr<base::WritableFile>>
FaultInjectionEnv::NewAppendableFile(const std::string& path) {
  return Open(path, /*truncate=*/false);
}

absl::Status FaultInjectionEnv::TruncateFile(const std::string& path,
                                             uint64_t size_bytes) {
  absl::MutexLock lock(&mu_);
  if (stopped_) {
    return IoError(path, base::StrCat("truncate to ", size_bytes, " bytes"),
                   EIO);
  }
  if (absl::Status cut = target()->TruncateFile(path, size_bytes); !cut.ok())
    return cut;
  auto it = synced_bytes_.find(path);
  if (it != synced_bytes_.end()) it->second = std::min(it->second, size_bytes);
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::RenameFile(const std::string& from,
                                           const std::string& to) {
  absl::MutexLock lock(&mu_);
  if (absl::Status refused = Refusal(FaultKind::kRename, from, "rename");
      !refused.ok())
    return refused;
  std::optional<std::string> replaced = DurableBytes(to);
  auto tracked = synced_bytes_.find(from);
  std::optional<uint64_t> moved_synced;
  if (tracked != synced_bytes_.end()) moved_synced = tracked->second;
  if (absl::Status renamed = target()->RenameFile(from, to); !renamed.ok())
    return renamed;
  synced_bytes_.erase(from);
  if (moved_synced.has_value()) {
    synced_bytes_[to] = *moved_synced;
  } else {
    synced_bytes_.erase(to);  // untracked: durable as it is
  }
  pending_.push_back(Pending{
      Pending::Kind::kRenamed, to, from, std::move(replaced),
      std::set<std::string>{base::ParentDir(from), base::ParentDir(to)}});
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (stopped_) return IoError(path, "unlink", EIO);
  std::optional<std::string> removed = DurableBytes(path);
  if (absl::Status status = target()->RemoveFile(path); !status.ok())
    return status;
  synced_bytes_.erase(path);
  pending_.push_back(Pending{Pending::Kind::kRemoved, path, "",
                             std::move(removed),
                             std::set<std::string>{base::ParentDir(path)}});
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::CreateDir(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (absl::Status refused = Refusal(FaultKind::kCreate, path, "mkdir");
      !refused.ok())
    return refused;
  return target()->CreateDir(path);
}

absl::Status FaultInjectionEnv::SyncDir(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (absl::Status refused = Refusal(FaultKind::kSyncDir, path, "fsync folder");
      !refused.ok())
    return refused;
  if (absl::Status stop = TakeSync(path, "fsync folder"); !stop.ok())
    return stop;
  if (absl::Status synced = target()->SyncDir(path); !synced.ok())
    return synced;
  ++syncs_;
  for (Pending& pending : pending_) pending.unsynced_dirs.erase(path);
  std::erase_if(pending_, [](const Pending& pending) {
    return pending.unsynced_dirs.empty();
  });
  return absl::OkStatus();
}

void FaultInjectionEnv::Fail(FaultKind kind, int error_number,
                             std::string path_part) {
  absl::MutexLock lock(&mu_);
  faults_[kind] = Fault{error_number, std::move(path_part)};
}

void FaultInjectionEnv::SetDiskFull(bool full) {
  absl::MutexLock lock(&mu_);
  for (FaultKind kind : {FaultKind::kWrite, FaultKind::kSync}) {
    if (full) {
      faults_[kind] = Fault{ENOSPC, ""};
    } else {
      faults_.erase(kind);
    }
  }
}

void FaultInjectionEnv::ClearFaults() {
  absl::MutexLock lock(&mu_);
  faults_.clear();
}

int FaultInjectionEnv::syncs() const {
  absl::MutexLock lock(&mu_);
  return syncs_;
}

void FaultInjectionEnv::StopAfterSyncs(int syncs) {
  absl::MutexLock lock(&mu_);
  sync_budget_ = syncs;
}

bool FaultInjectionEnv::stopped() const {
  absl::MutexLock lock(&mu_);
  return stopped_;
}

absl::Status FaultInjectionEnv::Crash() {
  absl::MutexLock lock(&mu_);
  absl::Status status;
  for (const auto& [path, synced] : synced_bytes_) {
    absl::StatusOr<uint64_t> size = target()->FileSize(path);
    if (size.ok() && *size > synced)
      status.Update(target()->TruncateFile(path, synced));
  }
  // Newest first, so each entry is put back over the state it was made from.
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    switch (it->kind) {
      case Pending::Kind::kCreated:
        if (absl::Status removed = target()->RemoveFile(it->path);
            !removed.ok() && !absl::IsNotFound(removed))
          status.Update(removed);
        break;
      case Pending::Kind::kRenamed:
        if (target()->FileExists(it->path))
          status.Update(target()->RenameFile(it->path, it->from));
        if (it->saved.has_value())
          status.Update(WriteTarget(it->path, *it->saved));
        break;
      case Pending::Kind::kRemoved:
        if (it->saved.has_value())
          status.Update(WriteTarget(it->path, *it->saved));
        break;
    }
  }
  synced_bytes_.clear();
  pending_.clear();
  syncs_ = 0;
  sync_budget_ = -1;
  stopped_ = false;
  return status;
}

}  // namespace profdiff::test_support
