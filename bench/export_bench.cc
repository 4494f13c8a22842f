// ExportTrace of a stored span: the whole document at once (LoadSpans, then
// WriteChromeTrace: what the aggregator did before, holding the trace and the
// JSON) against the document made piece by piece from the stored chunks
// (ExportSpans: what it does now, holding one chunk and one piece). Both read
// the same in-memory chunks, cut as the agent cuts them. items_per_second =
// events.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "aggregator/store/batch_cursor.h"
#include "aggregator/store/stored_spans.h"
#include "bench/bench_traces.h"
#include "trace/chrome_trace_writer.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"
#include "trace/worker_info.h"

namespace {

constexpr size_t kEventsPerChunk = 65536;  // the agent's default
constexpr size_t kPieceBytes = 1 << 20;    // the service's piece

const char* const kTraces[] = {
    "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz",
    "hta/mtia_trace_single_rank/mtia_rank_0.json.gz",  // 456k events
};

// The stored span of trace state.range(0), or nothing (the benchmark skipped,
// saying why).
struct StoredTrace {
  std::vector<std::string> batches;
  std::vector<profdiff::aggregator::StoredSpan> spans;
  size_t events = 0;
};

std::unique_ptr<StoredTrace> StoreOrSkip(benchmark::State& state) {
  const std::string path =
      profdiff::bench::BenchTracePath(kTraces[state.range(0)]);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("trace not found: " + path).c_str());
    return nullptr;
  }
  profdiff::trace::KinetoReader reader;
  absl::StatusOr<profdiff::trace::Trace> trace = reader.ReadFile(path);
  if (!trace.ok()) {
    state.SkipWithError(std::string(trace.status().message()).c_str());
    return nullptr;
  }
  auto stored = std::make_unique<StoredTrace>();
  stored->events = trace->events.size();
  profdiff::v1::EventBatch batch;
  for (size_t begin = 0; begin < stored->events; begin += kEventsPerChunk) {
    profdiff::trace::EncodeEventBatch(
        *trace, begin, std::min(begin + kEventsPerChunk, stored->events),
        batch);
    stored->batches.push_back(batch.SerializeAsString());
  }
  const std::vector<std::string>* batches = &stored->batches;
  stored->spans.push_back(
      {"span", profdiff::trace::WorkerInfoOf(*trace),
       [batches]() -> absl::StatusOr<
                       std::unique_ptr<profdiff::aggregator::BatchCursor>> {
         return std::make_unique<profdiff::aggregator::BatchesInMemory>(
             batches);
       }});
  return stored;
}

void BM_ExportWhole(benchmark::State& state) {
  const std::unique_ptr<StoredTrace> stored = StoreOrSkip(state);
  if (!stored) return;
  for (auto _ : state) {
    absl::StatusOr<profdiff::trace::Trace> trace =
        profdiff::aggregator::LoadSpans(stored->spans, {});
    if (!trace.ok())
      return state.SkipWithError(std::string(trace.status().message()).c_str());
    std::string json;
    profdiff::trace::WriteChromeTrace(*trace, json);
    benchmark::DoNotOptimize(json.size());
  }
  state.SetItemsProcessed(
      static_cast<int64_t>(stored->events * state.iterations()));
  state.SetLabel(kTraces[state.range(0)]);
}

void BM_ExportInPieces(benchmark::State& state) {
  const std::unique_ptr<StoredTrace> stored = StoreOrSkip(state);
  if (!stored) return;
  for (auto _ : state) {
    const std::unique_ptr<profdiff::aggregator::TraceExport> exported =
        profdiff::aggregator::ExportSpans(stored->spans, {});
    std::string piece;
    size_t bytes = 0;
    for (;;) {
      absl::StatusOr<bool> more = exported->NextPiece(kPieceBytes, piece);
      if (!more.ok())
        return state.SkipWithError(
            std::string(more.status().message()).c_str());
      if (!*more) break;
      bytes += piece.size();  // the service writes each piece out and drops it
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetItemsProcessed(
      static_cast<int64_t>(stored->events * state.iterations()));
  state.SetLabel(kTraces[state.range(0)]);
}

BENCHMARK(BM_ExportWhole)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportInPieces)->DenseRange(0, 1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
