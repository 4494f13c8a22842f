// EventBatch conversion throughput on real traces: what the agent pays per
// uploaded event (EncodeEventBatch in 16384-event batches; 256-event batches
// show the per-batch cost of the StringId map, which is O(string pool)) and the
// aggregator per received event (AppendEventBatch, validation included), and
// the content fingerprint of a span id (TraceFingerprint), and the `events`
// rows a ClickHouse aggregator makes of each chunk (AppendEventBlock).
// items_per_second = events per second.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "aggregator/clickhouse/event_rows.h"
#include "bench/bench_traces.h"
#include "profdiff/v1/trace.pb.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"
#include "trace/trace_fingerprint.h"

namespace {

namespace fs = std::filesystem;

// The agent's chunk size, and a small one.
constexpr int64_t kEventsPerBatch = 16384;
constexpr int64_t kSmallEventsPerBatch = 256;

const char* const kTraces[] = {
    "param/dlrm_kineto/"
    "worker0_step_12.1694128201545.pt.trace.json.gz",  // small,
                                                       // many
                                                       // kernels
    "hta/mtia_trace_single_rank/mtia_rank_0.json.gz",  // 456k
                                                       // events
};

std::string TracePath(int index) {
  return profdiff::bench::BenchTracePath(kTraces[index]);
}

// The trace state.range(0) names, or nothing (the benchmark skipped, saying
// why).
std::optional<profdiff::trace::Trace> TraceOrSkip(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path)) {
    state.SkipWithError(("trace not found: " + path).c_str());
    return std::nullopt;
  }
  profdiff::trace::KinetoReader reader;
  absl::StatusOr<profdiff::trace::Trace> trace = reader.ReadFile(path);
  if (!trace.ok()) {
    state.SkipWithError(std::string(trace.status().message()).c_str());
    return std::nullopt;
  }
  return *std::move(trace);
}

void BM_EncodeEventBatch(benchmark::State& state) {
  std::optional<profdiff::trace::Trace> trace = TraceOrSkip(state);
  if (!trace) return;
  const size_t events = trace->events.size();
  const size_t per_batch = static_cast<size_t>(state.range(1));
  profdiff::v1::EventBatch batch;  // reused across chunks, as the agent does
  size_t bytes = 0;
  for (auto _ : state) {
    for (size_t begin = 0; begin < events; begin += per_batch) {
      profdiff::trace::EncodeEventBatch(
          *trace, begin, std::min(begin + per_batch, events), batch);
      bytes += batch.ByteSizeLong();
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(events * state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));  // encoded proto bytes
  state.SetLabel(std::string(kTraces[state.range(0)]) +
                 " strings=" + std::to_string(trace->strings.size()));
}

void BM_AppendEventBatch(benchmark::State& state) {
  std::optional<profdiff::trace::Trace> trace = TraceOrSkip(state);
  if (!trace) return;
  const size_t events = trace->events.size();
  std::vector<profdiff::v1::EventBatch> batches;
  const size_t per_batch = static_cast<size_t>(kEventsPerBatch);
  for (size_t begin = 0; begin < events; begin += per_batch) {
    profdiff::trace::EncodeEventBatch(*trace, begin,
                                      std::min(begin + per_batch, events),
                                      batches.emplace_back());
  }
  for (auto _ : state) {
    profdiff::trace::Trace out;
    for (const auto& batch : batches) {
      if (!profdiff::trace::AppendEventBatch(batch, {}, out).ok()) {
        return state.SkipWithError("a batch was refused");
      }
    }
    benchmark::DoNotOptimize(out.events.size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(events * state.iterations()));
  state.SetLabel(kTraces[state.range(0)]);
}

// The Native block of a chunk's `events` rows, made into a fresh string per
// chunk as the ClickHouse store does.
void BM_AppendEventBlock(benchmark::State& state) {
  std::optional<profdiff::trace::Trace> trace = TraceOrSkip(state);
  if (!trace) return;
  const size_t events = trace->events.size();
  std::vector<profdiff::v1::EventBatch> batches;
  for (size_t begin = 0; begin < events;
       begin += static_cast<size_t>(kEventsPerBatch)) {
    profdiff::trace::EncodeEventBatch(
        *trace, begin,
        std::min(begin + static_cast<size_t>(kEventsPerBatch), events),
        batches.emplace_back());
  }
  std::vector<uint64_t> name_ids(trace->strings.size());
  for (size_t i = 0; i < name_ids.size(); ++i) name_ids[i] = i * 2654435761u;
  const profdiff::aggregator::clickhouse::ChunkKey key{
      .run = "scale-1024-a",
      .worker = "worker0.host-17:12345",
      .span = "0123456789abcdef0123456789abcdef",
      .seq = 3,
      .attempt = 42};
  size_t bytes = 0;
  for (auto _ : state) {
    for (const auto& batch : batches) {
      std::string block;
      profdiff::aggregator::clickhouse::AppendEventBlock(key, batch, name_ids,
                                                         block);
      bytes += block.size();
      benchmark::DoNotOptimize(block.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(events * state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetLabel(kTraces[state.range(0)]);
}

// What the agent adds per file for its span id (trace/trace_fingerprint.h):
// compare with BM_EncodeEventBatch, which it pays anyway.
void BM_TraceFingerprint(benchmark::State& state) {
  std::optional<profdiff::trace::Trace> trace = TraceOrSkip(state);
  if (!trace) return;
  for (auto _ : state)
    benchmark::DoNotOptimize(profdiff::trace::TraceFingerprint(*trace));
  state.SetItemsProcessed(
      static_cast<int64_t>(trace->events.size() * state.iterations()));
  state.SetLabel(kTraces[state.range(0)]);
}

BENCHMARK(BM_EncodeEventBatch)
    ->ArgsProduct({{0, 1}, {kEventsPerBatch, kSmallEventsPerBatch}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppendEventBatch)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceFingerprint)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AppendEventBlock)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
