// The bytes of a run digest kept in a store (Store::SaveDigest: the local
// store's <run>/digests/ files, the ClickHouse store's `digests` rows), framed
// so that a kept digest is used only when it is whole and is the one asked for.
//
// Design:
// 1. Layout, integers little-endian:
//      0  magic "PDKEPTDG"           8 bytes
//      8  format version (1)         u32
//     12  run bytes R                u32
//     16  key bytes K                u32
//     20  version bytes V            u32
//     24  payload bytes P            u64
//     32  checksum                   u64: XXH3-64 of bytes 40.. (seeded with
//                                    the XXH3-64 of bytes 0..32)
//     40  run, key, version, then the payload (a serialized v1::RunDigest)
//    The payload comes last, so a file cut anywhere is shorter than its header
//    says, and every byte after the checksum is covered by it.
// 2. Reading checks, in order: the size against the header, the magic, the
//    format, the lengths against the size, the checksum, the run, key and
//    version it was made for against those asked for, that the payload parses,
//    names the run, and is a digest the differ can read
//    (analysis/run_digest_check.h). A digest cut at a field boundary (it
//    parses), an empty file, another run's digest copied in and a flipped byte
//    each fail one of them: a store never serves them (aggregator/run_digests.h
//    makes the digest again and keeps that).
#ifndef PROFDIFF_AGGREGATOR_STORE_KEPT_DIGEST_H_
#define PROFDIFF_AGGREGATOR_STORE_KEPT_DIGEST_H_

#include <string>
#include <string_view>

#include <absl/status/statusor.h>

#include "profdiff/v1/digest.pb.h"

namespace profdiff::aggregator {

// What a kept digest was made for: its run, its key (aggregator/run_digests.h:
// the request) and the run's version then.
struct KeptDigestFor {
  std::string_view run;
  std::string_view key;
  std::string_view version;
};

// The framed bytes of `digest` made for `made_for` (design note 1).
std::string FrameKeptDigest(const KeptDigestFor& made_for,
                            const v1::RunDigest& digest);

// The digest `bytes` frame, checked (design note 2) against `wanted`. DataLoss
// naming `where` (the file or row read) and what differs: the size, magic,
// format, lengths, checksum, run, key or version, or what is wrong in the
// payload.
absl::StatusOr<v1::RunDigest> ReadKeptDigest(std::string_view bytes,
                                             const KeptDigestFor& wanted,
                                             std::string_view where);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_KEPT_DIGEST_H_
