#include "aggregator/store/upload_rules.h"

#include "base/id_rules.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "rpc/limits.h"

namespace profdiff::aggregator {

namespace {

// Printable ASCII (no control characters, no newline), at most
// kMaxAgentIdBytes.
absl::Status ValidatePrintable(std::string_view what, std::string_view text) {
  if (text.size() > kMaxAgentIdBytes) {
    return absl::InvalidArgumentError(
        base::StrCat(what, " ", base::QuoteBytes(text), ": is ", text.size(),
                     " bytes, the limit is ", kMaxAgentIdBytes));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] < 0x20 || text[i] > 0x7e) {
      return absl::InvalidArgumentError(
          base::StrCat(what, " ", base::QuoteBytes(text), ": byte ", i,
                       " is not printable ASCII"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateUploadHeader(const v1::UploadHeader& header) {
  const v1::WorkerInfo& info = header.worker();
  PD_RETURN_IF_ERROR(base::ValidateId("run", header.run()));
  PD_RETURN_IF_ERROR(base::ValidateId("span", header.span()));
  PD_RETURN_IF_ERROR(base::ValidateId("worker name", info.worker_name()));
  PD_RETURN_IF_ERROR(ValidatePrintable("agent_id", header.agent_id()));
  PD_RETURN_IF_ERROR(ValidatePrintable("worker hostname", info.hostname()));
  if (info.rank() < 0) {
    return absl::InvalidArgumentError(
        base::StrCat("worker rank ", info.rank(), ": must be >= 0"));
  }
  if (info.world_size() < 1 || info.world_size() > kMaxWorldSize ||
      info.rank() >= info.world_size()) {
    return absl::InvalidArgumentError(base::StrCat(
        "worker world_size ", info.world_size(), ": must be in [1, ",
        kMaxWorldSize, "] and > rank ", info.rank()));
  }
  const std::string& fingerprint = header.content_fingerprint();
  if (fingerprint.size() > kMaxFingerprintBytes ||
      fingerprint.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InvalidArgumentError(base::StrCat(
        "content_fingerprint ", base::QuoteBytes(fingerprint),
        ": must be at most ", kMaxFingerprintBytes, " lowercase hex digits"));
  }
  return absl::OkStatus();
}

absl::Status CheckSameContent(const v1::UploadHeader& stored,
                              const v1::UploadHeader& incoming) {
  const std::string& before = stored.content_fingerprint();
  const std::string& now = incoming.content_fingerprint();
  if (before.empty() || now.empty() || before == now) return absl::OkStatus();
  return absl::AlreadyExistsError(base::StrCat(
      "span ", incoming.span(), " of run ", incoming.run(), " worker ",
      incoming.worker().rank(), ".", incoming.worker().worker_name(),
      " already holds other content (fingerprint ", before, ", sent by agent ",
      base::QuoteBytes(stored.agent_id()), " from ",
      base::QuoteBytes(stored.worker().source_path()),
      "); this upload's fingerprint is ", now, " (from ",
      base::QuoteBytes(incoming.worker().source_path()),
      "): a different file cannot be stored under the same span id"));
}

void WorldSizeAgreement::Note(const v1::WorkerInfo& worker) {
  if (!worker.distributed_info_present() || world_size_ != 0) return;
  world_size_ = worker.world_size();
  said_by_ =
      base::StrCat("rank ", worker.rank(), " (", worker.worker_name(), ")");
}

absl::Status WorldSizeAgreement::Check(const std::string& run,
                                       const v1::WorkerInfo& worker) const {
  if (!worker.distributed_info_present() || world_size_ == 0 ||
      worker.world_size() == world_size_) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(base::StrCat(
      "run ", run, ": this span of rank ", worker.rank(), " (",
      worker.worker_name(), ") says world_size ", worker.world_size(),
      ", but the run's stored spans say ", world_size_, " (", said_by_,
      "): one run has one world size; upload it under another --run"));
}

absl::Status CheckChunkSize(const v1::TraceChunk& chunk) {
  const size_t bytes = chunk.events().ByteSizeLong();
  if (bytes <= static_cast<size_t>(rpc::kMaxChunkBytes))
    return absl::OkStatus();
  return absl::ResourceExhaustedError(
      base::StrCat("chunk ", chunk.sequence(), ": its events are ", bytes,
                   " bytes encoded, the limit is ", rpc::kMaxChunkBytes,
                   " (split it into more chunks)"));
}

std::string DisplayId(std::string_view id) {
  return base::IsValidId(id) ? std::string(id) : base::QuoteBytes(id);
}

}  // namespace profdiff::aggregator
