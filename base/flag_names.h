// Lets binaries that parse flags with Abseil accept the documented `--data-dir`
// spelling: Abseil flag names cannot contain '-', so dashes in a flag's name
// become underscores.
#ifndef PROFDIFF_BASE_FLAG_NAMES_H_
#define PROFDIFF_BASE_FLAG_NAMES_H_

#include <string>
#include <vector>

namespace profdiff::base {

// argv with "--some-flag[=value]" spelled "--some_flag[=value]" (values
// untouched; everything after a bare "--" untouched).
std::vector<std::string> UnderscoreFlagNames(int argc, char** argv);

// Pointers into `args` for absl::ParseCommandLine; valid while `args` lives
// unchanged.
std::vector<char*> ArgvOf(std::vector<std::string>& args);

// What a binary's main calls: sets `usage`, makes `--help` list the flags
// defined in files named
// `*_main.cc` or `*_flags.cc` (Abseil's default matches only a file named after
// the binary, which ours are not), and parses argv with dashes in flag names
// accepted. Exits on --help or a bad flag.
void ParseFlags(int argc, char** argv, const char* usage);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_FLAG_NAMES_H_
