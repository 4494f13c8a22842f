// `profdiff show` on one trace against the floor (gunzip + a simdjson walk
// touching every event's fields, bench/json_floor.h); the target is a ratio of
// at most 2. Each round runs every measurement once, in turn, so the noise of a
// shared machine falls on all of them alike; the figures reported are medians,
// the ratios medians of the per-round ratios.
//
//   show_ratio [--rounds N] [--profdiff PATH] [TRACE...]
//     (default: the largest traces under $PROFDIFF_TRACES; the profdiff binary
//     next to this one)
//   show_ratio --floor TRACE   (one floor run; what the cold measurement
//   starts)
//
// Two comparisons:
//   warm: in this process, buffers and parsers reused from round to round (as
//   the Google
//     Benchmark reader_bench measures): the floor, against reading the file in
//     parts and building the profile on all cores, and against doing both on
//     one thread;
//   cold: a fresh process per run, paying for page faults and start-up as a
//   user's command does:
//     `show_ratio --floor TRACE` against `profdiff show TRACE --view all`
//     (output to /dev/null).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
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
#include "trace/kineto_reader.h"
#include "trace/trace_file.h"

namespace {

namespace fs = std::filesystem;
using profdiff::bench::Median;
using profdiff::bench::Millis;
using profdiff::bench::RunProcess;

size_t Floor(const std::string& path, profdiff::bench::FloorText& buffer,
             simdjson::ondemand::parser& parser) {
  if (!buffer.Load(path)) {
    std::fprintf(stderr, "%s: cannot read\n", path.c_str());
    std::exit(1);
  }
  return profdiff::bench::WalkEvents(parser, buffer);
}

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::KeepFreedMemoryForReuse();
  profdiff::base::UseHugePageExtents();  // as the CLI allocates
  if (argc == 3 && std::string(argv[1]) == "--floor") {
    profdiff::bench::FloorText buffer;
    simdjson::ondemand::parser parser;
    std::printf("%zu\n", Floor(argv[2], buffer, parser));
    return 0;
  }
  const profdiff::bench::RatioArgs args =
      profdiff::bench::ParseRatioArgs(argc, argv, 11);
  const int rounds = args.rounds;
  const std::string& profdiff = args.profdiff;
  std::vector<std::string> traces = args.paths;
  if (traces.empty()) {
    for (const char* t : profdiff::bench::kLargestTraces)
      traces.push_back(profdiff::bench::BenchTracePath(t));
  }
  const int cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf(
      "cores: %d, rounds: %d, simdjson on-demand kernel: %s, profdiff: %s\n",
      cores, rounds, SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION),
      profdiff.c_str());
  std::printf("%-40s | %8s %8s %7s %8s %7s | %8s %8s %7s\n", "", "warm", "", "",
              "", "", "cold", "", "");
  std::printf("%-40s | %8s %8s %7s %8s %7s | %8s %8s %7s\n", "trace", "floor",
              "show", "ratio", "1-thread", "ratio", "floor", "show", "ratio");
  int over_target = 0;
  size_t sink =
      0;  // what the runs produced, printed so that none can be optimised away
  for (const std::string& path : traces) {
    if (!fs::exists(path)) {
      std::printf("%-40s SKIPPED: not found\n", path.c_str());
      continue;
    }
    profdiff::bench::FloorText buffer;
    simdjson::ondemand::parser parser;
    // Read as the CLI's run loader reads: without plain Python frames.
    constexpr profdiff::trace::ReaderLimits kAsTheCli{.keep_python_frames =
                                                          false};
    profdiff::trace::KinetoReader all_cores(kAsTheCli, {.threads = cores});
    profdiff::trace::KinetoReader one_thread(kAsTheCli);
    auto floor = [&] { sink += Floor(path, buffer, parser); };
    auto show_with = [&](profdiff::trace::KinetoReader& reader, int threads) {
      auto trace = reader.ReadFile(path);
      if (!trace.ok()) std::exit(1);
      sink += profdiff::analysis::BuildWorkerProfile(*trace, {"run", "w", 1},
                                                     {.threads = threads})
                  .ByteSizeLong();
    };
    auto show = [&] { show_with(all_cores, cores); };
    auto single = [&] { show_with(one_thread, 1); };
    auto cold_floor = [&] { RunProcess({argv[0], "--floor", path}); };
    auto cold_show = [&] {
      RunProcess({profdiff, "show", path, "--view", "all"});
    };
    floor(), show(), single(), cold_floor(),
        cold_show();  // warm-up: page cache, allocator
    std::vector<double> t[5], show_ratio, single_ratio, cold_ratio;
    for (int r = 0; r < rounds; ++r) {
      t[0].push_back(Millis(floor));
      t[1].push_back(Millis(show));
      t[2].push_back(Millis(single));
      t[3].push_back(Millis(cold_floor));
      t[4].push_back(Millis(cold_show));
      show_ratio.push_back(t[1].back() / t[0].back());
      single_ratio.push_back(t[2].back() / t[0].back());
      cold_ratio.push_back(t[4].back() / t[3].back());
    }
    const double ratio = Median(show_ratio);
    if (ratio > 2.0) ++over_target;
    std::printf(
        "%-40.40s | %8.1f %8.1f %6.2fx %8.1f %6.2fx | %8.1f %8.1f %6.2fx\n",
        fs::path(path).filename().c_str(), Median(t[0]), Median(t[1]), ratio,
        Median(t[2]), Median(single_ratio), Median(t[3]), Median(t[4]),
        Median(cold_ratio));
  }
  std::printf(
      "times in ms; traces over the 2x target (warm): %d (bytes produced: "
      "%zu)\n",
      over_target, sink);
  return 0;
}
