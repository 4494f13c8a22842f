// The on-demand captures this agent armed, kept in its state dir
// (<state dir>/captures/<capture id>.capture, protobuf text, replaced
// atomically), so that an agent restarted in the middle of a capture answers a
// repeated order as it did, arms no process twice, and uploads from a
// capture's folders only the trace files it told its processes to write.
//
// Design:
// 1. Record() runs once an order is answered and before the answer leaves, so
//    an answer the aggregator saw is never forgotten; MarkConfigTaken() when a
//    Kineto process takes its config, so a restarted agent never hands it out
//    again.
// 2. A capture is kept until kKeepAfterDeadline past its deadline (a trace
//    written near the deadline still settles and uploads), then forgotten and
//    its record removed. A cancelled one is kept, marked, so a repeated order
//    still gets its first answer, and uploads nothing more.
// 3. AdmitTraceFile is the only way a file below LOGDIR/profdiff-captures/ is
//    uploaded: it must be one a kept, uncancelled capture told a process to
//    write, a regular file (not a link), owned by that process's uid, and
//    last written before the capture's deadline.
// Thread-safe.
#ifndef PROFDIFF_AGENT_ARMED_CAPTURES_H_
#define PROFDIFF_AGENT_ARMED_CAPTURES_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "profdiff/v1/agent_state.pb.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::agent {

// Design note 2.
inline constexpr absl::Duration kKeepAfterDeadline = absl::Minutes(10);

class ArmedCaptures {
 public:
  // Opens <state_dir>/captures (made when missing) and loads every record;
  // one that does not parse is logged and removed, one past its keep time
  // removed. Errors name the folder: the errno's code when it cannot be made
  // or listed.
  static absl::StatusOr<std::unique_ptr<ArmedCaptures>> Open(
      const std::string& state_dir, absl::Time now);

  // Keeps `capture` durably (design note 1). The errno's code naming the
  // record when it cannot be written; the capture is kept in memory anyway.
  absl::Status Record(v1::ArmedCapture capture) ABSL_LOCKS_EXCLUDED(mu_);
  // Notes that process `host_pid` took its config of `capture_id`.
  void MarkConfigTaken(std::string_view capture_id, int32_t host_pid)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Marks `capture_id` cancelled; false when it is not kept here.
  bool Cancel(std::string_view capture_id) ABSL_LOCKS_EXCLUDED(mu_);

  // The answer given to `capture_id`, when it is kept.
  std::optional<v1::CaptureAnswer> AnswerOf(std::string_view capture_id) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // The kept captures whose deadline is after `now`, cancelled ones too
  // (their processes that took a config are still busy).
  std::vector<v1::ArmedCapture> Running(absl::Time now) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Design note 3 for the file at absolute `path`. PermissionDenied saying
  // which rule it broke (and, for a file no capture expects, which capture
  // folder it is in).
  absl::Status AdmitTraceFile(const std::string& path, absl::Time now) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets the captures past their keep time (design note 2).
  void Expire(absl::Time now) ABSL_LOCKS_EXCLUDED(mu_);

  // Use Open().
  explicit ArmedCaptures(std::string folder) : folder_(std::move(folder)) {}

 private:
  std::string RecordPath(std::string_view capture_id) const;
  absl::Status Write(const v1::ArmedCapture& capture) const;
  void Remove(std::string_view capture_id) const;

  const std::string folder_;
  mutable absl::Mutex mu_;
  std::map<std::string, v1::ArmedCapture, std::less<>> captures_
      ABSL_GUARDED_BY(mu_);
  // Taken before mu_: records are written one at a time, in the order their
  // changes were made.
  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_ARMED_CAPTURES_H_
