#include "base/command_line.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include <absl/functional/any_invocable.h>
#include <absl/strings/numbers.h>

#include "base/log.h"
#include "base/parse_int.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "base/version.h"

namespace profdiff::base {
namespace {

// Usage(): the flag column is this wide (a longer "--name VALUE" puts its help
// on the next line), lines wrap at kUsageWidth. The CLI's is narrower, as the
// hand-written lines of its commands' usage are.
constexpr size_t kFlagColumnWidth = 25;
constexpr size_t kCommandFlagColumnWidth = 21;
constexpr size_t kUsageWidth = 100;
constexpr std::string_view kIndent = "  ";

bool IsHelpFlag(std::string_view name) {
  return name == "help" || name == "h" || name == "helpfull" ||
         name == "helpshort";
}

bool IsValidName(std::string_view name) {
  if (name.empty() || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// `name` as registered: '_' spelled '-' (design note 1).
std::string CanonicalName(std::string_view name) {
  std::string canonical(name);
  std::replace(canonical.begin(), canonical.end(), '_', '-');
  return canonical;
}

std::string DurationRuleText(DurationRule rule) {
  switch (rule) {
    case DurationRule::kAny:
      return "a duration such as 2s or 150ms";
    case DurationRule::kNonNegative:
      return "a duration >= 0 such as 2s or 150ms";
    case DurationRule::kPositive:
      return "a duration > 0 such as 2s or 150ms";
  }
  return "";
}

bool DurationFollows(absl::Duration duration, DurationRule rule) {
  switch (rule) {
    case DurationRule::kAny:
      return true;
    case DurationRule::kNonNegative:
      return duration >= absl::ZeroDuration() &&
             duration != absl::InfiniteDuration();
    case DurationRule::kPositive:
      return duration > absl::ZeroDuration() &&
             duration != absl::InfiniteDuration();
  }
  return false;
}

// `text` split into lines of at most `width` characters at spaces (a longer
// word stays whole), then `tail` on the last line if it fits there, else on
// a line of its own: a default is never cut in two.
std::vector<std::string> WrapWords(std::string_view text, std::string_view tail,
                                   size_t width) {
  std::vector<std::string> lines(1);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    std::string& line = lines.back();
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.emplace_back(word);
    } else {
      if (!line.empty()) line += ' ';
      line += word;
    }
  }
  if (!tail.empty()) {
    std::string& line = lines.back();
    if (!line.empty() && line.size() + 1 + tail.size() > width) {
      lines.emplace_back(tail);
    } else {
      if (!line.empty()) line += ' ';
      line += tail;
    }
  }
  return lines;
}

// One flag's lines in a usage: "--name VALUE", its help, then its default.
struct UsageEntry {
  std::string left;
  std::string help;
  std::string tail;
};

// `entries` in two columns: the flag column (a longer "--name VALUE" puts its
// help on the next line), then the help wrapped at kUsageWidth.
std::string UsageEntries(const std::vector<UsageEntry>& entries,
                         size_t flag_column_width) {
  std::string usage;
  const size_t help_column = kIndent.size() + flag_column_width;
  const std::string help_indent(help_column, ' ');
  for (const UsageEntry& entry : entries) {
    std::string line = StrCat(kIndent, entry.left);
    const std::vector<std::string> lines =
        WrapWords(entry.help, entry.tail, kUsageWidth - help_column);
    for (const std::string& help_line : lines) {
      if (line.size() + 2 > help_column) {  // two blanks at least
        StrAppend(&usage, line, "\n");
        line = help_indent;
      }
      line.resize(help_column, ' ');
      StrAppend(&usage, line, help_line, "\n");
      line.clear();
    }
  }
  return usage;
}

// "per-step or total", "table, json or csv".
std::string Alternatives(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    const char* gap = i == 0 ? "" : i + 1 == words.size() ? " or " : ", ";
    StrAppend(&out, gap, words[i]);
  }
  return out;
}

// A value the CLI's errors show as typed: short printable ASCII, not empty.
bool ShowsAsTyped(std::string_view value) {
  constexpr size_t kMaxTypedBytes = 64;  // QuoteBytes cuts there too
  return !value.empty() && value.size() <= kMaxTypedBytes &&
         std::all_of(value.begin(), value.end(),
                     [](char c) { return c >= ' ' && c <= '~'; });
}

// Shortest text that reads back as `value` ("2.5", "1e+30").
std::string DoubleText(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  return std::string(buffer, end);
}

std::string DoubleRuleText(DoubleRange range) {
  const bool low = range.min != -std::numeric_limits<double>::infinity();
  const bool high = range.max != std::numeric_limits<double>::infinity();
  if (low && high) {
    return StrCat("a number in [", DoubleText(range.min), ", ",
                  DoubleText(range.max), "]");
  }
  if (low) return StrCat("a number >= ", DoubleText(range.min));
  if (high) return StrCat("a number <= ", DoubleText(range.max));
  return "a number";
}

}  // namespace

