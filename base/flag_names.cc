#include "base/flag_names.h"

#include <algorithm>

#include <absl/flags/parse.h>
#include <absl/flags/usage.h>
#include <absl/flags/usage_config.h>
#include <absl/strings/match.h>

#include "base/str_cat.h"

namespace profdiff::base {

std::vector<std::string> UnderscoreFlagNames(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    std::string& arg = args[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    const size_t name_end = std::min(arg.find('='), arg.size());
    std::replace(arg.begin() + 2,
                 arg.begin() + static_cast<std::ptrdiff_t>(name_end), '-', '_');
  }
  return args;
}

std::vector<char*> ArgvOf(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return argv;
}

void ParseFlags(int argc, char** argv, const char* usage) {
  absl::SetProgramUsageMessage(StrCat(usage,
                                      "\nFlag names may be written with '-' or "
                                      "'_' (--data-dir = --data_dir)."));
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "_main.cc") ||
           absl::EndsWith(file, "_flags.cc");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
  std::vector<std::string> args = UnderscoreFlagNames(argc, argv);
  std::vector<char*> argv_underscored = ArgvOf(args);
  absl::ParseCommandLine(static_cast<int>(args.size()),
                         argv_underscored.data());
}

}  // namespace profdiff::base
