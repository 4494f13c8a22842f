// The files of one `profdiff-agent upload`, handed out to its workers in the
// order given, and whether each was acknowledged. With `repeats_together`,
// the occurrences of one path (made absolute as UploadPath makes it) are one
// group, which one worker uploads in turn: writes of one state record must not
// race (AgentStateStore), and the later ones find the span DONE and send
// nothing. Without it (one worker), each path is its own group, in order.
//
// Each file in flight is read and held while it uploads, so the groups out at
// once are bounded by their bytes on disk as well as by the workers: many
// small rank traces go together (the aggregator batches their spans' inserts
// and lookups), a few large ones do not all sit in memory at once. A group
// larger than the bound goes alone. Thread-safe.
#ifndef PROFDIFF_AGENT_UPLOAD_QUEUE_H_
#define PROFDIFF_AGENT_UPLOAD_QUEUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::agent {

class UploadQueue {
 public:
  // `paths` is borrowed. `max_bytes_out`: the bytes on disk of the groups out
  // at once (0: no bound).
  UploadQueue(const std::vector<std::string>& paths, bool repeats_together,
              uint64_t max_bytes_out = 0);

  size_t group_count() const { return groups_.size(); }

  // One group handed out: the indices into the paths, in order.
  struct Group {
    std::vector<size_t> indices;
    uint64_t bytes = 0;
  };
  // The next group, once its bytes fit beside those out (at once when none
  // is out); empty when none is left. Give it back with Done.
  Group Next() ABSL_LOCKS_EXCLUDED(mu_);
  void Done(const Group& group) ABSL_LOCKS_EXCLUDED(mu_);

  void Record(size_t index, bool acknowledged) ABSL_LOCKS_EXCLUDED(mu_);
  // The paths recorded as not acknowledged, in the order given.
  std::vector<std::string> Failed() const ABSL_LOCKS_EXCLUDED(mu_);

  // Groups out now, and the most out at once so far (for tests).
  int out() const ABSL_LOCKS_EXCLUDED(mu_);
  int most_out() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::vector<std::string>& paths_;
  std::vector<Group> groups_;  // set once, by the constructor
  const uint64_t max_bytes_out_;
  mutable absl::Mutex mu_;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t bytes_out_ ABSL_GUARDED_BY(mu_) = 0;
  int out_ ABSL_GUARDED_BY(mu_) = 0;
  int most_out_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<bool> failed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_UPLOAD_QUEUE_H_
