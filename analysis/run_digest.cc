#include "analysis/run_digest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "analysis/digest_communication.h"
#include "analysis/digest_module_tree.h"
#include "analysis/digest_tables.h"
#include "analysis/moments.h"
#include "analysis/one_run.h"
#include "analysis/run_communication.h"
#include "base/rank_ranges.h"
#include "base/str_cat.h"

namespace profdiff::analysis {
namespace {

// The memory entry users look at: the first accelerator's, else the CPU's.
const v1::MemoryStats* MainMemory(const v1::WorkerProfile& w) {
  const v1::MemoryStats* cpu = nullptr;
  for (const v1::MemoryStats& m : w.memory()) {
    if (m.device() != "cpu") return &m;
    cpu = &m;
  }
  return cpu;
}

std::string DeviceName(const v1::WorkerProfile& w) {
  if (w.worker().devices_size() > 0) return w.worker().devices(0).name();
  return w.devices_size() > 0 ? "GPU (no deviceProperties)" : "CPU";
}

// A GPU run: it ran device work, or its trace lists devices.
bool HasDevices(const v1::WorkerProfile& w) {
  return w.devices_size() > 0 || w.worker().devices_size() > 0;
}

bool AnyDevice(const v1::WorkerProfile& w,
               bool (v1::DeviceMetrics::*has)() const) {
  for (const v1::DeviceMetrics& d : w.devices()) {
    if ((d.*has)()) return true;
  }
  return false;
}

// A kept step's host range [start, end) in µs (StepStats.host_*): where its
// "[memory]" events lie (analysis/step_of_event.h); the device-extended window
// in profiles made before the host range was recorded.
std::pair<double, double> HostRangeUs(const v1::StepStats& step) {
  if (step.host_start_us() == 0 && step.host_duration_us() == 0)
    return {step.start_us(), step.start_us() + step.duration_us()};
  return {step.host_start_us(), step.host_start_us() + step.host_duration_us()};
}

// Where the worker's memory peaked on `m`'s device, and its curve on a
// step-aligned axis: offsets from its first kept step's host start, as the
// curve's (analysis/memory_view.h), with each step's host range and id.
void FillPlaceAndCurve(const v1::WorkerProfile& w, const v1::MemoryStats& m,
                       v1::MemoryPeakPlace& place, v1::MemoryCurve& curve) {
  place.set_rank(w.worker().rank());
  place.set_step_index(m.peak_step_index());
  if (m.has_peak_step()) place.set_step(m.peak_step());
  place.set_offset_ns(m.peak_offset_ns());
  place.set_operator_name(m.peak_operator());
  place.set_module_path(m.peak_module());
  *place.mutable_holders() = m.peak_holders();
  curve.set_rank(w.worker().rank());
  *curve.mutable_points() = m.curve();
  if (w.steps().empty()) return;
  const double origin_us = HostRangeUs(w.steps(0)).first;
  for (const v1::StepStats& step : w.steps()) {
    const auto [start_us, end_us] = HostRangeUs(step);
    curve.add_step_offsets_ns(std::llround((start_us - origin_us) * 1000));
    curve.add_step_end_offsets_ns(std::llround((end_us - origin_us) * 1000));
    curve.add_step_ids(step.step());
  }
  curve.add_step_offsets_ns(std::llround(
      (HostRangeUs(w.steps(w.steps_size() - 1)).second - origin_us) * 1000));
}

}  // namespace

double StepMetricOf(const v1::StepStats& step, DigestStepMetric metric) {
  switch (metric) {
    case kStepTime:
      return step.duration_us();
    case kStepKernel:
      return step.kernel_us();
    case kStepMemcpy:
      return step.memcpy_us();
    case kStepMemset:
      return step.memset_us();
    case kStepCommunication:
      return step.communication_us();
    case kStepRuntime:
      return step.runtime_us();
    case kStepDataLoader:
      return step.dataloader_us();
    case kStepCpuExec:
      return step.cpu_exec_us();
    case kStepOther:
      return step.other_us();
    case kStepMetrics:
      break;
  }
  return 0;
}

struct RunDigestBuilder::State {
  explicit State(DigestOptions options) : modules(options.node_tables) {}

  std::set<int32_t> wanted;  // empty: every rank
  v1::RunDigest digest;
  bool any = false;
  int32_t last_rank = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> seen;  // every worker's rank
  // Who each worker is (rank, world size, name), to name a rank given twice.
  std::vector<v1::WorkerInfo> members;
  // What matching collectives needs of every worker: rank, steps, calls.
  std::vector<v1::WorkerProfile> collectives;
  RowIndex operators;
  RowIndex kernels;
  MemoryRowIndex operator_memory;
  MemoryRowIndex module_memory;
  ModuleTreeReducer modules;
  std::map<std::string, v1::DigestDeviceMemory> devices;
  // Notes on workers in first-seen order, each with its ranks: what a rank
  // "has" (its kept steps), or what its profile says.
  struct Note {
    bool has;
    std::string text;
    std::vector<int32_t> ranks;
  };
  std::vector<Note> notes;
  absl::flat_hash_map<std::pair<bool, std::string>, size_t> note_index;

