#include "tests/support/child_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

extern char** environ;

namespace profdiff::testing {

ChildProcess::ChildProcess(std::vector<std::string> argv,
                           std::vector<std::string> env,
                           ChildStdin child_stdin) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  int input[2] = {-1, -1};
  if (child_stdin == ChildStdin::kPipe && pipe2(input, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  if (input[0] >= 0) {
    posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO);
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(),
                  envp.data()) != 0)
    pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (input[0] >= 0) close(input[0]);
  stdin_fd_ = input[1];
  const int read_fd = fds[0];
  reader_ = std::jthread([this, read_fd] { ReadOutput(read_fd); });
}

ChildProcess::~ChildProcess() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  if (pid_ > 0 && !exit_code_.has_value()) {
    kill(pid_, SIGKILL);
    Wait();
  }
}

bool ChildProcess::WriteLine(const std::string& line) {
  if (stdin_fd_ < 0) return false;
  const std::string bytes = line + "\n";
  // A child that is gone must fail the write, not kill the test with SIGPIPE:
  // the signal is blocked for the write and a pending one taken back.
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  const bool written = write(stdin_fd_, bytes.data(), bytes.size()) ==
                       static_cast<ssize_t>(bytes.size());
  const timespec no_wait = {0, 0};
  while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return written;
}

void ChildProcess::ReadOutput(int fd) {
  FILE* file = fdopen(fd, "r");
  char buffer[8192];
  while (std::fgets(buffer, sizeof(buffer), file) != nullptr) {
    absl::MutexLock lock(&mu_);
    lines_.emplace_back(buffer);
  }
  std::fclose(file);
  absl::MutexLock lock(&mu_);
  output_closed_ = true;
}

std::optional<std::string> ChildProcess::WaitForLine(const std::string& text,
                                                     absl::Duration timeout) {
  size_t checked = 0;
  std::optional<std::string> found;
  auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (; checked < lines_.size(); ++checked) {
      if (lines_[checked].find(text) != std::string::npos) {
        found = lines_[checked];
        return true;
      }
    }
    return output_closed_;
  };
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&seen), timeout);
  return found;
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0 && !exit_code_.has_value()) kill(pid_, signal);
}

int ChildProcess::Wait() {
  if (exit_code_.has_value()) return *exit_code_;
  int status = 0;
  if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_) return -1;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // The reader thread may still hold the last lines: let it reach the end of
  // the pipe (bounded, since a process the child started could keep the pipe
  // open).
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&output_closed_), absl::Seconds(10));
  return *exit_code_;
}

std::string ChildProcess::Output() {
  absl::MutexLock lock(&mu_);
  std::string all;
  for (const std::string& line : lines_) all += line;
  return all;
}

}  // namespace profdiff::testing
