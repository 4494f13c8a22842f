// An HTTP(S) server on GNU libmicrohttpd (Debian's libmicrohttpd-dev): the
// parsing, limits and TLS are the library's; this file turns its C callbacks
// into one C++ handler per request. No file is ever served from disk: what a
// URL shows is what the handler answers.
#ifndef PROFDIFF_DIFFER_WEB_HTTP_SERVER_H_
#define PROFDIFF_DIFFER_WEB_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::differ::web {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded by the library, without the query
  // The query's arguments in order, decoded; a key may repeat.
  std::vector<std::pair<std::string, std::string>> query;
  size_t query_bytes = 0;     // the query string's length as sent (decoded)
  std::string authorization;  // the Authorization header, or empty
  std::string cookie;         // the Cookie header, or empty
  std::string content_type;
  std::string body;  // POST bodies, at most HttpServerOptions::max_body_bytes
  bool tls = false;

  // The first value of `key`, if present.
  std::optional<std::string> Arg(std::string_view key) const;
  // Every value of `key`, in order.
  std::vector<std::string> Args(std::string_view key) const;
};

// Writes the next piece of a streamed body into `out`: kMore, or kEnd at the
// end, or kFailed when the body cannot be finished (the response is then cut
// off, not ended, so the client does not take it for whole). Called on the
// connection's thread; may block.
enum class StreamStep { kMore, kEnd, kFailed };
using BodyStream = std::function<StreamStep(std::string& out)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  BodyStream stream;  // when set, the body is streamed from it instead
};

using HttpHandler = std::function<HttpResponse(const HttpRequest& request)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1:0";  // HOST:PORT; [v6]:PORT; port 0 picks
  std::string tls_cert_pem;             // with tls_key_pem: HTTPS only
  std::string tls_key_pem;
  int max_connections = 64;  // at once, all clients
  int max_connections_per_ip = 16;
  int idle_timeout_seconds = 30;  // a connection that sends nothing is closed
  // Per connection: the request line and headers must fit (the library
  // answers 414/431 beyond it).
  size_t max_request_head_bytes = 32 << 10;
  size_t max_body_bytes = 16 << 10;  // larger POST bodies get 413
};

class HttpServer {
 public:
  // Serves `handler` from a thread per connection until destroyed.
  // InvalidArgument for an address that does not parse or resolve;
  // Unavailable when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpServerOptions& options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  bool tls() const { return tls_; }

  struct Daemon;  // the library's daemon and the handler it calls
  // Use Start(); `Daemon` is defined in the .cc only.
  explicit HttpServer(std::unique_ptr<Daemon> daemon);

 private:
  std::unique_ptr<Daemon> daemon_;
  int port_ = 0;
  bool tls_ = false;
};

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_HTTP_SERVER_H_
