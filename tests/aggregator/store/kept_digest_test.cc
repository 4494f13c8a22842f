// The framing of kept run digests (aggregator/store/kept_digest.h): a framed
// digest reads back as itself, and every way stored bytes can stop being the
// digest asked for is DataLoss naming the file and what differs.
// Regression for #42: kept digests were trusted blindly.
#include "aggregator/store/kept_digest.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/run_digest.h"

namespace profdiff::aggregator {
namespace {

using ::testing::HasSubstr;

constexpr char kFile[] = "runs/r/digests/0123@1-2-3.pb";
const KeptDigestFor kFor = {"r", "r|1|1|", "1/2/3"};

// Rank 0 of run `run`, two kept steps running aten::mm.
v1::RunDigest Digest(const std::string& run) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_worker_name("w0");
  w.mutable_modules()->set_kind(v1::MODULE_NODE_KIND_ROOT);
  for (int s = 0; s < 2; ++s) w.add_steps()->set_duration_us(10);
  v1::OperatorStats& mm = *w.add_operators();
  mm.set_name("aten::mm");
  mm.set_calls(2);
  analysis::RunDigestBuilder builder(run, {});
  EXPECT_TRUE(builder.Add(w).ok());
  absl::StatusOr<v1::RunDigest> digest = builder.Finish();
  EXPECT_TRUE(digest.ok()) << digest.status();
  return digest.ok() ? *digest : v1::RunDigest();
}

void ExpectDataLoss(const std::string& bytes, const std::string& what,
                    const KeptDigestFor& wanted = kFor) {
  absl::StatusOr<v1::RunDigest> read = ReadKeptDigest(bytes, wanted, kFile);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(),
              HasSubstr(std::string(kFile) + ": kept digest " + what));
}

TEST(KeptDigestTest, AFramedDigestReadsBackAsItself) {
  const v1::RunDigest digest = Digest("r");
  const std::string framed = FrameKeptDigest(kFor, digest);
  // 40-byte header, "r", "r|1|1|", "1/2/3", then the digest.
  EXPECT_EQ(framed.size(), 40 + 1 + 6 + 5 + digest.ByteSizeLong());
  absl::StatusOr<v1::RunDigest> read = ReadKeptDigest(framed, kFor, kFile);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->SerializeAsString(), digest.SerializeAsString());
}

TEST(KeptDigestTest, EmptyFileIsDataLoss) {
  ExpectDataLoss("", "is 0 bytes, shorter than its 40-byte header");
}

TEST(KeptDigestTest, DigestCutAtTheEndOfAFieldIsDataLoss) {
  const v1::RunDigest digest = Digest("r");
  // Without its module tree and the fields after it, the digest's bytes are
  // a prefix of the whole one's (fields are written in number order): a cut
  // a protobuf parser accepts.
  v1::RunDigest prefix = digest;
  prefix.clear_modules();
  prefix.clear_memory();
  prefix.clear_communication();
  prefix.clear_worker_notes();
  prefix.clear_run_warnings();
  const std::string framed = FrameKeptDigest(kFor, digest);
  const size_t cut = digest.ByteSizeLong() - prefix.ByteSizeLong();
  ASSERT_GT(cut, 0u);
  // The header still counts the whole payload.
  ExpectDataLoss(framed.substr(0, framed.size() - cut),
                 "holds " + std::to_string(framed.size() - cut) +
                     " bytes, its header says 40 + run 1 + key 6 + version 5 "
                     "+ payload " +
                     std::to_string(digest.ByteSizeLong()) + " bytes (cut)");
}

TEST(KeptDigestTest, BytesPastTheEndAreDataLoss) {
  const v1::RunDigest digest = Digest("r");
  const std::string framed = FrameKeptDigest(kFor, digest);
  ExpectDataLoss(framed + "x",
                 "holds " + std::to_string(framed.size() + 1) +
                     " bytes, its header says 40 + run 1 + key 6 + version 5 "
                     "+ payload " +
                     std::to_string(digest.ByteSizeLong()) +
                     " bytes (bytes past its end)");
}

TEST(KeptDigestTest, FlippedByteIsDataLossNamingTheChecksum) {
  std::string framed = FrameKeptDigest(kFor, Digest("r"));
  const size_t at = framed.find("aten::mm");
  ASSERT_NE(at, std::string::npos);
  framed[at] = 'b';  // "bten::mm": still a digest that parses
  ExpectDataLoss(framed, "has checksum ");
  EXPECT_THAT(ReadKeptDigest(framed, kFor, kFile).status().message(),
              HasSubstr("(bytes changed)"));
}

TEST(KeptDigestTest, AnotherRunsDigestIsDataLossNamingBothRuns) {
  const KeptDigestFor other = {"other", "other|1|1|", "1/2/3"};
  ExpectDataLoss(FrameKeptDigest(other, Digest("other")),
                 "was made for run \"other\", read for run \"r\"");
}

TEST(KeptDigestTest, AnotherKeyOrVersionIsDataLoss) {
  ExpectDataLoss(FrameKeptDigest({"r", "r|1|1|0,", "1/2/3"}, Digest("r")),
                 "was made for key \"r|1|1|0,\", read for key \"r|1|1|\"");
  ExpectDataLoss(FrameKeptDigest({"r", "r|1|1|", "1/2/4"}, Digest("r")),
                 "was made for version \"1/2/4\", read for version \"1/2/3\"");
}

TEST(KeptDigestTest, UnframedDigestIsDataLoss) {
  // What an aggregator before the framing kept: the bare digest.
  ExpectDataLoss(Digest("r").SerializeAsString(),
                 "does not start with \"PDKEPTDG\"");
}

TEST(KeptDigestTest, LaterFormatIsDataLoss) {
  std::string framed = FrameKeptDigest(kFor, Digest("r"));
  framed[8] = 2;  // the format version's low byte
  ExpectDataLoss(framed, "has format version 2, this aggregator reads 1");
}

TEST(KeptDigestTest, WholeFrameAroundADigestTheDifferCannotReadIsDataLoss) {
  v1::RunDigest empty;
  empty.set_run("r");
  ExpectDataLoss(
      FrameKeptDigest(kFor, empty),
      "payload: run \"r\": digest cannot be diffed: it has no ranks");
  ExpectDataLoss(FrameKeptDigest(kFor, Digest("other")),
                 "payload is the digest of run \"other\", read for run \"r\"");
}

}  // namespace
}  // namespace profdiff::aggregator
