// The agent's Control stream to the aggregator (protos/profdiff/v1/
// agents.proto): it says who the agent is and which training processes it
// can ask to capture, and it carries capture orders down and answers up.
//
// Design:
// 1. One thread keeps one stream open, reconnecting with the uploads' backoff
//    (reset once a stream has lasted a minute). The status is sent first,
//    again when it changes (checked every `status_interval`), and every
//    `heartbeat` otherwise, so the aggregator knows the agent is there.
// 2. A second thread per stream reads orders and answers each with
//    `on_order`'s answer, and hands cancels to `on_cancel`; writes of both
//    threads go through one mutex.
// 4. A stream that ends with an error is logged (a status too large to send,
//    a refusal): at once when the error changes, else once a minute.
// 3. Stop() cancels the stream and joins; an order being handled finishes
//    first.
#ifndef PROFDIFF_AGENT_CONTROL_CHANNEL_H_
#define PROFDIFF_AGENT_CONTROL_CHANNEL_H_

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include <absl/status/status.h>
#include <absl/time/time.h>

#include "agent/backoff.h"
#include "profdiff/v1/agents.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::agent {

struct ControlChannelOptions {
  std::string aggregator;  // HOST:PORT
  rpc::ChannelSecurity security;
  BackoffOptions backoff;
  absl::Duration status_interval = absl::Seconds(1);
  absl::Duration heartbeat = absl::Seconds(5);
};

class ControlChannel {
 public:
  // The agent's status now (its agent id first of all).
  using StatusSource = std::function<v1::AgentStatus()>;
  // The answer to an order; called on the stream's reader thread.
  using OrderHandler =
      std::function<v1::CaptureAnswer(const v1::CaptureOrder& order)>;
  // A capture cancelled; called on the stream's reader thread.
  using CancelHandler = std::function<void(const v1::CaptureCancel& cancel)>;

  ControlChannel(ControlChannelOptions options, StatusSource status,
                 OrderHandler on_order, CancelHandler on_cancel = nullptr);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  void Stop();

 private:
  void Run(const std::stop_token& stop);
  // One stream, until it breaks or a stop is requested.
  absl::Status Session(const std::stop_token& stop);

  const ControlChannelOptions options_;
  const StatusSource status_;
  const OrderHandler on_order_;
  const CancelHandler on_cancel_;
  std::unique_ptr<v1::Agents::Stub> stub_;
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CONTROL_CHANNEL_H_
