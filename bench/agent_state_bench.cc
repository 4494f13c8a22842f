// What an upload's two state records cost the agent: a line appended to the
// state journal (AgentStateStore::Write) against the file-per-record layout
// it replaced (the record's text written to its own file, replaced
// atomically: temp file, fsync, rename, fsync of the folder). Each iteration
// records one trace file as the agent does, UPLOADING then DONE; the reads the
// uploader makes first (AgentStateStore::Read) are in both. items_per_second
// = trace files recorded; the state folder is on the work folder's file
// system (--benchmark_filter and PROFDIFF_BENCH_DIR choose; /tmp by default).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>
#include <google/protobuf/text_format.h>

#include "agent/agent_state_store.h"
#include "base/atomic_file.h"
#include "base/file_reader.h"
#include "base/str_cat.h"

namespace {

namespace fs = std::filesystem;
using profdiff::agent::AgentStateStore;
using profdiff::v1::AgentFileState;

// A fresh state folder per benchmark, removed after it.
class StateDir {
 public:
  explicit StateDir(const std::string& name) {
    const char* base = std::getenv("PROFDIFF_BENCH_DIR");
    path_ = fs::path(base != nullptr ? base : "/tmp") /
            profdiff::base::StrCat("agent_state_bench.", name, ".", getpid());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~StateDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

AgentFileState RecordOf(int64_t file) {
  AgentFileState state;
  state.set_path(profdiff::base::StrCat("/data/logs/run7/worker", file,
                                        ".1700000000000.pt.trace.json.gz"));
  state.set_size_bytes(75040);
  state.set_mtime_ns(1796360831693494995);
  state.set_run("run7");
  state.set_span(profdiff::base::StrCat(
      "worker", file, ".1700000000000.pt.trace.json.gz-ed742207b498"));
  state.set_rank(static_cast<int32_t>(file));
  state.set_worker_name(profdiff::base::StrCat("worker", file));
  state.set_chunk_events(65536);
  state.set_acked_sequence(-1);
  state.set_aggregator("10.0.0.1:50051");
  return state;
}

void BM_JournalRecords(benchmark::State& bench) {
  StateDir dir("journal");
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  if (!store.ok()) {
    bench.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  int64_t file = 0;
  for (auto _ : bench) {
    AgentFileState state = RecordOf(file++);
    benchmark::DoNotOptimize(store->Read(AgentStateStore::KeyOf(state)));
    state.set_state(profdiff::v1::UPLOAD_STATE_UPLOADING);
    if (!store->Write(state).ok()) bench.SkipWithError("write");
    state.set_state(profdiff::v1::UPLOAD_STATE_DONE);
    state.set_acked_sequence(0);
    if (!store->Write(state).ok()) bench.SkipWithError("write");
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_JournalRecords)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The layout before the journal: its read (a missing file) and two atomic
// replaces of the record's file.
void BM_FilePerRecord(benchmark::State& bench) {
  StateDir dir("files");
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  if (!store.ok()) {
    bench.SkipWithError(std::string(store.status().message()).c_str());
    return;
  }
  int64_t file = 0;
  std::string text, read;
  for (auto _ : bench) {
    AgentFileState state = RecordOf(file++);
    const std::string path =
        store->StateFilePath(AgentStateStore::KeyOf(state));
    benchmark::DoNotOptimize(
        profdiff::base::ReadFileInto(path, 1 << 20, read).ok());
    for (const auto upload_state : {profdiff::v1::UPLOAD_STATE_UPLOADING,
                                    profdiff::v1::UPLOAD_STATE_DONE}) {
      state.set_state(upload_state);
      google::protobuf::TextFormat::PrintToString(state, &text);
      if (!profdiff::base::WriteFileAtomically(path, text).ok())
        bench.SkipWithError("write");
    }
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_FilePerRecord)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
