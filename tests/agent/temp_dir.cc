#include "tests/agent/temp_dir.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <gtest/gtest.h>

namespace profdiff::agent {

TempDir::TempDir() {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(root != nullptr ? root : "/tmp") +
                        "/profdiff-agent-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    ADD_FAILURE() << "mkdtemp " << pattern << " failed";
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
}

}  // namespace profdiff::agent
