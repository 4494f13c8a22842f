// Counts the open Upload streams of each agent id, so that one agent (a bug, or
// a restart storm that leaves half-open streams behind) cannot take every
// stream the aggregator serves. The id is what the client says: this guards
// against faulty agents, not hostile clients (those are kept out by TLS and
// tokens).
#ifndef PROFDIFF_AGGREGATOR_OPEN_STREAMS_H_
#define PROFDIFF_AGGREGATOR_OPEN_STREAMS_H_

#include <map>
#include <string>

#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::aggregator {

class OpenStreams {
 public:
  // The right of one stream to stay open; gives its place back when destroyed.
  class Slot {
   public:
    Slot(Slot&& other) noexcept
        : owner_(other.owner_), agent_(std::move(other.agent_)) {
      other.owner_ = nullptr;
    }
    Slot& operator=(Slot&&) = delete;
    ~Slot();

   private:
    friend class OpenStreams;
    Slot(OpenStreams* owner, std::string agent)
        : owner_(owner), agent_(std::move(agent)) {}
    OpenStreams* owner_;
    std::string agent_;
  };

  explicit OpenStreams(int max_per_agent) : max_per_agent_(max_per_agent) {}

  // A slot for one more stream of `agent_id`; Unavailable naming the limit
  // (retry later) when the agent holds max_per_agent already. The slots must
  // not outlive this object.
  absl::StatusOr<Slot> Acquire(const std::string& agent_id);
  int open(const std::string& agent_id) const;

 private:
  void Release(const std::string& agent_id);

  const int max_per_agent_;
  mutable absl::Mutex mutex_;
  std::map<std::string, int> open_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_OPEN_STREAMS_H_
