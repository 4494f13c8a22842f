// Opens N Upload streams to an aggregator and sends nothing on them (a hostile
// or frozen client), holds them for a while, then reports how each ended. For
// tests/reliability/hostile_upload_test.py.
//
//   idle_streams ADDRESS N HOLD_SECONDS
// Prints "opened=N ended_by_server=K codes=CODE:COUNT,..." and exits 0.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "profdiff/v1/collector.grpc.pb.h"

namespace {

struct Call {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<profdiff::v1::UploadMessage,
                                                profdiff::v1::UploadAck>>
      stream;
  profdiff::v1::UploadAck ack;
  grpc::Status status;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: idle_streams ADDRESS N HOLD_SECONDS\n");
    return 2;
  }
  const std::string address = argv[1];
  const int n = std::atoi(argv[2]);
  const int hold_s = std::atoi(argv[3]);
  // Several connections, as many clients would use (one HTTP/2 connection caps
  // its streams).
  constexpr int kStreamsPerChannel = 1000;
  std::vector<std::unique_ptr<profdiff::v1::Collector::Stub>> stubs;
  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<Call>> calls;
  // A call's tags are the addresses of its 4 bytes here: byte 4 * call + step
  // (0 started, 1 read ended, 2 finished).
  std::vector<char> tags(4 * static_cast<size_t>(std::max(n, 0)));
  const auto tag_of = [&](size_t value) -> void* { return &tags[value]; };
  for (int i = 0; i < n; ++i) {
    if (i % kStreamsPerChannel == 0) {
      grpc::ChannelArguments arguments;
      arguments.SetInt("grpc.channel_id", i);  // a connection of its own
      stubs.push_back(
          profdiff::v1::Collector::NewStub(grpc::CreateCustomChannel(
              address, grpc::InsecureChannelCredentials(), arguments)));
    }
    auto call = std::make_unique<Call>();
    call->stream = stubs.back()->PrepareAsyncUpload(&call->context, &queue);
    call->stream->StartCall(tag_of(4 * static_cast<size_t>(i)));
    calls.push_back(std::move(call));
  }
  // Started calls, then a read on each: a read ends only when the server ends
  // the stream.
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(hold_s);
  int started = 0;
  int ended = 0;
  std::map<std::string, int> codes;
  void* tag = nullptr;
  bool ok = false;
  for (;;) {
    const grpc::CompletionQueue::NextStatus next =
        queue.AsyncNext(&tag, &ok, deadline);
    if (next != grpc::CompletionQueue::GOT_EVENT) break;
    const auto value =
        static_cast<size_t>(static_cast<char*>(tag) - tags.data());
    Call& call = *calls[value / 4];
    switch (value % 4) {
      case 0:  // started
        if (ok) ++started;
        call.stream->Read(&call.ack, tag_of(value + 1));
        break;
      case 1:  // the read ended: the server ended the stream
        call.stream->Finish(&call.status, tag_of(value + 1));
        break;
      case 2:  // finished
        ++ended;
        ++codes[std::to_string(call.status.error_code())];
        break;
    }
  }
  std::string summary;
  for (const auto& [code, count] : codes)
    summary +=
        (summary.empty() ? "" : ",") + code + ":" + std::to_string(count);
  std::printf("opened=%d started=%d ended_by_server=%d codes=%s\n", n, started,
              ended, summary.c_str());
  std::fflush(stdout);
  std::_Exit(0);  // the calls still open are simply dropped with the process
}
