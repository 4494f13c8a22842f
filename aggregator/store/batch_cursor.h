// Reading one stored span's EventBatches back one at a time, whichever store
// holds them, so a reader holds one chunk in memory rather than the span
// (exports, profile builds).
#ifndef PROFDIFF_AGGREGATOR_STORE_BATCH_CURSOR_H_
#define PROFDIFF_AGGREGATOR_STORE_BATCH_CURSOR_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::aggregator {

class BatchCursor {
 public:
  virtual ~BatchCursor() = default;
  // The next batch (a serialized EventBatch, sequences 0, 1, 2, ... in order),
  // or nullopt after the last. The view stays valid until the next call.
  // DataLoss naming the file or chunk when a stored record is damaged or a
  // sequence is missing.
  virtual absl::StatusOr<std::optional<std::string_view>> Next() = 0;
};

// Batches held in memory (not owned; they outlive the cursor), in order.
class BatchesInMemory final : public BatchCursor {
 public:
  explicit BatchesInMemory(const std::vector<std::string>* batches)
      : batches_(batches) {}
  absl::StatusOr<std::optional<std::string_view>> Next() override {
    if (next_ == batches_->size()) return std::nullopt;
    return std::optional<std::string_view>((*batches_)[next_++]);
  }

 private:
  const std::vector<std::string>* batches_;
  size_t next_ = 0;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_BATCH_CURSOR_H_
