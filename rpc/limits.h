// Sizes every profdiff gRPC server and client agree on.
#ifndef PROFDIFF_RPC_LIMITS_H_
#define PROFDIFF_RPC_LIMITS_H_

#include <cstdint>

namespace profdiff::rpc {

// A chunk holds at most 4 MiB of encoded events (the agent splits bigger ones);
// the rest is room for the message envelope. Larger messages are refused by
// gRPC with RESOURCE_EXHAUSTED.
inline constexpr int64_t kMaxChunkBytes = 4 << 20;
inline constexpr int kMaxMessageBytes = 8 << 20;
// Replies that carry a whole run (GetProfile of many workers, a DiffReport) may
// be larger.
inline constexpr int kMaxReplyBytes = 256 << 20;
// Chunks an uploader keeps unacknowledged on one Upload stream unless told
// otherwise (SpanUploaderOptions::window_chunks, the agent's --window); the
// Collector stores as many chunks of one stream together.
inline constexpr int kDefaultUploadWindowChunks = 8;

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_LIMITS_H_