  void AddNote(bool has, std::string text, int32_t rank) {
    auto [it, inserted] =
        note_index.try_emplace(std::pair(has, text), notes.size());
    if (inserted) notes.push_back({has, std::move(text), {}});
    notes[it->second].ranks.push_back(rank);
  }

  void AddOverview(const v1::WorkerProfile& w) {
    v1::DigestOverview& o = *digest.mutable_overview();
    if (digest.ranks_size() == 1) {
      o.set_device_name(DeviceName(w));
      if (w.worker().devices_size() > 0) {
        o.set_device_memory_bytes(
            w.worker().devices(0).total_global_mem_bytes());
      }
      o.set_module_source(w.module_source());
      o.set_operator_grouping(w.operator_grouping());
      o.set_kernel_grouping(w.kernel_grouping());
      for (int m = 0; m < kStepMetrics; ++m) o.add_step_metrics();
    }
    const double device_memory =
        w.worker().devices_size() > 0
            ? static_cast<double>(
                  w.worker().devices(0).total_global_mem_bytes())
            : 0.0;
    o.set_device_memory_sum(o.device_memory_sum() + device_memory);
    o.set_has_device_memory(o.has_device_memory() || device_memory > 0);
    o.set_steps_sum(o.steps_sum() + w.steps_size());
    o.set_steps_dropped(o.steps_dropped() + w.steps_dropped());
    o.set_gpu_utilization_sum(o.gpu_utilization_sum() + w.gpu_utilization());
    o.set_has_devices(o.has_devices() || HasDevices(w));
    o.set_sm_efficiency_sum(o.sm_efficiency_sum() + w.sm_efficiency());
    o.set_has_sm_efficiency(
        o.has_sm_efficiency() ||
        AnyDevice(w, &v1::DeviceMetrics::has_sm_efficiency));
    o.set_occupancy_sum(o.occupancy_sum() + w.achieved_occupancy_pct());
    o.set_has_occupancy(o.has_occupancy() ||
                        AnyDevice(w, &v1::DeviceMetrics::has_occupancy));
    if (const v1::MemoryStats* m = MainMemory(w)) {
      o.set_peak_memory_sum(o.peak_memory_sum() +
                            static_cast<double>(m->peak_allocated_bytes()));
      o.set_average_memory_sum(o.average_memory_sum() +
                               m->average_allocated_bytes());
      o.set_has_memory(true);
    }
    for (int m = 0; m < kStepMetrics; ++m) {
      const auto metric = static_cast<DigestStepMetric>(m);
      v1::ReducedMetric& r = *o.mutable_step_metrics(m);
      r.set_per_step(r.per_step() + StepMetricOf(w.average_step(), metric));
      for (const v1::StepStats& step : w.steps())
        AddSample(StepMetricOf(step, metric), *r.mutable_samples());
    }
  }

