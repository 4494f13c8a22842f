// The daemon's codec against kineto's own structs (libkineto_client.h): what
// kineto sends decodes, what the daemon sends is what kineto reads.
#include "agent/kineto_ipc_wire.h"

#include <cstring>
#include <string>
#include <variant>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/agent/libkineto_client.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;
using testing::LibkinetoContext;
using testing::LibkinetoRequestHead;
using testing::Metadata;

// Metadata and payload, as FabricManager::sync_send's two iovecs put them in
// one datagram.
std::string KinetoDatagram(const char* type, const void* payload,
                           size_t bytes) {
  Metadata metadata;
  std::memcpy(metadata.type, type, std::strlen(type) + 1);
  metadata.size = bytes;
  std::string out(reinterpret_cast<const char*>(&metadata), sizeof(metadata));
  out.append(static_cast<const char*>(payload), bytes);
  return out;
}

TEST(KinetoIpcWireTest, TheHeaderIsKinetosMetadata) {
  EXPECT_EQ(sizeof(Metadata), kKinetoMetadataBytes);
  EXPECT_EQ(sizeof(LibkinetoContext), 16u);
  EXPECT_EQ(sizeof(LibkinetoRequestHead), 16u);
}

TEST(KinetoIpcWireTest, KinetosRegistrationDecodes) {
  const LibkinetoContext context{3, 4242, 987654321012};
  const auto message =
      DecodeKinetoDatagram(KinetoDatagram("ctxt", &context, sizeof(context)));
  ASSERT_TRUE(message.ok()) << message.status();
  const auto& registration = std::get<KinetoRegistration>(*message);
  EXPECT_EQ(registration.gpu, 3);
  EXPECT_EQ(registration.pid, 4242);
  EXPECT_EQ(registration.job_id, 987654321012);
  // Our client encoder writes the very same bytes.
  EXPECT_EQ(EncodeKinetoRegistration(registration),
            KinetoDatagram("ctxt", &context, sizeof(context)));
}

TEST(KinetoIpcWireTest, KinetosPollDecodesWithEveryPid) {
  const LibkinetoRequestHead head{2, 3, 77};
  const int32_t pids[3] = {300, 200, 1};
  std::string payload(reinterpret_cast<const char*>(&head), sizeof(head));
  payload.append(reinterpret_cast<const char*>(pids), sizeof(pids));
  const std::string datagram =
      KinetoDatagram("req", payload.data(), payload.size());
  const auto message = DecodeKinetoDatagram(datagram);
  ASSERT_TRUE(message.ok()) << message.status();
  const auto& poll = std::get<KinetoPoll>(*message);
  EXPECT_EQ(poll.config_type, 2);
  EXPECT_EQ(poll.job_id, 77);
  EXPECT_EQ(poll.pids, (std::vector<int32_t>{300, 200, 1}));
  EXPECT_EQ(EncodeKinetoPoll(poll), datagram);
}

TEST(KinetoIpcWireTest, AnswersAreWhatDynologSends) {
  // IPCMonitor: constructMessage<int32_t>(size, "ctxt") and
  // constructMessage<std::string>(config, "req").
  const int32_t registered = 2;
  EXPECT_EQ(EncodeRegistrationReply(2),
            KinetoDatagram("ctxt", &registered, sizeof(registered)));
  const std::string config = "ACTIVITIES_ITERATIONS=3\n";
  EXPECT_EQ(EncodePollReply(config),
            KinetoDatagram("req", config.data(), config.size()));
  EXPECT_EQ(EncodePollReply("").size(), kKinetoMetadataBytes);
  EXPECT_EQ(*DecodeRegistrationReply(EncodeRegistrationReply(5)), 5);
  EXPECT_EQ(*DecodePollReply(EncodePollReply(config)), config);
}

TEST(KinetoIpcWireTest, MalformedDatagramsAreRefusedNamingWhatIsWrong) {
  EXPECT_THAT(DecodeKinetoDatagram("short").status().message(),
              HasSubstr("datagram of 5 bytes is shorter than the 40-byte"));
  const LibkinetoContext context{0, 1, 0};
  std::string lying = KinetoDatagram("ctxt", &context, sizeof(context));
  lying.pop_back();
  EXPECT_THAT(DecodeKinetoDatagram(lying).status().message(),
              HasSubstr("Metadata.size says 16 payload bytes but the datagram "
                        "carries 15"));
  EXPECT_THAT(DecodeKinetoDatagram(KinetoDatagram("hello", &context, 16))
                  .status()
                  .message(),
              HasSubstr("\"hello\" is neither \"ctxt\" nor \"req\""));
  EXPECT_THAT(DecodeKinetoDatagram(KinetoDatagram("ctxt", &context, 8))
                  .status()
                  .message(),
              HasSubstr("\"ctxt\" payload is 8 bytes, expected 16"));
  const LibkinetoRequestHead none{2, 0, 0};
  EXPECT_THAT(DecodeKinetoDatagram(KinetoDatagram("req", &none, sizeof(none)))
                  .status()
                  .message(),
              HasSubstr("n=0 pids; a poll carries 1 to 64"));
  const LibkinetoRequestHead three{2, 3, 0};
  EXPECT_THAT(DecodeKinetoDatagram(KinetoDatagram("req", &three, sizeof(three)))
                  .status()
                  .message(),
              HasSubstr("payload is 16 bytes, but n=3 pids make 28"));
  std::string no_nul(kKinetoMetadataBytes, 'x');
  std::memset(no_nul.data(), 0, 8);
  EXPECT_THAT(DecodeKinetoDatagram(no_nul).status().message(),
              HasSubstr("no NUL within its 32 bytes"));
}

}  // namespace
}  // namespace profdiff::agent
