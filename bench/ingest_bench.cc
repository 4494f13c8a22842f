// Aggregator ingest under load: N concurrent agents upload real traces (pre-cut into chunks, as
// the agent cuts them) to a real profdiff-aggregator process with durable acks, for several
// rounds (a new run per round, as a new training job would be). Prints events/s and MB/s in total, ack latency percentiles, and the aggregator's RSS
// after each round (the target: RSS does not grow with the events uploaded).
//
//   ingest_bench --aggregator build/aggregator/profdiff-aggregator [--agents 8] [--rounds 3]
//                [--window 8] [--chunk-events 16384]
//
// A harness rather than Google Benchmark: the subject is another process and the figures
// (throughput, latency percentiles, RSS) are not a per-iteration time.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <absl/flags/flag.h>
#include <absl/flags/parse.h>
#include <grpcpp/grpcpp.h>

#include "base/str_cat.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "rpc/channel.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"
#include "trace/worker_info.h"

ABSL_FLAG(std::string, aggregator, "aggregator/profdiff-aggregator", "profdiff-aggregator binary");
ABSL_FLAG(int, agents, 8, "concurrent upload streams");
ABSL_FLAG(int, rounds, 3, "rounds; every agent uploads one span per round");
ABSL_FLAG(int, window, 8, "chunks in flight per stream, as the agent keeps");
ABSL_FLAG(int, chunk_events, 16384, "events per chunk (the agent's default)");

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kTraces[] = {
    "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz",
    "tracelens/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz",
};

namespace v1 = profdiff::v1;

struct Prepared {
  std::string name;
  v1::WorkerInfo worker;
  std::vector<v1::UploadMessage> chunks;
  int64_t events = 0;
  int64_t bytes = 0;  // encoded EventBatch bytes
};

absl::StatusOr<Prepared> Prepare(const std::string& path, int chunk_events) {
  profdiff::trace::KinetoReader reader;
  absl::StatusOr<profdiff::trace::Trace> trace = reader.ReadFile(path);
  if (!trace.ok()) return trace.status();
  Prepared prepared;
  prepared.name = fs::path(path).parent_path().filename().string();
  prepared.worker = profdiff::trace::WorkerInfoOf(*trace);
  prepared.worker.set_worker_name(prepared.name);
  for (size_t begin = 0; begin < trace->events.size();) {
    v1::UploadMessage& message = prepared.chunks.emplace_back();
    message.mutable_chunk()->set_sequence(prepared.chunks.size() - 1);
    absl::StatusOr<size_t> end = profdiff::trace::EncodeEventBatchWithin(
        *trace, begin, chunk_events, (4 << 20) - (64 << 10), *message.mutable_chunk()->mutable_events());
    if (!end.ok()) return end.status();
    prepared.bytes += static_cast<int64_t>(message.chunk().events().ByteSizeLong());
    begin = *end;
  }
  prepared.events = static_cast<int64_t>(trace->events.size());
  return prepared;
}

struct StreamResult {
  bool ok = false;
  std::string error;
  std::vector<double> ack_latency_ms;
};

// Uploads one span with up to `window` chunks in flight; records each chunk's write-to-ack time.
StreamResult UploadPipelined(const std::shared_ptr<grpc::Channel>& channel, const Prepared& span,
                             const std::string& run, const std::string& span_id, int rank, int window) {
  StreamResult result;
  auto stub = v1::Collector::NewStub(channel);
  grpc::ClientContext context;
  profdiff::rpc::SetTimeout(context, absl::Minutes(10));
  auto stream = stub->Upload(&context);
  v1::UploadMessage header;
  header.mutable_header()->set_run(run);
  header.mutable_header()->set_span(span_id);
  header.mutable_header()->set_agent_id("ingest-bench");
  *header.mutable_header()->mutable_worker() = span.worker;
  header.mutable_header()->mutable_worker()->set_rank(rank);
  header.mutable_header()->mutable_worker()->set_world_size(absl::GetFlag(FLAGS_agents));
  header.mutable_header()->mutable_worker()->set_worker_name(profdiff::base::StrCat("agent", rank));
  v1::UploadAck ack;
  if (!stream->Write(header) || !stream->Read(&ack)) {
    result.error = stream->Finish().error_message();
    return result;
  }
  std::deque<Clock::time_point> sent;
  size_t next = 0;
  size_t acked = 0;
  while (acked < span.chunks.size()) {
    while (next < span.chunks.size() && sent.size() < static_cast<size_t>(window)) {
      sent.push_back(Clock::now());
      if (!stream->Write(span.chunks[next++])) break;
    }
    if (!stream->Read(&ack)) {
      result.error = stream->Finish().error_message();
      return result;
    }
    result.ack_latency_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - sent.front()).count());
    sent.pop_front();
    ++acked;
  }
  v1::UploadMessage end;
  end.mutable_end()->set_chunk_count(span.chunks.size());
  end.mutable_end()->set_event_count(span.events);
  if (!stream->Write(end) || !stream->Read(&ack) || !ack.span_closed()) {
    result.error = stream->Finish().error_message();
    return result;
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  result.ok = status.ok();
  result.error = status.error_message();
  return result;
}