  void AddMemory(const v1::WorkerProfile& w) {
    v1::DigestMemory& memory = *digest.mutable_memory();
    // Events win; otherwise the last worker's source that is one.
    if (memory.source() != v1::MEMORY_SOURCE_EVENTS &&
        w.memory_source() != v1::MEMORY_SOURCE_NONE) {
      memory.set_source(w.memory_source());
    }
    for (const v1::MemoryStats& m : w.memory()) {
      v1::DigestDeviceMemory& d = devices[m.device()];
      if (d.workers() == 0) {
        d.set_device(m.device());
        FillPlaceAndCurve(w, m, *d.mutable_peak(), *d.mutable_curve());
      }
      d.set_allocated_from_bytes(d.allocated_from_bytes() ||
                                 m.allocated_from_bytes());
      d.set_peak_sum(d.peak_sum() +
                     static_cast<double>(m.peak_allocated_bytes()));
      d.set_average_sum(d.average_sum() + m.average_allocated_bytes());
      d.set_reserved_sum(d.reserved_sum() +
                         static_cast<double>(m.peak_reserved_bytes()));
      d.set_workers(d.workers() + 1);
    }
    const int steps = w.steps_size();
    AddOperatorMemoryRows(w.operator_memory(), steps, operator_memory,
                          *memory.mutable_operators());
    AddModuleMemoryRows(w.module_memory(), steps, module_memory,
                        *memory.mutable_modules());
  }
};

RunDigestBuilder::RunDigestBuilder(std::string run, std::vector<int32_t> ranks,
                                   DigestOptions options)
    : state_(std::make_unique<State>(options)) {
  state_->digest.set_run(std::move(run));
  state_->wanted.insert(ranks.begin(), ranks.end());
}

RunDigestBuilder::~RunDigestBuilder() = default;

absl::Status RunDigestBuilder::Add(const v1::WorkerProfile& w) {
  State& s = *state_;
  const int32_t rank = w.worker().rank();
  if (s.any && rank < s.last_rank) {
    return absl::InvalidArgumentError(base::StrCat(
        "run ", s.digest.run(), ": worker rank ", rank, " added after rank ",
        s.last_rank, "; add workers in ascending rank order"));
  }
  s.any = true;
  s.last_rank = rank;
  s.seen.push_back(rank);
  v1::WorkerInfo& member = s.members.emplace_back();
  member.set_rank(rank);
  member.set_world_size(w.worker().world_size());
  member.set_worker_name(w.worker().worker_name());
  v1::WorkerProfile& calls = s.collectives.emplace_back();
  calls.mutable_worker()->set_rank(rank);
  *calls.mutable_steps() = w.steps();
  *calls.mutable_collective_calls() = w.collective_calls();
  if (!s.wanted.empty() && !s.wanted.contains(rank)) return absl::OkStatus();

  v1::RunDigest& d = s.digest;
  const int steps = w.steps_size();
  d.add_ranks(rank);
  d.set_slots(d.slots() + std::max(steps, 1));
  s.AddOverview(w);
  v1::DigestRank& row = *d.add_rank_rows();
  row.set_rank(rank);
  row.set_worker_name(w.worker().worker_name());
  *row.mutable_average_step() = w.average_step();
  row.set_steps(steps);
  AddOperatorRows(w.operators(), steps, s.operators, *d.mutable_operators());
  AddKernelRows(w.kernels(), steps, s.kernels, *d.mutable_kernels());
  s.modules.Add(w.modules(), steps);
  s.AddMemory(w);
  if (steps < 2) {
    s.AddNote(/*has=*/true,
              base::StrCat(steps, " kept step", steps == 1 ? "" : "s",
                           ": no per-step noise estimate, changes are judged "
                           "by the --min-change threshold alone"),
              rank);
  }
  // What the profile's bounds folded (analysis/profile_limits.h).
  for (const std::string& warning : w.warnings())
    s.AddNote(/*has=*/false, warning, rank);
  return absl::OkStatus();
}

void RunDigestBuilder::AddRunWarning(std::string warning) {
  state_->digest.add_run_warnings(std::move(warning));
}

absl::StatusOr<v1::RunDigest> RunDigestBuilder::Finish() {
  State& s = *state_;
  v1::RunDigest& d = s.digest;
  // A rank held by two workers is not one run, whichever ranks are reduced:
  // the offline loader refuses such a folder in the same words
  // (analysis/one_run.h).
  std::vector<const v1::WorkerInfo*> members;
  for (const v1::WorkerInfo& member : s.members) members.push_back(&member);
  if (const std::string twice = RanksGivenTwice(members); !twice.empty()) {
    return absl::FailedPreconditionError(
        base::StrCat("run ", d.run(), ": ", kNotOneRun, " (", twice,
                     "); upload each run under a run id of its own"));
  }
  if (d.ranks().empty()) {
    return absl::InvalidArgumentError(base::StrCat(
        "run \"", d.run(), "\" has no worker with the requested ranks (it has ",
        s.seen.empty() ? "no workers" : "ranks " + base::RankRanges(s.seen),
        ")"));
  }
  std::vector<const v1::WorkerProfile*> workers;
  workers.reserve(s.collectives.size());
  for (const v1::WorkerProfile& w : s.collectives) workers.push_back(&w);
  *d.mutable_communication() = DigestCommunicationOf(RunCommunicationOf(
      workers, std::vector<int32_t>(s.wanted.begin(), s.wanted.end())));
  s.collectives.clear();
  *d.mutable_modules() = s.modules.Finish();
  for (auto& [name, device] : s.devices)
    *d.mutable_memory()->add_devices() = std::move(device);
  // "rank 3 has 1 kept step: ...", "ranks 0-7: <what the profile folded>".
  for (const State::Note& note : s.notes) {
    const bool one = note.ranks.size() == 1;
    d.add_worker_notes(
        base::StrCat(one ? "rank " : "ranks ", base::RankRanges(note.ranks),
                     note.has ? (one ? " has " : " have ") : ": ", note.text));
  }
  return std::move(d);
}

std::vector<const v1::WorkerProfile*> WorkersByRank(const v1::RunProfile& run) {
  std::vector<const v1::WorkerProfile*> workers;
  workers.reserve(static_cast<size_t>(run.workers_size()));
  for (const v1::WorkerProfile& w : run.workers()) workers.push_back(&w);
  std::stable_sort(workers.begin(), workers.end(),
                   [](const v1::WorkerProfile* a, const v1::WorkerProfile* b) {
                     return a->worker().rank() < b->worker().rank();
                   });
  return workers;
}

absl::StatusOr<v1::RunDigest> DigestOfRun(const v1::RunProfile& run,
                                          const std::vector<int32_t>& ranks,
                                          DigestOptions options) {
  RunDigestBuilder builder(run.run(), ranks, options);
  for (const v1::WorkerProfile* w : WorkersByRank(run)) {
    if (absl::Status added = builder.Add(*w); !added.ok()) return added;
  }
  for (const std::string& warning : run.warnings())
    builder.AddRunWarning(warning);
  return builder.Finish();
}

}  // namespace profdiff::analysis
