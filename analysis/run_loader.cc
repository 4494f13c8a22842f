#include "analysis/run_loader.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "analysis/one_run.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/kineto_reader.h"
#include "trace/span_merge.h"
#include "trace/trace_file_name.h"

namespace profdiff::analysis {
namespace {

namespace fs = std::filesystem;
using trace::IsTraceFileName;
using trace::WorkerNameOf;

std::string RunNameOf(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (fs::is_directory(p)) return p.filename().string();
  return WorkerNameOf(p.filename().string());
}

// A worker's profile per entry of the options, and each one's deferred
// tables (null where the profile has its own).
struct WorkerLoad {
  std::vector<v1::WorkerProfile> profiles;
  std::vector<std::unique_ptr<DeferredNodeTables>> deferred;
};

// Takes `events` from `budget` if it has them.
bool TakeFromBudget(std::atomic<int64_t>& budget, int64_t events) {
  int64_t left = budget.load();
  while (left >= events && !budget.compare_exchange_weak(left, left - events)) {
  }
  return left >= events;
}

// One profile per entry of `options`, from one read of the worker's files by
// `reader`, which parses each file on up to `read_threads` threads. With
// `defer_budget`, the module nodes' tables are deferred while the trace fits
// what is left of it.
absl::StatusOr<WorkerLoad> LoadWorker(
    const WorkerFiles& files, const std::string& run,
    const std::vector<ProfileOptions>& options, trace::KinetoReader& reader,
    int read_threads, std::atomic<int64_t>* defer_budget) {
  std::vector<trace::Trace> spans;
  for (const std::string& path : files.paths) {
    PD_ASSIGN_OR_RETURN(trace::Trace span, reader.ReadFile(path));
    // An empty file is no run of 0 us steps (which would diff as "new").
    if (span.events.size() == 0 && span.counters.python_frames_left_out == 0) {
      const int64_t skipped = span.counters.unsupported_phase_events;
      return absl::InvalidArgumentError(
          skipped == 0
              ? base::StrCat(path, ": no events (\"traceEvents\" is empty)")
              : base::StrCat(path, ": no events profdiff reads (", skipped,
                             " events of phases it does not read, such as "
                             "\"B\"/\"E\" pairs)"));
    }
    spans.push_back(std::move(span));
  }
  trace::Trace merged = trace::MergeSpans(std::move(spans));
  const WorkerIdentity identity{run, files.worker_name,
                                static_cast<int32_t>(files.paths.size())};
  WorkerLoad load;
  load.deferred.resize(options.size());
  // Kept for deferred tables while the budget lasts.
  std::shared_ptr<const trace::Trace> kept;
  const trace::Trace* source = &merged;
  if (defer_budget != nullptr &&
      TakeFromBudget(*defer_budget,
                     static_cast<int64_t>(merged.events.size()))) {
    kept = std::make_shared<const trace::Trace>(std::move(merged));
    source = kept.get();
  }
  for (size_t i = 0; i < options.size(); ++i) {
    ProfileOptions o = options[i];
    o.threads = read_threads;
    load.profiles.push_back(
        kept != nullptr
            ? BuildWorkerProfile(kept, identity, o, load.deferred[i])
            : BuildWorkerProfile(*source, identity, o));
  }
  return load;
}

// Traces that cannot be one run (several runs or processes in one folder):
// workers of different world sizes, or a rank twice. An error listing the
// groups found and how to pick one; never a silent merge.
absl::Status CheckOneRun(const std::string& path, const v1::RunProfile& run) {
  std::map<int32_t, std::vector<const v1::WorkerInfo*>> by_world;
  std::vector<const v1::WorkerInfo*> workers;
  for (const v1::WorkerProfile& w : run.workers()) {
    by_world[w.worker().world_size()].push_back(&w.worker());
    workers.push_back(&w.worker());
  }
  std::string problem;
  if (by_world.size() > 1) {
    for (const auto& [world, of_world] : by_world) {
      base::StrAppend(&problem, problem.empty() ? "" : "; ", "world size ",
                      world, ": ", DescribeWorkers(of_world));
    }
  } else {
    problem = RanksGivenTwice(workers);
  }
  if (problem.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(base::StrCat(
      path, ": ", kNotOneRun, " (", problem,
      "); put each run's traces in a folder of their own, or name the files "
      "of one run"));
}

}  // namespace

absl::StatusOr<std::vector<WorkerFiles>> FindWorkerFiles(
    const std::vector<std::string>& paths) {
  std::map<std::string, std::vector<std::string>> by_worker;
  std::set<std::string> named;  // workers with a file given by name
  for (const std::string& path : paths) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (error || !fs::exists(status)) {
      return absl::NotFoundError(
          base::StrCat(path, ": no such file or folder"));
    }
    if (fs::is_directory(status)) {
      size_t found = 0;
      for (const fs::directory_entry& entry :
           fs::directory_iterator(path, error)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || !IsTraceFileName(name)) continue;
        by_worker[WorkerNameOf(name)].push_back(entry.path().string());
        ++found;
      }
      if (error)
        return absl::UnavailableError(
            base::StrCat(path, ": ", error.message()));
      if (found == 0) {
        return absl::NotFoundError(base::StrCat(
            path, ": no trace files (*.json, *.json.gz) in this folder"));
      }
    } else {
      const std::string worker =
          WorkerNameOf(fs::path(path).filename().string());
      by_worker[worker].push_back(path);
      named.insert(worker);
    }
  }
  std::vector<WorkerFiles> workers;
  for (auto& [name, files] : by_worker) {
    // Spans in the order they were written: the timestamp in the name sorts
    // with the name.
    std::sort(files.begin(), files.end());
    workers.push_back({name, std::move(files), !named.contains(name)});
  }
  return workers;
}

