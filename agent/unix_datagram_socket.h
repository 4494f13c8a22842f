// A bound unix datagram socket named the way dynolog's IPC fabric names its
// endpoints (dynolog/src/ipcfabric/Endpoint.h): an abstract name "\0NAME\0"
// whose trailing NUL is part of the address, or, when a socket dir is given
// (KINETO_IPC_SOCKET_DIR on both sides), the path DIR/NAME. Senders are
// answered at the address they sent from, byte for byte. A bound socket asks
// the kernel for each sender's credentials (SO_PASSCRED): abstract names have
// no other access control, and a datagram's content is the sender's word.
#ifndef PROFDIFF_AGENT_UNIX_DATAGRAM_SOCKET_H_
#define PROFDIFF_AGENT_UNIX_DATAGRAM_SOCKET_H_

#include <optional>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/peer_process.h"
#include "base/scoped_fd.h"

namespace profdiff::agent {

// The sockaddr_un bytes of endpoint `name` (with its length) as the fabric
// builds them. InvalidArgument when the name is empty or longer than the 106
// bytes an abstract name may have, or the path is longer than sun_path.
absl::StatusOr<std::string> FabricAddress(std::string_view name,
                                          std::string_view socket_dir);

class UnixDatagramSocket {
 public:
  struct Datagram {
    std::string bytes;
    std::string sender;      // the sender's sockaddr bytes, for SendTo
    bool truncated = false;  // longer than the receive buffer; `bytes` is cut
    // The kernel's word on the sender (a Bind socket only); nullopt when it
    // gave none.
    std::optional<PeerCredentials> peer;
  };

  // Binds endpoint `name` (FabricAddress) and turns on SO_PASSCRED. A path
  // socket left by an earlier process is replaced. Errors: FabricAddress's;
  // Unavailable naming the address when it is taken (another daemon serves it)
  // or cannot be bound.
  static absl::StatusOr<UnixDatagramSocket> Bind(std::string_view name,
                                                 std::string_view socket_dir);
  // An unnamed (autobound abstract) socket: a client that only talks to a
  // daemon and is answered at its autobound name.
  static absl::StatusOr<UnixDatagramSocket> Unnamed();

  UnixDatagramSocket(UnixDatagramSocket&&) = default;
  UnixDatagramSocket& operator=(UnixDatagramSocket&&) = default;
  ~UnixDatagramSocket();

  // The next datagram, waiting up to `timeout`; nullopt when none came.
  // Datagrams over `max_bytes` come back truncated. Internal on a socket error.
  absl::StatusOr<std::optional<Datagram>> Receive(absl::Duration timeout,
                                                  size_t max_bytes);
  // Sends `bytes` to `address` (FabricAddress or Datagram::sender) without
  // blocking. Unavailable when nobody is bound there or its queue is full.
  absl::Status SendTo(std::string_view address, std::string_view bytes);

 private:
  UnixDatagramSocket(base::ScopedFd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)) {}

  base::ScopedFd fd_;
  std::string path_;  // a path socket's file, removed with the socket
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_UNIX_DATAGRAM_SOCKET_H_
