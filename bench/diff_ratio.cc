// `profdiff diff` and `profdiff show` against the one-core floor of both traces
// (gunzip + a simdjson walk touching every event's fields, bench/json_floor.h,
// one file after the other on one core): issue 52's targets are a full diff
// <= 0.6x of it, `--compare hta` <= 0.55x, `show --format json` of one file
// <= 0.6x (of the same floor of both files, as the table divides it;
// the ratio to one file's floor is printed beside). Rounds interleave every
// measurement, so a shared machine's noise falls on all alike; figures are
// medians, ratios medians of per-round ratios.
//
//   diff_ratio [--rounds N] [--profdiff PATH] [BASELINE EXPERIMENTAL]
//     (default: the xDiT pair of bench_traces.h; the profdiff binary next to
//     this one)
//   diff_ratio --floor TRACE...   (the cold floor in one process; DOM)
//   diff_ratio --floor-on-demand TRACE...   (the same through on-demand)
//
// The floor is issue 52's: gunzip + simdjson's DOM walk of both files. The
// on-demand walk (a third cheaper on the xDiT pair) is printed beside it.
//
// Warm, in this process: the phases of `profdiff diff --format json`, each as
// milliseconds and as a share of their sum:
//   read      both files parsed, a thread a side (as the CLI reads them)
//   profile   each side's WorkerProfile, a thread a side
//   digest    each side reduced to its RunDigest, a thread a side (without
//             the module nodes' rows, which the diff reduces for the nodes
//             it reads, as DiffRuns does)
//   diff      the diff of the digests without the findings
//   findings  what the findings add to it
//   json      the report written as JSON
// (Digests made here are not checked again, as DiffRuns does not check its
// own.)
// Cold, a fresh process per run, each against the cold floor (this binary's
// --floor, which allocates as the CLI does: jemalloc with huge pages, so both
// pay alike for fresh memory) and against the warm floor above (as the issue's
// table divides a command's time by the floor's; the targets are judged
// against it, the stricter of the two here):
//   diff --format json, diff --compare hta --format json,
//   diff --view overview --format json, show BASELINE --format json.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <simdjson.h>

#include "analysis/worker_profile.h"
#include "base/huge_page_extents.h"
#include "base/keep_freed_memory.h"
#include "bench/bench_traces.h"
#include "bench/cold_run.h"
#include "bench/json_floor.h"
#include "client/json_output.h"
#include "differ/differ.h"
#include "trace/kineto_reader.h"
#include "trace/trace_file.h"

namespace {

namespace fs = std::filesystem;
using profdiff::bench::Median;
using profdiff::bench::Millis;
using profdiff::bench::RunProcess;

// The floor of `paths`, one after the other: through simdjson's DOM (the
// issue's floor) or on-demand (show_ratio's and reader_bench's).
// Buffers and parsers are kept from call to call, as a reader keeps its own.
size_t FloorOf(const std::vector<std::string>& paths, bool dom) {
  static profdiff::bench::FloorText buffer;
  static simdjson::ondemand::parser on_demand;
  static simdjson::dom::parser tape;
  size_t touched = 0;
  for (const std::string& path : paths) {
    if (!buffer.Load(path)) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      std::exit(1);
    }
    touched += dom ? profdiff::bench::WalkEventsDom(tape, buffer)
                   : profdiff::bench::WalkEvents(on_demand, buffer);
  }
  return touched;
}

// Runs `f(0)` and `f(1)` on a thread each, as the CLI runs its two sides.
template <typename F>
void BothSides(F&& f) {
  std::jthread baseline([&] { f(0); });
  f(1);
}

