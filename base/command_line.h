// The flag parser of every profdiff binary: a FlagSet binds each flag name to a
// typed field of the binary's options struct, so a default has one home (the
// struct's member initialiser, which Usage() shows) and parsing is testable
// without global flag objects.
//
// Design:
// 1. Names are registered with '-' ("data-dir"); "--data-dir" and "--data_dir"
//    are the same flag, and so is "-data-dir" (one dash, as Abseil and the
//    agent's first parser took it).
// 2. A value is "--name=value" or "--name value" (the next argument, even one
//    starting with '-'). A bool is "--name", "--name=true|false" (also 1/0,
//    yes/no, t/f, y/n) or "--noname"; it never takes the next argument.
// 3. "--" ends the flags: every later argument is a positional, and so is each
//    argument not starting with '-', and "-" alone. Positionals are returned
//    in order; the caller decides what they mean (a subcommand, files).
// 4. "--help", "-h", "--helpfull" and "--helpshort" stop parsing and report
//    help; the caller prints its synopsis and Usage(). "--version" stops
//    parsing too; the caller prints its name and base::Version().
// 5. A flag given twice keeps its last value.
// Why not a library: Debian's CLI11 and cxxopts report errors by throwing
// (profdiff uses no exceptions), and Abseil flags are process globals whose
// names cannot contain '-'.
#ifndef PROFDIFF_BASE_COMMAND_LINE_H_
#define PROFDIFF_BASE_COMMAND_LINE_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/strings/string_view.h>
#include <absl/time/time.h>

namespace profdiff::base {

// Inclusive bounds of an integer flag; the field's type bounds it as well.
struct IntRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
};

// What a duration flag accepts, in absl::ParseDuration's syntax ("2s",
// "150ms", "1h30m").
enum class DurationRule {
  kAny,          // whatever absl::ParseDuration takes, "inf" and "-1s" too
  kNonNegative,  // finite and >= 0
  kPositive,     // finite and > 0
};

// What Parse found besides the values it stored.
struct ParsedCommandLine {
  bool help = false;  // a help flag came; the arguments after it were not read
  bool version = false;                  // --version came (the same)
  std::vector<std::string> positionals;  // in order
  std::vector<std::string> flags_given;  // registered names, in order

  // Whether the arguments set flag `name` (either spelling).
  bool Given(std::string_view name) const;
};

// A set of flags bound to fields. Register every flag, then Parse. Not
// thread-safe; the bound fields must outlive the FlagSet's use.
class FlagSet {
 public:
  FlagSet();
  ~FlagSet();
  FlagSet(FlagSet&&) noexcept;
  FlagSet& operator=(FlagSet&&) noexcept;
  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  // Binds flag `name` ([a-z0-9][a-z0-9-]*, registered once; else PD_CHECK) to
  // `*field`. The field's value now is the default Usage() shows. Usage()
  // shows the value as `value_name` ("DIR", "N", "D") and `help` after it.
  void AddString(std::string_view name, std::string* field,
                 std::string_view value_name, std::string_view help);
  void AddBool(std::string_view name, bool* field, std::string_view help);
  void AddInt(std::string_view name, int* field, std::string_view value_name,
              std::string_view help, IntRange range = {});
  void AddInt(std::string_view name, uint32_t* field,
              std::string_view value_name, std::string_view help,
              IntRange range = {});
  void AddInt(std::string_view name, int64_t* field,
              std::string_view value_name, std::string_view help,
              IntRange range = {});
  // Any value of the type: [0, 2^64).
  void AddUint64(std::string_view name, uint64_t* field,
                 std::string_view value_name, std::string_view help);
  void AddDuration(std::string_view name, absl::Duration* field,
                   std::string_view value_name, std::string_view help,
                   DurationRule rule = DurationRule::kAny);

  // Parses `args` (without the program name) into the bound fields (design
  // notes 1-5). InvalidArgument naming the flag, the value it got and the rule
  // it broke for an unknown flag, a missing, malformed or out-of-range value,
  // or a value given to "--noname". On an error, fields may already hold the
  // values of the flags before the bad one.
  absl::StatusOr<ParsedCommandLine> Parse(const std::vector<std::string>& args);

  // Whether `name` (either spelling) is registered.
  bool Has(std::string_view name) const;

  // One entry per flag, in registration order, "--help" last:
  //   "  --window N               unacknowledged chunks in flight (default: 8)"
  // wrapped at 100 columns. Defaults show unless they are empty strings or
  // false.
  std::string Usage() const;

 private:
  struct Flag;
  // The three AddInt overloads: `field`'s type bounds the range too.
  template <typename Int>
  void AddInteger(std::string_view name, Int* field,
                  std::string_view value_name, std::string_view help,
                  IntRange range);
  Flag& AddFlag(std::string_view name, std::string_view value_name,
                std::string_view help);
  const Flag* Find(std::string_view name) const;

  std::vector<Flag> flags_;
  std::map<std::string, size_t, std::less<>> index_;  // name -> flags_ index
};

// Exit codes every binary uses: a bad command line, and a run that failed.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailed = 1;

// "<program> <version>\n", what --version prints.
std::string VersionLine(std::string_view program);

// Prints "<program>: error: <message>" to stderr; returns `code`.
int FailWith(std::string_view program, int code, absl::string_view message);

// The command line of a binary that takes flags only (the servers): parses
// argv[1..] with `flags`. The exit code main returns now: 0 after --help
// (`synopsis` and the flags' usage printed) or --version (VersionLine printed),
// kExitUsage for a bad flag or any positional (the error printed); nullopt to
// go on and run.
std::optional<int> ParseFlagsOnly(FlagSet& flags, int argc, char** argv,
                                  std::string_view program,
                                  std::string_view synopsis);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_COMMAND_LINE_H_
