// What the communication analysis costs on the 8-rank DLRM run against itself
// (the budget: at most 10% of `profdiff diff` of that pair). In the
// same run:
//   BM_DiffEndToEnd       `profdiff diff DLRM DLRM`: both sides read,
//                         profiled (collective calls included) and diffed
//                         (communication included)
//   BM_CollectiveCalls    the per-worker part: finding the 16 workers' calls
//                         and their exposed time (inputs prepared outside the
//                         loop)
//   BM_RunCommunication   the cross-rank part: matching both sides'
//                         instances, reducing and diffing them
// (BM_CollectiveCalls + BM_RunCommunication) / (BM_DiffEndToEnd - both) is
// the overhead.
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "analysis/collective_calls.h"
#include "analysis/digest_communication.h"
#include "analysis/event_links.h"
#include "analysis/run_communication.h"
#include "analysis/run_loader.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "bench/bench_traces.h"
#include "differ/communication_diff.h"
#include "differ/differ.h"
#include "trace/kineto_reader.h"
#include "trace/trace_file.h"

namespace {

namespace fs = std::filesystem;
namespace analysis = profdiff::analysis;

constexpr char kDlrm[] = "param/dlrm_kineto";

std::vector<std::string> DlrmFiles() {
  std::vector<std::string> files;
  const fs::path dir = profdiff::bench::BenchTracePath(kDlrm);
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().string().ends_with(".pt.trace.json.gz"))
      files.push_back(entry.path().string());
  }
  return files;
}

void BM_DiffEndToEnd(benchmark::State& state) {
  const std::vector<std::string> files = DlrmFiles();
  if (files.size() != 8) return state.SkipWithError("the DLRM run is missing");
  for (auto _ : state) {
    auto runs = analysis::LoadRuns({files, files}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], {});
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->communication().ranks_size());
  }
}

// One worker's inputs to ComputeCollectiveCalls.
struct Prepared {
  profdiff::trace::Trace trace;
  analysis::EventLinks links;
  analysis::StepWindows steps;
  std::vector<int32_t> step_of_event;
};

void BM_CollectiveCalls(benchmark::State& state) {
  const std::vector<std::string> files = DlrmFiles();
  if (files.size() != 8) return state.SkipWithError("the DLRM run is missing");
  std::vector<Prepared> workers;
  for (const std::string& file : files) {
    profdiff::trace::TraceFileBuffer buffer;
    if (!buffer.Load(file, {}).ok())
      return state.SkipWithError("cannot read a trace");
    auto trace = profdiff::trace::ReadKinetoTrace(buffer.json(), file);
    if (!trace.ok())
      return state.SkipWithError(std::string(trace.status().message()).c_str());
    Prepared& p = workers.emplace_back();
    p.trace = std::move(*trace);
    p.links = analysis::LinkEvents(p.trace);
    p.steps = analysis::FindSteps(p.trace, p.links);
    p.step_of_event = analysis::AssignEventsToSteps(p.trace, p.links, p.steps);
  }
  for (auto _ : state) {
    for (int side = 0; side < 2; ++side) {
      for (const Prepared& p : workers) {
        benchmark::DoNotOptimize(analysis::ComputeCollectiveCalls(
                                     p.trace, p.links, p.steps, p.step_of_event)
                                     .calls.size());
      }
    }
  }
}

void BM_RunCommunication(benchmark::State& state) {
  const std::vector<std::string> files = DlrmFiles();
  if (files.size() != 8) return state.SkipWithError("the DLRM run is missing");
  auto runs = analysis::LoadRuns({files, files}, {});
  if (!runs.ok())
    return state.SkipWithError(std::string(runs.status().message()).c_str());
  for (auto _ : state) {
    profdiff::v1::DigestCommunication sides[2];
    for (int side = 0; side < 2; ++side) {
      const auto& workers = (*runs)[side].workers();
      sides[side] =
          analysis::DigestCommunicationOf(analysis::RunCommunicationOf(
              {workers.pointer_begin(), workers.pointer_end()}, {}));
    }
    benchmark::DoNotOptimize(
        profdiff::differ::DiffCommunication(sides[0], sides[1], {}, true)
            .ranks_size());
  }
}

BENCHMARK(BM_DiffEndToEnd)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CollectiveCalls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RunCommunication)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
