// Runs of a thousand ranks (issue 32): for each rank count N, two N-rank runs
// made from real traces (bench/make_rank_run.py) are uploaded into a real
// profdiff-aggregator by a few real `profdiff-agent upload` processes, then
// diffed through a real profdiff-differ. Per N it prints
// - upload: seconds and events/s for each run;
// - ready: from the last upload to a COMPLETE run, and to its digest made
//   (the aggregator reduces a run when its last span closes);
// - diff_after_last_upload: Differ.Diff of A and B asked the moment the last
//   agent of B exits (a differ started before B's upload), timed from then:
//   what a user who diffs as soon as the job ends waits;
// - with ClickHouse, the active parts per table over the shards after both
//   uploads (every insert makes a part the servers then merge), and the
//   servers' inserts, selects and merges so far;
// - diff: Differ.Diff of the two run ids with a fresh differ (uncached) and
//   again (cached), and with the aggregator restarted too (cold: nothing in
//   memory, both digests read back from the store that kept them);
// - web: the differ's web UI page of that diff (GET /diff?baseline=A&
//   experimental=B, as a browser asks it: the page with the other groupings
//   when they are ready within the UI's budget), first and again (issue 49:
//   under 1 s);
// - the differ's and the aggregator's peak RSS (VmHWM), and the digest bytes;
// then each figure at the largest N over the smallest (the targets: uncached
// diff <= 5 s at 1,024 ranks, differ peak RSS <= 512 MB, both within 2x from
// 128 to 1,024 ranks).
//
//   scale_bench --bin_dir build [--ranks 128,1024] [--agents 4]
//               [--agent_parallel N]
//               [--clickhouse_shards 2] [--work_dir /tmp/profdiff-scale]
//
// Nothing is removed while it measures: an earlier run's data (this rank
// count's folder, the ClickHouse servers' parts) are moved into
// <work_dir>/trash and removed when the bench ends. On ext4 without a journal
// (this VM's) every file created in the minute or more after a mass removal
// steps over the freed inodes, and removing the last run's ~40k part files
// just before the uploads made the servers' own part files ~7 % of both
// cores. Back-to-back invocations still pay for the previous one's removal.
//
// A harness rather than Google Benchmark: the subjects are other processes and
// the figures are not a per-iteration time.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include <absl/flags/flag.h>
#include <absl/flags/parse.h>
#include <absl/functional/any_invocable.h>
#include <grpcpp/grpcpp.h>

#include "base/str_cat.h"
#include "profdiff/v1/differ.grpc.pb.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/differ/web/http_test_client.h"
#include "tests/support/child_process.h"
#include "tests/support/traces_dir.h"

ABSL_FLAG(std::string, bin_dir, "build", "the build folder with the binaries");
ABSL_FLAG(std::vector<std::string>, ranks,
          std::vector<std::string>({"128", "1024"}),
          "rank counts to measure, comma-separated");
ABSL_FLAG(int, agents, 4, "profdiff-agent upload processes per run");
ABSL_FLAG(int, agent_parallel, 0,
          "files each agent uploads at once (its --parallel; 0: its default)");
ABSL_FLAG(int, clickhouse_shards, 0,
          "store into this many ClickHouse servers on 127.0.0.1 (0: the local "
          "store)");
ABSL_FLAG(std::string, source, "param/dlrm_kineto",
          "the run the ranks are made from, under $PROFDIFF_TRACES");
ABSL_FLAG(std::string, work_dir, "/tmp/profdiff-scale",
          "generated runs (kept for the next time) and data");
ABSL_FLAG(std::vector<std::string>, aggregator_flags, {},
          "more flags for profdiff-aggregator, comma-separated "
          "(--io-threads=8,--build-threads=2)");

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using profdiff::testing::ChildProcess;
namespace v1 = profdiff::v1;

constexpr absl::Duration kPatience = absl::Minutes(10);

double Seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Peak resident memory of a process, MiB (0 when unreadable).
double PeakRssMib(pid_t pid) {
  std::ifstream status(profdiff::base::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:"))
      return std::strtod(line.c_str() + 6, nullptr) / 1024;
  }
  return 0;
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "scale_bench: %s\n", why.c_str());
  std::exit(1);
}

