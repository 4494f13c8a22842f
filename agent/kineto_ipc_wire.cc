#include "agent/kineto_ipc_wire.h"

#include <cstring>

#include <absl/status/status.h>
#include <absl/strings/escaping.h>

#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// The header and payload of one datagram, checked against each other.
struct Frame {
  std::string type;  // Metadata.type up to its first NUL
  std::string_view payload;
};

template <typename T>
T Load(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

template <typename T>
void Append(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

std::string Header(std::string_view type, size_t payload_bytes) {
  std::string out;
  out.reserve(kKinetoMetadataBytes + payload_bytes);
  Append<uint64_t>(out, payload_bytes);
  out.append(type);
  out.append(kKinetoTypeBytes - type.size(), '\0');
  return out;
}

absl::StatusOr<Frame> SplitFrame(std::string_view datagram) {
  if (datagram.size() < kKinetoMetadataBytes) {
    return absl::InvalidArgumentError(base::StrCat(
        "datagram of ", datagram.size(), " bytes is shorter than the ",
        kKinetoMetadataBytes, "-byte Metadata header (size, type[32])"));
  }
  const uint64_t size = Load<uint64_t>(datagram, 0);
  const size_t carried = datagram.size() - kKinetoMetadataBytes;
  if (size != carried) {
    return absl::InvalidArgumentError(base::StrCat("Metadata.size says ", size,
                                                   " payload bytes but the "
                                                   "datagram carries ",
                                                   carried));
  }
  const std::string_view type_field = datagram.substr(8, kKinetoTypeBytes);
  const size_t end = type_field.find('\0');
  if (end == std::string_view::npos) {
    return absl::InvalidArgumentError(
        "Metadata.type has no NUL within its 32 bytes");
  }
  return Frame{std::string(type_field.substr(0, end)),
               datagram.substr(kKinetoMetadataBytes)};
}

absl::Status WrongSize(std::string_view type, size_t got, size_t want) {
  return absl::InvalidArgumentError(base::StrCat(
      "\"", type, "\" payload is ", got, " bytes, expected ", want));
}

}  // namespace

absl::StatusOr<KinetoMessage> DecodeKinetoDatagram(std::string_view datagram) {
  PD_ASSIGN_OR_RETURN(const Frame frame, SplitFrame(datagram));
  const std::string_view payload = frame.payload;
  if (frame.type == kKinetoContextType) {
    if (payload.size() != 16) return WrongSize(frame.type, payload.size(), 16);
    return KinetoRegistration{.gpu = Load<int32_t>(payload, 0),
                              .pid = Load<int32_t>(payload, 4),
                              .job_id = Load<int64_t>(payload, 8)};
  }
  if (frame.type == kKinetoRequestType) {
    if (payload.size() < 16) {
      return absl::InvalidArgumentError(base::StrCat(
          "\"req\" payload is ", payload.size(),
          " bytes, shorter than its 16-byte head (type, n, jobid)"));
    }
    const int32_t n = Load<int32_t>(payload, 4);
    if (n <= 0 || n > kKinetoMaxPollPids) {
      return absl::InvalidArgumentError(base::StrCat(
          "\"req\" n=", n, " pids; a poll carries 1 to ", kKinetoMaxPollPids));
    }
    const size_t want = 16 + 4 * static_cast<size_t>(n);
    if (payload.size() != want) {
      return absl::InvalidArgumentError(
          base::StrCat("\"req\" payload is ", payload.size(),
                       " bytes, but n=", n, " pids make ", want));
    }
    KinetoPoll poll{.config_type = Load<int32_t>(payload, 0),
                    .job_id = Load<int64_t>(payload, 8)};
    poll.pids.reserve(n);
    for (int32_t i = 0; i < n; ++i) {
      poll.pids.push_back(Load<int32_t>(payload, 16 + 4 * i));
    }
    return poll;
  }
  return absl::InvalidArgumentError(
      base::StrCat("Metadata.type \"", absl::CEscape(base::ToAbsl(frame.type)),
                   "\" is neither \"ctxt\" nor \"req\""));
}

std::string EncodeRegistrationReply(int32_t registered) {
  std::string out = Header(kKinetoContextType, 4);
  Append<int32_t>(out, registered);
  return out;
}

std::string EncodePollReply(std::string_view config) {
  std::string out = Header(kKinetoRequestType, config.size());
  out.append(config);
  return out;
}

std::string EncodeKinetoRegistration(const KinetoRegistration& registration) {
  std::string out = Header(kKinetoContextType, 16);
  Append<int32_t>(out, registration.gpu);
  Append<int32_t>(out, registration.pid);
  Append<int64_t>(out, registration.job_id);
  return out;
}

std::string EncodeKinetoPoll(const KinetoPoll& poll) {
  std::string out = Header(kKinetoRequestType, 16 + 4 * poll.pids.size());
  Append<int32_t>(out, poll.config_type);
  Append<int32_t>(out, static_cast<int32_t>(poll.pids.size()));
  Append<int64_t>(out, poll.job_id);
  for (const int32_t pid : poll.pids) Append<int32_t>(out, pid);
  return out;
}

absl::StatusOr<int32_t> DecodeRegistrationReply(std::string_view datagram) {
  PD_ASSIGN_OR_RETURN(const Frame frame, SplitFrame(datagram));
  if (frame.type != kKinetoContextType || frame.payload.size() != 4) {
    return absl::InvalidArgumentError(
        base::StrCat("a registration answer is \"ctxt\" with 4 bytes, got \"",
                     absl::CEscape(base::ToAbsl(frame.type)), "\" with ",
                     frame.payload.size()));
  }
  return Load<int32_t>(frame.payload, 0);
}

absl::StatusOr<std::string> DecodePollReply(std::string_view datagram) {
  PD_ASSIGN_OR_RETURN(const Frame frame, SplitFrame(datagram));
  if (frame.type != kKinetoRequestType) {
    return absl::InvalidArgumentError(
        base::StrCat("a poll answer is \"req\", got \"",
                     absl::CEscape(base::ToAbsl(frame.type)), "\""));
  }
  return std::string(frame.payload);
}

}  // namespace profdiff::agent
