#include "tests/differ/web/http_test_client.h"

#include <curl/curl.h>

#include <memory>

#include <absl/strings/ascii.h>
#include <absl/strings/match.h>
#include <absl/strings/strip.h>

namespace profdiff::testing {
namespace {

size_t Append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.pop_back();
  }
  if (!line.empty())
    static_cast<std::vector<std::string>*>(out)->push_back(line);
  return size * count;
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

std::string HttpReply::Header(const std::string& name) const {
  for (const std::string& line : headers) {
    const size_t colon = line.find(':');
    if (colon != std::string::npos &&
        absl::EqualsIgnoreCase(line.substr(0, colon), name)) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

HttpReply Fetch(const HttpCall& call) {
  HttpReply reply;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  std::unique_ptr<curl_slist, ListDeleter> headers;
  for (const std::string& header : call.headers) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  }
  curl_easy_setopt(curl.get(), CURLOPT_URL, call.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &Append);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, &AppendHeader);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 120L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  if (headers) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (call.path_as_is) curl_easy_setopt(curl.get(), CURLOPT_PATH_AS_IS, 1L);
  if (!call.ca_file.empty()) {
    curl_easy_setopt(curl.get(), CURLOPT_CAINFO, call.ca_file.c_str());
  }
  if (call.method == "POST") {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, call.body.c_str());
  } else if (call.method == "HEAD") {
    curl_easy_setopt(curl.get(), CURLOPT_NOBODY, 1L);
  } else if (call.method != "GET") {
    curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, call.method.c_str());
  }
  const CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK) {
    reply.error = curl_easy_strerror(code);
    return reply;
  }
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

}  // namespace profdiff::testing