// The trace files of an N-rank run, made once.
std::vector<std::string> RankRun(int ranks) {
  const fs::path dir = fs::path(absl::GetFlag(FLAGS_work_dir)) /
                       profdiff::base::StrCat("ranks-", ranks);
  auto files = [&] {
    std::vector<std::string> out;
    if (fs::is_directory(dir)) {
      for (const auto& entry : fs::directory_iterator(dir))
        out.push_back(entry.path().string());
    }
    return out;
  };
  if (static_cast<int>(files().size()) != ranks) {
    const fs::path source =
        profdiff::test_support::TracesDir() / absl::GetFlag(FLAGS_source);
    if (!fs::exists(source))
      Die(source.string() + " is missing (set PROFDIFF_TRACES)");
    fs::remove_all(dir);
    const fs::path script =
        fs::path(PROFDIFF_SOURCE_DIR) / "bench/make_rank_run.py";
    ChildProcess make({"/usr/bin/python3", script.string(), source.string(),
                       std::to_string(ranks), dir.string()});
    if (make.Wait() != 0) Die("make_rank_run.py failed: " + make.Output());
  }
  return files();
}

// A server process and the port it printed.
struct Server {
  std::unique_ptr<ChildProcess> process;
  std::string address;
};

Server StartServer(std::vector<std::string> argv) {
  Server server;
  server.process = std::make_unique<ChildProcess>(std::move(argv));
  const std::optional<std::string> line =
      server.process->WaitForLine(" port=", absl::Minutes(1));
  if (!line) Die("a server did not start: " + server.process->Output());
  server.address = profdiff::base::StrCat(
      "127.0.0.1:", std::stoi(line->substr(line->find(" port=") + 6)));
  return server;
}

// CPU seconds (user + system) the live processes named `comm` (as
// /proc/PID/comm shows it, 15 characters) have used so far.
double CpuSecondsOf(std::string_view comm) {
  double ticks = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid[0] < '0' || pid[0] > '9') continue;
    std::ifstream file(entry.path() / "stat");
    std::string stat;
    if (!std::getline(file, stat)) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": utime and stime are fields 14 and 15.
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos ||
        stat.substr(open + 1, close - open - 1) != comm) {
      continue;
    }
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    for (int i = 3; i <= 13 && fields >> field; ++i) {
    }
    double user = 0, system = 0;
    if (fields >> user >> system) ticks += user + system;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds of finished child processes (the agents) so far.
double ChildCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec +
                                    usage.ru_stime.tv_usec);
}

// Where an upload's CPU went: the agents, the aggregator, the ClickHouse
// servers (with their merges), all of the machine.
struct UploadCpu {
  double agents = 0, aggregator = 0, servers = 0, machine = 0;
};

