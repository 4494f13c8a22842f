// base::FlagSet: each spelling it accepts, each default it keeps, and one
// refusal per rule.
#include "base/command_line.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "base/version.h"

namespace profdiff::base {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// An options struct as a binary has one: its initialisers are the defaults.
struct Options {
  std::string data_dir = "/var/lib/x";
  std::string run;
  bool tls = false;
  bool keep = true;
  int window = 8;
  uint32_t chunk_events = 1 << 16;
  int64_t offset = 0;
  uint64_t max_bytes = uint64_t{16} << 30;
  absl::Duration settle = absl::Seconds(2);
  absl::Duration timeout = absl::Minutes(5);
  absl::Duration partial_after = absl::Minutes(10);
};

class FlagSetTest : public ::testing::Test {
 protected:
  FlagSetTest() {
    flags_.AddString("data-dir", &options_.data_dir, "DIR", "where data goes");
    flags_.AddString("run", &options_.run, "ID", "the run");
    flags_.AddBool("tls", &options_.tls, "use TLS");
    flags_.AddBool("keep", &options_.keep, "keep things");
    flags_.AddInt("window", &options_.window, "N", "chunks in flight",
                  {.min = 1, .max = 1024});
    flags_.AddInt("chunk-events", &options_.chunk_events, "N",
                  "events per chunk");
    flags_.AddInt("offset", &options_.offset, "N", "an offset");
    flags_.AddUint64("max-bytes", &options_.max_bytes, "BYTES", "a size");
    flags_.AddDuration("settle", &options_.settle, "D", "quiet time",
                       DurationRule::kNonNegative);
    flags_.AddDuration("timeout", &options_.timeout, "D", "a deadline",
                       DurationRule::kPositive);
    flags_.AddDuration("partial-after", &options_.partial_after, "D",
                       "anything ParseDuration takes");
  }

  absl::StatusOr<ParsedCommandLine> Parse(
      const std::vector<std::string>& args) {
    return flags_.Parse(args);
  }