template <typename T>
T OrExit(absl::StatusOr<T> value, const char* what) {
  if (!value.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, value.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(value);
}

struct Phase {
  const char* name;
  std::vector<double> ms;
};

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::KeepFreedMemoryForReuse();
  profdiff::base::UseHugePageExtents();  // as the CLI allocates
  if (argc >= 3 && (std::string(argv[1]) == "--floor" ||
                    std::string(argv[1]) == "--floor-on-demand")) {
    std::printf("%zu\n",
                FloorOf(std::vector<std::string>(argv + 2, argv + argc),
                        std::string(argv[1]) == "--floor"));
    return 0;
  }
  const profdiff::bench::RatioArgs args =
      profdiff::bench::ParseRatioArgs(argc, argv, 7);
  const int rounds = args.rounds;
  const std::string& profdiff = args.profdiff;
  std::vector<std::string> pair = args.paths;
  if (pair.empty()) {
    for (const char* t : profdiff::bench::kDiffPair)
      pair.push_back(profdiff::bench::BenchTracePath(t));
  }
  if (pair.size() != 2) {
    std::fprintf(stderr,
                 "usage: diff_ratio [--rounds N] [--profdiff PATH] "
                 "[BASELINE EXPERIMENTAL]\n");
    return 2;
  }
  for (const std::string& path : pair) {
    if (!fs::exists(path)) {
      std::printf("SKIPPED: %s not found\n", path.c_str());
      return 0;
    }
  }
  std::printf("pair: %s | %s\nrounds: %d, profdiff: %s\n", pair[0].c_str(),
              pair[1].c_str(), rounds, profdiff.c_str());

  // Warm phases.
  size_t sink = 0;
  std::vector<Phase> phases = {{"read", {}}, {"profile", {}},  {"digest", {}},
                               {"diff", {}}, {"findings", {}}, {"json", {}}};
  std::vector<double> warm_floor, warm_on_demand;
  profdiff::v1::DiffOptions no_findings;
  for (const profdiff::v1::DiffView view :
       {profdiff::v1::DIFF_VIEW_OVERVIEW, profdiff::v1::DIFF_VIEW_MODULES,
        profdiff::v1::DIFF_VIEW_OPERATORS, profdiff::v1::DIFF_VIEW_KERNELS,
        profdiff::v1::DIFF_VIEW_COMMUNICATION,
        profdiff::v1::DIFF_VIEW_MEMORY}) {
    no_findings.add_views(view);
  }
  const profdiff::v1::DiffOptions full;
  const profdiff::analysis::DigestOptions without_tables{.node_tables = false};
  for (int r = 0; r <= rounds; ++r) {  // round 0 warms up
    warm_floor.push_back(Millis([&] { sink += FloorOf(pair, true); }));
    warm_on_demand.push_back(Millis([&] { sink += FloorOf(pair, false); }));
    profdiff::trace::Trace traces[2];
    profdiff::v1::RunProfile runs[2];
    profdiff::v1::RunDigest digests[2];
    // As DiffRuns: each side's module nodes' rows reduced when read.
    std::optional<profdiff::analysis::ModuleNodeTables> tables[2];
    const profdiff::analysis::ModuleNodeTables* node_tables[2] = {};
    profdiff::v1::DiffReport report;
    std::string json;
    const double ms[] = {
        Millis([&] {
          BothSides([&](int i) {
            // As the CLI's run loader reads: without plain Python frames.
            profdiff::trace::KinetoReader reader({.keep_python_frames = false});
            traces[i] = OrExit(reader.ReadFile(pair[i]), "read");
          });
        }),
        Millis([&] {
          BothSides([&](int i) {
            runs[i].set_run(i == 0 ? "baseline" : "experimental");
            *runs[i].add_workers() = profdiff::analysis::BuildWorkerProfile(
                traces[i], {runs[i].run(), "w", 1}, {});
          });
        }),
        Millis([&] {
          BothSides([&](int i) {
            digests[i] = OrExit(profdiff::differ::DigestForDiff(
                                    runs[i], full, "side", without_tables),
                                "digest");
            node_tables[i] = &tables[i].emplace(runs[i], digests[i]);
          });
        }),
        Millis([&] {
          sink += OrExit(profdiff::differ::DiffCheckedDigests(
                             digests[0], digests[1], no_findings, node_tables),
                         "diff")
                      .ByteSizeLong();
        }),
        Millis([&] {
          report = OrExit(profdiff::differ::DiffCheckedDigests(
                              digests[0], digests[1], full, node_tables),
                          "diff");
        }),
        Millis(
            [&] { json = OrExit(profdiff::client::ToJson(report), "json"); }),
    };
    sink += json.size();
    if (r == 0) {
      warm_floor.clear();
      warm_on_demand.clear();
      continue;
    }
    for (size_t p = 0; p < phases.size(); ++p) phases[p].ms.push_back(ms[p]);
    // The findings' share: the full diff less the one without them.
    phases[4].ms.back() = std::max(0.0, ms[4] - ms[3]);
  }
  double sum = 0;
  for (const Phase& p : phases) sum += Median(p.ms);
  std::printf(
      "\nwarm phases of diff --format json (medians, ms; floor of both "
      "files %.1f ms, on-demand %.1f ms)\n",
      Median(warm_floor), Median(warm_on_demand));
  for (const Phase& p : phases) {
    std::printf("  %-9s %8.1f  %5.1f%%\n", p.name, Median(p.ms),
                100 * Median(p.ms) / sum);
  }
  std::printf("  %-9s %8.1f  %5.2fx the floor (on-demand %.2fx)\n", "sum", sum,
              sum / Median(warm_floor), sum / Median(warm_on_demand));

  // Cold commands.
  struct Command {
    const char* name;
    std::vector<std::string> argv;
    double target;
    std::vector<double> ms, ratio, on_demand_ratio, warm_ratio;
  };
  std::vector<Command> commands = {
      {"diff --format json",
       {profdiff, "diff", pair[0], pair[1], "--format", "json"},
       0.6,
       {},
       {},
       {},
       {}},
      {"diff --compare hta --format json",
       {profdiff, "diff", pair[0], pair[1], "--compare", "hta", "--format",
        "json"},
       0.55,
       {},
       {},
       {},
       {}},
      {"diff --view overview --format json",
       {profdiff, "diff", pair[0], pair[1], "--view", "overview", "--format",
        "json"},
       0,
       {},
       {},
       {},
       {}},
      {"show BASELINE --format json",
       {profdiff, "show", pair[0], "--format", "json"},
       0.6,
       {},
       {},
       {},
       {}},
  };
  std::vector<double> cold_floor, cold_on_demand, show_one_file_ratio;
  const std::vector<std::string> floor_argv = {argv[0], "--floor", pair[0],
                                               pair[1]};
  const std::vector<std::string> on_demand_argv = {argv[0], "--floor-on-demand",
                                                   pair[0], pair[1]};
  const std::vector<std::string> one_file_argv = {argv[0], "--floor", pair[0]};
  for (int r = 0; r <= rounds; ++r) {
    const double floor_ms = Millis([&] { RunProcess(floor_argv); });
    const double on_demand_ms = Millis([&] { RunProcess(on_demand_argv); });
    const double one_file_ms = Millis([&] { RunProcess(one_file_argv); });
    if (r > 0) {
      cold_floor.push_back(floor_ms);
      cold_on_demand.push_back(on_demand_ms);
    }
    for (Command& c : commands) {
      const double ms = Millis([&] { RunProcess(c.argv); });
      if (r == 0) continue;
      c.ms.push_back(ms);
      c.ratio.push_back(ms / floor_ms);
      c.on_demand_ratio.push_back(ms / on_demand_ms);
      c.warm_ratio.push_back(ms / Median(warm_floor));
      if (&c == &commands.back())
        show_one_file_ratio.push_back(ms / one_file_ms);
    }
  }
  std::printf(
      "\ncold, a process per run (medians; floor of both files %.1f "
      "ms, on-demand %.1f ms)\n",
      Median(cold_floor), Median(cold_on_demand));
  // Judged against the warm floor: on a VM whose fresh memory is slow to
  // fault in (as here), the cold floor's own allocations can make it several
  // times the warm one, and every ratio to it look better than it is.
  int over = 0;
  int over_cold = 0;
  for (const Command& c : commands) {
    const double ratio = Median(c.ratio);
    const double warm_ratio = Median(c.warm_ratio);
    const bool missed = c.target > 0 && warm_ratio > c.target;
    over += missed ? 1 : 0;
    over_cold += c.target > 0 && ratio > c.target ? 1 : 0;
    std::printf(
        "  %-36s %8.1f ms  %5.2fx (on-demand %5.2fx, warm floor %5.2fx)",
        c.name, Median(c.ms), ratio, Median(c.on_demand_ratio), warm_ratio);
    if (c.target > 0) {
      std::printf("  (target <= %.2fx of the warm floor%s)", c.target,
                  missed ? ", missed" : "");
    }
    std::printf("\n");
  }
  std::printf("  (show against the floor of its one file: %.2fx)\n",
              Median(show_one_file_ratio));
  std::printf(
      "targets missed: %d against the warm floor, %d against the cold floor "
      "(bytes produced: %zu)\n",
      over, over_cold, sink);
  return 0;
}