// The aggregator under test, in its own process; stderr is drained by a thread.
class AggregatorProcess {
 public:
  bool Start(const std::string& binary, const std::string& data_dir) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    std::vector<std::string> args = {binary, "--listen=127.0.0.1:0", "--data-dir=" + data_dir};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int error = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (error != 0) return false;
    // The first "port=N" in its log is the bound port; then keep draining.
    FILE* log = fdopen(pipe_fds[0], "r");
    char line[4096];
    while (port_ == 0 && std::fgets(line, sizeof(line), log) != nullptr) {
      if (const char* at = std::strstr(line, " port="); at != nullptr) port_ = std::atoi(at + 6);
    }
    drain_ = std::jthread([log] {
      char rest[4096];
      while (std::fgets(rest, sizeof(rest), log) != nullptr) {
      }
      std::fclose(log);
    });
    return port_ != 0;
  }

  // Resident and peak resident set of the aggregator, MiB.
  std::pair<double, double> RssMib() const {
    std::ifstream status(profdiff::base::StrCat("/proc/", pid_, "/status"));
    std::string key;
    double rss = 0, hwm = 0;
    while (status >> key) {
      if (key == "VmRSS:") status >> rss;
      if (key == "VmHWM:") status >> hwm;
    }
    return {rss / 1024, hwm / 1024};
  }

  ~AggregatorProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }

  int port() const { return port_; }

 private:
  pid_t pid_ = 0;
  int port_ = 0;
  std::jthread drain_;
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const char* env = std::getenv("PROFDIFF_TRACES");
  const fs::path traces = env != nullptr ? env : "../shared/traces";
  std::vector<Prepared> prepared;
  for (const char* relative : kTraces) {
    absl::StatusOr<Prepared> p = Prepare((traces / relative).string(), absl::GetFlag(FLAGS_chunk_events));
    if (!p.ok()) {
      std::fprintf(stderr, "SKIPPED: %s\n", std::string(p.status().message()).c_str());
      return 0;
    }
    std::printf("trace %-24s events=%lld chunks=%zu encoded_mb=%.1f\n", p->name.c_str(),
                static_cast<long long>(p->events), p->chunks.size(), p->bytes / 1e6);
    prepared.push_back(std::move(p).value());
  }
  const fs::path data_dir = fs::temp_directory_path() / profdiff::base::StrCat("ingest_bench_", getpid());
  fs::remove_all(data_dir);
  AggregatorProcess aggregator;
  if (!aggregator.Start(absl::GetFlag(FLAGS_aggregator), data_dir.string())) {
    std::fprintf(stderr, "error: could not start %s\n", absl::GetFlag(FLAGS_aggregator).c_str());
    return 1;
  }
  const int agents = absl::GetFlag(FLAGS_agents);
  const auto address = profdiff::base::StrCat("127.0.0.1:", aggregator.port());
  std::printf("aggregator port=%d agents=%d window=%d rss_at_start_mib=%.1f\n", aggregator.port(),
              agents, absl::GetFlag(FLAGS_window), aggregator.RssMib().first);
  int64_t total_events = 0;
  for (int round = 0; round < absl::GetFlag(FLAGS_rounds); ++round) {
    std::vector<StreamResult> results(agents);
    int64_t events = 0, bytes = 0;
    for (int a = 0; a < agents; ++a) {
      events += prepared[a % prepared.size()].events;
      bytes += prepared[a % prepared.size()].bytes;
    }
    const Clock::time_point start = Clock::now();
    {
      std::vector<std::jthread> threads;
      for (int a = 0; a < agents; ++a) {
        threads.emplace_back([&, a] {
          // One channel per agent, as separate agent processes would have.
          results[a] = UploadPipelined(profdiff::rpc::MakeChannel(address), prepared[a % prepared.size()],
                                       profdiff::base::StrCat("ingest-r", round), "span", a,
                                       absl::GetFlag(FLAGS_window));
        });
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> latencies;
    for (const StreamResult& r : results) {
      if (!r.ok) {
        std::fprintf(stderr, "error: upload failed: %s\n", r.error.c_str());
        return 1;
      }
      latencies.insert(latencies.end(), r.ack_latency_ms.begin(), r.ack_latency_ms.end());
    }
    total_events += events;
    const auto [rss, hwm] = aggregator.RssMib();
    std::printf(
        "round %d: events=%lld seconds=%.2f events_per_s=%.0f encoded_mb_per_s=%.1f "
        "ack_ms_p50=%.2f p99=%.2f max=%.2f aggregator_rss_mib=%.1f peak_mib=%.1f "
        "events_uploaded_so_far=%lld\n",
        round, static_cast<long long>(events), seconds, events / seconds, bytes / 1e6 / seconds,
        Percentile(latencies, 0.5), Percentile(latencies, 0.99), Percentile(latencies, 1.0), rss, hwm,
        static_cast<long long>(total_events));
    std::fflush(stdout);
  }
  std::error_code error;
  fs::remove_all(data_dir, error);
  return 0;
}
