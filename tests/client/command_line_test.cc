// The CLI's command lines and exit codes (client/command_line.h): usage errors,
// the exit code of each kind of status, parsing with the CLI's spelling, and
// list flags joined.
#include "client/command_line.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client/gate_output.h"

namespace profdiff::client {
namespace {

TEST(ExitCodeTest, BadCommandLinesExitTwoWithUsageOnlyForUsageErrors) {
  const absl::Status usage = UsageError("diff takes two runs");
  EXPECT_EQ(usage.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(usage.message(), "diff takes two runs");
  EXPECT_TRUE(WantsUsage(usage));
  EXPECT_EQ(ExitCodeOf(usage), 2);
  // A bad flag value names the flag: exit 2, no usage.
  const absl::Status flag =
      absl::InvalidArgumentError("--sort speed: not a column");
  EXPECT_FALSE(WantsUsage(flag));
  EXPECT_EQ(ExitCodeOf(flag), 2);
  EXPECT_EQ(ExitCodeOf(absl::InvalidArgumentError(
                "-o x.html with --format json: pick one")),
            2);
  // Invalid input that is not the command line: 1.
  EXPECT_EQ(ExitCodeOf(absl::InvalidArgumentError("trace.json: bad JSON")), 1);
}

TEST(ExitCodeTest, EachKindOfFailureHasItsCode) {
  EXPECT_EQ(ExitCodeOf(absl::CancelledError("Ctrl-C")), kExitInterrupted);
  EXPECT_EQ(ExitCodeOf(absl::UnavailableError("no server")), 2);
  EXPECT_EQ(ExitCodeOf(absl::DeadlineExceededError("slow server")), 2);
  EXPECT_EQ(ExitCodeOf(absl::NotFoundError("no such run")), 1);
  EXPECT_EQ(ExitCodeOf(absl::DataLossError("damaged")), 1);
  google::protobuf::RepeatedPtrField<v1::GateResult> gate;
  gate.Add()->set_failed(true);
  EXPECT_EQ(ExitCodeOf(GateFailedError("out", gate)), kExitGateFailed);
}

TEST(ParseCommandLineTest, UnknownOptionsAndMissingValuesAreUsageErrors) {
  int top = 0;
  base::FlagSet flags = CommandFlags();
  flags.AddInt("top", &top, "N", "rows", {.min = 0});
  const absl::StatusOr<base::ParsedCommandLine> unknown =
      ParseCommandLine(flags, {"--bogus"});
  EXPECT_EQ(unknown.status().message(), "unknown option --bogus");
  EXPECT_TRUE(WantsUsage(unknown.status()));
  const absl::StatusOr<base::ParsedCommandLine> missing =
      ParseCommandLine(flags, {"--top"});
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(WantsUsage(missing.status())) << missing.status();
  EXPECT_EQ(ExitCodeOf(missing.status()), 2);
}

TEST(ParseCommandLineTest, ABadValueNamesTheFlagWithoutUsage) {
  int top = 0;
  base::FlagSet flags = CommandFlags();
  flags.AddInt("top", &top, "N", "rows", {.min = 0});
  const absl::StatusOr<base::ParsedCommandLine> bad =
      ParseCommandLine(flags, {"--top", "x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--top x: expected an integer in [0, 2147483647]")
      << bad.status();
  EXPECT_FALSE(WantsUsage(bad.status()));
  EXPECT_EQ(ExitCodeOf(bad.status()), 2);
}

TEST(ParseCommandLineTest, ValuesAndPositionalsAreRead) {
  int top = 0;
  base::FlagSet flags = CommandFlags();
  flags.AddInt("top", &top, "N", "rows", {.min = 0});
  const absl::StatusOr<base::ParsedCommandLine> parsed =
      ParseCommandLine(flags, {"a", "--top=7", "b"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(top, 7);
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(parsed->Given("top"));
}

TEST(JoinedListTest, RepeatsAndCommasJoinTheSameWay) {
  EXPECT_EQ(JoinedList({"a", "b,c"}, "overview"), "a,b,c");
  EXPECT_EQ(JoinedList({"steps"}, "overview"), "steps");
  EXPECT_EQ(JoinedList({}, "overview"), "overview");
  EXPECT_EQ(JoinedList({}, ""), "");
}

}  // namespace
}  // namespace profdiff::client
