#include "agent/armed_captures.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr uid_t kNobody = 65534;

class ArmedCapturesTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen() {
    auto armed = ArmedCaptures::Open(state_.path(), absl::Now());
    ASSERT_TRUE(armed.ok()) << armed.status();
    armed_ = *std::move(armed);
  }

  // A capture with one Kineto process of uid `uid` that is to write `file`.
  v1::ArmedCapture Capture(const std::string& id, const std::string& file,
                           uid_t uid, absl::Time deadline) {
    v1::ArmedCapture capture;
    capture.set_capture_id(id);
    capture.set_run(id);
    capture.set_deadline_unix_ms(absl::ToUnixMillis(deadline));
    capture.mutable_answer()->set_capture_id(id);
    capture.mutable_answer()->add_triggered_pids(4242);
    v1::ArmedProcess& process = *capture.add_processes();
    process.set_host_pid(4242);
    process.set_pid(4242);
    process.set_uid(uid);
    process.set_source("kineto");
    process.set_trace_file(file);
    process.set_config("ACTIVITIES_LOG_FILE=...");
    return capture;
  }

  std::string Write(const std::string& name) {
    std::string path = logs_.Join(name);
    std::ofstream(path) << "{}";
    return path;
  }

  test_support::TempDir state_;
  test_support::TempDir logs_;
  std::unique_ptr<ArmedCaptures> armed_;
};

TEST_F(ArmedCapturesTest, ACaptureSurvivesARestartWithItsAnswer) {
  const absl::Time deadline = absl::Now() + absl::Minutes(1);
  ASSERT_TRUE(
      armed_->Record(Capture("c1", "/l/c1_4242.json", 1000, deadline)).ok());
  armed_->MarkConfigTaken("c1", 4242);
  Reopen();
  const std::optional<v1::CaptureAnswer> answer = armed_->AnswerOf("c1");
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->triggered_pids(0), 4242);
  const std::vector<v1::ArmedCapture> running = armed_->Running(absl::Now());
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].processes(0).config(), "");  // taken, kept so
  EXPECT_FALSE(armed_->AnswerOf("c2").has_value());
}

TEST_F(ArmedCapturesTest, ExpiredCapturesAndUnreadableRecordsAreRemoved) {
  const absl::Time now = absl::Now();
  ASSERT_TRUE(
      armed_->Record(Capture("old", "/l/a", 1000, now - absl::Hours(1))).ok());
  ASSERT_TRUE(armed_->Record(Capture("new", "/l/b", 1000, now)).ok());
  std::ofstream(state_.Join("captures/torn.capture")) << "capture_id: \"to";
  Reopen();
  EXPECT_FALSE(armed_->AnswerOf("old").has_value());
  EXPECT_TRUE(armed_->AnswerOf("new").has_value());
  EXPECT_FALSE(std::filesystem::exists(state_.Join("captures/old.capture")));
  EXPECT_FALSE(std::filesystem::exists(state_.Join("captures/torn.capture")));
  // Kept kKeepAfterDeadline past its deadline, for late traces.
  armed_->Expire(now + kKeepAfterDeadline + absl::Seconds(1));
  EXPECT_FALSE(armed_->AnswerOf("new").has_value());
}

TEST_F(ArmedCapturesTest, TheFileACaptureAskedForIsAdmitted) {
  const std::string file = Write("c1_4242.pt.trace.json");
  ASSERT_TRUE(armed_
                  ->Record(Capture("c1", file, ::geteuid(),
                                   absl::Now() + absl::Minutes(1)))
                  .ok());
  EXPECT_TRUE(armed_->AdmitTraceFile(file, absl::Now()).ok());
}

// Regression for #42: a file no capture asked for (a fake rank's) is not
// uploaded.
TEST_F(ArmedCapturesTest, AFileNoCaptureAskedForIsRefused) {
  const std::string asked = Write("c1_4242.pt.trace.json");
  ASSERT_TRUE(armed_
                  ->Record(Capture("c1", asked, ::geteuid(),
                                   absl::Now() + absl::Minutes(1)))
                  .ok());
  const std::string fake = Write("c1_9999.pt.trace.json");
  const absl::Status refused = armed_->AdmitTraceFile(fake, absl::Now());
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(), HasSubstr("no capture of this agent told a "
                                           "process to write"));
}

// Regression for #42: the asked-for path, but written by another user.
TEST_F(ArmedCapturesTest, AFileOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  const std::string file = Write("c1_4242.pt.trace.json");
  ASSERT_EQ(::chown(file.c_str(), kNobody, kNobody), 0);
  ASSERT_TRUE(
      armed_->Record(Capture("c1", file, 0, absl::Now() + absl::Minutes(1)))
          .ok());
  const absl::Status refused = armed_->AdmitTraceFile(file, absl::Now());
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(),
              HasSubstr("is owned by uid 65534, not by uid 0"));
}

TEST_F(ArmedCapturesTest, ALinkInPlaceOfTheFileIsRefused) {
  const std::string target = Write("elsewhere.json");
  const std::string link = logs_.Join("c1_4242.pt.trace.json");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_TRUE(armed_
                  ->Record(Capture("c1", link, ::geteuid(),
                                   absl::Now() + absl::Minutes(1)))
                  .ok());
  EXPECT_THAT(armed_->AdmitTraceFile(link, absl::Now()).message(),
              HasSubstr("is not a regular file"));
}

TEST_F(ArmedCapturesTest, AFileWrittenAfterTheDeadlineIsRefused) {
  const std::string file = Write("c1_4242.pt.trace.json");
  const absl::Time deadline = absl::Now() - absl::Minutes(1);
  ASSERT_TRUE(armed_->Record(Capture("c1", file, ::geteuid(), deadline)).ok());
  EXPECT_THAT(armed_->AdmitTraceFile(file, absl::Now()).message(),
              HasSubstr("after the deadline of capture c1"));
  // Written before it: admitted, though the upload comes later.
  const timespec before[2] = {absl::ToTimespec(deadline - absl::Seconds(5)),
                              absl::ToTimespec(deadline - absl::Seconds(5))};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), before, 0), 0);
  EXPECT_TRUE(armed_->AdmitTraceFile(file, absl::Now()).ok());
}

TEST_F(ArmedCapturesTest, ACancelledCapturesFileIsRefusedAndItsAnswerKept) {
  const std::string file = Write("c1_4242.pt.trace.json");
  ASSERT_TRUE(armed_
                  ->Record(Capture("c1", file, ::geteuid(),
                                   absl::Now() + absl::Minutes(1)))
                  .ok());
  EXPECT_TRUE(armed_->Cancel("c1"));
  EXPECT_FALSE(armed_->Cancel("unknown"));
  EXPECT_THAT(armed_->AdmitTraceFile(file, absl::Now()).message(),
              HasSubstr("capture c1 was cancelled"));
  Reopen();
  EXPECT_TRUE(armed_->AnswerOf("c1").has_value());
  // Kept, marked: a process that took its config is still busy in kineto.
  ASSERT_EQ(armed_->Running(absl::Now()).size(), 1u);
  EXPECT_TRUE(armed_->Running(absl::Now())[0].cancelled());
}

TEST_F(ArmedCapturesTest, ACaptureIdThatIsNotAnIdIsNotRecorded) {
  v1::ArmedCapture capture = Capture("../x", "/l/f", 0, absl::Now());
  EXPECT_EQ(armed_->Record(capture).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace profdiff::agent
