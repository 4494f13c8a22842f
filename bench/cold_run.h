// What the ratio benchmarks share: a wall-clock timer, the median, and a
// command run in a fresh process (a user's cold start: page faults, loading).
#ifndef PROFDIFF_BENCH_COLD_RUN_H_
#define PROFDIFF_BENCH_COLD_RUN_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace profdiff::bench {

// Milliseconds `f` took.
double Millis(const std::function<void()>& f);

// The middle value (the upper one of an even count); 0 for none.
double Median(std::vector<double> values);

// Runs `argv` with its stdout on /dev/null; exits this process if it fails.
void RunProcess(const std::vector<std::string>& argv);

// A ratio benchmark's command line: [--rounds N] [--profdiff PATH] PATH...
struct RatioArgs {
  int rounds;
  std::string profdiff;  // default: the CLI built next to the benchmark
  std::vector<std::string> paths;
};
RatioArgs ParseRatioArgs(int argc, char** argv, int default_rounds);

}  // namespace profdiff::bench

#endif  // PROFDIFF_BENCH_COLD_RUN_H_
