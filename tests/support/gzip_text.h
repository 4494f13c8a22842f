// Gzip of a text, as trace files hold it: for tests and fuzzers that feed the
// reader gzipped input (no test framework needed).
#ifndef PROFDIFF_TESTS_SUPPORT_GZIP_TEXT_H_
#define PROFDIFF_TESTS_SUPPORT_GZIP_TEXT_H_

#include <string>
#include <string_view>

namespace profdiff::test_support {

// One gzip member holding `text` (libdeflate, level 6).
std::string Gzip(std::string_view text);

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_GZIP_TEXT_H_
