#include "aggregator/store/kept_digest.h"

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <tuple>

#include <absl/strings/str_format.h>

#include "analysis/run_digest_check.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

constexpr std::string_view kMagic = "PDKEPTDG";
constexpr uint32_t kFormatVersion = 1;
// Design note 1: the fixed part, and where its fields are.
constexpr size_t kHeaderBytes = 40;
constexpr size_t kFormatAt = 8;
constexpr size_t kRunBytesAt = 12;
constexpr size_t kKeyBytesAt = 16;
constexpr size_t kVersionBytesAt = 20;
constexpr size_t kPayloadBytesAt = 24;
constexpr size_t kChecksumAt = 32;
static_assert(kMagic.size() == kFormatAt);

void PutU32(std::string& out, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
void PutU64(std::string& out, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
uint64_t GetLittleEndian(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    value |= uint64_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  }
  return value;
}

// Design note 1: every byte but the checksum's own.
uint64_t ChecksumOf(std::string_view framed) {
  const uint64_t seed = XXH3_64bits(framed.data(), kChecksumAt);
  return XXH3_64bits_withSeed(framed.data() + kHeaderBytes,
                              framed.size() - kHeaderBytes, seed);
}

std::string Hex(uint64_t value) { return absl::StrFormat("%016x", value); }

}  // namespace

std::string FrameKeptDigest(const KeptDigestFor& made_for,
                            const v1::RunDigest& digest) {
  std::string framed(kHeaderBytes, '\0');
  std::memcpy(framed.data(), kMagic.data(), kMagic.size());
  PutU32(framed, kFormatAt, kFormatVersion);
  PutU32(framed, kRunBytesAt, static_cast<uint32_t>(made_for.run.size()));
  PutU32(framed, kKeyBytesAt, static_cast<uint32_t>(made_for.key.size()));
  PutU32(framed, kVersionBytesAt,
         static_cast<uint32_t>(made_for.version.size()));
  base::StrAppend(&framed, made_for.run, made_for.key, made_for.version);
  const size_t payload_at = framed.size();
  digest.AppendToString(&framed);
  PutU64(framed, kPayloadBytesAt, framed.size() - payload_at);
  PutU64(framed, kChecksumAt, ChecksumOf(framed));
  return framed;
}

absl::StatusOr<v1::RunDigest> ReadKeptDigest(std::string_view bytes,
                                             const KeptDigestFor& wanted,
                                             std::string_view where) {
  const auto damaged = [&](auto&&... what) {
    return absl::DataLossError(base::StrCat(where, ": kept digest ", what...));
  };
  if (bytes.size() < kHeaderBytes) {
    return damaged("is ", bytes.size(), " bytes, shorter than its ",
                   kHeaderBytes, "-byte header (empty or cut)");
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return damaged("does not start with \"", kMagic, "\" (found ",
                   base::QuoteBytes(bytes.substr(0, kMagic.size())),
                   "): not a framed digest");
  }
  const uint64_t format = GetLittleEndian(bytes, kFormatAt, 4);
  if (format != kFormatVersion) {
    return damaged("has format version ", format, ", this aggregator reads ",
                   kFormatVersion);
  }
  const uint64_t run_bytes = GetLittleEndian(bytes, kRunBytesAt, 4);
  const uint64_t key_bytes = GetLittleEndian(bytes, kKeyBytesAt, 4);
  const uint64_t version_bytes = GetLittleEndian(bytes, kVersionBytesAt, 4);
  const uint64_t payload_bytes = GetLittleEndian(bytes, kPayloadBytesAt, 8);
  // Each term is below 2^32 but the payload's, which is compared to the size
  // first: no sum overflows.
  const uint64_t before_payload =
      kHeaderBytes + run_bytes + key_bytes + version_bytes;
  const bool cut = payload_bytes > bytes.size() ||
                   before_payload + payload_bytes > bytes.size();
  if (cut || before_payload + payload_bytes != bytes.size()) {
    return damaged("holds ", bytes.size(), " bytes, its header says ",
                   kHeaderBytes, " + run ", run_bytes, " + key ", key_bytes,
                   " + version ", version_bytes, " + payload ", payload_bytes,
                   " bytes", cut ? " (cut)" : " (bytes past its end)");
  }
  const uint64_t checksum = GetLittleEndian(bytes, kChecksumAt, 8);
  if (const uint64_t actual = ChecksumOf(bytes); actual != checksum) {
    return damaged("has checksum ", Hex(actual), ", its header says ",
                   Hex(checksum), " (bytes changed)");
  }
  const std::string_view run = bytes.substr(kHeaderBytes, run_bytes);
  const std::string_view key =
      bytes.substr(kHeaderBytes + run_bytes, key_bytes);
  const std::string_view version =
      bytes.substr(kHeaderBytes + run_bytes + key_bytes, version_bytes);
  const std::string_view payload = bytes.substr(before_payload);
  for (const auto& [field, made, asked] :
       {std::tuple{"run", run, wanted.run}, std::tuple{"key", key, wanted.key},
        std::tuple{"version", version, wanted.version}}) {
    if (made != asked) {
      return damaged("was made for ", field, " ", base::QuoteBytes(made),
                     ", read for ", field, " ", base::QuoteBytes(asked));
    }
  }
  v1::RunDigest digest;
  if (!digest.ParseFromArray(payload.data(),
                             static_cast<int>(payload.size()))) {
    return damaged("payload (", payload.size(),
                   " bytes) does not parse as profdiff.v1.RunDigest");
  }
  if (digest.run() != wanted.run) {
    return damaged("payload is the digest of run ",
                   base::QuoteBytes(digest.run()), ", read for run ",
                   base::QuoteBytes(wanted.run));
  }
  if (absl::Status valid = analysis::ValidateRunDigest(digest); !valid.ok())
    return damaged("payload: ", valid.message());
  return digest;
}

}  // namespace profdiff::aggregator
