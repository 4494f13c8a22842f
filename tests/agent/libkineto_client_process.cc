// One PyTorch process's side of Kineto's daemon protocol, driven line by line
// from stdin, so a test can make several real processes (each its own pid,
// and, started through setpriv, another user) speak to the agent's daemon.
//
// usage: libkineto_client_process --daemon NAME [--socket-dir DIR]
// Commands, one per line; each is answered on stderr as "answer N TEXT", N
// counting the commands from 1:
//   register GPU PID JOB      TEXT: the daemon's number, or "none"
//   poll TYPE JOB PID[,PID]   TEXT: "config " and the config C-escaped,
//                             "empty", or "none" (no answer came)
//   pid                       TEXT: this process's pid
// A PID may be "self" (this process) or "parent" (its parent).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <absl/strings/escaping.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include "tests/agent/libkineto_client.h"

namespace {

bool ParsePid(absl::string_view text, int32_t* pid) {
  if (text == "self") {
    *pid = ::getpid();
    return true;
  }
  if (text == "parent") {
    *pid = ::getppid();
    return true;
  }
  return absl::SimpleAtoi(text, pid);
}

std::string Run(profdiff::agent::testing::LibkinetoClient& client,
                const std::string& line) {
  const std::vector<std::string> words =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (words.size() == 1 && words[0] == "pid") {
    return std::to_string(::getpid());
  }
  if (words.size() == 4 && words[0] == "register") {
    int32_t gpu = 0, pid = 0;
    int64_t job = 0;
    if (!absl::SimpleAtoi(words[1], &gpu) || !ParsePid(words[2], &pid) ||
        !absl::SimpleAtoi(words[3], &job)) {
      return "bad register";
    }
    const std::optional<int32_t> answer = client.Register(gpu, pid, job);
    return answer.has_value() ? std::to_string(*answer) : "none";
  }
  if (words.size() == 4 && words[0] == "poll") {
    int type = 0;
    int64_t job = 0;
    std::vector<int32_t> pids;
    for (absl::string_view text : absl::StrSplit(words[3], ',')) {
      int32_t pid = 0;
      if (!ParsePid(text, &pid)) return "bad poll";
      pids.push_back(pid);
    }
    if (!absl::SimpleAtoi(words[1], &type) ||
        !absl::SimpleAtoi(words[2], &job)) {
      return "bad poll";
    }
    const std::optional<std::string> config = client.Poll(type, job, pids);
    if (!config.has_value()) return "none";
    return config->empty() ? "empty" : "config " + absl::CEscape(*config);
  }
  return "unknown command";
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i + 1 < argc; i += 2) flags[argv[i]] = argv[i + 1];
  if (!flags.contains("--daemon")) {
    std::fprintf(stderr,
                 "usage: libkineto_client_process --daemon NAME "
                 "[--socket-dir DIR]\n");
    return 2;
  }
  profdiff::agent::testing::LibkinetoClient client(flags["--daemon"],
                                                   flags["--socket-dir"]);
  if (!client.ok()) {
    std::fprintf(stderr, "libkineto_client_process: cannot bind\n");
    return 1;
  }
  std::fprintf(stderr, "ready pid=%d\n", ::getpid());
  std::string line;
  for (int n = 1; std::getline(std::cin, line); ++n) {
    std::fprintf(stderr, "answer %d %s\n", n, Run(client, line).c_str());
  }
  return 0;
}
