// Offline diff of the largest pair in the corpus (xDiT FLUX.1 on MI300X, AITER
// vs AITER+Sage, ~62 MB of JSON a side, ~730 nn.Module nodes), and of the
// story pair (an H200 Transformer, fp32 vs bf16). Compare, in the same run:
//   BM_FloorBothSides   the reader floor (gunzip + simdjson walk) of both
//                       files, one after the other
//   BM_LoadBothSides    `profdiff diff`'s loading: both sides read and
//                       profiled in parallel
//   BM_DiffOnly         the differ on the two loaded profiles (the target:
//                       < 10% of load)
//   BM_DiffNoFindings   the same without the findings' view: the findings'
//                       cost is BM_DiffOnly - BM_DiffNoFindings (issue 43's
//                       target: <= 10% of BM_DiffEndToEnd)
//   BM_DiffEndToEnd     load + diff, what a user waits for
//   BM_ShowJson         `profdiff show --format json`'s output of the
//                       baseline side's profile (written, not printed)
// Each takes the pair as its argument: 0 the xDiT pair, 1 the story pair.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "analysis/run_loader.h"
#include "base/keep_freed_memory.h"
#include "bench/bench_traces.h"
#include "bench/json_floor.h"
#include "client/json_writer.h"
#include "differ/differ.h"

namespace {

namespace fs = std::filesystem;

// Side `i` of the pair `state.range(0)` names.
std::string TracePath(const benchmark::State& state, int i) {
  return profdiff::bench::BenchTracePath(state.range(0) == 0
                                             ? profdiff::bench::kDiffPair[i]
                                             : profdiff::bench::kStoryPair[i]);
}

bool PairPresent(benchmark::State& state) {
  for (int i = 0; i < 2; ++i) {
    if (!fs::exists(TracePath(state, i))) {
      state.SkipWithError(("trace not found: " + TracePath(state, i)).c_str());
      return false;
    }
  }
  return true;
}

// Every view a default diff has, but the findings.
profdiff::v1::DiffOptions WithoutFindings() {
  profdiff::v1::DiffOptions options;
  for (const profdiff::v1::DiffView view :
       {profdiff::v1::DIFF_VIEW_OVERVIEW, profdiff::v1::DIFF_VIEW_MODULES,
        profdiff::v1::DIFF_VIEW_OPERATORS, profdiff::v1::DIFF_VIEW_KERNELS,
        profdiff::v1::DIFF_VIEW_COMMUNICATION,
        profdiff::v1::DIFF_VIEW_MEMORY}) {
    options.add_views(view);
  }
  return options;
}

void BM_FloorBothSides(benchmark::State& state) {
  if (!PairPresent(state)) return;
  profdiff::bench::FloorText buffer;
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    for (int i = 0; i < 2; ++i) {
      if (!buffer.Load(TracePath(state, i)))
        return state.SkipWithError("cannot read trace");
      benchmark::DoNotOptimize(profdiff::bench::WalkEvents(parser, buffer));
    }
  }
}

void BM_LoadBothSides(benchmark::State& state) {
  if (!PairPresent(state)) return;
  for (auto _ : state) {
    auto runs = profdiff::analysis::LoadRuns(
        {{TracePath(state, 0)}, {TracePath(state, 1)}}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    benchmark::DoNotOptimize(runs->size());
  }
}

void BM_DiffOnly(benchmark::State& state) {
  if (!PairPresent(state)) return;
  auto runs = profdiff::analysis::LoadRuns(
      {{TracePath(state, 0)}, {TracePath(state, 1)}}, {});
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

void BM_DiffNoFindings(benchmark::State& state) {
  if (!PairPresent(state)) return;
  auto runs = profdiff::analysis::LoadRuns(
      {{TracePath(state, 0)}, {TracePath(state, 1)}}, {});
  if (!runs.ok())
    return state.SkipWithError(std::string(runs.status().message()).c_str());
  const profdiff::v1::DiffOptions options = WithoutFindings();
  for (auto _ : state) {
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], options);
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->operators_size());
  }
}

void BM_DiffEndToEnd(benchmark::State& state) {
  if (!PairPresent(state)) return;
  for (auto _ : state) {
    auto runs = profdiff::analysis::LoadRuns(
        {{TracePath(state, 0)}, {TracePath(state, 1)}}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], {});
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->operators_size());
  }
}

void BM_ShowJson(benchmark::State& state) {
  if (!PairPresent(state)) return;
  auto runs = profdiff::analysis::LoadRuns({{TracePath(state, 0)}}, {});
  if (!runs.ok())
    return state.SkipWithError(std::string(runs.status().message()).c_str());
  std::string json;
  for (auto _ : state) {
    json.clear();
    profdiff::client::WriteJson((*runs)[0], json);
    benchmark::DoNotOptimize(json.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(json.size()) *
                          state.iterations());
}

BENCHMARK(BM_FloorBothSides)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_LoadBothSides)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DiffOnly)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DiffNoFindings)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DiffEndToEnd)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ShowJson)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::KeepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
