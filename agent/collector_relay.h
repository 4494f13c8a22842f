// The node-local Collector that profdiff-agent serves on its unix socket
// (--listen-unix): each Upload stream from a CUPTI injection library is
// relayed, message for message, to the aggregator, so a training process needs
// only a local address and no credentials.
//
// Design:
// 1. A relay, not a store: acknowledgements are the aggregator's own, so the
//    injection library keeps a span (bounded, see BackgroundSpanUploader) until
//    the aggregator has it durable. Nothing is lost when the agent restarts;
//    the library reconnects and resumes.
// 2. Two pumps per stream: the handler's thread carries client messages up; a
//    second thread carries acknowledgements down. When the aggregator ends the
//    stream first (it refused the span, or went away), the client's stream is
//    cancelled so the handler can return (a sync handler cannot end the call
//    while the client's Read is pending). A refusal (a code the uploader does
//    not retry) is remembered by span, so the library's retry is answered with
//    the aggregator's own status at once and the span ends instead of blocking
//    later ones.
// 3. Every header gets this agent's id (whatever the library wrote: a library
//    cannot speak as another agent) and the uid of the process on the other
//    end of the socket (UploadHeader.local_uid, from SO_PEERCRED), so the
//    aggregator records whose data each span is. A call that did not come
//    through the relay socket is refused.
// 4. At most `max_streams` streams at once (each holds two threads); past
//    that a stream is UNAVAILABLE, which the library retries later.
#ifndef PROFDIFF_AGENT_COLLECTOR_RELAY_H_
#define PROFDIFF_AGENT_COLLECTOR_RELAY_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>
#include <grpcpp/grpcpp.h>

#include "agent/backoff.h"
#include "agent/relay_socket_server.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::agent {

inline constexpr int kMaxRelayStreams = 256;

class CollectorRelay final : public v1::Collector::Service {
 public:
  // Relays to the aggregator at `aggregator` ("HOST:PORT"), connecting lazily
  // and reconnecting as `backoff` says (what the agent's uploads use).
  // `peers` says who is calling (design note 3).
  CollectorRelay(const std::string& aggregator,
                 const rpc::ChannelSecurity& security, std::string agent_id,
                 const BackoffOptions& backoff, PeerLookup peers,
                 int max_streams = kMaxRelayStreams);

  grpc::Status Upload(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::UploadAck, v1::UploadMessage>* stream)
      override;

 private:
  // The aggregator's final word on a span ("run/worker/span"), or nullopt.
  std::optional<grpc::Status> Refusal(const std::string& span)
      ABSL_LOCKS_EXCLUDED(mu_);
  void RememberRefusal(const std::string& span, const grpc::Status& status)
      ABSL_LOCKS_EXCLUDED(mu_);

  std::unique_ptr<v1::Collector::Stub> stub_;
  std::string agent_id_;
  PeerLookup peers_;
  const int max_streams_;
  std::atomic<int> streams_{0};
  absl::Mutex mu_;
  // Bounded: cleared when full (a forgotten refusal costs one more cancelled
  // attempt).
  absl::flat_hash_map<std::string, grpc::Status> refused_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_COLLECTOR_RELAY_H_
