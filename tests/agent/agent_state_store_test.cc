// The state dir keeps one record per trace file (the latest line of its
// journal), reads the file-per-record layout of older agents, and reports a
// record that does not parse instead of failing.
#include "agent/agent_state_store.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
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

std::vector<std::string> LinesOf(const std::string& file) {
  std::vector<std::string> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
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

TEST(AgentStateStoreTest, WriteReplacesTheRecordAndCreatesNoFile) {
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
  // The journal alone, a readable line per write.
  EXPECT_THAT(FilesIn(dir.path()),
              ::testing::ElementsAre(AgentStateJournal::kFileName));
  const std::vector<std::string> lines = LinesOf(store->JournalPath());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[1], HasSubstr("path: \"/logs/run7/w0.json\""));
  EXPECT_THAT(lines[1], HasSubstr("state: UPLOAD_STATE_DONE"));
  // Another store of the folder (a restarted agent) reads the same.
  absl::StatusOr<AgentStateStore> again = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again->Read(AgentStateStore::KeyOf(state)))->SerializeAsString(),
            state.SerializeAsString());
  EXPECT_EQ(again->LoadAll().states.size(), 1u);
}

TEST(AgentStateStoreTest, UnparseableLineIsDataLossNamingTheJournalLine) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  const v1::AgentFileState good = SampleState("/logs/run7/good.json");
  ASSERT_TRUE(store->Write(good).ok());
  std::ofstream(store->JournalPath(), std::ios::app)
      << "path: \"/logs/run7/bad.json\" state: NOT_A_STATE {{{\n";

  absl::StatusOr<AgentStateStore> reopened = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(reopened.ok());
  for (const AgentStateStore* each : {&*store, &*reopened}) {
    const AgentStateStore::Loaded loaded = each->LoadAll();
    ASSERT_EQ(loaded.states.size(), 1u);
    EXPECT_EQ(loaded.states[0].path(), good.path());
    ASSERT_EQ(loaded.errors.size(), 1u);
    EXPECT_EQ(loaded.errors[0].code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(loaded.errors[0].message(),
                HasSubstr(store->JournalPath() + " line 2"));
    EXPECT_FALSE(each->Read(KeyOf("/logs/run7/bad.json"))->has_value());
  }
}

// A crash mid-append leaves a line without its end; the next write ends it,
// so only the torn record is lost.
TEST(AgentStateStoreTest, TornLastLineCostsOnlyItsRecord) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->Write(SampleState("/logs/a.json")).ok());
  std::ofstream(store->JournalPath(), std::ios::app)
      << "path: \"/logs/torn.json\" size_by";
  absl::StatusOr<AgentStateStore> restarted = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(restarted.ok());
  ASSERT_TRUE(restarted->Write(SampleState("/logs/b.json")).ok());
  for (const char* path : {"/logs/a.json", "/logs/b.json"}) {
    absl::StatusOr<std::optional<v1::AgentFileState>> read =
        restarted->Read(KeyOf(path));
    ASSERT_TRUE(read.ok() && read->has_value()) << path;
  }
  EXPECT_FALSE(restarted->Read(KeyOf("/logs/torn.json"))->has_value());
  const AgentStateStore::Loaded loaded = restarted->LoadAll();
  EXPECT_EQ(loaded.states.size(), 2u);
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_THAT(loaded.errors[0].message(), HasSubstr("line 2"));
}

