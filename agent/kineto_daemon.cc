#include "agent/kineto_daemon.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>
#include <variant>

#include <absl/status/status.h>
#include <absl/strings/str_join.h>

#include "agent/capture_folder.h"
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

// Counts a refusal of one kind and logs it as design note 1 says.
void Refuse(std::atomic<int64_t>& counter, std::string_view kind,
            const absl::Status& why) {
  const int64_t refused = ++counter;
  if (refused <= kRefusalsLoggedInFull || refused % 100 == 0) {
    PD_LOG(WARNING, "Kineto daemon refused %s (%d so far): %s", kind, refused,
           why.message());
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<KinetoDaemon>> KinetoDaemon::Start(
    KinetoDaemonOptions options) {
  if (!options.logdir.starts_with('/')) {
    return absl::InvalidArgumentError(base::StrCat(
        "the Kineto daemon needs the absolute log dir its captures write to; "
        "got \"",
        options.logdir, "\""));
  }
  if (options.armed == nullptr) {
    return absl::InvalidArgumentError(
        "the Kineto daemon needs the ArmedCaptures of the agent's state dir");
  }
  PD_ASSIGN_OR_RETURN(
      UnixDatagramSocket socket,
      UnixDatagramSocket::Bind(options.name, options.socket_dir));
  PD_LOG(INFO, "serving Kineto's daemon endpoint name=%s socket_dir=%s",
         options.name,
         options.socket_dir.empty() ? "(abstract)" : options.socket_dir);
  ArmedCaptures* armed = options.armed;
  auto daemon =
      std::make_unique<KinetoDaemon>(std::move(options), std::move(socket));
  // Design note 4: what an earlier agent armed stays armed.
  const absl::Time now = absl::Now();
  int restored = 0;
  {
    absl::MutexLock lock(&daemon->mu_);
    for (const v1::ArmedCapture& capture : armed->Running(now)) {
      for (const v1::ArmedProcess& process : capture.processes()) {
        if (process.source() != "kineto") continue;
        // A cancelled capture's process is busy only if it took its config.
        if (capture.cancelled() && !process.config().empty()) continue;
        daemon->registry_.Restore(
            {.host_pid = process.host_pid(),
             .pid = process.pid(),
             .uid = process.uid()},
            {.capture_id = capture.capture_id(),
             .config = process.config(),
             .trace_file = process.trace_file(),
             .deadline = absl::FromUnixMillis(capture.deadline_unix_ms()),
             .cancelled = capture.cancelled()},
            now);
        ++restored;
      }
    }
  }
  if (restored > 0) {
    PD_LOG(INFO, "Kineto processes still capturing restored count=%d",
           restored);
  }
  return daemon;
}

KinetoDaemon::KinetoDaemon(KinetoDaemonOptions options,
                           UnixDatagramSocket socket)
    : options_(std::move(options)),
      socket_(std::move(socket)),
      thread_([this](const std::stop_token& stop) { Serve(stop); }) {}

KinetoDaemon::~KinetoDaemon() { Stop(); }

void KinetoDaemon::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

void KinetoDaemon::Serve(const std::stop_token& stop) {
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

absl::StatusOr<KinetoSender> KinetoDaemon::SenderOf(
    const KinetoMessage& message, const std::optional<PeerCredentials>& peer) {
  const auto* registration = std::get_if<KinetoRegistration>(&message);
  const int32_t claimed = registration != nullptr
                              ? registration->pid
                              : std::get<KinetoPoll>(message).pids.front();
  const int64_t job_id = registration != nullptr
                             ? registration->job_id
                             : std::get<KinetoPoll>(message).job_id;
  if (!peer.has_value()) {
    return absl::PermissionDeniedError(
        base::StrCat("a message for pid ", claimed,
                     " came without its sender's "
                     "credentials"));
  }
  KinetoSender sender;
  PD_ASSIGN_OR_RETURN(sender.process, VerifyClaimedPid(claimed, *peer));
  if (job_id != 0) {
    sender.job = std::to_string(job_id);
    return sender;
  }
  // The environment of the process the kernel vouches for, read once.
  auto [it, inserted] = environment_jobs_.try_emplace(sender.process.host_pid);
  if (inserted) {
    absl::StatusOr<std::string> job = JobIdOfProcess(sender.process.host_pid);
    if (!job.ok()) Refuse(invalid_jobs_, "a job id", job.status());
    it->second = job.ok() ? *std::move(job) : std::string();
  }
  sender.job = it->second;
  return sender;
}

void KinetoDaemon::Answer(const UnixDatagramSocket::Datagram& datagram) {
  absl::StatusOr<KinetoMessage> message =
      datagram.truncated ? absl::InvalidArgumentError(base::StrCat(
                               "datagram longer than ", kMaxDatagramBytes,
                               " bytes; no libkineto message is"))
                         : DecodeKinetoDatagram(datagram.bytes);
  if (!message.ok()) {
    Refuse(refused_, "a datagram", message.status());
    return;
  }
  absl::StatusOr<KinetoSender> sender = SenderOf(*message, datagram.peer);
  if (!sender.ok()) {
    Refuse(impostors_, "a message", sender.status());
    return;
  }
  const int32_t host_pid = sender->process.host_pid;
  const absl::Time now = absl::Now();
  std::string reply;
  std::string taken_capture;  // the capture whose config this poll took
  absl::Status admitted = absl::OkStatus();
  if (const auto* registration = std::get_if<KinetoRegistration>(&*message)) {
    ++registrations_;
    absl::StatusOr<int32_t> same;
    {
      absl::MutexLock lock(&mu_);
      same = registry_.Register(*sender, registration->gpu, now);
    }
    admitted = same.status();
    if (same.ok()) {
      PD_VLOG(1, "Kineto process registered pid=%d host_pid=%d gpu=%d job=%s",
              registration->pid, host_pid, registration->gpu, sender->job);
      reply = EncodeRegistrationReply(*same);
    }
  } else {
    auto& poll = std::get<KinetoPoll>(*message);
    ++polls_;
    absl::StatusOr<KinetoProcessRegistry::PollAnswer> answer;
    {
      absl::MutexLock lock(&mu_);
      answer = registry_.Poll(
          *sender, poll.config_type,
          std::vector<int32_t>(poll.pids.begin() + 1, poll.pids.end()), now);
    }
    admitted = answer.status();
    if (answer.ok()) {
      if (!answer->config.empty()) {
        ++configs_sent_;
        taken_capture = answer->capture_id;
        PD_LOG(INFO,
               "capture config handed to Kineto capture=%s pid=%d host_pid=%d",
               taken_capture, poll.pids.front(), host_pid);
      }
      reply = EncodePollReply(answer->config);
    }
  }
  if (!admitted.ok()) {
    environment_jobs_.erase(host_pid);
    Refuse(over_limit_, "a process", admitted);
    return;
  }
  // Kept before the answer leaves: a restarted agent never hands it out again.
  if (!taken_capture.empty()) {
    options_.armed->MarkConfigTaken(taken_capture, host_pid);
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
      if (process.capturing()) files.push_back(process.capture.trace_file);
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

absl::StatusOr<KinetoArming> KinetoDaemon::Capture(
    std::string_view job, const KinetoCaptureSpec& spec, absl::Time deadline) {
  PD_RETURN_IF_ERROR(CheckKinetoCaptureSpec(spec));
  std::vector<KinetoProcess> candidates;
  KinetoArming result;
  {
    absl::MutexLock lock(&mu_);
    const CaptureArming selected = registry_.Select(job);
    result.arming.busy = selected.busy;
    for (const KinetoProcess& process : registry_.Processes()) {
      if (std::find(selected.armed.begin(), selected.armed.end(),
                    process.host_pid) != selected.armed.end()) {
        candidates.push_back(process);
      } else if (process.capture.cancelled &&
                 (job.empty() || process.job == job)) {
        result.arming.errors.push_back(base::StrCat(
            "pid ", process.host_pid, " took capture ",
            process.capture.capture_id,
            "'s config before it was cancelled, "
            "and kineto keeps a request it took until it runs; it is busy "
            "until then, its capture's deadline, or a restart of the process"));
      }
    }
  }
  // Kineto opens its log file but makes no folder: each process gets its own
  // (design note 4), made without the lock held.
  std::vector<std::pair<int32_t, KinetoProcessCapture>> captures;
  for (const KinetoProcess& process : candidates) {
    absl::StatusOr<std::string> folder = MakeProcessCaptureFolder(
        options_.logdir, spec.run,
        {.host_pid = process.host_pid, .pid = process.pid, .uid = process.uid});
    if (!folder.ok()) {
      result.arming.errors.push_back(base::StrCat(
          "pid ", process.host_pid, ": ", folder.status().message()));
      continue;
    }
    KinetoCaptureConfig config =
        KinetoOnDemandConfig(spec, *folder, process.pid);
    captures.push_back({process.host_pid,
                        {.capture_id = spec.capture_id,
                         .config = std::move(config.config),
                         .trace_file = std::move(config.trace_file),
                         .deadline = deadline}});
  }
  absl::MutexLock lock(&mu_);
  for (auto& [host_pid, capture] : captures) {
    v1::ArmedProcess armed;
    armed.set_host_pid(host_pid);
    armed.set_source("kineto");
    armed.set_trace_file(capture.trace_file);
    armed.set_config(capture.config);
    if (!registry_.Arm(host_pid, std::move(capture))) continue;  // gone, busy
    for (const KinetoProcess& process : candidates) {
      if (process.host_pid != host_pid) continue;
      armed.set_pid(process.pid);
      armed.set_uid(process.uid);
    }
    result.arming.armed.push_back(host_pid);
    result.processes.push_back(std::move(armed));
  }
  return result;
}

std::vector<int32_t> KinetoDaemon::Cancel(std::string_view capture_id) {
  absl::MutexLock lock(&mu_);
  return registry_.Cancel(capture_id);
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
          .refused = refused_.load(),
          .impostors = impostors_.load(),
          .over_limit = over_limit_.load(),
          .invalid_jobs = invalid_jobs_.load()};
}

}  // namespace profdiff::agent
