// What the TLS tests of rpc/ share: the test certificates under tests/data/tls
// (ca.pem signed server.pem and client.pem, other_ca.pem the other_* ones),
// and the files a test writes beside them.
#ifndef PROFDIFF_TESTS_RPC_TLS_FILES_H_
#define PROFDIFF_TESTS_RPC_TLS_FILES_H_

#include <filesystem>
#include <string>

namespace profdiff::rpc {

// The path of tests/data/tls/`name`.
std::string Tls(const char* name);

// Writes `text` to `path`; returns the path.
std::string WriteFile(const std::filesystem::path& path,
                      const std::string& text);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_TESTS_RPC_TLS_FILES_H_
