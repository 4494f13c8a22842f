#include "tests/support/mem_env.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "base/str_cat.h"

namespace profdiff::test_support {

using base::IoError;

class MemEnv::File final : public base::WritableFile {
 public:
  File(MemEnv* env, std::string path, std::shared_ptr<FileData> data)
      : env_(env), path_(std::move(path)), data_(std::move(data)) {}

  absl::Status Append(std::string_view bytes) override {
    absl::MutexLock lock(&env_->mu_);
    data_->bytes.append(bytes);
    return absl::OkStatus();
  }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Truncate(uint64_t size_bytes) override {
    absl::MutexLock lock(&env_->mu_);
    data_->bytes.resize(size_bytes);
    return absl::OkStatus();
  }
  uint64_t size_bytes() const override {
    absl::MutexLock lock(&env_->mu_);
    return data_->bytes.size();
  }
  const std::string& path() const override { return path_; }

 private:
  MemEnv* const env_;
  const std::string path_;
  const std::shared_ptr<FileData> data_;
};

class MemEnv::Reader final : public base::RandomAccessFile {
 public:
  Reader(MemEnv* env, std::shared_ptr<FileData> data)
      : env_(env), data_(std::move(data)) {}

  absl::StatusOr<size_t> Read(uint64_t offset, size_t size,
                              char* out) const override {
    absl::MutexLock lock(&env_->mu_);
    const std::string& bytes = data_->bytes;
    if (offset >= bytes.size()) return 0;
    const size_t n = std::min<size_t>(size, bytes.size() - offset);
    std::copy_n(bytes.data() + offset, n, out);
    return n;
  }

 private:
  MemEnv* const env_;
  const std::shared_ptr<FileData> data_;
};

class MemEnv::Lock final : public base::FileLockHandle {
 public:
  Lock(MemEnv* env, std::string path) : env_(env), path_(std::move(path)) {}
  ~Lock() override {
    absl::MutexLock lock(&env_->mu_);
    env_->locked_.erase(path_);
  }

