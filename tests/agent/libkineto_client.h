// The libkineto side of Kineto's daemon protocol, written from kineto's own
// source rather than from profdiff's encoder (agent/kineto_ipc_wire.h), so the
// tests catch a daemon that drifts from what kineto sends:
//   IpcFabricConfigClient.cpp  registerInstance, getLibkinetoOndemandConfig
//   ipcfabric/FabricManager.h  Metadata, sync_send (two iovecs), recv (peek
//                              the Metadata, then read it with the payload)
//   ipcfabric/Endpoint.h       abstract names "\0NAME\0", KINETO_IPC_SOCKET_DIR
//   ipcfabric/Utils.h          LibkinetoContext, LibkinetoRequest
// Used by the daemon's protocol tests and by fake_kineto_rank, the process
// that stands for a PyTorch rank in the capture end-to-end tests.
#ifndef PROFDIFF_TESTS_AGENT_LIBKINETO_CLIENT_H_
#define PROFDIFF_TESTS_AGENT_LIBKINETO_CLIENT_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/scoped_fd.h"

namespace profdiff::agent::testing {

// Kineto's structs, as dynolog/src/ipcfabric/Utils.h and FabricManager.h
// declare them.
struct Metadata {
  size_t size = 0;
  char type[32] = "";
};
struct LibkinetoContext {
  int32_t gpu;
  pid_t pid;
  int64_t jobid;
};
// LibkinetoRequest without its flexible array `int32_t pids[]`, which follows.
struct LibkinetoRequestHead {
  int type;
  int n;
  int64_t jobid;
};

struct ReceivedMessage {
  std::string type;     // Metadata.type
  std::string payload;  // Metadata.size bytes
};

// One libkineto endpoint: bound to "dynoconfigclient<uuid>" as kineto binds
// it, sending to the daemon endpoint `daemon` ("dynolog" in kineto).
class LibkinetoClient {
 public:
  // `socket_dir` is KINETO_IPC_SOCKET_DIR's value ("" = abstract names).
  explicit LibkinetoClient(std::string daemon = "dynolog",
                           std::string socket_dir = "");
  // False when the endpoint could not be bound.
  bool ok() const { return bound_; }
  LibkinetoClient(const LibkinetoClient&) = delete;
  LibkinetoClient& operator=(const LibkinetoClient&) = delete;

  // registerInstance(gpu) for process `pid` of job `job_id`: the daemon's
  // int32 answer, or nullopt when none came (kineto: 9 tries 10 ms apart).
  std::optional<int32_t> Register(int32_t gpu, pid_t pid, int64_t job_id);
  // getLibkinetoOndemandConfig(type) for `pids` (the process, then its
  // ancestors): the config text, or nullopt when no answer came.
  std::optional<std::string> Poll(int type, int64_t job_id,
                                  const std::vector<int32_t>& pids);

  // A raw datagram to the daemon, for malformed messages.
  bool SendRaw(const std::string& bytes);
  // Sends Metadata{type, payload.size()} and the payload as two iovecs, as
  // FabricManager::sync_send does.
  bool Send(const std::string& type, const std::string& payload);
  // FabricManager::poll_recv(tries, sleep_us).
  std::optional<ReceivedMessage> Receive(int tries = 9, int sleep_us = 10000);

 private:
  std::string daemon_;
  std::string socket_dir_;
  std::string name_;
  base::ScopedFd fd_;
  bool bound_ = false;
};

}  // namespace profdiff::agent::testing

#endif  // PROFDIFF_TESTS_AGENT_LIBKINETO_CLIENT_H_