  Options options_;
  FlagSet flags_;
};

TEST_F(FlagSetTest, DefaultsStayWhenNoFlagIsGiven) {
  absl::StatusOr<ParsedCommandLine> parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(options_.data_dir, "/var/lib/x");
  EXPECT_EQ(options_.window, 8);
  EXPECT_EQ(options_.settle, absl::Seconds(2));
  EXPECT_FALSE(options_.tls);
  EXPECT_THAT(parsed->flags_given, IsEmpty());
  EXPECT_FALSE(parsed->help);
}

TEST_F(FlagSetTest, DashAndUnderscoreSpellingsAreOneFlag) {
  ASSERT_TRUE(Parse({"--data-dir", "/a"}).ok());
  EXPECT_EQ(options_.data_dir, "/a");
  ASSERT_TRUE(Parse({"--data_dir", "/b"}).ok());
  EXPECT_EQ(options_.data_dir, "/b");
  ASSERT_TRUE(Parse({"--chunk_events=7"}).ok());
  EXPECT_EQ(options_.chunk_events, 7u);
}

TEST_F(FlagSetTest, ValueAfterEqualsOrAsNextArgument) {
  ASSERT_TRUE(Parse({"--window=16", "--run", "r1"}).ok());
  EXPECT_EQ(options_.window, 16);
  EXPECT_EQ(options_.run, "r1");
}

TEST_F(FlagSetTest, OneDashWorksAsTwo) {
  ASSERT_TRUE(Parse({"-window", "3", "-run=r2"}).ok());
  EXPECT_EQ(options_.window, 3);
  EXPECT_EQ(options_.run, "r2");
}

TEST_F(FlagSetTest, NextArgumentIsTheValueEvenWithADash) {
  ASSERT_TRUE(Parse({"--run", "-x", "--offset", "-5"}).ok());
  EXPECT_EQ(options_.run, "-x");
  EXPECT_EQ(options_.offset, -5);
}

TEST_F(FlagSetTest, EqualsWithNothingAfterItIsAnEmptyString) {
  ASSERT_TRUE(Parse({"--data-dir="}).ok());
  EXPECT_EQ(options_.data_dir, "");
}

TEST_F(FlagSetTest, BoolForms) {
  ASSERT_TRUE(Parse({"--tls"}).ok());
  EXPECT_TRUE(options_.tls);
  ASSERT_TRUE(Parse({"--tls=false"}).ok());
  EXPECT_FALSE(options_.tls);
  ASSERT_TRUE(Parse({"--tls=yes"}).ok());
  EXPECT_TRUE(options_.tls);
  ASSERT_TRUE(Parse({"--notls"}).ok());
  EXPECT_FALSE(options_.tls);
  ASSERT_TRUE(Parse({"--keep=0"}).ok());
  EXPECT_FALSE(options_.keep);
}

TEST_F(FlagSetTest, BoolNeverTakesTheNextArgument) {
  absl::StatusOr<ParsedCommandLine> parsed = Parse({"--tls", "false"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(options_.tls);
  EXPECT_THAT(parsed->positionals, ElementsAre("false"));
}

TEST_F(FlagSetTest, MalformedBoolIsInvalidArgument) {
  const absl::Status status = Parse({"--tls=maybe"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--tls=\"maybe\""));
  EXPECT_THAT(status.message(), HasSubstr("true or false"));
}

TEST_F(FlagSetTest, NegatedBoolTakesNoValue) {
  const absl::Status status = Parse({"--notls=true"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--notls"));
}

TEST_F(FlagSetTest, NegationIsOnlyForBools) {
  const absl::Status status = Parse({"--nowindow"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown flag --nowindow"));
}

TEST_F(FlagSetTest, PositionalsComeBackInOrder) {
  absl::StatusOr<ParsedCommandLine> parsed =
      Parse({"a.json", "--run", "r", "-", "b.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positionals, ElementsAre("a.json", "-", "b.json"));
}

TEST_F(FlagSetTest, DoubleDashEndsTheFlags) {
  absl::StatusOr<ParsedCommandLine> parsed =
      Parse({"--run", "r", "--", "--window", "-x"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(options_.window, 8);
  EXPECT_THAT(parsed->positionals, ElementsAre("--window", "-x"));
}

TEST_F(FlagSetTest, HelpStopsParsing) {
  for (const std::string help : {"--help", "-h", "--helpfull", "--helpshort"}) {
    absl::StatusOr<ParsedCommandLine> parsed =
        Parse({"--run", "r", help, "--colour"});
    ASSERT_TRUE(parsed.ok()) << help << ": " << parsed.status();
    EXPECT_TRUE(parsed->help) << help;
  }
}

TEST_F(FlagSetTest, LastOccurrenceWins) {
  ASSERT_TRUE(Parse({"--window", "2", "--window=5"}).ok());
  EXPECT_EQ(options_.window, 5);
}

TEST_F(FlagSetTest, GivenKnowsBothSpellings) {
  absl::StatusOr<ParsedCommandLine> parsed = Parse({"--data_dir", "/x"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->Given("data-dir"));
  EXPECT_TRUE(parsed->Given("data_dir"));
  EXPECT_FALSE(parsed->Given("run"));
}

TEST_F(FlagSetTest, UnknownFlagIsInvalidArgumentNamingIt) {
  const absl::Status status = Parse({"--colour", "x"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("unknown flag --colour"));
}

TEST_F(FlagSetTest, MissingValueIsInvalidArgument) {
  const absl::Status status = Parse({"--run"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--run: missing value"));
}

TEST_F(FlagSetTest, MalformedIntegerNamesFlagAndRule) {
  const absl::Status status = Parse({"--window", "eight"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      status.message(),
      HasSubstr("--window=\"eight\": expected an integer in [1, 1024]"));
}

TEST_F(FlagSetTest, IntegerOutsideItsRangeIsInvalidArgument) {
  EXPECT_THAT(Parse({"--window=0"}).status().message(), HasSubstr("[1, 1024]"));
  EXPECT_FALSE(Parse({"--window=1025"}).ok());
  EXPECT_TRUE(Parse({"--window=1024"}).ok());
  EXPECT_EQ(options_.window, 1024);
}

TEST_F(FlagSetTest, FieldTypeBoundsAnIntegerFlag) {
  // uint32_t: [0, 2^32 - 1] = [0, 4294967295].
  EXPECT_THAT(Parse({"--chunk-events=-1"}).status().message(),
              HasSubstr("[0, 4294967295]"));
  EXPECT_FALSE(Parse({"--chunk-events=4294967296"}).ok());
  ASSERT_TRUE(Parse({"--chunk-events=4294967295"}).ok());
  EXPECT_EQ(options_.chunk_events, 4294967295u);
}

TEST_F(FlagSetTest, Uint64TakesItsWholeRange) {
  ASSERT_TRUE(Parse({"--max-bytes=18446744073709551615"}).ok());
  EXPECT_EQ(options_.max_bytes, UINT64_MAX);
  EXPECT_FALSE(Parse({"--max-bytes=-1"}).ok());
  EXPECT_FALSE(Parse({"--max-bytes=1e9"}).ok());
}

TEST_F(FlagSetTest, DurationsInAbslSyntax) {
  ASSERT_TRUE(Parse({"--settle=150ms", "--timeout", "1h30m"}).ok());
  EXPECT_EQ(options_.settle, absl::Milliseconds(150));
  EXPECT_EQ(options_.timeout, absl::Minutes(90));
}

TEST_F(FlagSetTest, MalformedDurationNamesFlagAndRule) {
  const absl::Status status = Parse({"--settle", "soon"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("--settle=\"soon\": expected a duration >= 0"));
}

TEST_F(FlagSetTest, DurationRules) {
  EXPECT_TRUE(Parse({"--settle=0s"}).ok());
  EXPECT_FALSE(Parse({"--settle=-1s"}).ok());
  EXPECT_FALSE(Parse({"--settle=inf"}).ok());
  EXPECT_THAT(Parse({"--timeout=0s"}).status().message(),
              HasSubstr("expected a duration > 0"));
  EXPECT_FALSE(Parse({"--timeout=inf"}).ok());
  EXPECT_TRUE(Parse({"--partial-after=-1s"}).ok());
  EXPECT_TRUE(Parse({"--partial-after=inf"}).ok());
  EXPECT_EQ(options_.partial_after, absl::InfiniteDuration());
}

TEST_F(FlagSetTest, HasKnowsBothSpellings) {
  EXPECT_TRUE(flags_.Has("max_bytes"));
  EXPECT_TRUE(flags_.Has("max-bytes"));
  EXPECT_FALSE(flags_.Has("colour"));
}

TEST_F(FlagSetTest, UsageListsEveryFlagWithItsDefault) {
  const std::string usage = flags_.Usage();
  EXPECT_THAT(usage, HasSubstr("  --data-dir DIR"));
  EXPECT_THAT(usage, HasSubstr("where data goes (default: /var/lib/x)"));
  EXPECT_THAT(usage, HasSubstr("chunks in flight (default: 8)"));
  EXPECT_THAT(usage, HasSubstr("quiet time (default: 2s)"));
  EXPECT_THAT(usage, HasSubstr("a size (default: 17179869184)"));
  EXPECT_THAT(usage, HasSubstr("keep things (default: true)"));
  EXPECT_THAT(usage, HasSubstr("  --tls "));
  EXPECT_THAT(usage, HasSubstr("  --help "));
}

TEST_F(FlagSetTest, UsageShowsNoEmptyOrFalseDefault) {
  const std::string usage = flags_.Usage();
  EXPECT_THAT(usage, HasSubstr("the run\n"));
  EXPECT_THAT(usage, HasSubstr("use TLS\n"));
}

TEST_F(FlagSetTest, UsageShowsTheDefaultAtRegistrationNotAfterParse) {
  const std::string before = flags_.Usage();
  ASSERT_TRUE(Parse({"--window=3"}).ok());
  EXPECT_EQ(flags_.Usage(), before);
}

TEST_F(FlagSetTest, UsageWrapsLongHelpUnderTheHelpColumn) {
  std::string long_help;
  for (int i = 0; i < 30; ++i) long_help += "word ";
  std::string field;
  FlagSet flags;
  flags.AddString("a-rather-long-flag-name", &field, "VALUE", long_help);
  const std::string usage = flags.Usage();
  // The name is longer than the flag column, so the help starts on the next
  // line, 27 columns in (2 of indent + 25 of flag column).
  EXPECT_THAT(usage, HasSubstr("  --a-rather-long-flag-name VALUE\n" +
                               std::string(27, ' ') + "word word"));
  size_t start = 0;
  for (size_t end = usage.find('\n'); end != std::string::npos;
       start = end + 1, end = usage.find('\n', start)) {
    EXPECT_LE(end - start, 100u) << usage.substr(start, end - start);
  }
  EXPECT_THAT(usage, Not(HasSubstr(" \n")));
}

TEST_F(FlagSetTest, UsageNeverCutsADefaultInTwo) {
  // 73 columns of help (100 - 27) are filled up to 70 by the words, so
  // "(default: 100ms)" does not fit behind them and moves down whole.
  absl::Duration delay = absl::Milliseconds(100);
  FlagSet flags;
  flags.AddDuration("delay", &delay, "D", std::string(60, 'x') + " 123456789",
                    DurationRule::kAny);
  EXPECT_THAT(flags.Usage(), HasSubstr(" 123456789\n" + std::string(27, ' ') +
                                       "(default: 100ms)\n"));
}

// The profdiff CLI's flags: lists, choices, fractions and -o, spelled in
// its error wording (FlagSpelling::kCommand).
enum class Normalize { kPerStep, kTotal };

struct CommandOptions {
  std::vector<std::string> views;
  Normalize normalize = Normalize::kPerStep;
  double min_change = 5;
  int top = 0;
  std::string output;
};

class CommandFlagSetTest : public ::testing::Test {
 protected:
  CommandFlagSetTest() {
    flags_.AddList("view", &options_.views, "V", "views");
    flags_.AddEnum(
        "normalize", &options_.normalize,
        {{"per-step", Normalize::kPerStep}, {"total", Normalize::kTotal}},
        "per step or totals");
    flags_.AddDouble("min-change", &options_.min_change, "PCT", "threshold",
                     {.min = 0, .max = 100});
    flags_.AddInt("top", &options_.top, "N", "rows", {.min = 0});
    flags_.SetRuleText("top", "a number >= 0");
    flags_.AddString("output", &options_.output, "FILE", "where");
    flags_.AddShortName('o', "output");
  }

  absl::Status Error(const std::vector<std::string>& args) {
    return flags_.Parse(args).status();
  }

  CommandOptions options_;
  FlagSet flags_{FlagSpelling::kCommand};
};

TEST_F(CommandFlagSetTest, RepeatedListFlagKeepsEveryValueInOrder) {
  ASSERT_TRUE(flags_.Parse({"--view", "a", "--view=b,c"}).ok());
  EXPECT_THAT(options_.views, ElementsAre("a", "b,c"));
}

TEST_F(CommandFlagSetTest, ListFlagsFirstValueReplacesItsDefault) {
  std::vector<std::string> fail_on = {"default"};
  FlagSet flags;
  flags.AddList("fail-on", &fail_on, "EXPR", "conditions");
  EXPECT_THAT(flags.Usage(), HasSubstr("(default: default)"));
  ASSERT_TRUE(flags.Parse({"--fail-on", "x", "--fail-on", "y"}).ok());
  EXPECT_THAT(fail_on, ElementsAre("x", "y"));
  // A second Parse starts the list again.
  ASSERT_TRUE(flags.Parse({"--fail-on", "z"}).ok());
  EXPECT_THAT(fail_on, ElementsAre("z"));
}

TEST_F(CommandFlagSetTest, EnumTakesOneOfItsWords) {
  ASSERT_TRUE(flags_.Parse({"--normalize", "total"}).ok());
  EXPECT_EQ(options_.normalize, Normalize::kTotal);
}

TEST_F(CommandFlagSetTest, EnumErrorListsTheWords) {
  EXPECT_EQ(Error({"--normalize", "mean"}).message(),
            "--normalize mean: expected per-step or total");
}

TEST_F(CommandFlagSetTest, EnumUsageShowsTheWordsAndTheDefaultsWord) {
  EXPECT_THAT(flags_.Usage(), HasSubstr("--normalize per-step|total"));
  EXPECT_THAT(flags_.Usage(), HasSubstr("(default: per-step)"));
}

TEST_F(CommandFlagSetTest, DoubleWithinItsRange) {
  ASSERT_TRUE(flags_.Parse({"--min-change=2.5"}).ok());
  EXPECT_DOUBLE_EQ(options_.min_change, 2.5);
  ASSERT_TRUE(flags_.Parse({"--min-change", "1e2"}).ok());
  EXPECT_DOUBLE_EQ(options_.min_change, 100);
}

TEST_F(CommandFlagSetTest, DoubleOutsideItsRangeNamesTheRange) {
  EXPECT_EQ(Error({"--min-change", "-1"}).message(),
            "--min-change -1: expected a number in [0, 100]");
  EXPECT_FALSE(flags_.Parse({"--min-change", "100.5"}).ok());
  EXPECT_FALSE(flags_.Parse({"--min-change", "5%"}).ok());
}

TEST_F(CommandFlagSetTest, DoubleRefusesNanAndInfinity) {
  double any = 0;
  FlagSet flags;
  flags.AddDouble("x", &any, "X", "anything finite");
  EXPECT_FALSE(flags.Parse({"--x=nan"}).ok());
  EXPECT_FALSE(flags.Parse({"--x=inf"}).ok());
  EXPECT_THAT(flags.Parse({"--x=?"}).status().message(),
              HasSubstr("expected a number"));
}

TEST_F(CommandFlagSetTest, RuleTextReplacesTheDerivedRule) {
  // The CLI's README wording, not "an integer in [0, 2147483647]".
  EXPECT_EQ(Error({"--top", "x"}).message(), "--top x: expected a number >= 0");
  EXPECT_EQ(Error({"--top=-1"}).message(), "--top -1: expected a number >= 0");
}

TEST_F(CommandFlagSetTest, ShortNameIsTheFlag) {
  absl::StatusOr<ParsedCommandLine> parsed =
      flags_.Parse({"-o", "x.json", "a"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(options_.output, "x.json");
  EXPECT_TRUE(parsed->Given("output"));
  EXPECT_THAT(parsed->positionals, ElementsAre("a"));
  EXPECT_THAT(flags_.Usage(), HasSubstr("  -o, --output FILE"));
}

TEST_F(CommandFlagSetTest, UnknownOptionIsNamedAsTyped) {
  EXPECT_EQ(Error({"--bogus=1"}).message(), "unknown option --bogus");
}

// A single dash is a short name or nothing: a path such as "-old.json", a
// long name with one dash, or "-5" is a positional, as the CLI always read it.
TEST_F(CommandFlagSetTest, SingleDashIsOnlyAShortName) {
  absl::StatusOr<ParsedCommandLine> parsed =
      flags_.Parse({"-old.json", "-5", "-x", "-top", "--top", "3"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positionals,
              ElementsAre("-old.json", "-5", "-x", "-top"));
  EXPECT_EQ(options_.top, 3);
  EXPECT_TRUE(flags_.Parse({"-h"})->help);
}

TEST_F(CommandFlagSetTest, MissingValueNamesTheRule) {
  EXPECT_EQ(Error({"--top"}).message(),
            "--top: missing value (expected a number >= 0)");
}

TEST_F(CommandFlagSetTest, OddValueBytesAreQuoted) {
  EXPECT_EQ(Error({"--top", "1\n"}).message(),
            "--top \"1\\n\": expected a number >= 0");
  EXPECT_EQ(Error({"--top="}).message(), "--top \"\": expected a number >= 0");
}

TEST_F(CommandFlagSetTest, FlagsUsageLeavesOutHelpAndVersion) {
  EXPECT_THAT(flags_.FlagsUsage(), HasSubstr("--view V"));
  EXPECT_THAT(flags_.FlagsUsage(), Not(HasSubstr("--help")));
  EXPECT_THAT(flags_.FlagsUsage(), Not(HasSubstr("--version")));
  EXPECT_EQ(flags_.Usage().rfind(flags_.FlagsUsage(), 0), 0u);
}

TEST(ParseFlagsOnlyTest, VersionLineIsTheProgramAndTheBuildsVersion) {
  EXPECT_EQ(VersionLine("prog"), StrCat("prog ", Version(), "\n"));
  EXPECT_THAT(std::string(Version()),
              testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
  FlagSet flags;
  EXPECT_THAT(flags.Usage(), HasSubstr("--version"));
}

TEST(ParseFlagsOnlyTest, HelpExitsZeroAPositionalOrBadFlagIsUsageAndFlagsRun) {
  auto run = [](std::vector<std::string> args) {
    std::string value = "default";
    FlagSet flags;
    flags.AddString("name", &value, "TEXT", "a value");
    std::vector<char*> argv;
    argv.reserve(args.size());
    for (std::string& arg : args) argv.push_back(arg.data());
    return ParseFlagsOnly(flags, static_cast<int>(argv.size()), argv.data(),
                          "prog", "usage: prog\n");
  };
  EXPECT_EQ(run({"prog", "--help"}), 0);
  EXPECT_EQ(run({"prog", "--version"}), 0);
  EXPECT_EQ(run({"prog", "--version", "stray"}), 0);  // it stops parsing
  EXPECT_EQ(run({"prog", "stray"}), kExitUsage);
  EXPECT_EQ(run({"prog", "--nope"}), kExitUsage);
  EXPECT_EQ(run({"prog", "--name", "x"}), std::nullopt);
}

}  // namespace
}  // namespace profdiff::base
