// `show --format csv` (client/profile_csv.h): the tables of the views asked
// for, in order, each led by its worker, and the names it refuses.
#include "client/profile_csv.h"

#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ProfileCsvTest, ViewsGiveTheirTablesInTheTablesOrder) {
  EXPECT_THAT(
      ProfileCsvTables({ProfileView::kMemory, ProfileView::kSteps}).value(),
      ElementsAre("steps", "memory"));
  EXPECT_THAT(ProfileCsvTables({ProfileView::kAll}).value(),
              ElementsAre("overview", "steps", "operators", "kernels",
                          "modules", "memory"));
  EXPECT_TRUE(ProfileCsvTables({}).value().empty());
}

TEST(ProfileCsvTest, AViewWithoutACsvTableIsRefused) {
  const auto comm = ProfileCsvTables({ProfileView::kComm});
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(comm.status().message(),
            "--format csv: a view asked for has no CSV table yet (--format "
            "json has it)");
}

TEST(ProfileCsvTest, MeanStepColumnsAreTheStepsDurations) {
  std::vector<std::string> names;
  for (const CsvField<v1::StepStats>& f : MeanStepCsvFields())
    names.push_back(f.name);
  EXPECT_THAT(names,
              ElementsAre("duration_us", "kernel_us", "memcpy_us", "memset_us",
                          "communication_us", "runtime_us", "dataloader_us",
                          "cpu_exec_us", "other_us", "device_activity_count",
                          "collective_us", "collective_exposed_us"));
}

TEST(ProfileCsvTest, RowsAreLedByTheirWorker) {
  v1::RunProfile run;
  for (int rank : {0, 1}) {
    v1::WorkerProfile& w = *run.add_workers();
    w.mutable_worker()->set_rank(rank);
    w.mutable_worker()->set_worker_name("host" + std::to_string(rank));
    v1::OperatorStats& op = *w.add_operators();
    op.set_name("aten::mm");
    op.set_calls(3);
  }
  const auto files = RenderRunProfileCsv(run, {"operators", "steps"});
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].name, "operators");
  EXPECT_EQ((*files)[1].name, "steps");
  const std::string& ops = (*files)[0].text;
  EXPECT_THAT(ops, HasSubstr("host0"));
  EXPECT_THAT(ops, HasSubstr("host1"));
  EXPECT_THAT(ops, HasSubstr(",aten::mm,"));
  // A header and one row per worker.
  EXPECT_EQ(std::count(ops.begin(), ops.end(), '\n'), 3);
}

TEST(ProfileCsvTest, AnUnknownTableIsRefused) {
  const auto files = RenderRunProfileCsv(v1::RunProfile(), {"comm"});
  EXPECT_EQ(files.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(files.status().message(), "--view comm: no CSV table of that name");
}

}  // namespace
}  // namespace profdiff::client