double MachineCpuSeconds() {
  std::ifstream file("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0;
  file >> cpu >> user >> nice >> system >> idle;
  return (user + nice + system) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

UploadCpu CpuNow() {
  return {.agents = ChildCpuSeconds(),
          .aggregator = CpuSecondsOf("profdiff-aggreg"),
          .servers = CpuSecondsOf("clickhouse-serv"),
          .machine = MachineCpuSeconds()};
}

struct Ready {
  UploadCpu cpu;  // used during the upload
  double upload_s = 0;
  int64_t events = 0;
  double complete_s = 0;  // last upload -> COMPLETE
  double digest_s = 0;    // last upload -> digest made
  size_t digest_bytes = 0;
};

// Uploads `files` as `run` with the agents, then waits for the run to be
// COMPLETE and for its digest.
Ready Upload(const std::string& aggregator, const std::string& run,
             const std::vector<std::string>& files, const fs::path& state,
             absl::AnyInvocable<void()> at_uploaded = nullptr) {
  const int agents = std::max(1, absl::GetFlag(FLAGS_agents));
  const std::string agent =
      (fs::path(absl::GetFlag(FLAGS_bin_dir)) / "agent/profdiff-agent")
          .string();
  Ready ready;
  const UploadCpu cpu_before = CpuNow();
  const Clock::time_point start = Clock::now();
  std::vector<std::unique_ptr<ChildProcess>> uploads;
  for (int a = 0; a < agents; ++a) {
    std::vector<std::string> argv = {
        agent,          "upload",
        "--aggregator", aggregator,
        "--run",        run,
        "--state-dir",  (state / profdiff::base::StrCat(run, "-", a)).string()};
    if (const int parallel = absl::GetFlag(FLAGS_agent_parallel); parallel > 0)
      argv.push_back(profdiff::base::StrCat("--parallel=", parallel));
    for (size_t f = static_cast<size_t>(a); f < files.size(); f += agents)
      argv.push_back(files[f]);
    uploads.push_back(std::make_unique<ChildProcess>(std::move(argv)));
  }
  for (auto& upload : uploads) {
    if (upload->Wait() != 0) Die("an upload failed: " + upload->Output());
  }
  const Clock::time_point uploaded = Clock::now();
  ready.upload_s = Seconds(start, uploaded);
  const UploadCpu cpu_after = CpuNow();
  ready.cpu = {.agents = cpu_after.agents - cpu_before.agents,
               .aggregator = cpu_after.aggregator - cpu_before.aggregator,
               .servers = cpu_after.servers - cpu_before.servers,
               .machine = cpu_after.machine - cpu_before.machine};
  // Runs beside the waits below (joined when this returns).
  std::jthread beside;
  if (at_uploaded) beside = std::jthread(std::move(at_uploaded));
  auto store = v1::RunStore::NewStub(profdiff::rpc::MakeChannel(aggregator));
  for (;;) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Minutes(1)));
    v1::GetRunRequest request;
    request.set_run(run);
    v1::StoredRun stored;
    if (!store->GetRun(&context, request, &stored).ok()) Die("GetRun failed");
    if (stored.state() == v1::RUN_STATE_COMPLETE) {
      ready.events = stored.event_count();
      break;
    }
    if (Clock::now() - uploaded > std::chrono::minutes(10))
      Die("run " + run + " never COMPLETE");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ready.complete_s = Seconds(uploaded, Clock::now());
  // The aggregator started the digest when the last span closed; this waits for
  // that build rather than starting another.
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kPatience));
  v1::GetRunDigestRequest request;
  request.set_run(run);
  v1::RunDigest digest;
  const grpc::Status status = store->GetRunDigest(&context, request, &digest);
  if (!status.ok()) Die("GetRunDigest: " + status.error_message());
  ready.digest_s = Seconds(uploaded, Clock::now());
  ready.digest_bytes = digest.ByteSizeLong();
  return ready;
}

// What one uncached diff asks of the aggregator for one run: GetRun (the run's
// state and version) and GetRunDigest (made already), timed alone.
struct Calls {
  double get_run_ms = 0;
  double get_digest_ms = 0;
};

Calls TimeCalls(const std::string& aggregator) {
  auto store = v1::RunStore::NewStub(profdiff::rpc::MakeChannel(aggregator));
  Calls calls;
  constexpr int kRounds = 5;
  for (int i = 0; i < kRounds; ++i) {
    grpc::ClientContext run_context, digest_context;
    v1::GetRunRequest run_request;
    run_request.set_run("A");
    v1::StoredRun run;
    const Clock::time_point start = Clock::now();
    if (!store->GetRun(&run_context, run_request, &run).ok()) Die("GetRun");
    const Clock::time_point got_run = Clock::now();
    v1::GetRunDigestRequest digest_request;
    digest_request.set_run("A");
    v1::RunDigest digest;
    if (!store->GetRunDigest(&digest_context, digest_request, &digest).ok())
      Die("GetRunDigest");
    calls.get_run_ms += 1000 * Seconds(start, got_run) / kRounds;
    calls.get_digest_ms += 1000 * Seconds(got_run, Clock::now()) / kRounds;
  }
  return calls;
}

