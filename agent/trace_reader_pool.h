// The trace readers the workers of one `profdiff-agent upload` share. A reader
// keeps its buffers (the text, the parser's indexes: several times the largest
// file) between files, and a worker holds a file's Trace while it uploads, not
// the reader: so a reader per worker (16 by default) paid the first touch of
// sixteen sets of buffers for reads that only as many cores can run at once.
// At a thousand ranks that was ~12 % of the agents' CPU in page faults on a
// 2-core machine. Thread-safe.
#ifndef PROFDIFF_AGENT_TRACE_READER_POOL_H_
#define PROFDIFF_AGENT_TRACE_READER_POOL_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>

#include "trace/kineto_reader.h"
#include "trace/trace.h"

namespace profdiff::agent {

class TraceReaderPool {
 public:
  // At most `max_readers` (at least 1) reads at once, each with a reader of its
  // own, made when first needed and kept.
  explicit TraceReaderPool(size_t max_readers);
  TraceReaderPool(const TraceReaderPool&) = delete;
  TraceReaderPool& operator=(const TraceReaderPool&) = delete;

  // Reads `path` with a free reader, waiting for one when all are reading.
  absl::StatusOr<trace::Trace> ReadFile(const std::string& path)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Readers made so far (for tests).
  size_t readers_made() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const size_t max_readers_;
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<trace::KinetoReader>> free_ ABSL_GUARDED_BY(mu_);
  size_t made_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_TRACE_READER_POOL_H_
