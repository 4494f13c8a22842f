// A real process speaking libkineto's side of Kineto's daemon protocol
// (libkineto_client_process), for the daemon's tests: each has its own pid,
// and may run as another user (through setpriv), so the daemon's checks of
// who sends what are tested against the kernel's word, not a stub's.
#ifndef PROFDIFF_TESTS_AGENT_KINETO_CLIENT_PROCESS_H_
#define PROFDIFF_TESTS_AGENT_KINETO_CLIENT_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace profdiff::agent::testing {

struct KinetoClientOptions {
  std::string socket_dir;        // KINETO_IPC_SOCKET_DIR; "" = abstract
  std::vector<std::string> env;  // NAME=VALUE added to its environment
  // Runs it as this uid (and gid) through setpriv; nullopt: as this user.
  std::optional<uid_t> uid;
};

class KinetoClientProcess {
 public:
  // Starts the process for daemon endpoint `daemon`; ok() says whether it
  // is ready.
  explicit KinetoClientProcess(const std::string& daemon,
                               const KinetoClientOptions& options = {});
  bool ok() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // The daemon's answer to registering `pid` (-1: the process itself) on
  // `gpu` for `job_id`; nullopt when none came.
  std::optional<int32_t> Register(int32_t gpu, int64_t job_id,
                                  int32_t pid = -1);
  // The config the daemon answers a poll of `type` for `pids` (empty: the
  // process and its parent) with: "" for none asked; nullopt when no answer
  // came.
  std::optional<std::string> Poll(int type, int64_t job_id,
                                  const std::vector<int32_t>& pids = {});
  std::string Output() { return process_->Output(); }

  // Whether a process can be started as another user here (setpriv, root).
  static bool CanRunAsAnotherUser();

 private:
  // Sends `command` and returns its answer's text ("" when none came).
  std::string Ask(const std::string& command);

  std::unique_ptr<profdiff::testing::ChildProcess> process_;
  pid_t pid_ = -1;
  int commands_ = 0;
};

}  // namespace profdiff::agent::testing

#endif  // PROFDIFF_TESTS_AGENT_KINETO_CLIENT_PROCESS_H_
