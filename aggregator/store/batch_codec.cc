#include "aggregator/store/batch_codec.h"

#include <zstd.h>

#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

constexpr int kZstdLevel = 1;

}  // namespace

size_t CompressedBound(size_t raw_bytes) {
  return ZSTD_compressBound(raw_bytes);
}

struct BatchCompressor::Context {
  struct Free {
    void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
  };
  std::unique_ptr<ZSTD_CCtx, Free> zstd{ZSTD_createCCtx()};
};

BatchCompressor::BatchCompressor() : context_(std::make_unique<Context>()) {}
BatchCompressor::~BatchCompressor() = default;
BatchCompressor::BatchCompressor(BatchCompressor&&) noexcept = default;
BatchCompressor& BatchCompressor::operator=(BatchCompressor&&) noexcept =
    default;

absl::Status BatchCompressor::Compress(std::string_view raw, std::string& out,
                                       size_t offset) {
  const size_t bound = ZSTD_compressBound(raw.size());
  out.resize(offset + bound);
  const size_t size =
      ZSTD_compressCCtx(context_->zstd.get(), out.data() + offset, bound,
                        raw.data(), raw.size(), kZstdLevel);
  if (ZSTD_isError(size))
    return absl::InternalError(base::StrCat("zstd: ", ZSTD_getErrorName(size)));
  out.resize(offset + size);
  return absl::OkStatus();
}

struct BatchDecompressor::Context {
  struct Free {
    void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
  };
  std::unique_ptr<ZSTD_DCtx, Free> zstd{ZSTD_createDCtx()};
};

BatchDecompressor::BatchDecompressor()
    : context_(std::make_unique<Context>()) {}
BatchDecompressor::~BatchDecompressor() = default;

absl::StatusOr<std::string_view> BatchDecompressor::Decompress(
    std::string_view compressed, size_t raw_bytes) {
  raw_.resize(raw_bytes);
  const size_t size =
      ZSTD_decompressDCtx(context_->zstd.get(), raw_.data(), raw_.size(),
                          compressed.data(), compressed.size());
  if (ZSTD_isError(size) || size != raw_bytes) {
    return absl::DataLossError(base::StrCat(
        "does not decompress: ",
        ZSTD_isError(size) ? ZSTD_getErrorName(size)
                           : base::StrCat(size, " bytes, not ", raw_bytes)));
  }
  return std::string_view(raw_);
}

}  // namespace profdiff::aggregator
