#include "base/env.h"

#include <cstring>
#include <filesystem>

#include "base/str_cat.h"

namespace profdiff::base {

absl::Status IoError(std::string_view path, std::string_view call,
                     int error_number) {
  return absl::UnavailableError(
      StrCat(path, ": ", call, ": ", std::strerror(error_number)));
}

std::string ParentDir(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

absl::StatusOr<std::unique_ptr<WritableFile>> EnvWrapper::NewWritableFile(
    const std::string& path) {
  return target_->NewWritableFile(path);
}

absl::StatusOr<std::unique_ptr<WritableFile>> EnvWrapper::NewAppendableFile(
    const std::string& path) {
  return target_->NewAppendableFile(path);
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>>
EnvWrapper::NewRandomAccessFile(const std::string& path) {
  return target_->NewRandomAccessFile(path);
}

absl::Status EnvWrapper::ReadFileInto(const std::string& path,
                                      uint64_t max_bytes, std::string& out) {
  return target_->ReadFileInto(path, max_bytes, out);
}

absl::StatusOr<uint64_t> EnvWrapper::FileSize(const std::string& path) {
  return target_->FileSize(path);
}

absl::Status EnvWrapper::TruncateFile(const std::string& path,
                                      uint64_t size_bytes) {
  return target_->TruncateFile(path, size_bytes);
}

absl::Status EnvWrapper::RenameFile(const std::string& from,
                                    const std::string& to) {
  return target_->RenameFile(from, to);
}

absl::Status EnvWrapper::RemoveFile(const std::string& path) {
  return target_->RemoveFile(path);
}

bool EnvWrapper::FileExists(const std::string& path) {
  return target_->FileExists(path);
}

bool EnvWrapper::IsDirectory(const std::string& path) {
  return target_->IsDirectory(path);
}

absl::Status EnvWrapper::CreateDir(const std::string& path) {
  return target_->CreateDir(path);
}

absl::Status EnvWrapper::SyncDir(const std::string& path) {
  return target_->SyncDir(path);
}

absl::StatusOr<std::vector<DirEntry>> EnvWrapper::ListDir(
    const std::string& path) {
  return target_->ListDir(path);
}

absl::StatusOr<std::unique_ptr<FileLockHandle>> EnvWrapper::LockFile(
    const std::string& path) {
  return target_->LockFile(path);
}

absl::Time EnvWrapper::Now() { return target_->Now(); }

}  // namespace profdiff::base