struct FlagSet::Flag {
  std::string name;
  std::string value_name;  // how Usage() shows the value; empty for a bool
  std::string help;
  std::string default_text;  // empty: Usage() shows no default
  std::string rule;          // what a value must be, for error messages
  bool is_bool = false;
  char short_name = 0;  // 0: none
  // Stores `value` into the bound field; false when it breaks `rule`.
  absl::AnyInvocable<bool(std::string_view value) const> set;
  // A list's: empties the field before the first value a Parse stores.
  absl::AnyInvocable<void() const> clear;
};

bool ParsedCommandLine::Given(std::string_view name) const {
  const std::string canonical = CanonicalName(name);
  return std::find(flags_given.begin(), flags_given.end(), canonical) !=
         flags_given.end();
}

FlagSet::FlagSet(FlagSpelling spelling) : spelling_(spelling) {}
FlagSet::~FlagSet() = default;
FlagSet::FlagSet(FlagSet&&) noexcept = default;
FlagSet& FlagSet::operator=(FlagSet&&) noexcept = default;

FlagSet::Flag& FlagSet::AddFlag(std::string_view name,
                                std::string_view value_name,
                                std::string_view help) {
  PD_CHECK(IsValidName(name) && !IsHelpFlag(name) && name != "version",
           "flag name \"%s\": expected [a-z0-9][a-z0-9-]*, not a help flag",
           name);
  const auto [it, inserted] = index_.emplace(std::string(name), flags_.size());
  PD_CHECK(inserted, "flag --%s registered twice", name);
  Flag& flag = flags_.emplace_back();
  flag.name = std::string(name);
  flag.value_name = std::string(value_name);
  flag.help = std::string(help);
  return flag;
}

void FlagSet::AddString(std::string_view name, std::string* field,
                        std::string_view value_name, std::string_view help) {
  Flag& flag = AddFlag(name, value_name, help);
  flag.default_text = *field;
  flag.rule = "a value";
  flag.set = [field](std::string_view value) {
    *field = std::string(value);
    return true;
  };
}

void FlagSet::AddBool(std::string_view name, bool* field,
                      std::string_view help) {
  Flag& flag = AddFlag(name, "", help);
  flag.is_bool = true;
  flag.default_text = *field ? "true" : "";
  flag.rule = "true or false";
  flag.set = [field](std::string_view value) {
    return absl::SimpleAtob(ToAbsl(value), field);
  };
}

namespace {

// A setter for an integer field of type T within `range` (clipped to T).
template <typename T>
std::pair<absl::AnyInvocable<bool(std::string_view) const>, std::string>
IntegerSetter(T* field, IntRange range) {
  // T is at most 64 bits and signed, or at most 32 bits: its bounds fit.
  const int64_t low =
      std::max<int64_t>(range.min, std::numeric_limits<T>::min());
  const int64_t high =
      std::min<int64_t>(range.max, std::numeric_limits<T>::max());
  return {[field, low, high](std::string_view value) {
            int64_t number = 0;
            if (!ParseInt64(value, number) || number < low || number > high)
              return false;
            *field = static_cast<T>(number);
            return true;
          },
          StrCat("an integer in [", low, ", ", high, "]")};
}

}  // namespace

template <typename Int>
void FlagSet::AddInteger(std::string_view name, Int* field,
                         std::string_view value_name, std::string_view help,
                         IntRange range) {
  Flag& flag = AddFlag(name, value_name, help);
  flag.default_text = StrCat(*field);
  std::tie(flag.set, flag.rule) = IntegerSetter(field, range);
}

void FlagSet::AddInt(std::string_view name, int* field,
                     std::string_view value_name, std::string_view help,
                     IntRange range) {
  AddInteger(name, field, value_name, help, range);
}

void FlagSet::AddInt(std::string_view name, uint32_t* field,
                     std::string_view value_name, std::string_view help,
                     IntRange range) {
  AddInteger(name, field, value_name, help, range);
}

void FlagSet::AddInt(std::string_view name, int64_t* field,
                     std::string_view value_name, std::string_view help,
                     IntRange range) {
  AddInteger(name, field, value_name, help, range);
}

