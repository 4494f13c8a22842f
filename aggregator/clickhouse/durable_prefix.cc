#include "aggregator/clickhouse/durable_prefix.h"

namespace profdiff::aggregator::clickhouse {

void DurablePrefix::Stored(int64_t sequence, int64_t events, uint64_t bytes) {
  if (sequence <= durable_) return;
  ahead_.emplace(sequence, std::pair{events, bytes});
  while (!ahead_.empty() && ahead_.begin()->first == durable_ + 1) {
    durable_ = ahead_.begin()->first;
    events_ += ahead_.begin()->second.first;
    bytes_ += ahead_.begin()->second.second;
    ahead_.erase(ahead_.begin());
  }
}

}  // namespace profdiff::aggregator::clickhouse
