// Workers' operator, kernel and memory tables reduced into a digest's rows
// (protos/profdiff/v1/digest.proto): one row per key in first-seen order (the
// workers added by rank), each metric a ReducedMetric of the workers that have
// the row (analysis/worker_series.h). The whole run's tables and every module
// node's go through the same functions.
#ifndef PROFDIFF_ANALYSIS_DIGEST_TABLES_H_
#define PROFDIFF_ANALYSIS_DIGEST_TABLES_H_

#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <google/protobuf/repeated_ptr_field.h>

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Metric positions in the digest rows' `metrics`.
enum DigestOperatorMetric {
  kOperatorCalls,
  kOperatorHostSelf,
  kOperatorHostTotal,
  kOperatorDeviceSelf,
  kOperatorDeviceTotal,
  kOperatorMetrics
};
enum DigestKernelMetric { kKernelCalls, kKernelTotal, kKernelMetrics };
enum DigestMemoryMetric {
  kMemoryCount,
  kMemoryBytes,
  kMemorySelfIncrease,
  kMemoryTotalBytes,
  kMemoryIncrease,
  kMemoryMetrics
};

// Where each row key (name and input shapes or launching op) is in a table.
// The keys view the table's own rows (a row stays where it is as rows are
// added), so a lookup copies no string: this was a third of reducing a large
// profile. An index must not outlive its table, nor the table's rows be
// renamed while it is in use.
using RowIndex =
    absl::flat_hash_map<std::pair<std::string_view, std::string_view>, int>;
// Memory rows: (detail, name, device).
using MemoryRowIndex = absl::flat_hash_map<
    std::tuple<std::string_view, std::string_view, std::string_view>, int>;

// Adds one worker's rows (it kept `kept_steps` steps) to `out`.
void AddOperatorRows(
    const google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows,
    int kept_steps, RowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestOperatorRow>& out);
void AddKernelRows(
    const google::protobuf::RepeatedPtrField<v1::KernelStats>& rows,
    int kept_steps, RowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestKernelRow>& out);
void AddOperatorMemoryRows(
    const google::protobuf::RepeatedPtrField<v1::OperatorMemory>& rows,
    int kept_steps, MemoryRowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestMemoryRow>& out);
void AddModuleMemoryRows(
    const google::protobuf::RepeatedPtrField<v1::ModuleMemory>& rows,
    int kept_steps, MemoryRowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestMemoryRow>& out);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_DIGEST_TABLES_H_
