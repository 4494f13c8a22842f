// The names of every file and folder in the local store's data folder (like
// LevelDB's filename.h): the store, its recovery and the segment log build
// paths only here, so the tree below is the whole layout.
//
//   <data>/
//     LOCK                        flock'ed while a store has the folder open
//     runs/
//       <run>/
//         run.pb                  RunManifest
//         digests/
//           <key hash>@<version>.pb   a kept run digest (store/kept_digest.h)
//         workers/
//           <rank>.<worker>/      WorkerKey (store/worker_selector.h)
//             profile-<generation>.pb   StoredWorkerProfile, newest kept
//             spans/
//               <span>/
//                 span.pb         SpanManifest
//                 seg-<NNNNNN>.log    segments (segment_log.h)
//                 quarantine/     damaged bytes set aside at start-up:
//                   seg-<NNNNNN>.log            whole, when span.pb was lost
//                   seg-<NNNNNN>.log.<byte>.bad a damaged range
//
// Beside any file may lie "<name>.tmp.<pid>.<n>": an atomic write
// (base/atomic_file.h) a crash interrupted, removed at open.
#ifndef PROFDIFF_AGGREGATOR_LOCAL_STORE_LAYOUT_H_
#define PROFDIFF_AGGREGATOR_LOCAL_STORE_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/env.h"
#include "profdiff/v1/trace.pb.h"

namespace profdiff::aggregator {

// The last part of a path these functions built ("seg-000001.log").
std::string FileName(const std::string& path);

// The data folder.
std::string LockPath(const std::string& data_dir);
std::string RunsDir(const std::string& data_dir);

// A run's folder and what it holds. `run` is a validated id (a file name).
std::string RunDir(const std::string& data_dir, const std::string& run);
std::string RunManifestPath(const std::string& run_dir);
std::string WorkersDir(const std::string& run_dir);
std::string DigestsDir(const std::string& run_dir);
// A kept digest's file, and the start every version of one key's file shares
// (the key and the version are not file names: the key is hashed, a '/' in the
// version replaced).
std::string DigestPath(const std::string& run_dir, const std::string& key,
                       const std::string& version);
std::string DigestFileStem(const std::string& key);

// A worker's folder, by its key "<rank>.<name>" (WorkerKey).
std::string WorkerDir(const std::string& run_dir,
                      const std::string& worker_key);
// Rank and name of a worker folder "<rank>.<name>", for a span whose manifest
// was lost: rank 0 when the rank does not parse, world size rank + 1.
v1::WorkerInfo WorkerOfFolder(const std::string& worker_key);
std::string ProfilePath(const std::string& worker_dir, uint64_t generation);
// The generations of the profile files in a worker folder, ascending; other
// files are ignored.
std::vector<uint64_t> ProfileGenerations(base::Env& env,
                                         const std::string& worker_dir);

// A span's folder and what it holds.
std::string SpansDir(const std::string& worker_dir);
std::string SpanDir(const std::string& worker_dir, const std::string& span);
std::string SpanManifestPath(const std::string& span_dir);
std::string SegmentPath(const std::string& span_dir, int index);
bool IsSegmentName(const std::string& name);
// N of ".../seg-N.log" (a path IsSegmentName accepts); 0 when N is not a
// number.
int SegmentNumber(const std::string& segment_path);
std::string QuarantineDir(const std::string& span_dir);
// Where a whole segment, or its damaged bytes from `offset` on, are set aside.
std::string QuarantinedSegmentPath(const std::string& span_dir,
                                   const std::string& segment_path);
std::string QuarantinedRangePath(const std::string& span_dir,
                                 const std::string& segment_path,
                                 uint64_t offset);

// The names of the folders in `dir`, sorted; none when it cannot be read.
std::vector<std::string> SubFolders(base::Env& env, const std::string& dir);
// Removes the temp files interrupted atomic writes left under `dir`, at any
// depth but never through a symbolic link; returns how many.
int RemoveTempFiles(base::Env& env, const std::string& dir);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_LOCAL_STORE_LAYOUT_H_