double TimeDiff(const std::string& differ) {
  auto stub = v1::Differ::NewStub(profdiff::rpc::MakeChannel(differ));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kPatience));
  v1::DiffRequest request;
  request.set_baseline_run("A");
  request.set_experimental_run("B");
  v1::DiffReport report;
  const Clock::time_point start = Clock::now();
  const grpc::Status status = stub->Diff(&context, request, &report);
  const double seconds = Seconds(start, Clock::now());
  if (!status.ok()) Die("Diff: " + status.error_message());
  if (report.baseline().ranks_size() == 0) Die("Diff: no ranks compared");
  return seconds;
}

// GET of the web UI's diff page of A and B: seconds and bytes.
std::pair<double, size_t> TimeWebDiff(const std::string& url) {
  const Clock::time_point start = Clock::now();
  const profdiff::testing::HttpReply page =
      profdiff::testing::Get(url + "diff?baseline=A&experimental=B");
  const double seconds = Seconds(start, Clock::now());
  if (page.status != 200) {
    Die(profdiff::base::StrCat("GET ", url, "diff: ", page.status, " ",
                               page.error, page.body.substr(0, 300)));
  }
  return {seconds, page.body.size()};
}

// Active parts per table over every shard of `database` ("events=12 ...").
std::string ActiveParts(const profdiff::testing::ClickHouseCluster& cluster,
                        const std::string& database) {
  std::string url = cluster.Url(database);  // clickhouse://a:1,b:2/db
  const size_t hosts = url.find("://") + 3;
  const std::string addresses = url.substr(hosts, url.find('/', hosts) - hosts);
  std::map<std::string, int64_t> parts;
  size_t from = 0;
  while (from <= addresses.size()) {
    size_t comma = addresses.find(',', from);
    if (comma == std::string::npos) comma = addresses.size();
    // The active parts per table, and what the server did since it started
    // (both runs' uploads, their digests, the diffs so far).
    for (const std::string& sql :
         {profdiff::base::StrCat(
              "SELECT%20table,%20count()%20FROM%20system.parts%20WHERE%20"
              "active%20AND%20database%20=%20'",
              database, "'%20GROUP%20BY%20table%20FORMAT%20TSV"),
          std::string("SELECT%20event,%20value%20FROM%20system.events%20"
                      "WHERE%20event%20IN%20('InsertQuery','SelectQuery',"
                      "'Merge')%20FORMAT%20TSV"),
          // What each table holds, uncompressed (its share of the servers'
          // parsing and merging).
          profdiff::base::StrCat(
              "SELECT%20concat('kb_',%20table),%20"
              "intDiv(sum(data_uncompressed_bytes),%201024)%20FROM%20"
              "system.parts%20WHERE%20active%20AND%20database%20=%20'",
              database, "'%20GROUP%20BY%20table%20FORMAT%20TSV")}) {
      const profdiff::testing::HttpReply reply =
          profdiff::testing::Get(profdiff::base::StrCat(
              "http://", addresses.substr(from, comma - from),
              "/?query=", sql));
      if (reply.status != 200) Die("system tables: " + reply.body);
      std::istringstream lines(reply.body);
      std::string table;
      int64_t count = 0;
      while (lines >> table >> count) parts[table] += count;
    }
    from = comma + 1;
  }
  std::string out;
  for (const auto& [table, count] : parts) {
    // A table's active parts or uncompressed KiB, or a server event's count.
    const bool local = table.ends_with("_local");
    const bool kib = table.starts_with("kb_");
    std::string_view name = table;
    if (local) name.remove_suffix(6);
    if (kib) name.remove_prefix(3);
    profdiff::base::StrAppend(&out, out.empty() ? "" : " ",
                              local ? (kib ? "kib_" : "parts_") : "server_",
                              name, "=", count);
  }
  return out;
}

struct Figures {
  int ranks = 0;
  Ready a, b;
  double after_upload_s = 0;  // B's last upload -> Differ.Diff answered
  std::string parts;
  double uncached_s = 0, cached_s = 0, cold_s = 0;
  double web_first_s = 0, web_again_s = 0;
  size_t web_bytes = 0;
  double differ_mib = 0, aggregator_mib = 0, cold_aggregator_mib = 0;
  Calls calls;
};

