// Aggregator ingest under load: N concurrent agents upload real traces (pre-cut
// into chunks, as the agent cuts them) to a real profdiff-aggregator process
// with durable acks.
// - Rounds (default): every agent uploads one span per round, a new run per
// round (as a new
//   training job would be). Prints events/s and MB/s in total, ack latency
//   percentiles, and the aggregator's RSS after each round (the target: RSS
//   does not grow with the events uploaded).
// - Load (--duration D): the agents upload spans back to back for D, the
// aggregator's RSS is
//   sampled every --sample-every, and at the end the events the aggregator
//   stored are checked against the events it acknowledged (lost must be 0).
//
// - With --clickhouse_shards N, the aggregator stores into N real ClickHouse
// servers started on
//   127.0.0.1 (Debian's clickhouse-server) instead of its data folder; the same
//   figures follow.
// After two or more rounds it times a diff answered from the store: both runs'
// profiles fetched with GetProfile (8 workers each), then diffed.
//
//   ingest_bench --aggregator build/aggregator/profdiff-aggregator [--agents 8]
//   [--rounds 3]
//                [--window 8] [--chunk-events 16384] [--duration 60s
//                --sample-every 5s]
//                [--clickhouse_shards 2]
//
// A harness rather than Google Benchmark: the subject is another process and
// the figures (throughput, latency percentiles, RSS) are not a per-iteration
// time.
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
#include "bench/bench_traces.h"
#include "differ/differ.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "rpc/limits.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"
#include "trace/worker_info.h"

ABSL_FLAG(std::string, aggregator, "aggregator/profdiff-aggregator",
          "profdiff-aggregator binary");
ABSL_FLAG(int, agents, 8, "concurrent upload streams");
ABSL_FLAG(int, rounds, 3, "rounds; every agent uploads one span per round");
ABSL_FLAG(int, window, profdiff::rpc::kDefaultUploadWindowChunks,
          "chunks in flight per stream, as the agent keeps");
ABSL_FLAG(int, chunk_events, 16384, "events per chunk (the agent's default)");
ABSL_FLAG(absl::Duration, duration, absl::ZeroDuration(),
          "load mode: upload back to back this long");
ABSL_FLAG(std::vector<std::string>, aggregator_flags, {},
          "extra flags for the aggregator (comma-separated)");
ABSL_FLAG(std::string, aggregator_log, "",
          "keep the aggregator's log in this file");
ABSL_FLAG(int, clickhouse_shards, 0,
          "store into this many ClickHouse shards (0: the local store)");
ABSL_FLAG(absl::Duration, sample_every, absl::Seconds(5),
          "load mode: RSS sampling period");

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
        *trace, begin, chunk_events, (4 << 20) - (64 << 10),
        *message.mutable_chunk()->mutable_events());
    if (!end.ok()) return end.status();
    prepared.bytes +=
        static_cast<int64_t>(message.chunk().events().ByteSizeLong());
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