absl::StatusOr<ProfileOptions> ParseProfileOptions(
    const std::string& group_by, const std::string& kernels_by) {
  ProfileOptions options;
  if (group_by == "shape") {
    options.operator_grouping = analysis::OperatorGrouping::kNameAndShape;
  } else if (group_by != "name") {
    return absl::InvalidArgumentError(
        base::StrCat("--group-by ", group_by, ": expected name or shape"));
  }
  if (kernels_by == "op") {
    options.kernel_grouping = analysis::KernelGrouping::kNameAndOp;
  } else if (kernels_by != "name") {
    return absl::InvalidArgumentError(
        base::StrCat("--kernels-by ", kernels_by, ": expected name or op"));
  }
  return options;
}

absl::StatusOr<std::vector<v1::RunProfile>> LoadRuns(
    const std::vector<std::vector<std::string>>& runs,
    const analysis::ProfileOptions& options) {
  PD_ASSIGN_OR_RETURN(std::vector<std::vector<v1::RunProfile>> by_options,
                      LoadRunsWithEachOptions(runs, {options}));
  return std::move(by_options.front());
}

absl::StatusOr<std::vector<std::vector<v1::RunProfile>>>
LoadRunsWithEachOptions(const std::vector<std::vector<std::string>>& runs,
                        const std::vector<ProfileOptions>& options,
                        std::vector<std::vector<DeferredRunTables>>* deferred) {
  std::vector<v1::RunProfile> profiles(runs.size());
  // Every worker of every run is one task, so both sides of a diff load in
  // parallel.
  struct Task {
    size_t run;
    WorkerFiles files;
  };
  std::vector<Task> tasks;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].empty())
      return absl::InvalidArgumentError("no path given for a run");
    PD_ASSIGN_OR_RETURN(std::vector<WorkerFiles> workers,
                        FindWorkerFiles(runs[r]));
    profiles[r].set_run(RunNameOf(runs[r].front()));
    for (WorkerFiles& files : workers) tasks.push_back({r, std::move(files)});
  }
  std::vector<absl::StatusOr<WorkerLoad>> results;
  results.reserve(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t)
    results.emplace_back(absl::UnknownError("not loaded"));
  std::atomic<int64_t> defer_budget{kMaxDeferredEvents};
  {
    // At most one thread per core: workers in parallel, and the cores left over
    // parse each file in parts (one worker on two cores reads its file on
    // both).
    const size_t cores =
        std::max<size_t>(1, std::thread::hardware_concurrency());
    const size_t threads =
        std::max<size_t>(1, std::min<size_t>(tasks.size(), cores));
    const int read_threads = static_cast<int>(cores / threads);
    // Deferred tables keep a worker's trace: only where a thread reads one
    // worker (analysis/deferred_node_tables.h).
    const bool defer = deferred != nullptr && tasks.size() <= threads;
    // `next` is declared before the pool: the pool's destructor joins threads
    // that still read it.
    std::atomic<size_t> next{0};
    std::vector<std::jthread> pool;
    for (size_t k = 0; k < threads; ++k) {
      pool.emplace_back([&] {
        // One reader per thread: its text buffers are mapped once and reused
        // for every file it reads. A reader per worker mapped and faulted in
        // two fresh buffers per file, a third of a 1,024-rank diff's time.
        // Plain Python frames, most of a with_stack trace, are left out: a
        // profile reads only their extent (trace::FrameExtent), and the
        // xDiT pair's diff takes two thirds of the time without them.
        trace::KinetoReader reader({.keep_python_frames = false},
                                   {.threads = read_threads});
        for (size_t t = next++; t < tasks.size(); t = next++) {
          results[t] =
              LoadWorker(tasks[t].files, profiles[tasks[t].run].run(), options,
                         reader, read_threads, defer ? &defer_budget : nullptr);
        }
      });
    }
  }
  // A file a folder holds that is no trace at all (a config.json) is passed
  // over with a warning; any other failure fails the run.
  std::vector<std::vector<std::string>> skipped(runs.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (results[t].ok()) continue;
    if (!tasks[t].files.from_folder || !trace::IsNotATrace(results[t].status()))
      return results[t].status();
    for (const std::string& path : tasks[t].files.paths)
      skipped[tasks[t].run].push_back(fs::path(path).filename().string());
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    if (skipped[r].empty()) continue;
    std::sort(skipped[r].begin(), skipped[r].end());
    std::string names;
    for (const std::string& name : skipped[r])
      base::StrAppend(&names, names.empty() ? "" : ", ", name);
    const bool none_left =
        std::none_of(tasks.begin(), tasks.end(), [&](const Task& t) {
          return t.run == r && results[&t - tasks.data()].ok();
        });
    if (none_left) {
      return absl::InvalidArgumentError(
          base::StrCat(runs[r].front(), ": no trace among its files (", names,
                       ": not JSON, or no \"traceEvents\")"));
    }
    profiles[r].add_warnings(
        base::StrCat("skipped ", skipped[r].size(), " file",
                     skipped[r].size() == 1 ? " that is" : "s that are",
                     " not a trace: ", names));
  }
  std::vector<std::vector<v1::RunProfile>> by_options(options.size(), profiles);
  if (deferred != nullptr) {
    deferred->clear();
    deferred->resize(options.size());
    for (std::vector<DeferredRunTables>& of_options : *deferred)
      of_options.resize(runs.size());
  }
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (!results[t].ok()) continue;
    for (size_t o = 0; o < options.size(); ++o) {
      v1::WorkerProfile& profile = results[t]->profiles[o];
      if (std::unique_ptr<DeferredNodeTables>& tables = results[t]->deferred[o];
          tables != nullptr) {
        (*deferred)[o][tasks[t].run][profile.worker().rank()] =
            std::move(tables);
      }
      *by_options[o][tasks[t].run].add_workers() = std::move(profile);
    }
  }
  for (size_t r = 0; r < runs.size(); ++r)
    PD_RETURN_IF_ERROR(CheckOneRun(runs[r].front(), by_options.front()[r]));
  for (std::vector<v1::RunProfile>& runs_of_options : by_options) {
    for (v1::RunProfile& run : runs_of_options) {
      std::stable_sort(
          run.mutable_workers()->begin(), run.mutable_workers()->end(),
          [](const v1::WorkerProfile& a, const v1::WorkerProfile& b) {
            return a.worker().rank() < b.worker().rank();
          });
    }
  }
  return by_options;
}

absl::StatusOr<v1::RunProfile> LoadRun(
    const std::vector<std::string>& paths,
    const analysis::ProfileOptions& options) {
  PD_ASSIGN_OR_RETURN(std::vector<v1::RunProfile> runs,
                      LoadRuns({paths}, options));
  return std::move(runs.front());
}

}  // namespace profdiff::analysis