 private:
  MemEnv* const env_;
  const std::string path_;
};

MemEnv::MemEnv() { dirs_ = {"/", "."}; }

MemEnv::~MemEnv() = default;

int MemEnv::CheckNewFile(const std::string& path) const {
  if (dirs_.contains(path)) return EISDIR;
  if (!dirs_.contains(base::ParentDir(path))) return ENOENT;
  return 0;
}

absl::StatusOr<std::unique_ptr<base::WritableFile>> MemEnv::OpenForWrite(
    const std::string& path, bool truncate) {
  absl::MutexLock lock(&mu_);
  if (const int error = CheckNewFile(path); error != 0)
    return IoError(path, "open", error);
  std::shared_ptr<FileData>& data = files_[path];
  if (data == nullptr) data = std::make_shared<FileData>();
  if (truncate) data->bytes.clear();
  return std::make_unique<File>(this, path, data);
}

absl::StatusOr<std::unique_ptr<base::WritableFile>> MemEnv::NewWritableFile(
    const std::string& path) {
  return OpenForWrite(path, /*truncate=*/true);
}

absl::StatusOr<std::unique_ptr<base::WritableFile>> MemEnv::NewAppendableFile(
    const std::string& path) {
  return OpenForWrite(path, /*truncate=*/false);
}

absl::StatusOr<std::unique_ptr<base::RandomAccessFile>>
MemEnv::NewRandomAccessFile(const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto it = files_.find(path);
  if (it == files_.end())
    return IoError(path, "open", dirs_.contains(path) ? EISDIR : ENOENT);
  return std::make_unique<Reader>(this, it->second);
}

absl::Status MemEnv::ReadFileInto(const std::string& path, uint64_t max_bytes,
                                  std::string& out) {
  absl::MutexLock lock(&mu_);
  if (dirs_.contains(path))
    return absl::InvalidArgumentError(base::StrCat(path, ": is a folder"));
  auto it = files_.find(path);
  if (it == files_.end()) {
    return absl::NotFoundError(
        base::StrCat(path, ": open: ", std::strerror(ENOENT)));
  }
  const std::string& bytes = it->second->bytes;
  if (bytes.size() > max_bytes) {
    return absl::ResourceExhaustedError(
        base::StrCat(path, ": file is ", bytes.size(),
                     " bytes, over the limit of ", max_bytes));
  }
  out.assign(bytes);
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> MemEnv::FileSize(const std::string& path) {
  absl::MutexLock lock(&mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return IoError(path, "stat", ENOENT);
  return it->second->bytes.size();
}

absl::Status MemEnv::TruncateFile(const std::string& path,
                                  uint64_t size_bytes) {
  absl::MutexLock lock(&mu_);
  auto it = files_.find(path);
  if (it == files_.end()) {
    return IoError(path, base::StrCat("truncate to ", size_bytes, " bytes"),
                   dirs_.contains(path) ? EISDIR : ENOENT);
  }
  it->second->bytes.resize(size_bytes);
  return absl::OkStatus();
}

absl::Status MemEnv::RenameFile(const std::string& from,
                                const std::string& to) {
  absl::MutexLock lock(&mu_);
  auto it = files_.find(from);
  if (it == files_.end())
    return IoError(from, "rename", dirs_.contains(from) ? EISDIR : ENOENT);
  if (const int error = CheckNewFile(to); error != 0)
    return IoError(from, "rename", error);
  std::shared_ptr<FileData> data = it->second;
  files_.erase(it);
  files_[to] = std::move(data);
  return absl::OkStatus();
}

absl::Status MemEnv::RemoveFile(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (dirs_.contains(path)) return IoError(path, "unlink", EISDIR);
  if (files_.erase(path) == 0) {
    return absl::NotFoundError(
        base::StrCat(path, ": unlink: ", std::strerror(ENOENT)));
  }
  return absl::OkStatus();
}

bool MemEnv::FileExists(const std::string& path) {
  absl::MutexLock lock(&mu_);
  return files_.contains(path) || dirs_.contains(path);
}

bool MemEnv::IsDirectory(const std::string& path) {
  absl::MutexLock lock(&mu_);
  return dirs_.contains(path);
}

absl::Status MemEnv::CreateDir(const std::string& path) {
  absl::MutexLock lock(&mu_);
  // As mkdir: a file or folder already there is EEXIST, which is OK.
  if (dirs_.contains(path) || files_.contains(path)) return absl::OkStatus();
  if (!dirs_.contains(base::ParentDir(path)))
    return IoError(path, "mkdir", ENOENT);
  dirs_.insert(path);
  return absl::OkStatus();
}

absl::Status MemEnv::SyncDir(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (!dirs_.contains(path)) return IoError(path, "open folder", ENOENT);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<base::DirEntry>> MemEnv::ListDir(
    const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (!dirs_.contains(path)) {
    return IoError(path, "opendir", files_.contains(path) ? ENOTDIR : ENOENT);
  }
  const std::string prefix = path == "/" ? "/" : path + "/";
  std::vector<base::DirEntry> entries;
  // Direct children only: the rest of the name holds no '/'.
  auto child = [&](const std::string& name) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           name.find('/', prefix.size()) == std::string::npos;
  };
  // No symbolic links in memory.
  for (const std::string& dir : dirs_) {
    if (child(dir))
      entries.push_back(base::DirEntry{dir.substr(prefix.size()),
                                       /*is_directory=*/true,
                                       /*is_symlink=*/false});
  }
  for (const auto& [file, data] : files_) {
    if (child(file))
      entries.push_back(base::DirEntry{file.substr(prefix.size()),
                                       /*is_directory=*/false,
                                       /*is_symlink=*/false});
  }
  return entries;
}

absl::StatusOr<std::unique_ptr<base::FileLockHandle>> MemEnv::LockFile(
    const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (const int error = CheckNewFile(path); error != 0) {
    return absl::UnavailableError(base::StrCat(
        path, ": cannot open the lock file: ", std::strerror(error)));
  }
  if (locked_.contains(path)) {
    return absl::FailedPreconditionError(
        base::StrCat(path, ": locked by another process (pid ", ::getpid(),
                     "): one process at a time may use this folder"));
  }
  std::shared_ptr<FileData>& data = files_[path];
  if (data == nullptr) data = std::make_shared<FileData>();
  data->bytes = base::StrCat(::getpid(), "\n");
  locked_.insert(path);
  return std::make_unique<Lock>(this, path);
}

absl::Time MemEnv::Now() { return clock_.Now(); }

}  // namespace profdiff::test_support
