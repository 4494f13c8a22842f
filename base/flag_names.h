// Lets binaries that parse flags with Abseil accept the documented `--data-dir` spelling:
// Abseil flag names cannot contain '-', so dashes in a flag's name become underscores.
#ifndef PROFDIFF_BASE_FLAG_NAMES_H_
#define PROFDIFF_BASE_FLAG_NAMES_H_

#include <string>
#include <vector>

namespace profdiff::base {

// argv with "--some-flag[=value]" spelled "--some_flag[=value]" (values untouched; everything
// after a bare "--" untouched).
std::vector<std::string> UnderscoreFlagNames(int argc, char** argv);

// Pointers into `args` for absl::ParseCommandLine; valid while `args` lives unchanged.
std::vector<char*> ArgvOf(std::vector<std::string>& args);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_FLAG_NAMES_H_
