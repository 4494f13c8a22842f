// What the local store's files share (local_store.cc: opening, the write path
// and the reads; local_store_recovery.cc: recovery at open): the run index's
// entries, the manifest reads and writes, and a worker's closed spans. Not part
// of the store's contract.
#ifndef PROFDIFF_AGGREGATOR_LOCAL_INTERNAL_STORE_PARTS_H_
#define PROFDIFF_AGGREGATOR_LOCAL_INTERNAL_STORE_PARTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/time/time.h>
#include <google/protobuf/message_lite.h>

#include "aggregator/local/local_store.h"
#include "aggregator/local/segment_log.h"
#include "aggregator/store/rewritten_spans.h"
#include "aggregator/store/stored_spans.h"
#include "aggregator/store/upload_rules.h"
#include "base/atomic_file.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "profdiff/v1/store.pb.h"

namespace profdiff::aggregator {

// Index entries. Fields are guarded by LocalStore::mu_, except `writer` and
// `scan`, which only the holder of the span's lease touches.
struct LocalStore::SpanEntry {
  std::string dir;
  v1::SpanManifest manifest;
  int64_t durable_sequence = -1;
  int64_t event_count = 0;
  uint64_t stored_bytes = 0;
  bool leased = false;
  // Set when start-up found the span damaged (INCOMPLETE until its agent sends
  // it again).
  std::string problem;
  bool manifest_lost =
      false;      // span.pb did not parse: written again when the span reopens
  SpanScan scan;  // segments found at start-up, for the first writer
  std::optional<SegmentWriter> writer;

  bool closed() const {
    return manifest.state() == v1::SPAN_STATE_CLOSED && problem.empty();
  }
};

// The profile fields are a cache that reads may fill (StoreWorkerProfile is
// const): mutable, and guarded by mu_ like the rest.
struct LocalStore::WorkerEntry {
  std::string dir;
  v1::WorkerInfo info;  // from the latest span header
  std::map<std::string, SpanEntry> spans;
  mutable uint64_t next_generation = 1;
  mutable uint64_t profile_generation = 0;  // 0 = no stored profile
  mutable std::vector<std::string> profile_spans;
  mutable int32_t step_count = 0;
  mutable std::string
      profile_problem;  // why the latest build could not be stored
};

struct LocalStore::RunEntry {
  std::string dir;
  v1::RunManifest manifest;
  std::map<std::string, WorkerEntry> workers;  // by "<rank>.<worker name>"
  absl::Time last_activity;  // for PARTIAL: restarts give agents the whole
                             // timeout again
  int64_t updated_unix_ms =
      0;  // the last span opened, chunk stored or span closed
  WorldSizeAgreement
      world_size;  // what its spans' distributedInfo say (contract 7)
};

namespace local_parts {

// Manifests are small; a profile is bounded by analysis/profile_limits.h well
// below this.
inline constexpr uint64_t kMaxManifestBytes = 64 << 20;
inline constexpr uint64_t kMaxProfileFileBytes = uint64_t{1} << 30;

inline int64_t UnixMillis(absl::Time time) { return absl::ToUnixMillis(time); }

inline absl::Status WriteProto(base::Env& env, const std::string& path,
                               const google::protobuf::MessageLite& message) {
  return base::WriteFileAtomically(env, path, message.SerializeAsString());
}

// Reads a proto file; DataLoss when it does not parse.
inline absl::Status ReadProto(base::Env& env, const std::string& path,
                              google::protobuf::MessageLite& message,
                              uint64_t max_bytes = kMaxManifestBytes) {
  std::string bytes;
  PD_RETURN_IF_ERROR(env.ReadFileInto(path, max_bytes, bytes));
  if (!message.ParseFromString(bytes)) {
    return absl::DataLossError(
        base::StrCat(path, ": does not parse as ", message.GetTypeName()));
  }
  return absl::OkStatus();
}

// The worker's closed spans that a newer version of their trace file replaces
// (aggregator/store/rewritten_spans.h).
std::vector<ReplacedSpan> ReplacedSpansOf(
    const LocalStore::WorkerEntry& worker);

// The closed spans a worker's profile, digest and export count: all but those
// a newer version of their file replaces. Their reads go through `env`.
std::vector<StoredSpan> ClosedSpansOf(base::Env& env,
                                      const LocalStore::WorkerEntry& worker);

// A span of the data folder, read from its segments.
StoredSpan SegmentSpan(base::Env& env, const std::string& id,
                       const LocalStore::SpanEntry& span);

}  // namespace local_parts

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_LOCAL_INTERNAL_STORE_PARTS_H_
