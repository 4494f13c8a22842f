// A test's HTTP client: libcurl, one request per call, with what a test
// checks (status, headers, body).
#ifndef PROFDIFF_TESTS_DIFFER_WEB_HTTP_TEST_CLIENT_H_
#define PROFDIFF_TESTS_DIFFER_WEB_HTTP_TEST_CLIENT_H_

#include <string>
#include <vector>

namespace profdiff::testing {

struct HttpReply {
  long status = 0;    // 0: no answer (connection refused, TLS failed)
  std::string error;  // libcurl's message when status is 0
  std::string body;
  std::vector<std::string> headers;  // "Name: value" lines
  // The value of the first header named `name` (case-insensitive), or "".
  std::string Header(const std::string& name) const;
};

struct HttpCall {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent with POST
  std::string ca_file;               // trust this CA (https)
  bool path_as_is = false;           // send "/../" as written
};

HttpReply Fetch(const HttpCall& call);
inline HttpReply Get(const std::string& url) { return Fetch({.url = url}); }

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_DIFFER_WEB_HTTP_TEST_CLIENT_H_
