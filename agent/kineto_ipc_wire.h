// Kineto's daemon protocol on the wire: the datagrams libkineto (started with
// KINETO_USE_DAEMON=1) and dynolog exchange over dynolog's "IPC fabric", as
// kineto's libkineto/src/IpcFabricConfigClient.cpp sends them and dynolog's
// dynolog/src/tracing/IPCMonitor.cpp answers them. profdiff-agent is the
// daemon side (--kineto-daemon); the client encoders serve the fake ranks of
// the tests and a test program.
//
// Wire format (docs/on-demand-capture.md has the whole exchange). One message
// is one unix datagram, in the native layout of the LP64 ABI both sides run
// on (x86-64, aarch64: little-endian, size_t of 8 bytes):
//   bytes 0..7    Metadata.size, uint64: the payload's length
//   bytes 8..39   Metadata.type, char[32], NUL-padded: "ctxt" or "req"
//   bytes 40..    the payload, Metadata.size bytes
// Payloads:
//   "ctxt" process -> daemon, registration: LibkinetoContext
//          {int32 gpu; int32 pid; int64 jobid}, 16 bytes
//   "ctxt" daemon -> process: int32, the processes of that job on that gpu
//   "req"  process -> daemon, a poll: LibkinetoRequest {int32 type (bit mask:
//          1 events, 2 activities); int32 n; int64 jobid; int32 pids[n]},
//          pids[0] the process, then its ancestors (at most 11 in kineto)
//   "req"  daemon -> process: the on-demand config text, without a NUL;
//          0 bytes when nothing is asked of the process
// jobid is SLURM_JOB_ID read with strtoll, 0 without it.
#ifndef PROFDIFF_AGENT_KINETO_IPC_WIRE_H_
#define PROFDIFF_AGENT_KINETO_IPC_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::agent {

inline constexpr size_t kKinetoMetadataBytes = 40;
inline constexpr size_t kKinetoTypeBytes = 32;
inline constexpr std::string_view kKinetoContextType = "ctxt";
inline constexpr std::string_view kKinetoRequestType = "req";
// The most pids a poll may carry: kineto sends the process and at most 10
// ancestors; more is not a libkineto poll.
inline constexpr int kKinetoMaxPollPids = 64;

// A "ctxt" datagram: a process registers.
struct KinetoRegistration {
  int32_t gpu = 0;
  int32_t pid = 0;
  int64_t job_id = 0;
};

// A "req" datagram: a process asks for its on-demand config.
struct KinetoPoll {
  int32_t config_type = 0;  // LibkinetoConfigType bits: 1 events, 2 activities
  int64_t job_id = 0;
  std::vector<int32_t> pids;  // the process first, then its ancestors
};

using KinetoMessage = std::variant<KinetoRegistration, KinetoPoll>;

// The message in a datagram a process sent. InvalidArgument naming the field
// and the limit for a datagram shorter than the header, a header size that is
// not the payload's, a type other than "ctxt"/"req", a payload of the wrong
// size for its type, or a poll with no pid, a negative count or more than
// kKinetoMaxPollPids.
absl::StatusOr<KinetoMessage> DecodeKinetoDatagram(std::string_view datagram);

// The daemon's answers.
std::string EncodeRegistrationReply(int32_t registered);
std::string EncodePollReply(std::string_view config);

// The libkineto side, byte for byte as IpcFabricConfigClient sends it.
std::string EncodeKinetoRegistration(const KinetoRegistration& registration);
std::string EncodeKinetoPoll(const KinetoPoll& poll);
// The payload of the daemon's answer of `type`; InvalidArgument as
// DecodeKinetoDatagram's for its header, or for a "ctxt" answer that is not 4
// bytes.
absl::StatusOr<int32_t> DecodeRegistrationReply(std::string_view datagram);
absl::StatusOr<std::string> DecodePollReply(std::string_view datagram);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_IPC_WIRE_H_
