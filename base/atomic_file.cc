#include "base/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/str_cat.h"

namespace profdiff::base {

absl::Status CreateDirectoriesDurably(Env& env, const std::string& path) {
  if (env.IsDirectory(path)) return absl::OkStatus();
  const std::string parent = ParentDir(path);
  if (parent != path) {
    if (absl::Status status = CreateDirectoriesDurably(env, parent);
        !status.ok())
      return status;
  }
  if (absl::Status status = env.CreateDir(path); !status.ok()) return status;
  return env.SyncDir(parent);
}

absl::Status CreateDirectoriesDurably(const std::string& path) {
  return CreateDirectoriesDurably(*Env::Default(), path);
}

absl::Status WriteFileAtomically(Env& env, const std::string& path,
                                 std::string_view bytes) {
  // Unique per process and call, so two writers of one path never share a temp
  // file.
  static std::atomic<uint64_t> counter{0};
  const std::string temp = StrCat(path, ".tmp.", ::getpid(), ".", counter++);
  {
    absl::StatusOr<std::unique_ptr<WritableFile>> file =
        env.NewWritableFile(temp);
    if (!file.ok()) return file.status();
    absl::Status status = (*file)->Append(bytes);
    if (status.ok()) status = (*file)->Sync();
    if (!status.ok()) {
      env.RemoveFile(temp).IgnoreError();  // what is left of it is of no use
      return status;
    }
  }
  if (absl::Status status = env.RenameFile(temp, path); !status.ok()) {
    env.RemoveFile(temp).IgnoreError();
    return status;
  }
  return env.SyncDir(ParentDir(path));
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes) {
  return WriteFileAtomically(*Env::Default(), path, bytes);
}

}  // namespace profdiff::base
