// Offline diff of the largest pair in the corpus (xDiT FLUX.1 on MI300X, AITER
// vs AITER+Sage, ~62 MB of JSON a side, ~730 nn.Module nodes). Compare, in the
// same run:
//   BM_FloorBothSides   the reader floor (gunzip + simdjson walk) of both
//   files, one after the other BM_LoadBothSides    `profdiff diff`'s loading:
//   both sides read and profiled in parallel BM_DiffOnly         the differ on
//   the two loaded profiles (the target: < 10% of load) BM_DiffEndToEnd
//   load + diff, what a user waits for
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "analysis/run_loader.h"
#include "base/keep_freed_memory.h"
#include "bench/bench_traces.h"
#include "bench/json_floor.h"
#include "differ/differ.h"

namespace {

namespace fs = std::filesystem;

std::string TracePath(int i) {
  return profdiff::bench::BenchTracePath(profdiff::bench::kDiffPair[i]);
}

bool PairPresent(benchmark::State& state) {
  for (int i = 0; i < 2; ++i) {
    if (!fs::exists(TracePath(i))) {
      state.SkipWithError(("trace not found: " + TracePath(i)).c_str());
      return false;
    }
  }
  return true;
}

void BM_FloorBothSides(benchmark::State& state) {
  if (!PairPresent(state)) return;
  profdiff::trace::TraceFileBuffer buffer;
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    for (int i = 0; i < 2; ++i) {
      if (!buffer.Load(TracePath(i), {}).ok())
        return state.SkipWithError("cannot read trace");
      benchmark::DoNotOptimize(profdiff::bench::WalkEvents(parser, buffer));
    }
  }
}

void BM_LoadBothSides(benchmark::State& state) {
  if (!PairPresent(state)) return;
  for (auto _ : state) {
    auto runs =
        profdiff::analysis::LoadRuns({{TracePath(0)}, {TracePath(1)}}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    benchmark::DoNotOptimize(runs->size());
  }
}

void BM_DiffOnly(benchmark::State& state) {
  if (!PairPresent(state)) return;
  auto runs =
      profdiff::analysis::LoadRuns({{TracePath(0)}, {TracePath(1)}}, {});
  if (!runs.ok())
    return state.SkipWithError(std::string(runs.status().message()).c_str());
  for (auto _ : state) {
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], {});
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->operators_size());
  }
}

void BM_DiffEndToEnd(benchmark::State& state) {
  if (!PairPresent(state)) return;
  for (auto _ : state) {
    auto runs =
        profdiff::analysis::LoadRuns({{TracePath(0)}, {TracePath(1)}}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], {});
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->operators_size());
  }
}

BENCHMARK(BM_FloorBothSides)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadBothSides)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DiffOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DiffEndToEnd)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::KeepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
