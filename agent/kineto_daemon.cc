#include "agent/kineto_daemon.h"

#include <filesystem>
#include <system_error>
#include <utility>
#include <variant>

#include <absl/status/status.h>
#include <absl/strings/str_join.h>

#include "agent/kineto_ipc_wire.h"
#include "agent/process_job_id.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// Larger than any libkineto message: a poll of kKinetoMaxPollPids pids is 336
// bytes. A longer datagram is refused as truncated.
constexpr size_t kMaxDatagramBytes = 4096;
// How long the loop waits for a datagram before settling captures; also how
// quickly Stop() is noticed.
constexpr absl::Duration kReceiveWait = absl::Milliseconds(100);
// Refusals are logged one by one up to this many, then every 100th.
constexpr int64_t kRefusalsLoggedInFull = 10;

}  // namespace

absl::StatusOr<std::unique_ptr<KinetoDaemon>> KinetoDaemon::Start(
    KinetoDaemonOptions options) {
  if (options.logdir.empty()) {
    return absl::InvalidArgumentError(
        "the Kineto daemon needs the log dir its captures write to");
  }
  PD_ASSIGN_OR_RETURN(
      UnixDatagramSocket socket,
      UnixDatagramSocket::Bind(options.name, options.socket_dir));
  PD_LOG(INFO, "serving Kineto's daemon endpoint name=%s socket_dir=%s",
         options.name,
         options.socket_dir.empty() ? "(abstract)" : options.socket_dir);
  return std::make_unique<KinetoDaemon>(std::move(options), std::move(socket));
}

KinetoDaemon::KinetoDaemon(KinetoDaemonOptions options,
                           UnixDatagramSocket socket)
    : options_(std::move(options)),
      socket_(std::move(socket)),
      thread_([this](std::stop_token stop) { Serve(stop); }) {}

KinetoDaemon::~KinetoDaemon() { Stop(); }

void KinetoDaemon::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

void KinetoDaemon::Serve(std::stop_token stop) {
  while (!stop.stop_requested()) {
    absl::StatusOr<std::optional<UnixDatagramSocket::Datagram>> datagram =
        socket_.Receive(kReceiveWait, kMaxDatagramBytes);
    if (!datagram.ok()) {
      PD_LOG(ERROR, "Kineto daemon: %s", datagram.status().ToString());
      return;
    }
    if (datagram->has_value()) Answer(**datagram);
    if (absl::Now() - last_settle_ >= options_.settle_interval) Settle();
  }
}

std::string KinetoDaemon::EnvironmentJob(const std::vector<int32_t>& pids,
                                         int64_t job_id) {
  if (job_id != 0 || pids.empty()) return "";
  auto [it, inserted] = environment_jobs_.try_emplace(pids.front());
  if (inserted) {
    it->second = JobIdOfProcess(pids.front(), pids.size() > 1 ? pids[1] : 0);
  }
  return it->second;
}

void KinetoDaemon::Answer(const UnixDatagramSocket::Datagram& datagram) {
  absl::StatusOr<KinetoMessage> message =
      datagram.truncated ? absl::InvalidArgumentError(base::StrCat(
                               "datagram longer than ", kMaxDatagramBytes,
                               " bytes; no libkineto message is"))
                         : DecodeKinetoDatagram(datagram.bytes);
  if (!message.ok()) {
    const int64_t refused = ++refused_;
    if (refused <= kRefusalsLoggedInFull || refused % 100 == 0) {
      PD_LOG(WARNING, "Kineto daemon refused a datagram (%d so far): %s",
             refused, message.status().message());
    }
    return;
  }
  const absl::Time now = absl::Now();
  std::string reply;
  if (const auto* registration = std::get_if<KinetoRegistration>(&*message)) {
    ++registrations_;
    // A registration carries no ancestors to check the pid with; the
    // process's first poll does (EnvironmentJob).
    const std::string job;
    int32_t same = 0;
    {
      absl::MutexLock lock(&mu_);
      same = registry_.Register(*registration, job, now);
    }
    PD_VLOG(1, "Kineto process registered pid=%d gpu=%d job_id=%d",
            registration->pid, registration->gpu, registration->job_id);
    reply = EncodeRegistrationReply(same);
  } else {
    const auto& poll = std::get<KinetoPoll>(*message);
    ++polls_;
    const std::string job = EnvironmentJob(poll.pids, poll.job_id);
    std::string config;
    {
      absl::MutexLock lock(&mu_);
      config = registry_.Poll(poll, job, now);
    }
    if (!config.empty()) {
      ++configs_sent_;
      PD_LOG(INFO, "capture config handed to Kineto pid=%d", poll.pids.front());
    }
    reply = EncodePollReply(config);
  }
  // A process that went away is not an error of ours: it polls again or not.
  if (absl::Status sent = socket_.SendTo(datagram.sender, reply); !sent.ok()) {
    PD_VLOG(1, "Kineto daemon: answer not delivered: %s", sent.message());
  }
}

