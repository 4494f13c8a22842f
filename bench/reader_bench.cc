// Reader and profile-build throughput on the largest real traces, next to a
// floor measured in the same binary: gunzip + a simdjson on-demand walk
// touching every event's fields, no conversion. Counters: bytes_per_second = MB
// of JSON per second; items_per_second = events per second. Compare a
// BM_Read/BM_Show time with BM_Floor on the same file: that ratio is the target
// (show within 2x of the floor).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include "analysis/worker_profile.h"
#include "base/keep_freed_memory.h"
#include "bench/bench_traces.h"
#include "bench/json_floor.h"
#include "trace/kineto_reader.h"
#include "trace/trace_file.h"

namespace {

namespace fs = std::filesystem;

using profdiff::bench::kLargestTraces;

std::string TracePath(int index) {
  return profdiff::bench::BenchTracePath(kLargestTraces[index]);
}

void BM_Floor(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path))
    return state.SkipWithError(("trace not found: " + path).c_str());
  profdiff::bench::FloorText buffer;
  simdjson::ondemand::parser parser;
  size_t bytes = 0;
  for (auto _ : state) {
    if (!buffer.Load(path)) return state.SkipWithError("cannot read trace");
    benchmark::DoNotOptimize(profdiff::bench::WalkEvents(parser, buffer));
    bytes += buffer.json().size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetLabel(kLargestTraces[state.range(0)]);
}

// Second argument: threads the reader may parse one file on (ReadParallelism);
// 0 is one thread in one pass (no parts in turn), the reader before them.
profdiff::trace::ReadParallelism Threads(const benchmark::State& state) {
  if (state.range(1) == 0) return {.threads = 1, .in_turn_part_bytes = 0};
  return {.threads = static_cast<int>(state.range(1))};
}

// Third argument: 1 keeps plain Python frames (as the agent reads), 0 leaves
// them out (as the CLI reads).
void BM_Read(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path))
    return state.SkipWithError(("trace not found: " + path).c_str());
  profdiff::trace::KinetoReader reader(
      {.keep_python_frames = state.range(2) != 0}, Threads(state));
  size_t bytes = 0;
  size_t events = 0;
  for (auto _ : state) {
    auto trace = reader.ReadFile(path);
    if (!trace.ok())
      return state.SkipWithError(std::string(trace.status().message()).c_str());
    events += trace->events.size();
    benchmark::DoNotOptimize(trace->events.size());
  }
  // MB/s of JSON text: the gunzipped size, once per iteration.
  profdiff::trace::TraceFileBuffer buffer;
  if (buffer.Load(path, {}).ok())
    bytes = buffer.json().size() * state.iterations();
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.counters["parts"] = static_cast<double>(reader.last_read_parts());
  state.SetLabel(kLargestTraces[state.range(0)]);
}

// One read in a fresh child process, as a one-shot `profdiff` reads: every
// page of the reader's buffers is touched for the first time (on a VM, zeroing
// fresh pages is a visible share of a read).
void BM_ReadInAFreshProcess(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path))
    return state.SkipWithError(("trace not found: " + path).c_str());
  double cpu_seconds = 0;
  for (auto _ : state) {
    const pid_t child = fork();
    if (child == 0) {
      profdiff::trace::KinetoReader reader({}, Threads(state));
      _exit(reader.ReadFile(path).ok() ? 0 : 1);
    }
    int status = 0;
    rusage usage{};
    if (child < 0 || wait4(child, &status, 0, &usage) != child ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return state.SkipWithError("the child's read failed");
    }
    cpu_seconds +=
        static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
        1e-6 * static_cast<double>(usage.ru_utime.tv_usec +
                                   usage.ru_stime.tv_usec);
  }
  // The child's CPU time (user + system): steadier than wall time on a shared
  // machine.
  state.counters["cpu_ms"] =
      1e3 * cpu_seconds / static_cast<double>(state.iterations());
  state.SetLabel(kLargestTraces[state.range(0)]);
}

void BM_BuildProfile(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path))
    return state.SkipWithError(("trace not found: " + path).c_str());
  // Read as the CLI reads a trace it profiles: plain Python frames left out.
  profdiff::trace::KinetoReader reader({.keep_python_frames = false});
  auto trace = reader.ReadFile(path);
  if (!trace.ok())
    return state.SkipWithError(std::string(trace.status().message()).c_str());
  for (auto _ : state) {
    auto profile = profdiff::analysis::BuildWorkerProfile(
        *trace, {"run", "w", 1}, {.threads = Threads(state).threads});
    benchmark::DoNotOptimize(profile.steps_size());
  }
  state.SetItemsProcessed(
      static_cast<int64_t>(trace->events.size() * state.iterations()));
  state.SetLabel(kLargestTraces[state.range(0)]);
}

// What `profdiff show` does for one file: read, then build the profile.
void BM_Show(benchmark::State& state) {
  const std::string path = TracePath(static_cast<int>(state.range(0)));
  if (!fs::exists(path))
    return state.SkipWithError(("trace not found: " + path).c_str());
  profdiff::trace::KinetoReader reader({}, Threads(state));
  for (auto _ : state) {
    auto trace = reader.ReadFile(path);
    if (!trace.ok())
      return state.SkipWithError(std::string(trace.status().message()).c_str());
    auto profile = profdiff::analysis::BuildWorkerProfile(
        *trace, {"run", "w", 1}, {.threads = Threads(state).threads});
    benchmark::DoNotOptimize(profile.steps_size());
  }
  state.SetLabel(kLargestTraces[state.range(0)]);
}

// The 8 ranks of the DLRM run (~70 KB of gzip, ~0.7 MB of JSON each), read as
// a run folder is: argument 0, a reader per file (its buffers mapped and
// faulted in afresh for each file, as the offline loader did per worker); 1,
// one reader for all of them (as each loading thread now keeps). A 1,024-rank
// run is 128 of these rounds a side.
void BM_ReadRankFiles(benchmark::State& state) {
  const fs::path folder = profdiff::bench::BenchTracePath("param/dlrm_kineto");
  std::vector<std::string> paths;
  if (fs::is_directory(folder)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(folder))
      paths.push_back(entry.path().string());
  }
  if (paths.empty())
    return state.SkipWithError(("no traces in " + folder.string()).c_str());
  const bool reused = state.range(0) == 1;
  std::optional<profdiff::trace::KinetoReader> kept;
  if (reused) kept.emplace();
  size_t events = 0;
  for (auto _ : state) {
    for (const std::string& path : paths) {
      std::optional<profdiff::trace::KinetoReader> fresh;
      if (!reused) fresh.emplace();
      auto trace = (reused ? *kept : *fresh).ReadFile(path);
      if (!trace.ok())
        return state.SkipWithError(
            std::string(trace.status().message()).c_str());
      events += trace->events.size();
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.SetLabel(reused ? "one reader" : "a reader per file");
}

BENCHMARK(BM_Floor)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadRankFiles)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Read)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ReadInAFreshProcess)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_BuildProfile)
    ->ArgsProduct({{0, 1, 2}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Show)
    ->ArgsProduct({{0, 1, 2}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  // As `profdiff` does: a run folder reads one worker after another.
  profdiff::base::KeepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext(
      "simdjson_builtin_implementation",
      SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION));
  benchmark::AddCustomContext("simdjson_stage1_implementation",
                              simdjson::get_active_implementation()->name());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
