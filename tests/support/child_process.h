// A binary under test in its own process, its stderr captured line by line, so
// a test can wait for what the process says (not for time) and kill it with any
// signal.
#ifndef PROFDIFF_TESTS_SUPPORT_CHILD_PROCESS_H_
#define PROFDIFF_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

namespace profdiff::testing {

// Where the child's stdin comes from: this process's, or a pipe WriteLine
// writes to.
enum class ChildStdin { kInherited, kPipe };

class ChildProcess {
 public:
  // Starts `argv` (argv[0] is the binary's path) with `env` added to this
  // process's environment.
  explicit ChildProcess(std::vector<std::string> argv,
                        std::vector<std::string> env = {},
                        ChildStdin child_stdin = ChildStdin::kInherited);
  // SIGKILLs the process if it is still running, and reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Waits until a stderr line contains `text`; returns that line, or nullopt if
  // the process ended or `timeout` passed first.
  std::optional<std::string> WaitForLine(const std::string& text,
                                         absl::Duration timeout);
  // Sends `signal`; with SIGKILL this is the crash the tests need.
  void Signal(int signal);
  // Writes `line` and a newline to the child's stdin (ChildStdin::kPipe);
  // false when it cannot.
  bool WriteLine(const std::string& line);
  // Waits for the process to exit and for its stderr to be read to the end;
  // returns its exit code (128 + signal when killed).
  int Wait();
  // Everything it wrote to stderr so far.
  std::string Output();

 private:
  void ReadOutput(int fd);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;  // the pipe's write end (ChildStdin::kPipe)
  std::optional<int> exit_code_;
  absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
  bool output_closed_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread reader_;
};

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_SUPPORT_CHILD_PROCESS_H_