void FlagSet::AddUint64(std::string_view name, uint64_t* field,
                        std::string_view value_name, std::string_view help) {
  Flag& flag = AddFlag(name, value_name, help);
  flag.default_text = StrCat(*field);
  flag.rule =
      StrCat("an integer in [0, ", std::numeric_limits<uint64_t>::max(), "]");
  flag.set = [field](std::string_view value) {
    uint64_t number = 0;
    const auto [end, error] =
        std::from_chars(value.data(), value.data() + value.size(), number);
    if (value.empty() || error != std::errc() ||
        end != value.data() + value.size())
      return false;
    *field = number;
    return true;
  };
}

void FlagSet::AddDuration(std::string_view name, absl::Duration* field,
                          std::string_view value_name, std::string_view help,
                          DurationRule rule) {
  Flag& flag = AddFlag(name, value_name, help);
  flag.default_text = absl::FormatDuration(*field);
  flag.rule = DurationRuleText(rule);
  flag.set = [field, rule](std::string_view value) {
    absl::Duration duration;
    if (!absl::ParseDuration(ToAbsl(value), &duration) ||
        !DurationFollows(duration, rule))
      return false;
    *field = duration;
    return true;
  };
}

void FlagSet::AddDouble(std::string_view name, double* field,
                        std::string_view value_name, std::string_view help,
                        DoubleRange range) {
  Flag& flag = AddFlag(name, value_name, help);
  flag.default_text = DoubleText(*field);
  flag.rule = DoubleRuleText(range);
  flag.set = [field, range](std::string_view value) {
    double number = 0;
    const auto [end, error] =
        std::from_chars(value.data(), value.data() + value.size(), number);
    // from_chars takes "inf" and "nan": neither is a setting.
    if (value.empty() || error != std::errc() ||
        end != value.data() + value.size() || !std::isfinite(number) ||
        number < range.min || number > range.max)
      return false;
    *field = number;
    return true;
  };
}

void FlagSet::AddList(std::string_view name, std::vector<std::string>* field,
                      std::string_view value_name, std::string_view help) {
  Flag& flag = AddFlag(name, value_name, help);
  for (const std::string& value : *field)
    StrAppend(&flag.default_text, flag.default_text.empty() ? "" : ",", value);
  flag.rule = "a value";
  flag.set = [field](std::string_view value) {
    field->emplace_back(value);
    return true;
  };
  flag.clear = [field] { field->clear(); };
}

void FlagSet::AddChoice(std::string_view name, std::vector<std::string> words,
                        std::optional<size_t> current,
                        absl::AnyInvocable<void(size_t) const> set,
                        std::string_view help) {
  std::string value_name;
  for (const std::string& word : words)
    StrAppend(&value_name, value_name.empty() ? "" : "|", word);
  Flag& flag = AddFlag(name, value_name, help);
  if (current.has_value()) flag.default_text = words[*current];
  flag.rule = Alternatives(words);
  flag.set = [words = std::move(words),
              set = std::move(set)](std::string_view value) {
    const auto it = std::find(words.begin(), words.end(), value);
    if (it == words.end()) return false;
    set(static_cast<size_t>(it - words.begin()));
    return true;
  };
}

void FlagSet::AddShortName(char short_name, std::string_view name) {
  const auto it = index_.find(name);
  PD_CHECK(it != index_.end(), "short name -%c of unregistered flag --%s",
           short_name, name);
  PD_CHECK(short_name >= 'a' && short_name <= 'z' && short_name != 'h',
           "short name -%c: expected a letter other than h", short_name);
  const size_t index = it->second;
  const auto [alias, inserted] =
      index_.emplace(std::string(1, short_name), index);
  PD_CHECK(inserted, "short name -%c registered twice", short_name);
  flags_[index].short_name = short_name;
}

void FlagSet::SetRuleText(std::string_view name, std::string_view rule) {
  const auto it = index_.find(name);
  PD_CHECK(it != index_.end(), "rule of unregistered flag --%s", name);
  flags_[it->second].rule = std::string(rule);
}

std::string FlagSet::Spelled(std::string_view name,
                             std::string_view value) const {
  if (spelling_ == FlagSpelling::kQuoted)
    return StrCat("--", name, "=", QuoteBytes(value));
  return StrCat("--", name, " ",
                ShowsAsTyped(value) ? value : QuoteBytes(value));
}

const FlagSet::Flag* FlagSet::Find(std::string_view name) const {
  const auto it = index_.find(CanonicalName(name));
  return it == index_.end() ? nullptr : &flags_[it->second];
}

bool FlagSet::Has(std::string_view name) const { return Find(name) != nullptr; }

