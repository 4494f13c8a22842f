// A diff through the Differ service against the same diff offline, in one
// process: the largest pair of the corpus (xDiT FLUX.1, ~62 MB of JSON a side)
// uploaded to a real aggregator, and a real differ on 127.0.0.1 in front of it.
//   BM_OfflineDiff      `profdiff diff FILE FILE`: both traces read and
//   profiled, then diffed BM_StoredDiffCold   Differ.Diff with nothing cached:
//   both profiles fetched from the
//                       aggregator (read from its store, sent over gRPC), then
//                       diffed
//   BM_StoredDiffCached Differ.Diff of two COMPLETE runs already cached: the
//   diff and the reply
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>
#include <grpcpp/client_context.h>

#include "agent/agent_state_store.h"
#include "agent/span_uploader.h"
#include "agent/trace_file_uploader.h"
#include "aggregator/aggregator_server.h"
#include "analysis/run_loader.h"
#include "base/keep_freed_memory.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "bench/bench_traces.h"
#include "differ/differ.h"
#include "differ/service/differ_server.h"
#include "profdiff/v1/differ.grpc.pb.h"
#include "rpc/channel.h"
#include "trace/kineto_reader.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kRuns[] = {"flux_aiter", "flux_aiter_sage"};

std::string TracePath(int i) {
  return profdiff::bench::BenchTracePath(profdiff::bench::kDiffPair[i]);
}

// The aggregator holding both runs; set up once in main.
struct Store {
  fs::path dir;
  std::unique_ptr<profdiff::aggregator::AggregatorServer> aggregator;
  std::string address;
};
Store* g_store = nullptr;

absl::Status UploadPair(Store& store) {
  for (int i = 0; i < 2; ++i) {
    PD_ASSIGN_OR_RETURN(profdiff::agent::AgentStateStore state,
                        profdiff::agent::AgentStateStore::Open(
                            (store.dir / "agent" / kRuns[i]).string()));
    profdiff::agent::TraceFileUploaderOptions options;
    options.identity.run_flag = kRuns[i];
    profdiff::agent::TraceFileUploader uploader(
        std::move(state), options,
        std::make_unique<profdiff::agent::SpanUploader>(
            store.address, profdiff::agent::SpanUploaderOptions{}));
    profdiff::trace::KinetoReader reader;
    PD_RETURN_IF_ERROR(
        uploader.UploadPath(TracePath(i), reader, std::stop_token()));
  }
  return absl::OkStatus();
}

std::unique_ptr<profdiff::differ::DifferServer> StartDiffer(
    size_t cache_bytes) {
  profdiff::differ::DifferOptions options;
  options.listen_address = "127.0.0.1:0";
  options.store_address = g_store->address;
  options.cache_bytes = cache_bytes;
  auto differ = profdiff::differ::DifferServer::Start(options);
  return differ.ok() ? std::move(differ).value() : nullptr;
}

// One Differ.Diff call of the pair; false (and the error on `state`) when it
// fails.
bool DiffOnce(profdiff::v1::Differ::Stub& stub, benchmark::State& state) {
  grpc::ClientContext context;
  profdiff::rpc::SetTimeout(context, absl::Minutes(2));
  profdiff::v1::DiffRequest request;
  request.set_baseline_run(kRuns[0]);
  request.set_experimental_run(kRuns[1]);
  profdiff::v1::DiffReport report;
  const grpc::Status status = stub.Diff(&context, request, &report);
  if (!status.ok()) state.SkipWithError(status.error_message().c_str());
  benchmark::DoNotOptimize(report.operators_size());
  return status.ok();
}

void BM_OfflineDiff(benchmark::State& state) {
  for (auto _ : state) {
    auto runs =
        profdiff::analysis::LoadRuns({{TracePath(0)}, {TracePath(1)}}, {});
    if (!runs.ok())
      return state.SkipWithError(std::string(runs.status().message()).c_str());
    auto report = profdiff::differ::DiffRuns((*runs)[0], (*runs)[1], {});
    if (!report.ok())
      return state.SkipWithError(
          std::string(report.status().message()).c_str());
    benchmark::DoNotOptimize(report->operators_size());
  }
}

void BM_StoredDiffCold(benchmark::State& state) {
  std::unique_ptr<profdiff::differ::DifferServer> differ =
      StartDiffer(/*cache_bytes=*/0);
  if (differ == nullptr) return state.SkipWithError("differ did not start");
  auto stub = profdiff::v1::Differ::NewStub(profdiff::rpc::MakeChannel(
      "127.0.0.1:" + std::to_string(differ->port())));
  for (auto _ : state) {
    if (!DiffOnce(*stub, state)) return;
  }
}

void BM_StoredDiffCached(benchmark::State& state) {
  std::unique_ptr<profdiff::differ::DifferServer> differ =
      StartDiffer(size_t{1} << 30);
  if (differ == nullptr) return state.SkipWithError("differ did not start");
  auto stub = profdiff::v1::Differ::NewStub(profdiff::rpc::MakeChannel(
      "127.0.0.1:" + std::to_string(differ->port())));
  if (!DiffOnce(*stub, state)) return;  // fills the cache
  for (auto _ : state) {
    if (!DiffOnce(*stub, state)) return;
  }
  state.counters["cache_hits"] =
      static_cast<double>(differ->cache_stats().hits);
}

BENCHMARK(BM_OfflineDiff)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StoredDiffCold)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_StoredDiffCached)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  profdiff::base::KeepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  for (int i = 0; i < 2; ++i) {
    if (!fs::exists(TracePath(i))) {
      std::fprintf(stderr, "SKIPPED: trace not found: %s\n",
                   TracePath(i).c_str());
      return 0;
    }
  }
  Store store;
  store.dir = fs::temp_directory_path() /
              ("differ_service_bench_" + std::to_string(getpid()));
  fs::remove_all(store.dir);
  profdiff::aggregator::AggregatorOptions options;
  options.listen_address = "127.0.0.1:0";
  options.store.data_dir = (store.dir / "store").string();
  auto aggregator = profdiff::aggregator::AggregatorServer::Start(options);
  if (!aggregator.ok()) {
    std::fprintf(stderr, "aggregator: %s\n",
                 aggregator.status().ToString().c_str());
    return 1;
  }
  store.aggregator = std::move(aggregator).value();
  store.address = "127.0.0.1:" + std::to_string(store.aggregator->port());
  if (absl::Status status = UploadPair(store); !status.ok()) {
    std::fprintf(stderr, "upload: %s\n", status.ToString().c_str());
    return 1;
  }
  g_store = &store;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  store.aggregator.reset();
  fs::remove_all(store.dir);
  return 0;
}
