// What the e2e tests share about the binaries under test: where they are, and the port a server
// says it bound.
#ifndef PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_
#define PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_

#include <cstdlib>
#include <string>

namespace profdiff::testing {

// $name, or `fallback` (the path CMake built in) when it is unset.
inline std::string Env(const char* name, const char* fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

// N from a server's "... port=N ..." log line.
inline int PortFrom(const std::string& line) { return std::stoi(line.substr(line.find(" port=") + 6)); }

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_
