// Folders of their own for tests: one per test (FreshTestDir), or one per
// object (TempDir); both kept when the test fails.
#ifndef PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_
#define PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_

#include <filesystem>
#include <string>
#include <string_view>

namespace profdiff::test_support {

// An empty folder for the running test:
// ::testing::TempDir()/<prefix>_<Suite.Test>_<pid>, where the pid keeps two
// runs of one test binary at once apart, whatever an earlier run left there
// removed first. It is removed when the test ends passed (or skipped), and
// kept, named on stderr, when it failed.
std::filesystem::path FreshTestDir(std::string_view prefix);

// A folder of its own for the object's lifetime, any number per test:
// ::testing::TempDir()/profdiff-XXXXXX (short: unix sockets live in it),
// removed when destroyed unless the running test has failed by then (kept
// and named on stderr, as FreshTestDir's are).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + relative.
  std::string Join(const std::string& relative) const {
    return path_ + "/" + relative;
  }

 private:
  std::string path_;
};

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_