// Moves `path` (when it exists) into <work_dir>/trash, removed at the end.
void MoveToTrash(const fs::path& path) {
  if (!fs::exists(path)) return;
  const fs::path trash = fs::path(absl::GetFlag(FLAGS_work_dir)) / "trash";
  fs::create_directories(trash);
  for (int n = 0;; ++n) {
    const fs::path to = trash / profdiff::base::StrCat(path.filename().string(),
                                                       ".", getpid(), ".", n);
    if (fs::exists(to)) continue;
    fs::rename(path, to);
    return;
  }
}

Figures Measure(int ranks) {
  Figures out;
  out.ranks = ranks;
  const std::vector<std::string> files = RankRun(ranks);
  const fs::path work = fs::path(absl::GetFlag(FLAGS_work_dir)) /
                        profdiff::base::StrCat("data-", ranks);
  MoveToTrash(work);
  fs::create_directories(work);
  const std::string bin = absl::GetFlag(FLAGS_bin_dir);
  std::unique_ptr<profdiff::testing::ClickHouseCluster> cluster;
  std::vector<std::string> store_flags = {"--data-dir=" +
                                          (work / "data").string()};
  if (const int shards = absl::GetFlag(FLAGS_clickhouse_shards); shards > 0) {
    auto started = profdiff::testing::ClickHouseCluster::Start(
        (work / "clickhouse").string(), shards);
    if (!started.ok()) Die("ClickHouse: " + started.status().ToString());
    cluster = *std::move(started);
    cluster->LeaveFolder();  // removed with the trash, after measuring
    store_flags = {"--store=" +
                   cluster->Url(profdiff::base::StrCat("scale", ranks))};
  }
  auto aggregator_argv = [&] {
    std::vector<std::string> argv = {
        (fs::path(bin) / "aggregator/profdiff-aggregator").string(),
        "--listen=127.0.0.1:0"};
    argv.insert(argv.end(), store_flags.begin(), store_flags.end());
    for (const std::string& flag : absl::GetFlag(FLAGS_aggregator_flags))
      argv.push_back(flag);
    return argv;
  };
  Server aggregator = StartServer(aggregator_argv());
  auto differ_argv = [&](const std::string& store) {
    return std::vector<std::string>{
        (fs::path(bin) / "differ/profdiff-differ").string(),
        "--listen=127.0.0.1:0", "--store=" + store, "--http=127.0.0.1:0"};
  };
  out.a = Upload(aggregator.address, "A", files, work);
  {
    // A differ of its own, so the diffs below start uncached.
    Server early = StartServer(differ_argv(aggregator.address));
    out.b = Upload(aggregator.address, "B", files, work,
                   [&] { out.after_upload_s = TimeDiff(early.address); });
  }
  if (cluster != nullptr)
    out.parts = ActiveParts(*cluster, profdiff::base::StrCat("scale", ranks));
  {
    Server differ = StartServer(differ_argv(aggregator.address));
    out.uncached_s = TimeDiff(differ.address);
    out.cached_s = TimeDiff(differ.address);
    const std::optional<std::string> web =
        differ.process->WaitForLine("web UI at ", absl::Minutes(1));
    if (!web) Die("the differ printed no web UI URL");
    std::string url = web->substr(web->find("http://"));
    url.resize(url.find_last_of('/') + 1);  // ".../" without what follows
    std::tie(out.web_first_s, out.web_bytes) = TimeWebDiff(url);
    out.web_again_s = TimeWebDiff(url).first;
    out.differ_mib = PeakRssMib(differ.process->pid());
    out.calls = TimeCalls(aggregator.address);
    out.aggregator_mib = PeakRssMib(aggregator.process->pid());
  }
  // Cold: a new aggregator over the same data makes both digests on demand.
  // Its log, for what the figures do not say (when each digest was made).
  std::ofstream(work / "aggregator.log") << aggregator.process->Output();
  aggregator.process.reset();
  Server cold = StartServer(aggregator_argv());
  Server differ = StartServer(differ_argv(cold.address));
  out.cold_s = TimeDiff(differ.address);
  out.cold_aggregator_mib = PeakRssMib(cold.process->pid());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::vector<Figures> all;
  for (const std::string& ranks : absl::GetFlag(FLAGS_ranks)) {
    const int n = std::atoi(ranks.c_str());
    if (n < 1) Die("--ranks: " + ranks + " is not a rank count");
    const Figures f = Measure(n);
    std::printf(
        "ranks=%d store=%s upload_s=%.2f+%.2f events_per_s=%.0f "
        "last_upload_to_complete_ms=%.0f to_digest_ready_ms=%.0f "
        "diff_after_last_upload_ms=%.0f diff_uncached_ms=%.1f "
        "diff_cached_ms=%.1f "
        "diff_cold_aggregator_ms=%.1f "
        "web_diff_page_first_ms=%.1f web_diff_page_again_ms=%.1f "
        "web_diff_page_bytes=%zu "
        "differ_peak_rss_mib=%.1f aggregator_peak_rss_mib=%.1f "
        "cold_aggregator_peak_rss_mib=%.1f digest_bytes=%zu get_run_ms=%.1f "
        "get_digest_ms=%.1f%s%s\n",
        f.ranks,
        absl::GetFlag(FLAGS_clickhouse_shards) > 0
            ? profdiff::base::StrCat("clickhouse x",
                                     absl::GetFlag(FLAGS_clickhouse_shards))
                  .c_str()
            : "local",
        f.a.upload_s, f.b.upload_s,
        static_cast<double>(f.a.events + f.b.events) /
            (f.a.upload_s + f.b.upload_s),
        1000 * (f.a.complete_s + f.b.complete_s) / 2,
        1000 * (f.a.digest_s + f.b.digest_s) / 2, 1000 * f.after_upload_s,
        1000 * f.uncached_s, 1000 * f.cached_s, 1000 * f.cold_s,
        1000 * f.web_first_s, 1000 * f.web_again_s, f.web_bytes, f.differ_mib,
        f.aggregator_mib, f.cold_aggregator_mib, f.a.digest_bytes,
        f.calls.get_run_ms, f.calls.get_digest_ms, f.parts.empty() ? "" : " ",
        f.parts.c_str());
    // CPU per event during the uploads, by process: what a higher ingest rate
    // has to take down on a machine where they all share the cores.
    const double events = static_cast<double>(f.a.events + f.b.events);
    const auto per_event = [&](double UploadCpu::*part) {
      return 1e6 * (f.a.cpu.*part + f.b.cpu.*part) / events;
    };
    std::printf(
        "ranks=%d upload_cpu_us_per_event agents=%.2f aggregator=%.2f "
        "servers=%.2f rest=%.2f machine=%.2f (busy %.0f%% of %u cores)\n",
        f.ranks, per_event(&UploadCpu::agents),
        per_event(&UploadCpu::aggregator), per_event(&UploadCpu::servers),
        per_event(&UploadCpu::machine) - per_event(&UploadCpu::agents) -
            per_event(&UploadCpu::aggregator) - per_event(&UploadCpu::servers),
        per_event(&UploadCpu::machine),
        100 * (f.a.cpu.machine + f.b.cpu.machine) /
            ((f.a.upload_s + f.b.upload_s) *
             std::thread::hardware_concurrency()),
        std::thread::hardware_concurrency());
    std::fflush(stdout);
    all.push_back(f);
  }
  if (all.size() >= 2) {
    const Figures& small = all.front();
    const Figures& large = all.back();
    std::printf(
        "ratios %d/%d ranks: diff_uncached=%.2fx diff_cold_aggregator=%.2fx "
        "differ_peak_rss=%.2fx digest_bytes=%.2fx\n",
        large.ranks, small.ranks, large.uncached_s / small.uncached_s,
        large.cold_s / small.cold_s, large.differ_mib / small.differ_mib,
        static_cast<double>(large.a.digest_bytes) / small.a.digest_bytes);
  }
  std::error_code ignored;
  fs::remove_all(fs::path(absl::GetFlag(FLAGS_work_dir)) / "trash", ignored);
  return 0;
}
