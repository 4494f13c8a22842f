// The ClickHouse store's profiles: built in the background when spans close,
// stored as rows, and reduced to run tables in SQL.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/store/run_tables.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::RowBinaryReader;
using clickhouse::RowBinaryWriter;

using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // store's own parts

void ClickHouseStore::BuildQueuedProfiles() {
  // Profiles stored per insert, at most: a pass holds their rows until it
  // inserts them.
  constexpr size_t kProfilesPerPass = 64;
  for (;;) {
    std::vector<std::pair<std::pair<std::string, std::string>, size_t>> pass;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) builds_queued_.clear();
      while (!builds_queued_.empty() && pass.size() < kProfilesPerPass) {
        pass.emplace_back(builds_queued_.begin()->first,
                          builds_queued_.begin()->second);
        builds_queued_.erase(builds_queued_.begin());
      }
      if (pass.empty()) {
        builder_running_ = false;
        return;
      }
    }
    // Every profile built in a pass goes in one insert per table and home
    // shard: a part per table per closed span would cost the servers more than
    // the rows do.
    std::map<size_t, ProfileRows> by_shard;
    for (const auto& [key, shard] : pass) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_)
          return;  // the rest is dropped: reads build what is missing
      }
      ProfileRows& rows = by_shard[shard];
      const absl::Status built =
          StoreWorkerProfile(key.first, key.second, shard, &rows);
      if (!built.ok()) {
        // The span is closed all the same; the first read of the profile builds
        // it.
        PD_LOG(WARNING, "profile of %s/%s not built now: %s", key.first,
               key.second, built.ToString());
      }
    }
    for (const auto& [shard, rows] : by_shard) {
      if (rows.count == 0) continue;
      if (const absl::Status stored = InsertProfileRows(shard, rows);
          !stored.ok()) {
        PD_LOG(WARNING,
               "%d profiles for shard %d not stored now (reads build them): %s",
               rows.count, shard, stored.ToString());
      }
    }
  }
}

void ClickHouseStore::AppendProfileRows(
    const std::string& run, const std::string& worker, uint64_t generation,
    const v1::WorkerProfile& profile, const std::vector<std::string>& span_ids,
    ProfileRows& out) {
  RowBinaryWriter op_rows(out.operators);
  for (const v1::OperatorStats& op : profile.operators()) {
    op_rows.String(run);
    op_rows.String(worker);
    op_rows.Number<uint64_t>(generation);
    op_rows.String(op.name());
    op_rows.String(op.input_shapes());
    op_rows.Number<int64_t>(op.calls());
    op_rows.Number<double>(op.host_self_us());
    op_rows.Number<double>(op.host_total_us());
    op_rows.Number<double>(op.device_self_us());
    op_rows.Number<double>(op.device_total_us());
    const v1::OperatorValues step =
        OperatorContribution(op, profile.steps_size(), /*per_step=*/true);
    op_rows.Number<double>(step.calls());
    op_rows.Number<double>(step.host_self_us());
    op_rows.Number<double>(step.host_total_us());
    op_rows.Number<double>(step.device_self_us());
    op_rows.Number<double>(step.device_total_us());
  }
  RowBinaryWriter kernel_rows(out.kernels);
  for (const v1::KernelStats& kernel : profile.kernels()) {
    kernel_rows.String(run);
    kernel_rows.String(worker);
    kernel_rows.Number<uint64_t>(generation);
    kernel_rows.String(kernel.name());
    kernel_rows.String(kernel.op_name());
    kernel_rows.Number<int64_t>(kernel.calls());
    kernel_rows.Number<double>(kernel.total_us());
    kernel_rows.Number<double>(kernel.max_us());
    kernel_rows.Number<double>(kernel.min_us());
    const v1::KernelValues step =
        KernelContribution(kernel, profile.steps_size(), /*per_step=*/true);
    kernel_rows.Number<double>(step.calls());
    kernel_rows.Number<double>(step.total_us());
  }
  ++out.count;
  RowBinaryWriter writer(out.profiles);
  writer.String(run);
  writer.String(worker);
  writer.Number<uint64_t>(generation);
  writer.StringArray(span_ids);
  writer.Number<int32_t>(profile.steps_size());
  writer.String(profile.SerializeAsString());
}

