// The one spelling of a folder the agent compares paths against: absolute,
// lexically normal, without a trailing '/', so that watched paths and the log
// dir line up whatever was typed.
#ifndef PROFDIFF_AGENT_ABSOLUTE_FOLDER_H_
#define PROFDIFF_AGENT_ABSOLUTE_FOLDER_H_

#include <string>

#include <absl/status/statusor.h>

namespace profdiff::agent {

// `folder` made absolute (against the current directory), lexically normalised
// ("a/./b/../c/" -> "<cwd>/a/c"), without a trailing '/' except for "/". Does
// not touch the file system beyond reading the current directory; the errno's
// code, naming `folder`, when that fails.
absl::StatusOr<std::string> AbsoluteFolder(const std::string& folder);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_ABSOLUTE_FOLDER_H_
