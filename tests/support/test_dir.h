// A folder of its own for each test, instead of each fixture joining
// ::testing::TempDir() and its name, removing and creating it.
#ifndef PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_
#define PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_

#include <filesystem>
#include <string_view>

namespace profdiff::test_support {

// An empty folder for the running test:
// ::testing::TempDir()/<prefix>_<Suite.Test>_<pid>, where the pid keeps two
// runs of one test binary at once apart, whatever an earlier run left there
// removed first. It is removed when the test ends passed (or skipped), and
// kept, named on stderr, when it failed.
std::filesystem::path FreshTestDir(std::string_view prefix);

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_TEST_DIR_H_
