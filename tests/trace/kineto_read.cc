#include "tests/trace/kineto_read.h"

#include <utility>

#include <absl/status/statusor.h>
#include <gtest/gtest.h>
#include <libdeflate.h>

#include "trace/kineto_reader.h"

namespace profdiff::trace {

Trace MustRead(std::string_view json) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(json, "test.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : Trace{};
}

absl::Status ReadError(std::string_view json) {
  return ReadKinetoTrace(json, "bad.json").status();
}

std::string Gzip(std::string_view text) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_gzip_compress_bound(compressor, text.size()),
                  '\0');
  out.resize(libdeflate_gzip_compress(compressor, text.data(), text.size(),
                                      out.data(), out.size()));
  libdeflate_free_compressor(compressor);
  return out;
}

}  // namespace profdiff::trace
