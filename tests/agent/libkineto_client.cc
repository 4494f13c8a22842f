#include "tests/agent/libkineto_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <random>

namespace profdiff::agent::testing {
namespace {

// Endpoint::setAddress_: "\0NAME\0" with both NULs counted, or DIR/NAME.
socklen_t SetAddress(const std::string& name, const std::string& socket_dir,
                     sockaddr_un& address) {
  std::memset(&address, 0, sizeof(address));
  address.sun_family = AF_UNIX;
  if (!socket_dir.empty()) {
    const std::string path = socket_dir + "/" + name;
    path.copy(address.sun_path, path.size());
    return sizeof(sa_family_t) + path.size() + 1;
  }
  name.copy(address.sun_path + 1, name.size());
  return sizeof(sa_family_t) + name.size() + 2;
}

// kineto's uuid::generate_uuid_v4, in spirit: 32 random hex digits.
std::string RandomUuid() {
  static std::mt19937_64 generator(std::random_device{}());
  std::string out;
  for (int i = 0; i < 32; ++i) {
    out.push_back("0123456789abcdef"[generator() % 16]);
    if (i == 7 || i == 11 || i == 15 || i == 19) out.push_back('-');
  }
  return out;
}

}  // namespace

LibkinetoClient::LibkinetoClient(std::string daemon, std::string socket_dir)
    : daemon_(std::move(daemon)),
      socket_dir_(std::move(socket_dir)),
      name_("dynoconfigclient" + RandomUuid()),
      fd_(::socket(AF_UNIX, SOCK_DGRAM, 0)) {
  sockaddr_un address;
  const socklen_t length = SetAddress(name_, socket_dir_, address);
  if (!socket_dir_.empty()) ::unlink(address.sun_path);
  bound_ =
      fd_.valid() &&
      ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&address), length) == 0;
}

bool LibkinetoClient::SendRaw(const std::string& bytes) {
  sockaddr_un address;
  const socklen_t length = SetAddress(daemon_, socket_dir_, address);
  return ::sendto(fd_.get(), bytes.data(), bytes.size(), MSG_DONTWAIT,
                  reinterpret_cast<sockaddr*>(&address), length) > 0;
}

bool LibkinetoClient::Send(const std::string& type,
                           const std::string& payload) {
  Metadata metadata;
  std::memcpy(metadata.type, type.c_str(), type.size() + 1);
  metadata.size = payload.size();
  iovec io[2] = {{&metadata, sizeof(metadata)},
                 {const_cast<char*>(payload.data()), payload.size()}};
  sockaddr_un address;
  msghdr header = {};
  header.msg_name = &address;
  header.msg_namelen = SetAddress(daemon_, socket_dir_, address);
  header.msg_iov = io;
  header.msg_iovlen = 2;
  // sync_send: 10 tries, the sleep doubling from 10 ms.
  int sleep_us = 10000;
  for (int i = 0; i < 10; ++i) {
    if (::sendmsg(fd_.get(), &header, MSG_DONTWAIT) > 0) return true;
    ::usleep(sleep_us);
    sleep_us *= 2;
  }
  return false;
}

std::optional<ReceivedMessage> LibkinetoClient::Receive(int tries,
                                                        int sleep_us) {
  for (int i = 0; i < tries; ++i) {
    Metadata metadata;
    iovec peek = {&metadata, sizeof(metadata)};
    msghdr header = {};
    header.msg_iov = &peek;
    header.msg_iovlen = 1;
    if (::recvmsg(fd_.get(), &header, MSG_DONTWAIT | MSG_PEEK) > 0) {
      std::string payload(metadata.size, '\0');
      iovec io[2] = {{&metadata, sizeof(metadata)},
                     {payload.data(), payload.size()}};
      header.msg_iov = io;
      header.msg_iovlen = 2;
      if (::recvmsg(fd_.get(), &header, MSG_DONTWAIT) > 0) {
        return ReceivedMessage{std::string(metadata.type), std::move(payload)};
      }
    }
    ::usleep(sleep_us);
  }
  return std::nullopt;
}

std::optional<int32_t> LibkinetoClient::Register(int32_t gpu, pid_t pid,
                                                 int64_t job_id) {
  const LibkinetoContext context{gpu, pid, job_id};
  if (!Send("ctxt", std::string(reinterpret_cast<const char*>(&context),
                                sizeof(context)))) {
    return std::nullopt;
  }
  std::optional<ReceivedMessage> answer = Receive();
  if (!answer || answer->payload.size() < sizeof(int32_t)) return std::nullopt;
  int32_t registered;
  std::memcpy(&registered, answer->payload.data(), sizeof(registered));
  return registered;
}

std::optional<std::string> LibkinetoClient::Poll(
    int type, int64_t job_id, const std::vector<int32_t>& pids) {
  const LibkinetoRequestHead head{type, static_cast<int>(pids.size()), job_id};
  std::string payload(reinterpret_cast<const char*>(&head), sizeof(head));
  payload.append(reinterpret_cast<const char*>(pids.data()),
                 pids.size() * sizeof(int32_t));
  if (!Send("req", payload)) return std::nullopt;
  std::optional<ReceivedMessage> answer = Receive();
  if (!answer) return std::nullopt;
  return answer->payload;
}

}  // namespace profdiff::agent::testing
