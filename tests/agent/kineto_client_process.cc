#include "tests/agent/kineto_client_process.h"

#include <unistd.h>

#include <filesystem>

#include <absl/strings/escaping.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>
#include <absl/strings/strip.h>

namespace profdiff::agent::testing {
namespace {

constexpr absl::Duration kAnswerTimeout = absl::Seconds(10);
constexpr char kSetpriv[] = "/usr/bin/setpriv";

}  // namespace

bool KinetoClientProcess::CanRunAsAnotherUser() {
  return ::geteuid() == 0 && std::filesystem::exists(kSetpriv);
}

KinetoClientProcess::KinetoClientProcess(const std::string& daemon,
                                         const KinetoClientOptions& options) {
  std::vector<std::string> argv;
  if (options.uid.has_value()) {
    const std::string id = std::to_string(*options.uid);
    argv = {kSetpriv, "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"};
  }
  argv.insert(argv.end(), {PROFDIFF_LIBKINETO_CLIENT_PROCESS_BIN, "--daemon",
                           daemon, "--socket-dir", options.socket_dir});
  process_ = std::make_unique<profdiff::testing::ChildProcess>(
      std::move(argv), options.env, profdiff::testing::ChildStdin::kPipe);
  const std::optional<std::string> ready =
      process_->WaitForLine("ready pid=", kAnswerTimeout);
  if (!ready.has_value()) return;
  absl::string_view text = *ready;
  text = absl::StripAsciiWhitespace(text.substr(text.find('=') + 1));
  if (!absl::SimpleAtoi(text, &pid_)) pid_ = -1;
}

std::string KinetoClientProcess::Ask(const std::string& command) {
  const std::string prefix = "answer " + std::to_string(++commands_) + " ";
  if (!process_->WriteLine(command)) return "";
  const std::optional<std::string> line =
      process_->WaitForLine(prefix, kAnswerTimeout);
  if (!line.has_value()) return "";
  return std::string(
      absl::StripTrailingAsciiWhitespace(line->substr(prefix.size())));
}

std::optional<int32_t> KinetoClientProcess::Register(int32_t gpu,
                                                     int64_t job_id,
                                                     int32_t pid) {
  const std::string answer =
      Ask("register " + std::to_string(gpu) + " " +
          (pid < 0 ? std::string("self") : std::to_string(pid)) + " " +
          std::to_string(job_id));
  int32_t number = 0;
  if (!absl::SimpleAtoi(answer, &number)) return std::nullopt;
  return number;
}

std::optional<std::string> KinetoClientProcess::Poll(
    int type, int64_t job_id, const std::vector<int32_t>& pids) {
  const std::string who =
      pids.empty() ? std::string("self,parent") : absl::StrJoin(pids, ",");
  const std::string answer = Ask("poll " + std::to_string(type) + " " +
                                 std::to_string(job_id) + " " + who);
  if (answer == "empty") return std::string();
  absl::string_view config = answer;
  if (!absl::ConsumePrefix(&config, "config ")) return std::nullopt;
  std::string unescaped;
  if (!absl::CUnescape(config, &unescaped)) return std::nullopt;
  return unescaped;
}

}  // namespace profdiff::agent::testing