// Uploads one span with up to `window` chunks in flight; records each chunk's
// write-to-ack time.
StreamResult UploadPipelined(const std::shared_ptr<grpc::Channel>& channel,
                             const Prepared& span, const std::string& run,
                             const std::string& span_id, int rank, int window,
                             const std::string& agent_id, int world_size) {
  StreamResult result;
  auto stub = v1::Collector::NewStub(channel);
  grpc::ClientContext context;
  profdiff::rpc::SetTimeout(context, absl::Minutes(10));
  auto stream = stub->Upload(&context);
  v1::UploadMessage header;
  header.mutable_header()->set_run(run);
  header.mutable_header()->set_span(span_id);
  header.mutable_header()->set_agent_id(agent_id);
  *header.mutable_header()->mutable_worker() = span.worker;
  header.mutable_header()->mutable_worker()->set_rank(rank);
  header.mutable_header()->mutable_worker()->set_world_size(world_size);
  header.mutable_header()->mutable_worker()->set_worker_name(
      profdiff::base::StrCat("agent", rank));
  v1::UploadAck ack;
  if (!stream->Write(header) || !stream->Read(&ack)) {
    result.error = stream->Finish().error_message();
    return result;
  }
  std::deque<Clock::time_point> sent;
  size_t next = 0;
  size_t acked = 0;
  while (acked < span.chunks.size()) {
    while (next < span.chunks.size() &&
           sent.size() < static_cast<size_t>(window)) {
      sent.push_back(Clock::now());
      if (!stream->Write(span.chunks[next++])) break;
    }
    if (!stream->Read(&ack)) {
      result.error = stream->Finish().error_message();
      return result;
    }
    result.ack_latency_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - sent.front())
            .count());
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
  // `store_flag` is --data-dir=DIR or --store=clickhouse://...
  bool Start(const std::string& binary, const std::string& store_flag) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    std::vector<std::string> args = {binary, "--listen=127.0.0.1:0",
                                     store_flag};
    for (const std::string& flag : absl::GetFlag(FLAGS_aggregator_flags))
      args.push_back(flag);
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int error = posix_spawn(&pid_, binary.c_str(), &actions, nullptr,
                                  argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (error != 0) return false;
    // The first "port=N" in its log is the bound port; then keep draining.
    FILE* log = fdopen(pipe_fds[0], "r");
    char line[4096];
    while (port_ == 0 && std::fgets(line, sizeof(line), log) != nullptr) {
      if (const char* at = std::strstr(line, " port="); at != nullptr)
        port_ = std::atoi(at + 6);
    }
    drain_ = std::jthread([log] {
      const std::string keep = absl::GetFlag(FLAGS_aggregator_log);
      FILE* copy = keep.empty() ? nullptr : std::fopen(keep.c_str(), "w");
      char rest[4096];
      while (std::fgets(rest, sizeof(rest), log) != nullptr) {
        if (copy != nullptr) std::fputs(rest, copy);
      }
      if (copy != nullptr) std::fclose(copy);
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

// The answers of one RunStore read for the bench's first two runs (ingest-r0,
// ingest-r1); false after printing the error.
template <typename Request, typename Response, typename Call>
bool FetchFirstTwoRuns(const char* what, Response (&out)[2], Call call) {
  for (int r = 0; r < 2; ++r) {
    grpc::ClientContext context;
    profdiff::rpc::SetTimeout(context, absl::Minutes(5));
    Request request;
    request.set_run(profdiff::base::StrCat("ingest-r", r));
    if (const grpc::Status status = call(&context, request, &out[r]);
        !status.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", what,
                   status.error_message().c_str());
      return false;
    }
  }
  return true;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1,
                         static_cast<size_t>(p * values.size()))];
}