absl::StatusOr<ParsedCommandLine> FlagSet::Parse(
    const std::vector<std::string>& args) {
  ParsedCommandLine parsed;
  bool only_positionals = false;
  std::vector<const Flag*> lists_given;  // emptied before their first value
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (only_positionals || arg.size() < 2 || arg.front() != '-') {
      parsed.positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    // The CLI's single dash is only a short name ("-o", "-h"): any other
    // "-x..." is a positional, as a path such as "-old.json" always was.
    if (spelling_ == FlagSpelling::kCommand && !arg.starts_with("--") &&
        !(arg.size() == 2 && (arg == "-h" || Find(arg.substr(1)) != nullptr))) {
      parsed.positionals.emplace_back(arg);
      continue;
    }
    std::string_view name = arg.substr(arg.starts_with("--") ? 2 : 1);
    std::string_view value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (IsHelpFlag(name)) {
      parsed.help = true;
      return parsed;
    }
    if (name == "version") {
      parsed.version = true;
      return parsed;
    }
    const Flag* flag = Find(name);
    if (flag == nullptr && name.starts_with("no")) {
      const Flag* negated = Find(name.substr(2));
      if (negated != nullptr && negated->is_bool) {
        if (has_value) {
          return absl::InvalidArgumentError(
              StrCat(Spelled(name, value), ": takes no value (it sets --",
                     negated->name, "=false)"));
        }
        negated->set("false");
        parsed.flags_given.push_back(negated->name);
        continue;
      }
    }
    if (flag == nullptr) {
      if (spelling_ == FlagSpelling::kCommand) {
        // As typed: "-x" stays "-x".
        return absl::InvalidArgumentError(StrCat(
            "unknown option ", arg.starts_with("--") ? "--" : "-", name));
      }
      return absl::InvalidArgumentError(
          StrCat("unknown flag --", name, " (--help lists the flags)"));
    }
    if (!has_value && flag->is_bool) {
      value = "true";
    } else if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(StrCat(
            "--", flag->name, ": missing value (expected ", flag->rule, ")"));
      }
      value = args[++i];
    }
    if (flag->clear != nullptr &&
        std::find(lists_given.begin(), lists_given.end(), flag) ==
            lists_given.end()) {
      flag->clear();
      lists_given.push_back(flag);
    }
    if (!flag->set(value)) {
      return absl::InvalidArgumentError(
          StrCat(Spelled(flag->name, value), ": expected ", flag->rule));
    }
    parsed.flags_given.push_back(flag->name);
  }
  return parsed;
}

size_t FlagSet::FlagColumnWidth() const {
  return spelling_ == FlagSpelling::kCommand ? kCommandFlagColumnWidth
                                             : kFlagColumnWidth;
}

std::string FlagSet::Usage() const {
  return StrCat(FlagsUsage(),
                UsageEntries({{"--help", "print this help and exit", ""},
                              {"--version", "print the version and exit", ""}},
                             FlagColumnWidth()));
}

std::string FlagSet::FlagsUsage() const {
  std::vector<UsageEntry> entries;
  entries.reserve(flags_.size());
  for (const Flag& flag : flags_) {
    UsageEntry& entry = entries.emplace_back();
    entry.left =
        flag.short_name == 0
            ? StrCat("--", flag.name)
            : StrCat("-", std::string(1, flag.short_name), ", --", flag.name);
    if (!flag.is_bool) StrAppend(&entry.left, " ", flag.value_name);
    entry.help = flag.help;
    if (!flag.default_text.empty())
      entry.tail = StrCat("(default: ", flag.default_text, ")");
  }
  return UsageEntries(entries, FlagColumnWidth());
}

std::string VersionLine(std::string_view program) {
  return StrCat(program, " ", Version(), "\n");
}

int FailWith(std::string_view program, int code, absl::string_view message) {
  std::fprintf(stderr, "%.*s: error: %.*s\n", static_cast<int>(program.size()),
               program.data(), static_cast<int>(message.size()),
               message.data());
  return code;
}

std::optional<int> ParseFlagsOnly(FlagSet& flags, int argc, char** argv,
                                  std::string_view program,
                                  std::string_view synopsis) {
  absl::StatusOr<ParsedCommandLine> parsed =
      flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok())
    return FailWith(program, kExitUsage, parsed.status().message());
  if (parsed->help) {
    std::fwrite(synopsis.data(), 1, synopsis.size(), stdout);
    std::fputs(flags.Usage().c_str(), stdout);
    return 0;
  }
  if (parsed->version) {
    std::fputs(VersionLine(program).c_str(), stdout);
    return 0;
  }
  if (!parsed->positionals.empty()) {
    return FailWith(
        program, kExitUsage,
        StrCat("unexpected argument ", QuoteBytes(parsed->positionals.front()),
               " (", program, " takes flags only)"));
  }
  return std::nullopt;
}

}  // namespace profdiff::base
