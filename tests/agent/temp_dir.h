// A fresh folder for one test, removed with everything in it when the test
// ends.
#ifndef PROFDIFF_TESTS_AGENT_TEMP_DIR_H_
#define PROFDIFF_TESTS_AGENT_TEMP_DIR_H_

#include <string>

namespace profdiff::agent {

// Makes a unique folder under $TEST_TMPDIR (else /tmp); the destructor removes
// it.
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

}  // namespace profdiff::agent

#endif  // PROFDIFF_TESTS_AGENT_TEMP_DIR_H_
