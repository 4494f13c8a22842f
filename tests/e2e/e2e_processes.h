// What the e2e tests share about the binaries under test: where they are, and
// the port a server says it bound.
#ifndef PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_
#define PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/traces_dir.h"

namespace profdiff::testing {

// $name, or `fallback` (the path CMake built in) when it is unset.
inline std::string Env(const char* name, const char* fallback = "") {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

// N from a server's "... port=N ..." log line.
inline int PortFrom(const std::string& line) {
  return std::stoi(line.substr(line.find(" port=") + 6));
}

// The binaries under test: built into e2e_test by CMake; an environment
// variable of the same name wins.
struct Binaries {
  std::string aggregator =
      Env("PROFDIFF_AGGREGATOR_BIN", PROFDIFF_AGGREGATOR_BIN);
  std::string differ = Env("PROFDIFF_DIFFER_BIN", PROFDIFF_DIFFER_BIN);
  std::string agent = Env("PROFDIFF_AGENT_BIN", PROFDIFF_AGENT_BIN);
  std::string cli = Env("PROFDIFF_CLI_BIN", PROFDIFF_CLI_BIN);
  std::string fake_kineto_rank =
      Env("PROFDIFF_FAKE_KINETO_RANK_BIN", PROFDIFF_FAKE_KINETO_RANK_BIN);

  // The first that is not there ("" when all are), for the SKIP message.
  std::string Missing() const {
    for (const std::string* bin :
         {&aggregator, &differ, &agent, &cli, &fake_kineto_rank}) {
      if (!std::filesystem::exists(*bin)) return *bin;
    }
    return "";
  }
};

// The 8 DLRM rank traces (canonical paths, sorted); empty when the folder is
// absent.
inline std::vector<std::string> DlrmFiles() {
  std::vector<std::string> files;
  std::error_code error;
  const std::filesystem::path dir =
      test_support::TracesDir() / "param/dlrm_kineto";
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::canonical(dir), error)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_E2E_E2E_PROCESSES_H_
