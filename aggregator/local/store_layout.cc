#include "aggregator/local/store_layout.h"

#include <algorithm>
#include <cctype>

#include <absl/strings/numbers.h>
#include <absl/strings/str_format.h>

#include "base/stable_hash.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

namespace {

// The entries of `dir`, none when it cannot be read (the layout's readers skip
// what is not there).
std::vector<base::DirEntry> EntriesOf(base::Env& env, const std::string& dir) {
  absl::StatusOr<std::vector<base::DirEntry>> entries = env.ListDir(dir);
  if (!entries.ok()) return {};
  return *std::move(entries);
}

}  // namespace

std::string FileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string LockPath(const std::string& data_dir) { return data_dir + "/LOCK"; }

std::string RunsDir(const std::string& data_dir) { return data_dir + "/runs"; }

std::string RunDir(const std::string& data_dir, const std::string& run) {
  return base::StrCat(RunsDir(data_dir), "/", run);
}

std::string RunManifestPath(const std::string& run_dir) {
  return run_dir + "/run.pb";
}

std::string WorkersDir(const std::string& run_dir) {
  return run_dir + "/workers";
}

std::string DigestsDir(const std::string& run_dir) {
  return run_dir + "/digests";
}

std::string DigestFileStem(const std::string& key) {
  return base::StrCat(base::StableHashHex(key), "@");
}

std::string DigestPath(const std::string& run_dir, const std::string& key,
                       const std::string& version) {
  std::string name = base::StrCat(DigestFileStem(key), version, ".pb");
  std::replace(name.begin(), name.end(), '/', '-');
  return base::StrCat(DigestsDir(run_dir), "/", name);
}

std::string WorkerDir(const std::string& run_dir,
                      const std::string& worker_key) {
  return base::StrCat(WorkersDir(run_dir), "/", worker_key);
}

v1::WorkerInfo WorkerOfFolder(const std::string& worker_key) {
  v1::WorkerInfo info;
  const size_t dot = worker_key.find('.');
  int32_t rank = 0;
  if (!absl::SimpleAtoi(worker_key.substr(0, dot), &rank) || rank < 0) rank = 0;
  info.set_rank(rank);
  info.set_world_size(rank + 1);
  info.set_worker_name(dot == std::string::npos ? worker_key
                                                : worker_key.substr(dot + 1));
  return info;
}

std::string ProfilePath(const std::string& worker_dir, uint64_t generation) {
  return base::StrCat(worker_dir, "/profile-", generation, ".pb");
}

std::vector<uint64_t> ProfileGenerations(base::Env& env,
                                         const std::string& worker_dir) {
  std::vector<uint64_t> generations;
  for (const base::DirEntry& entry : EntriesOf(env, worker_dir)) {
    const std::string& name = entry.name;
    if (entry.is_directory) continue;
    if (!name.starts_with("profile-") || !name.ends_with(".pb")) continue;
    const std::string digits = name.substr(8, name.size() - 11);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; })) {
      continue;
    }
    generations.push_back(std::stoull(digits));
  }
  std::sort(generations.begin(), generations.end());
  return generations;
}

std::string SpansDir(const std::string& worker_dir) {
  return worker_dir + "/spans";
}

std::string SpanDir(const std::string& worker_dir, const std::string& span) {
  return base::StrCat(SpansDir(worker_dir), "/", span);
}

std::string SpanManifestPath(const std::string& span_dir) {
  return span_dir + "/span.pb";
}

std::string SegmentPath(const std::string& span_dir, int index) {
  return base::StrCat(span_dir, "/", absl::StrFormat("seg-%06d.log", index));
}

bool IsSegmentName(const std::string& name) {
  return name.starts_with("seg-") && name.ends_with(".log");
}

int SegmentNumber(const std::string& segment_path) {
  const std::string name = FileName(segment_path);
  int number = 0;
  return absl::SimpleAtoi(name.substr(4, name.size() - 8), &number) ? number
                                                                    : 0;
}

std::string QuarantineDir(const std::string& span_dir) {
  return span_dir + "/quarantine";
}

std::string QuarantinedSegmentPath(const std::string& span_dir,
                                   const std::string& segment_path) {
  return base::StrCat(QuarantineDir(span_dir), "/", FileName(segment_path));
}

std::string QuarantinedRangePath(const std::string& span_dir,
                                 const std::string& segment_path,
                                 uint64_t offset) {
  return base::StrCat(QuarantinedSegmentPath(span_dir, segment_path), ".",
                      offset, ".bad");
}

std::vector<std::string> SubFolders(base::Env& env, const std::string& dir) {
  std::vector<std::string> names;
  for (const base::DirEntry& entry : EntriesOf(env, dir)) {
    if (entry.is_directory) names.push_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The temp names are "<name>.tmp.<pid>.<n>" (base/atomic_file.h).
int RemoveTempFiles(base::Env& env, const std::string& dir) {
  int removed = 0;
  for (const base::DirEntry& entry : EntriesOf(env, dir)) {
    // The store never makes links: one is someone else's, and what it points
    // to may lie outside the data folder (or lead back into it).
    if (entry.is_symlink) continue;
    const std::string path = base::StrCat(dir, "/", entry.name);
    if (entry.is_directory) {
      removed += RemoveTempFiles(env, path);
    } else if (entry.name.find(".tmp.") != std::string::npos &&
               env.RemoveFile(path).ok()) {
      ++removed;
    }
  }
  return removed;
}

}  // namespace profdiff::aggregator