// Load mode: `agents` threads upload spans back to back until `duration` has
// passed (a span under way is finished), each span rank 0 of its own one-worker
// run "load-AGENT-I".
int RunLoad(const std::vector<Prepared>& prepared,
            AggregatorProcess& aggregator, const std::string& address,
            int agents, absl::Duration duration) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop_at = start + absl::ToChronoNanoseconds(duration);
  std::vector<std::vector<double>> latencies(agents);
  std::vector<int64_t> acked_events(agents, 0), spans(agents, 0);
  std::vector<std::string> errors(agents);
  std::vector<std::pair<double, double>> rss_samples;  // (seconds, MiB)
  {
    std::jthread sampler([&](const std::stop_token& stop) {
      const auto period =
          absl::ToChronoNanoseconds(absl::GetFlag(FLAGS_sample_every));
      for (Clock::time_point next = Clock::now(); !stop.stop_requested();
           next += period) {
        // NOLINTNEXTLINE(performance-inefficient-vector-operation): until
        // stopped
        rss_samples.emplace_back(
            std::chrono::duration<double>(Clock::now() - start).count(),
            aggregator.RssMib().first);
        while (!stop.stop_requested() && Clock::now() < next + period) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
    });
    std::vector<std::jthread> threads;
    threads.reserve(agents);
    for (int a = 0; a < agents; ++a) {
      threads.emplace_back([&, a] {
        const std::shared_ptr<grpc::Channel> channel =
            profdiff::rpc::MakeChannel(address);
        for (int64_t i = 0; Clock::now() < stop_at; ++i) {
          const Prepared& span = prepared[(a + i) % prepared.size()];
          // A run per span, as a new job's worker (its profile is built once,
          // when it closes).
          StreamResult result = UploadPipelined(
              channel, span, profdiff::base::StrCat("load-", a, "-", i), "s0",
              0, absl::GetFlag(FLAGS_window),
              profdiff::base::StrCat("ingest-bench-", a), 1);
          if (!result.ok) {
            errors[a] = result.error;
            return;
          }
          latencies[a].insert(latencies[a].end(), result.ack_latency_ms.begin(),
                              result.ack_latency_ms.end());
          acked_events[a] += span.events;
          ++spans[a];
        }
      });
    }
    threads.clear();  // joins the agents; the sampler stops when it goes out of
                      // scope
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  int64_t events = 0, span_count = 0;
  for (int a = 0; a < agents; ++a) {
    if (!errors[a].empty()) {
      std::fprintf(stderr, "error: agent %d: %s\n", a, errors[a].c_str());
      return 1;
    }
    all.insert(all.end(), latencies[a].begin(), latencies[a].end());
    events += acked_events[a];
    span_count += spans[a];
  }
  // What the aggregator stored must be what it acknowledged: every span is its
  // own run.
  auto store = v1::RunStore::NewStub(profdiff::rpc::MakeChannel(address));
  int64_t stored = 0, stored_spans = 0;
  v1::ListRunsRequest request;
  request.set_filter("load-");
  request.set_page_size(1000);
  do {
    grpc::ClientContext context;
    profdiff::rpc::SetTimeout(context, absl::Minutes(2));
    v1::ListRunsResponse response;
    if (const grpc::Status status =
            store->ListRuns(&context, request, &response);
        !status.ok()) {
      std::fprintf(stderr, "error: ListRuns: %s\n",
                   status.error_message().c_str());
      return 1;
    }
    for (const v1::StoredRun& run : response.runs()) {
      stored += run.event_count();
      stored_spans += run.closed_worker_count();
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  const auto [rss, hwm] = aggregator.RssMib();
  std::printf(
      "load: agents=%d seconds=%.1f spans=%lld events=%lld events_per_s=%.0f "
      "ack_ms_p50=%.2f "
      "p99=%.2f max=%.2f stored_events=%lld stored_closed_spans=%lld "
      "events_lost=%lld "
      "aggregator_rss_mib=%.1f peak_mib=%.1f\n",
      agents, seconds, static_cast<long long>(span_count),
      static_cast<long long>(events), events / seconds, Percentile(all, 0.5),
      Percentile(all, 0.99), Percentile(all, 1.0),
      static_cast<long long>(stored), static_cast<long long>(stored_spans),
      static_cast<long long>(events - stored), rss, hwm);
  std::printf("rss_mib_over_time:");
  for (const auto& [at, mib] : rss_samples) std::printf(" %.0fs=%.1f", at, mib);
  std::printf("\n");
  return stored == events && stored_spans == span_count ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::vector<Prepared> prepared;
  for (const char* relative : kTraces) {
    absl::StatusOr<Prepared> p =
        Prepare(profdiff::bench::BenchTracePath(relative),
                absl::GetFlag(FLAGS_chunk_events));
    if (!p.ok()) {
      std::fprintf(stderr, "SKIPPED: %s\n",
                   std::string(p.status().message()).c_str());
      return 0;
    }
    std::printf("trace %-24s events=%lld chunks=%zu encoded_mb=%.1f\n",
                p->name.c_str(), static_cast<long long>(p->events),
                p->chunks.size(), p->bytes / 1e6);
    prepared.push_back(std::move(p).value());
  }
  const fs::path data_dir = fs::temp_directory_path() /
                            profdiff::base::StrCat("ingest_bench_", getpid());
  fs::remove_all(data_dir);
  std::string store_flag = "--data-dir=" + data_dir.string();
  std::unique_ptr<profdiff::testing::ClickHouseCluster> cluster;
  if (const int shards = absl::GetFlag(FLAGS_clickhouse_shards); shards > 0) {
    absl::StatusOr<std::unique_ptr<profdiff::testing::ClickHouseCluster>>
        started = profdiff::testing::ClickHouseCluster::Start(
            (data_dir / "clickhouse").string(), shards);
    if (!started.ok()) {
      std::fprintf(stderr, "SKIPPED: %s\n",
                   std::string(started.status().message()).c_str());
      return 0;
    }
    cluster = std::move(started).value();
    store_flag = "--store=" + cluster->Url("ingest_bench");
  }
  std::printf("store %s\n", store_flag.c_str());
  AggregatorProcess aggregator;
  if (!aggregator.Start(absl::GetFlag(FLAGS_aggregator), store_flag)) {
    std::fprintf(stderr, "error: could not start %s\n",
                 absl::GetFlag(FLAGS_aggregator).c_str());
    return 1;
  }
  const int agents = absl::GetFlag(FLAGS_agents);
  const auto address = profdiff::base::StrCat("127.0.0.1:", aggregator.port());
  std::printf("aggregator port=%d agents=%d window=%d rss_at_start_mib=%.1f\n",
              aggregator.port(), agents, absl::GetFlag(FLAGS_window),
              aggregator.RssMib().first);
  if (absl::GetFlag(FLAGS_duration) > absl::ZeroDuration()) {
    const int code = RunLoad(prepared, aggregator, address, agents,
                             absl::GetFlag(FLAGS_duration));
    std::error_code error;
    fs::remove_all(data_dir, error);
    return code;
  }
  int64_t total_events = 0;
  double total_seconds = 0;
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
      threads.reserve(agents);
      for (int a = 0; a < agents; ++a) {
        threads.emplace_back([&, a] {
          // One channel per agent, as separate agent processes would have.
          results[a] = UploadPipelined(
              profdiff::rpc::MakeChannel(address),
              prepared[a % prepared.size()],
              profdiff::base::StrCat("ingest-r", round), "span", a,
              absl::GetFlag(FLAGS_window),
              profdiff::base::StrCat("ingest-bench-", a), agents);
        });
      }
    }
    const double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> latencies;
    for (const StreamResult& r : results) {
      if (!r.ok) {
        std::fprintf(stderr, "error: upload failed: %s\n", r.error.c_str());
        return 1;
      }
      latencies.insert(latencies.end(), r.ack_latency_ms.begin(),
                       r.ack_latency_ms.end());
    }
    total_events += events;
    total_seconds += seconds;
    const auto [rss, hwm] = aggregator.RssMib();
    std::printf(
        "round %d: events=%lld seconds=%.2f events_per_s=%.0f "
        "encoded_mb_per_s=%.1f "
        "ack_ms_p50=%.2f p99=%.2f max=%.2f aggregator_rss_mib=%.1f "
        "peak_mib=%.1f "
        "events_uploaded_so_far=%lld\n",
        round, static_cast<long long>(events), seconds, events / seconds,
        bytes / 1e6 / seconds, Percentile(latencies, 0.5),
        Percentile(latencies, 0.99), Percentile(latencies, 1.0), rss, hwm,
        static_cast<long long>(total_events));
    std::fflush(stdout);
  }
  // Later rounds overlap the profile builds of earlier ones, as steady ingest
  // would.
  std::printf("all rounds: events=%lld seconds=%.2f events_per_s=%.0f\n",
              static_cast<long long>(total_events), total_seconds,
              total_events / total_seconds);
  if (absl::GetFlag(FLAGS_rounds) >= 2) {
    // The diff the Differ service makes: both runs reduced by the store
    // (GetRunDigest), then the diff; first, so no profile read below has warmed
    // anything for it.
    auto store = v1::RunStore::NewStub(profdiff::rpc::MakeChannel(address));
    const Clock::time_point digests_start = Clock::now();
    v1::RunDigest digests[2];
    if (!FetchFirstTwoRuns<v1::GetRunDigestRequest>(
            "GetRunDigest", digests,
            [&](auto* context, const auto& request, auto* response) {
              return store->GetRunDigest(context, request, response);
            })) {
      return 1;
    }
    const Clock::time_point digests_fetched = Clock::now();
    absl::StatusOr<v1::DiffReport> digest_report =
        profdiff::differ::DiffDigests(digests[0], digests[1], {});
    if (!digest_report.ok()) {
      std::fprintf(stderr, "error: digest diff: %s\n",
                   digest_report.status().ToString().c_str());
      return 1;
    }
    const Clock::time_point digests_diffed = Clock::now();
    std::printf(
        "digests_from_store: workers=%d+%d get_digests_ms=%.1f diff_ms=%.1f "
        "total_ms=%.1f response_bytes=%zu+%zu\n",
        digests[0].ranks_size(), digests[1].ranks_size(),
        std::chrono::duration<double, std::milli>(digests_fetched -
                                                  digests_start)
            .count(),
        std::chrono::duration<double, std::milli>(digests_diffed -
                                                  digests_fetched)
            .count(),
        std::chrono::duration<double, std::milli>(digests_diffed -
                                                  digests_start)
            .count(),
        digests[0].ByteSizeLong(), digests[1].ByteSizeLong());

    // A diff answered from the store: both runs' profiles over gRPC, then the
    // diff itself.
    const Clock::time_point start = Clock::now();
    v1::RunProfile profiles[2];
    if (!FetchFirstTwoRuns<v1::GetProfileRequest>(
            "GetProfile", profiles,
            [&](auto* context, const auto& request, auto* response) {
              return store->GetProfile(context, request, response);
            })) {
      return 1;
    }
    const Clock::time_point fetched = Clock::now();
    absl::StatusOr<v1::DiffReport> report =
        profdiff::differ::DiffRuns(profiles[0], profiles[1], {});
    if (!report.ok()) {
      std::fprintf(stderr, "error: diff: %s\n",
                   report.status().ToString().c_str());
      return 1;
    }
    const Clock::time_point diffed = Clock::now();
    std::printf(
        "diff_from_store: workers=%d+%d get_profiles_ms=%.1f diff_ms=%.1f "
        "total_ms=%.1f response_bytes=%zu+%zu\n",
        profiles[0].workers_size(), profiles[1].workers_size(),
        std::chrono::duration<double, std::milli>(fetched - start).count(),
        std::chrono::duration<double, std::milli>(diffed - fetched).count(),
        std::chrono::duration<double, std::milli>(diffed - start).count(),
        profiles[0].ByteSizeLong(), profiles[1].ByteSizeLong());
  }
  std::error_code error;
  fs::remove_all(data_dir, error);
  return 0;
}