absl::Status ClickHouseStore::InsertProfileRows(size_t shard,
                                                const ProfileRows& rows) const {
  // The table rows first: a generation's rows count only once its profile row
  // exists.
  if (!rows.operators.empty()) {
    PD_ASSIGN_OR_RETURN(shard,
                        InsertFailingOver(shard, "operators", rows.operators));
  }
  if (!rows.kernels.empty()) {
    PD_ASSIGN_OR_RETURN(shard,
                        InsertFailingOver(shard, "kernels", rows.kernels));
  }
  if (rows.profiles.empty()) return absl::OkStatus();
  return InsertFailingOver(shard, "profiles", rows.profiles).status();
}

absl::Status ClickHouseStore::InsertProfile(
    const std::string& run, const std::string& worker, size_t shard,
    uint64_t generation, const v1::WorkerProfile& profile,
    const std::vector<std::string>& span_ids) const {
  ProfileRows rows;
  AppendProfileRows(run, worker, generation, profile, span_ids, rows);
  return InsertProfileRows(shard, rows);
}

absl::Status ClickHouseStore::StoreWorkerProfile(const std::string& run,
                                                 const std::string& worker,
                                                 size_t shard,
                                                 ProfileRows* batch) const {
  // Taken before reading the spans: of two builds racing, the one that saw more
  // spans started later and so wins (the local store numbers its builds the
  // same way).
  const uint64_t generation = NewGeneration();
  PD_ASSIGN_OR_RETURN(const RunRows rows,
                      ReadRuns({run}, worker));  // this worker's rows only
  std::vector<SpanRow> closed;
  std::vector<std::string> ids;
  for (const SpanRow& span : rows.spans) {
    if (span.closed()) {
      closed.push_back(span);
      ids.push_back(span.span);
    }
  }
  if (closed.empty()) return absl::OkStatus();
  // A read may have built it since this build was queued.
  if (auto stored = rows.profiles.find({run, worker});
      stored != rows.profiles.end() && stored->second.spans == ids) {
    return absl::OkStatus();
  }
  PD_ASSIGN_OR_RETURN(const std::vector<StoredSpan> spans,
                      ReadSpans(run, closed));
  PD_ASSIGN_OR_RETURN(const v1::WorkerProfile profile,
                      BuildProfile(run, spans, options_.batch_limits,
                                   analysis::ProfileOptions{}));
  if (batch == nullptr)
    return InsertProfile(run, worker, shard, generation, profile, ids);
  AppendProfileRows(run, worker, generation, profile, ids, *batch);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ClickHouseStore::Wanted>>
ClickHouseStore::SelectWorkers(const std::string& run,
                               const v1::WorkerSelector& selector) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({run}));
  if (rows.spans.empty())
    return absl::NotFoundError(base::StrCat("run ", run, ": no such run"));
  std::vector<Wanted> wanted;
  size_t matched = 0;
  for (const WorkerRows& worker : WorkersOf(rows, run)) {
    if (!Selected(selector, worker.info())) continue;
    ++matched;
    if (worker.closed_ids.empty()) continue;
    Wanted entry{worker.info().rank(),
                 worker.info().worker_name(),
                 worker.worker,
                 {},
                 worker.closed_ids};
    for (const SpanRow* span : worker.spans) {
      if (span->closed()) entry.closed.push_back(*span);
    }
    auto profile = rows.profiles.find({run, worker.worker});
    entry.stored = profile != rows.profiles.end() &&
                   profile->second.spans == worker.closed_ids;
    wanted.push_back(std::move(entry));
  }
  if (matched == 0) {
    return absl::NotFoundError(base::StrCat("run ", run, ": no worker matches ",
                                            DescribeSelector(selector)));
  }
  if (wanted.empty()) {
    return absl::FailedPreconditionError(base::StrCat(
        "run ", run, ": no selected worker has a closed span yet"));
  }
  std::sort(wanted.begin(), wanted.end(), [](const Wanted& a, const Wanted& b) {
    return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
  });
  return wanted;
}

