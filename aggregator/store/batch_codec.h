// zstd for stored EventBatches: both stores keep every chunk's serialized batch
// compressed (the local store in its segment records, the ClickHouse store in
// its ledger rows). Level 1: the aggregator compresses every chunk it receives,
// so speed matters more than ratio.
#ifndef PROFDIFF_AGGREGATOR_STORE_BATCH_CODEC_H_
#define PROFDIFF_AGGREGATOR_STORE_BATCH_CODEC_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

namespace profdiff::aggregator {

// The most bytes `raw_bytes` can compress to.
size_t CompressedBound(size_t raw_bytes);

// Holds a compression context, reused across chunks; one per thread of use.
class BatchCompressor {
 public:
  BatchCompressor();
  ~BatchCompressor();
  BatchCompressor(BatchCompressor&&) noexcept;
  BatchCompressor& operator=(BatchCompressor&&) noexcept;

  // Compresses `raw` into `out`, replacing it from byte `offset` on (what is
  // before stays, so a caller can put a header there).
  absl::Status Compress(std::string_view raw, std::string& out,
                        size_t offset = 0);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Holds a decompression context and the buffer the last batch was decompressed
// into.
class BatchDecompressor {
 public:
  BatchDecompressor();
  ~BatchDecompressor();
  BatchDecompressor(const BatchDecompressor&) = delete;
  BatchDecompressor& operator=(const BatchDecompressor&) = delete;

  // The `raw_bytes` bytes `compressed` holds; valid until the next call. An
  // error (the text says why) when it does not decompress to exactly that size.
  absl::StatusOr<std::string_view> Decompress(std::string_view compressed,
                                              size_t raw_bytes);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
  std::string raw_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_BATCH_CODEC_H_
