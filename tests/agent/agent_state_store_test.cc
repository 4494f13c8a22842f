// The state dir keeps one record per trace file, replaces it atomically, and
// reports a record that does not parse instead of failing.
#include "agent/agent_state_store.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr char kAggregator[] = "10.0.0.1:50051";

AgentStateStore::Key KeyOf(std::string_view path,
                           std::string_view run = "run7") {
  return {path, kAggregator, run};
}

v1::AgentFileState SampleState(const std::string& path) {
  v1::AgentFileState state;
  state.set_path(path);
  state.set_size_bytes(52819);
  state.set_mtime_ns(1694128201545000000);
  state.set_run("run7");
  state.set_aggregator("10.0.0.1:50051");
  state.set_span("worker0.1694128201545.pt.trace.json.gz");
  state.set_rank(3);
  state.set_worker_name("worker0");
  state.set_chunk_events(65536);
  state.set_state(v1::UPLOAD_STATE_UPLOADING);
  state.set_acked_sequence(4);
  return state;
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST(AgentStateStoreTest, WrittenStateReadsBackEqual) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store =
      AgentStateStore::Open(dir.Join("state"));
  ASSERT_TRUE(store.ok()) << store.status();
  const v1::AgentFileState state =
      SampleState("/logs/run7/worker0.1694128201545.pt.trace.json.gz");
  ASSERT_TRUE(store->Write(state).ok());
  absl::StatusOr<std::optional<v1::AgentFileState>> read =
      store->Read(AgentStateStore::KeyOf(state));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->SerializeAsString(), state.SerializeAsString());
}

TEST(AgentStateStoreTest, UnknownPathHasNoState) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  absl::StatusOr<std::optional<v1::AgentFileState>> read =
      store->Read(KeyOf("/logs/none.json"));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_FALSE(read->has_value());
}

TEST(AgentStateStoreTest, WriteReplacesTheRecordAndLeavesNoTempFile) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  v1::AgentFileState state = SampleState("/logs/run7/w0.json");
  ASSERT_TRUE(store->Write(state).ok());
  state.set_state(v1::UPLOAD_STATE_DONE);
  state.set_acked_sequence(9);
  ASSERT_TRUE(store->Write(state).ok());
  absl::StatusOr<std::optional<v1::AgentFileState>> read =
      store->Read(AgentStateStore::KeyOf(state));
  ASSERT_TRUE(read.ok() && read->has_value());
  EXPECT_EQ((*read)->state(), v1::UPLOAD_STATE_DONE);
  EXPECT_EQ((*read)->acked_sequence(), 9);
  // One record, named by the path's hash with the file name as a readable
  // suffix.
  const std::vector<std::string> files = FilesIn(dir.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], HasSubstr("-w0.json.state"));
}

TEST(AgentStateStoreTest, UnparseableRecordIsDataLossNamingTheFile) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  const v1::AgentFileState good = SampleState("/logs/run7/good.json");
  ASSERT_TRUE(store->Write(good).ok());
  const std::string bad_path = "/logs/run7/bad.json";
  const std::string bad_file = store->StateFilePath(KeyOf(bad_path));
  std::ofstream(bad_file)
      << "path: \"/logs/run7/bad.json\"\nstate: NOT_A_STATE {{{";

  absl::StatusOr<std::optional<v1::AgentFileState>> read =
      store->Read(KeyOf(bad_path));
  ASSERT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr(bad_file));

  const AgentStateStore::Loaded loaded = store->LoadAll();
  ASSERT_EQ(loaded.states.size(), 1u);
  EXPECT_EQ(loaded.states[0].path(), good.path());
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.errors[0].message(), HasSubstr(bad_file));
}

TEST(AgentStateStoreTest, RecordOfAnotherPathIsDataLoss) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->Write(SampleState("/logs/a.json")).ok());
  std::filesystem::rename(store->StateFilePath(KeyOf("/logs/a.json")),
                          store->StateFilePath(KeyOf("/logs/b.json")));
  EXPECT_EQ(store->Read(KeyOf("/logs/b.json")).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(AgentStateStoreTest, OneFileSentToTwoRunsOrAggregatorsHasTwoRecords) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  v1::AgentFileState first = SampleState("/logs/a.json");
  first.set_state(v1::UPLOAD_STATE_DONE);
  ASSERT_TRUE(store->Write(first).ok());
  // Another run, or another aggregator: no record yet, so the file is uploaded
  // there too.
  EXPECT_FALSE(store->Read(KeyOf("/logs/a.json", "other-run"))->has_value());
  EXPECT_FALSE(
      store->Read({"/logs/a.json", "10.0.0.2:50051", "run7"})->has_value());
  v1::AgentFileState second = first;
  second.set_run("other-run");
  second.set_state(v1::UPLOAD_STATE_UPLOADING);
  ASSERT_TRUE(store->Write(second).ok());
  EXPECT_EQ((*store->Read(KeyOf("/logs/a.json")))->state(),
            v1::UPLOAD_STATE_DONE);
  EXPECT_EQ((*store->Read(KeyOf("/logs/a.json", "other-run")))->state(),
            v1::UPLOAD_STATE_UPLOADING);
  EXPECT_EQ(FilesIn(dir.path()).size(), 2u);
}

TEST(AgentStateStoreTest, DefaultDirPrefersXdgStateHome) {
  EXPECT_EQ(DefaultAgentStateDir("/xdg", "/home/u"), "/xdg/profdiff-agent");
  EXPECT_EQ(DefaultAgentStateDir("", "/home/u"),
            "/home/u/.local/state/profdiff-agent");
  EXPECT_EQ(DefaultAgentStateDir("", ""), "");
}

}  // namespace
}  // namespace profdiff::agent