absl::StatusOr<v1::RunTables> ClickHouseStore::GetRunTables(
    const v1::GetRunTablesRequest& request) const {
  PD_ASSIGN_OR_RETURN(const std::vector<Wanted> wanted,
                      SelectWorkers(request.run(), request.workers()));
  v1::RunTables tables;
  tables.set_run(request.run());
  tables.set_workers(static_cast<int32_t>(wanted.size()));
  std::vector<std::string> workers;
  for (const Wanted& entry : wanted) {
    tables.add_ranks(entry.rank);
    workers.push_back(entry.worker);
    if (entry.stored) continue;
    // Not built yet (or not buildable while a shard was down): build it now, so
    // the aggregates below cover exactly the closed spans.
    PD_ASSIGN_OR_RETURN(const size_t home,
                        HomeShard(request.run(), entry.worker));
    PD_RETURN_IF_ERROR(StoreWorkerProfile(request.run(), entry.worker, home));
  }
  // Each row's contribution is stored per profile
  // (aggregator/store/run_tables.h), so the run value is a sum over the
  // workers' latest profiles divided by the number of workers: exactly the
  // workers counted above (one whose first span closes meanwhile stays out of
  // both). The inner GROUP BY keeps one copy of a row an insert retried after a
  // lost answer stored twice.
  const bool per_step = request.normalize() != v1::NORMALIZATION_TOTAL;
  const std::string of_workers =
      base::StrCat(" AND worker IN (", QuotedList(workers), ")");
  const std::string where =
      base::StrCat("WHERE run = ", Quote(request.run()), of_workers,
                   " AND (worker, generation) GLOBAL IN (SELECT worker, "
                   "max(generation) FROM profiles WHERE run = ",
                   Quote(request.run()), of_workers, " GROUP BY worker)");
  const auto query = [&](const char* table, const char* detail,
                         const std::vector<std::string>& summed,
                         const char* extra_inner, const char* extra_outer) {
    std::string inner, outer;
    for (size_t i = 0; i < summed.size(); ++i) {
      base::StrAppend(&inner, ", any(", per_step ? "step_" : "", summed[i],
                      ") AS v", i);
      base::StrAppend(&outer, ", toFloat64(sum(v", i, "))");
    }
    return base::StrCat(
        "SELECT name, ", detail, outer, extra_outer, " FROM (SELECT name, ",
        detail, inner, extra_inner, " FROM ", table, " ", where,
        " GROUP BY worker, generation, name, ", detail, ") GROUP BY name, ",
        detail, " ORDER BY name, ", detail, " FORMAT RowBinary");
  };
  PD_ASSIGN_OR_RETURN(const std::string operators,
                      Read(query("operators", "input_shapes",
                                 {"calls", "host_self_us", "host_total_us",
                                  "device_self_us", "device_total_us"},
                                 "", "")));
  PD_ASSIGN_OR_RETURN(const std::string kernels,
                      Read(query("kernels", "op_name", {"calls", "total_us"},
                                 ", any(min_us) AS lo, any(max_us) AS hi",
                                 ", min(lo), max(hi)")));
  const double n = static_cast<double>(wanted.size());
  RowBinaryReader op_reader(operators);
  while (!op_reader.done() && op_reader.ok()) {
    v1::OperatorRunRow& row = *tables.add_operators();
    row.set_name(std::string(op_reader.String()));
    row.set_input_shapes(std::string(op_reader.String()));
    v1::OperatorValues& values = *row.mutable_values();
    values.set_calls(op_reader.Number<double>() / n);
    values.set_host_self_us(op_reader.Number<double>() / n);
    values.set_host_total_us(op_reader.Number<double>() / n);
    values.set_device_self_us(op_reader.Number<double>() / n);
    values.set_device_total_us(op_reader.Number<double>() / n);
  }
  PD_RETURN_IF_ERROR(op_reader.status("the operator aggregates"));
  RowBinaryReader kernel_reader(kernels);
  while (!kernel_reader.done() && kernel_reader.ok()) {
    v1::KernelRunRow& row = *tables.add_kernels();
    row.set_name(std::string(kernel_reader.String()));
    row.set_op_name(std::string(kernel_reader.String()));
    v1::KernelValues& values = *row.mutable_values();
    values.set_calls(kernel_reader.Number<double>() / n);
    values.set_total_us(kernel_reader.Number<double>() / n);
    values.set_mean_us(values.calls() > 0 ? values.total_us() / values.calls()
                                          : 0);
    values.set_min_us(kernel_reader.Number<double>());
    values.set_max_us(kernel_reader.Number<double>());
  }
  PD_RETURN_IF_ERROR(kernel_reader.status("the kernel aggregates"));
  // Collectives are matched across ranks in the aggregator, over the stored
  // profiles (SQL for them is left to the thousand-rank work).
  PD_ASSIGN_OR_RETURN(*tables.mutable_communication(),
                      RunCommunication(request.run(), tables.ranks()));
  return tables;
}

}  // namespace profdiff::aggregator
