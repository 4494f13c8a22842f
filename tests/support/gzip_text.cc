#include "tests/support/gzip_text.h"

#include <libdeflate.h>

namespace profdiff::test_support {

std::string Gzip(std::string_view text) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_gzip_compress_bound(compressor, text.size()),
                  '\0');
  out.resize(libdeflate_gzip_compress(compressor, text.data(), text.size(),
                                      out.data(), out.size()));
  libdeflate_free_compressor(compressor);
  return out;
}

}  // namespace profdiff::test_support