// Two stores of one folder (two agent processes): each reads what the other
// wrote, and a compaction by one is followed by the other.
TEST(AgentStateStoreTest, TwoStoresOfOneFolderSeeEachOthersRecords) {
  test_support::TempDir dir;
  constexpr size_t kCompactLines = 64;
  absl::StatusOr<AgentStateStore> first =
      AgentStateStore::Open(dir.path(), kCompactLines);
  absl::StatusOr<AgentStateStore> second =
      AgentStateStore::Open(dir.path(), kCompactLines);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(first->Write(SampleState("/logs/first.json")).ok());
  EXPECT_TRUE(second->Read(KeyOf("/logs/first.json"))->has_value());
  ASSERT_TRUE(second->Write(SampleState("/logs/second.json")).ok());
  EXPECT_TRUE(first->Read(KeyOf("/logs/second.json"))->has_value());

  // Rewrites of one record past the compaction threshold, from both.
  v1::AgentFileState state = SampleState("/logs/rewritten.json");
  for (size_t i = 0; i <= kCompactLines; ++i) {
    state.set_acked_sequence(static_cast<int64_t>(i));
    ASSERT_TRUE((i % 2 == 0 ? *first : *second).Write(state).ok());
  }
  EXPECT_LT(LinesOf(first->JournalPath()).size(), 10u);
  for (const AgentStateStore* each : {&*first, &*second}) {
    const AgentStateStore::Loaded loaded = each->LoadAll();
    EXPECT_EQ(loaded.states.size(), 3u);
    EXPECT_TRUE(loaded.errors.empty());
    EXPECT_EQ((*each->Read(KeyOf("/logs/rewritten.json")))->acked_sequence(),
              static_cast<int64_t>(kCompactLines));
  }
  ASSERT_TRUE(second->Write(SampleState("/logs/after.json")).ok());
  EXPECT_TRUE(first->Read(KeyOf("/logs/after.json"))->has_value());
  EXPECT_THAT(FilesIn(dir.path()),
              ::testing::ElementsAre(AgentStateJournal::kFileName));
}

// A state dir of the layout before the journal (a file per record) is read
// on, and a record's journal line replaces its file's.
TEST(AgentStateStoreTest, FilePerRecordLayoutIsStillRead) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  v1::AgentFileState old = SampleState("/logs/run7/old.json");
  old.set_state(v1::UPLOAD_STATE_DONE);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(old, &text));
  const std::string old_file = store->StateFilePath(KeyOf(old.path()));
  EXPECT_THAT(old_file, HasSubstr("-old.json.state"));
  std::ofstream(old_file) << text;
  absl::StatusOr<std::optional<v1::AgentFileState>> read =
      store->Read(KeyOf(old.path()));
  ASSERT_TRUE(read.ok() && read->has_value()) << read.status();
  EXPECT_EQ((*read)->state(), v1::UPLOAD_STATE_DONE);
  EXPECT_EQ(store->LoadAll().states.size(), 1u);

  v1::AgentFileState newer = old;
  newer.set_state(v1::UPLOAD_STATE_UPLOADING);
  ASSERT_TRUE(store->Write(newer).ok());
  EXPECT_EQ((*store->Read(KeyOf(old.path())))->state(),
            v1::UPLOAD_STATE_UPLOADING);
  const AgentStateStore::Loaded loaded = store->LoadAll();
  ASSERT_EQ(loaded.states.size(), 1u);
  EXPECT_EQ(loaded.states[0].state(), v1::UPLOAD_STATE_UPLOADING);
}

TEST(AgentStateStoreTest, UnparseableRecordFileIsDataLossNamingTheFile) {
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

TEST(AgentStateStoreTest, RecordFileOfAnotherPathIsDataLoss) {
  test_support::TempDir dir;
  absl::StatusOr<AgentStateStore> store = AgentStateStore::Open(dir.path());
  ASSERT_TRUE(store.ok());
  v1::AgentFileState other = SampleState("/logs/a.json");
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(other, &text));
  std::ofstream(store->StateFilePath(KeyOf("/logs/b.json"))) << text;
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
  EXPECT_EQ(store->LoadAll().states.size(), 2u);
}

TEST(AgentStateStoreTest, DefaultDirPrefersXdgStateHome) {
  EXPECT_EQ(DefaultAgentStateDir("/xdg", "/home/u"), "/xdg/profdiff-agent");
  EXPECT_EQ(DefaultAgentStateDir("", "/home/u"),
            "/home/u/.local/state/profdiff-agent");
  EXPECT_EQ(DefaultAgentStateDir("", ""), "");
}

}  // namespace
}  // namespace profdiff::agent
