#include "differ/memory_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/digest_tables.h"
#include "differ/change_class.h"
#include "differ/table_diff.h"

namespace profdiff::differ {
namespace {

using analysis::kMemoryBytes;
using analysis::kMemoryCount;
using analysis::kMemoryIncrease;
using analysis::kMemorySelfIncrease;
using analysis::kMemoryTotalBytes;
using Metrics = google::protobuf::RepeatedPtrField<v1::ReducedMetric>;
using Rows = google::protobuf::RepeatedPtrField<v1::DigestMemoryRow>;

// One row key with both sides' rows.
struct MemoryEntry {
  const v1::DigestMemoryRow* rows[2] = {nullptr, nullptr};
  const Metrics* metrics(int side) const {
    return rows[side] != nullptr ? &rows[side]->metrics() : nullptr;
  }
};

std::vector<MemoryEntry> Entries(const Rows& a, const Rows& b) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  std::vector<MemoryEntry> entries;
  const Rows* tables[2] = {&a, &b};
  for (int side = 0; side < 2; ++side) {
    for (const v1::DigestMemoryRow& row : *tables[side]) {
      auto [it, inserted] = index.try_emplace(
          std::tuple(row.detail(), row.name(), row.device()), entries.size());
      if (inserted) entries.emplace_back();
      entries[it->second].rows[side] = &row;
    }
  }
  return entries;
}

void SetValues(const Side& side, const v1::DigestMemoryRow* row,
               v1::MemoryValues& out) {
  const Metrics* m = row != nullptr ? &row->metrics() : nullptr;
  out.set_calls(row == nullptr
                    ? 0
                    : side.Mean(side.per_step() ? row->calls_per_step()
                                                : row->calls_total()));
  out.set_allocation_count(side.Value(m, kMemoryCount));
  out.set_allocation_bytes(side.Value(m, kMemoryBytes));
  out.set_self_increase_bytes(side.Value(m, kMemorySelfIncrease));
  out.set_total_allocation_bytes(side.Value(m, kMemoryTotalBytes));
  out.set_increase_bytes(side.Value(m, kMemoryIncrease));
  out.set_peak_allocated_bytes(row != nullptr ? row->peak_allocated_bytes()
                                              : 0);
}

std::vector<v1::MemoryRowDiff> DiffRows(const Side& a, const Rows& a_rows,
                                        const Side& b, const Rows& b_rows,
                                        const ChangeThreshold& threshold) {
  // Bytes are not microseconds: only the relative threshold applies.
  const ChangeThreshold bytes_threshold{threshold.min_pct, 0};
  const Side* sides[2] = {&a, &b};
  std::vector<v1::MemoryRowDiff> out;
  for (const MemoryEntry& entry : Entries(a_rows, b_rows)) {
    const v1::DigestMemoryRow& any =
        *(entry.rows[1] != nullptr ? entry.rows[1] : entry.rows[0]);
    v1::MemoryRowDiff& row = out.emplace_back();
    row.set_name(any.name());
    row.set_detail(any.detail());
    row.set_device(any.device());
    row.set_kind(any.kind());
    SetValues(a, entry.rows[0], *row.mutable_baseline());
    SetValues(b, entry.rows[1], *row.mutable_experimental());
    SetDeltas(row);
    auto noise = [&](int m) {
      return CompareMoments(sides[0]->Samples(entry.metrics(0), m),
                            sides[1]->Samples(entry.metrics(1), m),
                            bytes_threshold);
    };
    *row.mutable_allocation_noise() = noise(kMemoryBytes);
    *row.mutable_increase_noise() = noise(kMemorySelfIncrease);
    const bool by_bytes = row.baseline().allocation_bytes() != 0 ||
                          row.experimental().allocation_bytes() != 0;
    row.set_compared(by_bytes ? v1::MEMORY_COMPARED_ALLOCATION_BYTES
                              : v1::MEMORY_COMPARED_SELF_INCREASE_BYTES);
    row.set_change(
        ChangeClass(entry.rows[0] != nullptr, entry.rows[1] != nullptr,
                    by_bytes ? row.baseline().allocation_bytes()
                             : row.baseline().self_increase_bytes(),
                    by_bytes ? row.experimental().allocation_bytes()
                             : row.experimental().self_increase_bytes(),
                    by_bytes ? row.allocation_noise() : row.increase_noise(),
                    bytes_threshold));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::MemoryRowDiff& x, const v1::MemoryRowDiff& y) {
                     const double bx = std::abs(x.delta().allocation_bytes());
                     const double by = std::abs(y.delta().allocation_bytes());
                     if (bx != by) return bx > by;
                     return std::abs(x.delta().self_increase_bytes()) >
                            std::abs(y.delta().self_increase_bytes());
                   });
  return out;
}

void DiffDevices(const Side& a, const Side& b, v1::MemoryDiff& out) {
  std::map<std::string, v1::DeviceMemoryDiff> devices;
  const Side* sides[2] = {&a, &b};
  for (int s = 0; s < 2; ++s) {
    for (const v1::DigestDeviceMemory& m :
         sides[s]->digest().memory().devices()) {
      v1::DeviceMemoryDiff& d = devices[m.device()];
      d.set_device(m.device());
      d.set_allocated_from_bytes(d.allocated_from_bytes() ||
                                 m.allocated_from_bytes());
      const double workers = std::max(m.workers(), 1);
      if (s == 0) {
        *d.mutable_baseline_peak() = m.peak();
        *d.mutable_baseline_curve() = m.curve();
        d.set_baseline_peak_bytes(m.peak_sum() / workers);
        d.set_baseline_average_bytes(m.average_sum() / workers);
        d.set_baseline_peak_reserved_bytes(m.reserved_sum() / workers);
      } else {
        *d.mutable_experimental_peak() = m.peak();
        *d.mutable_experimental_curve() = m.curve();
        d.set_experimental_peak_bytes(m.peak_sum() / workers);
        d.set_experimental_average_bytes(m.average_sum() / workers);
        d.set_experimental_peak_reserved_bytes(m.reserved_sum() / workers);
      }
    }
  }
  for (auto& [name, d] : devices) *out.add_devices() = std::move(d);
}

}  // namespace

v1::MemoryDiff DiffMemory(const Side& a, const Side& b,
                          const ChangeThreshold& threshold) {
  v1::MemoryDiff out;
  out.set_baseline_source(a.digest().memory().source());
  out.set_experimental_source(b.digest().memory().source());
  DiffDevices(a, b, out);
  for (v1::MemoryRowDiff& row :
       DiffRows(a, a.digest().memory().operators(), b,
                b.digest().memory().operators(), threshold)) {
    *out.add_operators() = std::move(row);
  }
  for (v1::MemoryRowDiff& row :
       DiffRows(a, a.digest().memory().modules(), b,
                b.digest().memory().modules(), threshold)) {
    *out.add_modules() = std::move(row);
  }
  return out;
}

}  // namespace profdiff::differ
