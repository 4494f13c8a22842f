#include "tests/support/test_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <gtest/gtest.h>

namespace profdiff::test_support {
namespace {

namespace fs = std::filesystem;

// As each test ends, removes the folders FreshTestDir made for it, unless it
// failed. The servers and processes a fixture started have stopped by then:
// gtest destroys the fixture before OnTestEnd.
class RemoveWhenPassed : public ::testing::EmptyTestEventListener {
 public:
  void Add(fs::path dir) {
    absl::MutexLock lock(&mu_);
    dirs_.push_back(std::move(dir));
  }

  void OnTestEnd(const ::testing::TestInfo& test) override {
    std::vector<fs::path> dirs;
    {
      absl::MutexLock lock(&mu_);
      dirs.swap(dirs_);
    }
    for (const fs::path& dir : dirs) {
      if (test.result()->Failed()) {
        std::fprintf(stderr, "%s.%s failed: its folder %s is kept\n",
                     test.test_suite_name(), test.name(), dir.c_str());
        continue;
      }
      std::error_code error;
      fs::remove_all(dir, error);
    }
  }

 private:
  absl::Mutex mu_;
  std::vector<fs::path> dirs_ ABSL_GUARDED_BY(mu_);
};

RemoveWhenPassed& Remover() {
  // GoogleTest owns (and deletes) the listeners appended to it.
  static RemoveWhenPassed* const remover = [] {
    auto* listener = new RemoveWhenPassed;
    ::testing::UnitTest::GetInstance()->listeners().Append(listener);
    return listener;
  }();
  return *remover;
}

}  // namespace

fs::path FreshTestDir(std::string_view prefix) {
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name;
  if (test != nullptr) {
    name = std::string(test->test_suite_name()) + "." + test->name();
  }
  // Parameterized tests are named "Prefix/Suite.Test/param".
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-')
      c = '_';
  }
  fs::path dir = fs::path(::testing::TempDir()) /
                 (std::string(prefix) + (name.empty() ? "" : "_") + name + "_" +
                  std::to_string(::getpid()));
  std::error_code error;
  fs::remove_all(dir, error);
  if (!error) fs::create_directories(dir, error);
  if (error) {
    ADD_FAILURE() << "cannot make " << dir << " empty: " << error.message();
  }
  if (test != nullptr) Remover().Add(dir);
  return dir;
}

TempDir::TempDir() {
  std::string pattern = ::testing::TempDir();
  if (!pattern.empty() && pattern.back() != '/') pattern += '/';
  pattern += "profdiff-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    ADD_FAILURE() << "mkdtemp " << pattern << " failed";
  path_ = pattern;
}

TempDir::~TempDir() {
  if (::testing::Test::HasFailure()) {
    std::fprintf(stderr, "the test failed: its folder %s is kept\n",
                 path_.c_str());
    return;
  }
  std::error_code error;
  fs::remove_all(path_, error);
}

}  // namespace profdiff::test_support