void KinetoDaemon::Settle() {
  last_settle_ = absl::Now();
  std::vector<std::string> files;
  {
    absl::MutexLock lock(&mu_);
    for (const KinetoProcess& process : registry_.Processes()) {
      if (process.capturing()) files.push_back(process.trace_file);
    }
  }
  absl::flat_hash_map<std::string, bool> written;
  for (const std::string& file : files) {
    std::error_code error;
    written[file] = std::filesystem::exists(file, error);
  }
  std::vector<int32_t> ended;
  std::vector<int32_t> forgotten;
  {
    absl::MutexLock lock(&mu_);
    ended = registry_.SettleCaptures(last_settle_, [&](const std::string& f) {
      auto it = written.find(f);
      return it != written.end() && it->second;
    });
    forgotten = registry_.ForgetIdle(last_settle_);
  }
  for (const int32_t pid : forgotten) environment_jobs_.erase(pid);
  if (!ended.empty()) {
    PD_LOG(INFO, "Kineto captures ended pids=%s", absl::StrJoin(ended, ","));
  }
  if (!forgotten.empty()) {
    PD_LOG(INFO, "Kineto processes silent for %s forgotten pids=%s",
           absl::FormatDuration(kKinetoKeepAlive),
           absl::StrJoin(forgotten, ","));
  }
}

absl::StatusOr<CaptureArming> KinetoDaemon::Capture(
    std::string_view job, const KinetoCaptureSpec& spec, absl::Time deadline) {
  PD_RETURN_IF_ERROR(CheckKinetoCaptureSpec(spec));
  // Kineto opens its log file but makes no folder; the capture's folder is
  // below the log dir, and the only thing the agent writes there. The
  // training processes may run as other users: the folders are writable by
  // all and sticky, as /tmp is.
  const std::filesystem::path captures =
      std::filesystem::path(options_.logdir) / kCaptureFolder;
  const std::filesystem::path folder = captures / spec.run;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  for (const std::filesystem::path& made : {captures, folder}) {
    if (error) break;
    std::filesystem::permissions(
        made, std::filesystem::perms::all | std::filesystem::perms::sticky_bit,
        error);
  }
  if (error) {
    return absl::InternalError(base::StrCat("cannot make the capture folder ",
                                            folder.string(), ": ",
                                            error.message()));
  }
  absl::MutexLock lock(&mu_);
  return registry_.Arm(
      job, spec.capture_id, deadline, [&](const KinetoProcess& process) {
        return KinetoOnDemandConfig(spec, options_.logdir, process.pid);
      });
}

std::vector<KinetoProcess> KinetoDaemon::Processes() const {
  absl::MutexLock lock(&mu_);
  return registry_.Processes();
}

bool KinetoDaemon::AwaitCapturesEnded(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(
                                  +[](const KinetoProcessRegistry* registry) {
                                    return !registry->AnyCapturing();
                                  },
                                  &registry_),
                              timeout);
}

KinetoDaemonCounts KinetoDaemon::Counts() const {
  return {.registrations = registrations_.load(),
          .polls = polls_.load(),
          .configs_sent = configs_sent_.load(),
          .refused = refused_.load()};
}

}  // namespace profdiff::agent
