// What the aggregator replicas share for on-demand capture (docs/
// on-demand-capture.md): the agents connected to each replica with their
// processes, the captures, and the agents' answers. A capture started through
// one replica reaches agents connected to another because every replica reads
// the captures here and hands them to its own agents. The local store keeps
// this in memory (one replica); the ClickHouse store in tables every replica
// reads.
#ifndef PROFDIFF_AGGREGATOR_STORE_CONTROL_STORE_H_
#define PROFDIFF_AGGREGATOR_STORE_CONTROL_STORE_H_

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "profdiff/v1/agents.pb.h"

namespace profdiff::aggregator {

class ControlStore {
 public:
  virtual ~ControlStore() = default;

  // Records the agents' statuses (seen_unix_ms and replica set), each
  // replacing the agent's last.
  virtual absl::Status PutAgents(
      const std::vector<v1::AgentStatus>& agents) = 0;
  // Agents seen at or after `seen_since`, by agent id.
  virtual absl::StatusOr<std::vector<v1::AgentStatus>> ListAgents(
      absl::Time seen_since) const = 0;

  // Records `capture`, replacing its last version (by capture id).
  virtual absl::Status PutCapture(const v1::Capture& capture) = 0;
  virtual absl::StatusOr<std::optional<v1::Capture>> GetCapture(
      std::string_view capture_id) const = 0;
  // Captures created at or after `created_since`, by capture id.
  virtual absl::StatusOr<std::vector<v1::Capture>> ListCaptures(
      absl::Time created_since) const = 0;

  // Records an agent's answer, replacing its last for that capture.
  virtual absl::Status PutAnswer(const v1::CaptureAnswer& answer) = 0;
  // The answers to a capture, by agent id.
  virtual absl::StatusOr<std::vector<v1::CaptureAnswer>> ListAnswers(
      std::string_view capture_id) const = 0;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_CONTROL_STORE_H_
