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
// 5. A flag given twice keeps its last value; a list flag (AddList) keeps
//    every value, so "--view a --view b" is "--view a,b" to the caller.
// 6. A short name (AddShortName) is one more spelling: "-o FILE" is
//    "--output FILE".
// 7. Errors name the flag, the value and the rule it broke, in one of two
//    spellings (FlagSpelling): the servers' quoted one, or the profdiff CLI's,
//    which its README and users' scripts know.
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
#include <utility>
#include <vector>

#include <absl/functional/any_invocable.h>
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

// Inclusive bounds of a floating-point flag; NaN is refused whatever they are.
struct DoubleRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
};

// How Parse's errors spell a flag and the value it got.
enum class FlagSpelling {
  // --window="eight": expected an integer in [1, 1024];
  // unknown flag --colour (--help lists the flags); --run: missing value (...)
  kQuoted,
  // --top x: expected a number >= 0; unknown option --colour; --top: missing
  // value (...). The value shows as typed when it is printable ASCII.
  kCommand,
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
  explicit FlagSet(FlagSpelling spelling = FlagSpelling::kQuoted);
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
  // A decimal number within `range` ("2.5", "1e3"; not "inf" or "nan").
  void AddDouble(std::string_view name, double* field,
                 std::string_view value_name, std::string_view help,
                 DoubleRange range = {});
  // A list: each time the flag is given its value is appended whole (the
  // caller splits on commas where the list takes them); the first value given
  // replaces what `*field` held, its default.
  void AddList(std::string_view name, std::vector<std::string>* field,
               std::string_view value_name, std::string_view help);
  // One of `choices` (word, value), spelled as the word; Usage() shows the
  // words joined by '|' as the value and the default's word, errors list
  // them ("expected per-step or total"). A word may appear once.
  template <typename Enum>
  void AddEnum(std::string_view name, Enum* field,
               std::vector<std::pair<std::string, Enum>> choices,
               std::string_view help) {
    std::vector<std::string> words;
    std::vector<Enum> values;
    std::optional<size_t> current;
    for (auto& [word, value] : choices) {
      if (!current.has_value() && value == *field) current = words.size();
      words.push_back(std::move(word));
      values.push_back(value);
    }
    AddChoice(
        name, std::move(words), current,
        [field, values = std::move(values)](size_t i) { *field = values[i]; },
        help);
  }

  // `-<short_name>` (a letter) is one more spelling of the registered flag
  // `name`. PD_CHECK: the letter is taken, or `name` is not registered.
  void AddShortName(char short_name, std::string_view name);

  // Errors say a value of `name` must be `rule` ("a number >= 0") instead of
  // the rule its Add* call derived. PD_CHECK: `name` is not registered.
  void SetRuleText(std::string_view name, std::string_view rule);

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
  // Usage() without "--help" and "--version": one part of a usage made of
  // several (a subcommand's own flags, then the connection's).
  std::string FlagsUsage() const;

 private:
  struct Flag;
  // The three AddInt overloads: `field`'s type bounds the range too.
  template <typename Int>
  void AddInteger(std::string_view name, Int* field,
                  std::string_view value_name, std::string_view help,
                  IntRange range);
  Flag& AddFlag(std::string_view name, std::string_view value_name,
                std::string_view help);
  // AddEnum without its type: `set(i)` stores the value of words[i];
  // `current` indexes the default's word (none: Usage() shows no default).
  void AddChoice(std::string_view name, std::vector<std::string> words,
                 std::optional<size_t> current,
                 absl::AnyInvocable<void(size_t) const> set,
                 std::string_view help);
  const Flag* Find(std::string_view name) const;
  // "--name=\"value\"" or "--name value" as `spelling_` says.
  std::string Spelled(std::string_view name, std::string_view value) const;

  size_t FlagColumnWidth() const;

  FlagSpelling spelling_;
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
