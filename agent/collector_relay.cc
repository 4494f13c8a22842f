#include "agent/collector_relay.h"

#include <atomic>
#include <thread>

#include "agent/span_uploader.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::agent {

CollectorRelay::CollectorRelay(const std::string& aggregator,
                               const rpc::ChannelSecurity& security,
                               std::string agent_id,
                               const BackoffOptions& backoff, PeerLookup peers,
                               int max_streams)
    : stub_(v1::Collector::NewStub(
          rpc::MakeChannel(aggregator, security, ReconnectBackoffOf(backoff)))),
      agent_id_(std::move(agent_id)),
      peers_(std::move(peers)),
      max_streams_(max_streams) {}

grpc::Status CollectorRelay::Upload(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::UploadAck, v1::UploadMessage>* stream) {
  const std::optional<PeerCredentials> peer = peers_(*context);
  if (!peer.has_value()) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "the relay serves only the agent's unix socket");
  }
  // Design note 4; the count is released however the stream ends.
  struct StreamSlot {
    std::atomic<int>& streams;
    ~StreamSlot() { --streams; }
  } slot{streams_};
  if (++streams_ > max_streams_) {
    return grpc::Status(
        grpc::StatusCode::UNAVAILABLE,
        base::StrCat("the relay has ", max_streams_,
                     " streams open, its limit; try again later"));
  }
  grpc::ClientContext upstream_context;
  if (context->deadline() != std::chrono::system_clock::time_point::max()) {
    upstream_context.set_deadline(context->deadline());
  }
  std::unique_ptr<grpc::ClientReaderWriter<v1::UploadMessage, v1::UploadAck>>
      upstream = stub_->Upload(&upstream_context);
  std::atomic<bool> client_done{false};
  std::atomic<bool> upstream_ended{false};
  // Acknowledgements down. When the aggregator ends first, the client's stream
  // is cancelled so the Read below returns (design note 2).
  std::jthread acks([&] {
    v1::UploadAck ack;
    while (upstream->Read(&ack)) {
      if (!stream->Write(ack)) break;
    }
    upstream_ended.store(true);
    if (!client_done.load()) context->TryCancel();
  });
  std::string span;
  v1::UploadMessage message;
  std::optional<grpc::Status> refusal;
  while (stream->Read(&message)) {
    if (message.has_header()) {
      v1::UploadHeader& header = *message.mutable_header();
      if (!header.agent_id().empty() && header.agent_id() != agent_id_) {
        PD_VLOG(1, "relayed header's agent id %s replaced by %s",
                base::QuoteBytes(header.agent_id()), agent_id_);
      }
      header.set_agent_id(agent_id_);
      header.set_local_uid(peer->uid);
      span = message.header().run() + "/" +
             message.header().worker().worker_name() + "/" +
             message.header().span();
      if ((refusal = Refusal(span)))
        break;  // answered below, before anything goes up
    }
    if (!upstream->Write(message)) break;
  }
  if (refusal.has_value()) {
    client_done.store(
        true);  // so the ack pump does not cancel the client's call
    upstream_context.TryCancel();
    acks.join();
    upstream->Finish();
    return *refusal;
  }
  client_done.store(true);
  // The client went away first: end the aggregator's stream too (it resumes on
  // reconnect).
  if (context->IsCancelled() && !upstream_ended.load())
    upstream_context.TryCancel();
  upstream->WritesDone();
  acks.join();
  grpc::Status status = upstream->Finish();
  if (!status.ok()) {
    PD_LOG(WARNING, "relayed upload ended span=%s code=%d error=%s", span,
           static_cast<int>(status.error_code()), status.error_message());
    if (!span.empty() && !IsRetryableUploadError(rpc::FromGrpcStatus(status))) {
      RememberRefusal(span, status);
    }
  }
  return status;
}

std::optional<grpc::Status> CollectorRelay::Refusal(const std::string& span) {
  absl::MutexLock lock(&mu_);
  auto it = refused_.find(span);
  if (it == refused_.end()) return std::nullopt;
  return it->second;
}

void CollectorRelay::RememberRefusal(const std::string& span,
                                     const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  if (refused_.size() >= 4096) refused_.clear();
  refused_.insert_or_assign(span, status);
}

}  // namespace profdiff::agent
