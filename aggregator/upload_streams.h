// Every open Upload stream of the aggregator, so that their number is capped in
// total and a stream that goes quiet is ended: without that, idle streams (a
// hostile client, or agents frozen behind a dead connection) hold memory and
// span leases without bound.
#ifndef PROFDIFF_AGGREGATOR_UPLOAD_STREAMS_H_
#define PROFDIFF_AGGREGATOR_UPLOAD_STREAMS_H_

#include <set>
#include <thread>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <absl/time/time.h>

namespace profdiff::aggregator {

// A stream the registry can end.
class IdleStream {
 public:
  virtual ~IdleStream() = default;
  // Called with the registry locked (so the stream is alive): when the stream
  // has waited on its client for longer than `idle`, claims its end and returns
  // what ends it, to be run once the registry is unlocked; else an empty
  // function.
  virtual absl::AnyInvocable<void()> ExpireIfIdle(absl::Time now,
                                                  absl::Duration idle) = 0;
};

class UploadStreams {
 public:
  // Sweeps every `idle / 4` (at least every 10 ms, at most every 5 s).
  UploadStreams(int max_streams, absl::Duration idle_timeout);
  ~UploadStreams();  // stops the sweeper
  UploadStreams(const UploadStreams&) = delete;
  UploadStreams& operator=(const UploadStreams&) = delete;

  // Registers a new stream; false (it is not registered) when max_streams are
  // open.
  bool Add(IdleStream* stream);
  // Unregisters `stream` (before it is destroyed).
  void Remove(IdleStream* stream);
  int open() const;
  int max_streams() const { return max_streams_; }
  absl::Duration idle_timeout() const { return idle_timeout_; }

 private:
  void Sweep();

  const int max_streams_;
  const absl::Duration idle_timeout_;
  mutable absl::Mutex mu_;
  std::set<IdleStream*> streams_ ABSL_GUARDED_BY(mu_);
  absl::Notification stop_;
  std::thread sweeper_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_UPLOAD_STREAMS_H_
