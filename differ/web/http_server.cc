#include "differ/web/http_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/log.h"
#include "base/parse_int.h"
#include "base/str_cat.h"

namespace profdiff::differ::web {

std::optional<std::string> HttpRequest::Arg(std::string_view key) const {
  for (const auto& [k, v] : query) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::vector<std::string> HttpRequest::Args(std::string_view key) const {
  std::vector<std::string> values;
  for (const auto& [k, v] : query) {
    if (k == key) values.push_back(v);
  }
  return values;
}

namespace {

// What one request has gathered between the library's calls.
struct RequestState {
  std::string body;
};

// A streamed body: the pieces the handler's stream gives, handed out in the
// sizes the library asks for.
struct StreamState {
  BodyStream stream;
  std::string piece;
  size_t offset = 0;
  bool done = false;
  bool failed = false;
};

ssize_t ReadStream(void* cls, uint64_t /*pos*/, char* buf, size_t max) {
  auto* state = static_cast<StreamState*>(cls);
  while (state->offset == state->piece.size()) {
    if (state->failed) return MHD_CONTENT_READER_END_WITH_ERROR;
    if (state->done) return MHD_CONTENT_READER_END_OF_STREAM;
    state->piece.clear();
    state->offset = 0;
    const StreamStep step = state->stream(state->piece);
    state->done = step == StreamStep::kEnd;
    state->failed = step == StreamStep::kFailed;
  }
  const size_t n = std::min(max, state->piece.size() - state->offset);
  std::copy_n(state->piece.data() + state->offset, n, buf);
  state->offset += n;
  return static_cast<ssize_t>(n);
}

void FreeStream(void* cls) {
  const std::unique_ptr<StreamState> owned(static_cast<StreamState*>(cls));
}

std::string Header(MHD_Connection* connection, const char* name) {
  const char* value =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  return value == nullptr ? std::string() : std::string(value);
}

MHD_Result CollectArgument(void* cls, MHD_ValueKind /*kind*/, const char* key,
                           const char* value) {
  auto* request = static_cast<HttpRequest*>(cls);
  request->query.emplace_back(key == nullptr ? "" : key,
                              value == nullptr ? "" : value);
  request->query_bytes += request->query.back().first.size() +
                          request->query.back().second.size() + 2;
  return MHD_YES;
}

MHD_Result Queue(MHD_Connection* connection, HttpResponse response) {
  MHD_Response* reply = nullptr;
  if (response.stream) {
    auto state = std::make_unique<StreamState>();
    state->stream = std::move(response.stream);
    reply = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 64 << 10, &ReadStream, state.get(), &FreeStream);
    if (reply != nullptr) {
      static_cast<void>(state.release());  // FreeStream owns it now
    }
  } else {
    reply = MHD_create_response_from_buffer(
        response.body.size(), response.body.data(), MHD_RESPMEM_MUST_COPY);
  }
  if (reply == nullptr) return MHD_NO;
  MHD_add_response_header(reply, MHD_HTTP_HEADER_CONTENT_TYPE,
                          response.content_type.c_str());
  for (const auto& [name, value] : response.headers) {
    MHD_add_response_header(reply, name.c_str(), value.c_str());
  }
  const MHD_Result queued = MHD_queue_response(
      connection, static_cast<unsigned int>(response.status), reply);
  MHD_destroy_response(reply);
  return queued;
}

HttpResponse PlainError(int status, std::string text) {
  HttpResponse response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(text);
  return response;
}

// The library's percent-decoding, except that %00 stays as written: a decoded
// NUL would end the C string the handler gets, so "/run/A%00B" would read as
// "/run/A". Returns the decoded length.
size_t Unescape(void* /*cls*/, MHD_Connection* /*connection*/, char* text) {
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  char* out = text;
  for (const char* in = text; *in != '\0'; ++in) {
    const int high = in[0] == '%' ? hex(in[1]) : -1;
    const int low = high >= 0 ? hex(in[2]) : -1;
    if (low >= 0 && (high | low) != 0) {
      *out++ = static_cast<char>(high * 16 + low);
      in += 2;
    } else {
      *out++ = *in;
    }
  }
  *out = '\0';
  return static_cast<size_t>(out - text);
}

void LogFromLibrary(void* /*cls*/, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  PD_VLOG(1, "http: %s", line);
}

// HOST:PORT or [HOST]:PORT, resolved for listening.
absl::StatusOr<sockaddr_storage> ResolveListen(const std::string& address,
                                               socklen_t* length) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) {
    return absl::InvalidArgumentError(base::StrCat(
        "--http ", address, ": expected HOST:PORT (e.g. 127.0.0.1:8080)"));
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int64_t port_number = 0;
  if (!base::ParseInt64(port, port_number) || port_number < 0 ||
      port_number > 65535) {
    return absl::InvalidArgumentError(base::StrCat(
        "--http ", address, ": port '", port, "' is not 0 to 65535"));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             port.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    return absl::InvalidArgumentError(base::StrCat("--http ", address,
                                                   ": cannot resolve '", host,
                                                   "': ", gai_strerror(rc)));
  }
  sockaddr_storage storage{};
  std::memcpy(&storage, found->ai_addr, found->ai_addrlen);
  *length = found->ai_addrlen;
  freeaddrinfo(found);
  return storage;
}

}  // namespace

struct HttpServer::Daemon {
  HttpHandler handler;
  HttpServerOptions options;
  bool tls = false;
  MHD_Daemon* mhd = nullptr;

  ~Daemon() {
    if (mhd != nullptr) MHD_stop_daemon(mhd);
  }

  static MHD_Result Access(void* cls, MHD_Connection* connection,
                           const char* url, const char* method,
                           const char* /*version*/, const char* upload_data,
                           size_t* upload_data_size, void** con_cls) {
    auto* self = static_cast<Daemon*>(cls);
    if (*con_cls == nullptr) {
      // The headers are in: refuse a body announced too large before any of
      // it is read.
      int64_t length = 0;
      if (base::ParseInt64(Header(connection, MHD_HTTP_HEADER_CONTENT_LENGTH),
                           length) &&
          length > static_cast<int64_t>(self->options.max_body_bytes)) {
        return Queue(
            connection,
            PlainError(413, base::StrCat("request body of ", length,
                                         " bytes; at most ",
                                         self->options.max_body_bytes, "\n")));
      }
      // The library keeps a void*; Completed() takes it back.
      *con_cls = std::make_unique<RequestState>().release();
      return MHD_YES;
    }
    auto* state = static_cast<RequestState*>(*con_cls);
    if (*upload_data_size > 0) {
      if (state->body.size() + *upload_data_size >
          self->options.max_body_bytes) {
        return MHD_NO;  // a chunked body past the limit: close the connection
      }
      state->body.append(upload_data, *upload_data_size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    HttpRequest request;
    request.method = method;
    request.path = url;
    request.tls = self->tls;
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND,
                              &CollectArgument, &request);
    request.authorization = Header(connection, MHD_HTTP_HEADER_AUTHORIZATION);
    request.cookie = Header(connection, MHD_HTTP_HEADER_COOKIE);
    request.content_type = Header(connection, MHD_HTTP_HEADER_CONTENT_TYPE);
    request.body = std::move(state->body);
    return Queue(connection, self->handler(request));
  }

  static void Completed(void* /*cls*/, MHD_Connection* /*connection*/,
                        void** con_cls, MHD_RequestTerminationCode /*toe*/) {
    const std::unique_ptr<RequestState> owned(
        static_cast<RequestState*>(*con_cls));
    *con_cls = nullptr;
  }
};

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options, HttpHandler handler) {
  socklen_t length = 0;
  absl::StatusOr<sockaddr_storage> address =
      ResolveListen(options.address, &length);
  if (!address.ok()) return address.status();
  const bool tls = !options.tls_cert_pem.empty();
  if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
    return absl::FailedPreconditionError(
        "this libmicrohttpd was built without TLS");
  }
  // Writes to a closed connection must not kill the process.
  if (MHD_is_feature_supported(MHD_FEATURE_AUTOSUPPRESS_SIGPIPE) != MHD_YES) {
    std::signal(SIGPIPE, SIG_IGN);
  }
  auto server = std::make_unique<HttpServer>(std::make_unique<Daemon>());
  Daemon& daemon = *server->daemon_;
  daemon.handler = std::move(handler);
  daemon.options = options;
  daemon.tls = tls;
  unsigned int flags = MHD_USE_THREAD_PER_CONNECTION |
                       MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
                       MHD_USE_ERROR_LOG;
  if (address->ss_family == AF_INET6) flags |= MHD_USE_IPv6;
  if (tls) flags |= MHD_USE_TLS;
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_SOCK_ADDR, 0, &*address},
      {MHD_OPTION_CONNECTION_LIMIT,
       static_cast<intptr_t>(options.max_connections), nullptr},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT,
       static_cast<intptr_t>(options.max_connections_per_ip), nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT,
       static_cast<intptr_t>(options.idle_timeout_seconds), nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT,
       static_cast<intptr_t>(options.max_request_head_bytes), nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED,
       reinterpret_cast<intptr_t>(&Daemon::Completed), nullptr},
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&LogFromLibrary),
       nullptr},
      {MHD_OPTION_UNESCAPE_CALLBACK, reinterpret_cast<intptr_t>(&Unescape),
       nullptr},
  };
  if (tls) {
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0,
                     const_cast<char*>(daemon.options.tls_cert_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0,
                     const_cast<char*>(daemon.options.tls_key_pem.c_str())});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  daemon.mhd =
      MHD_start_daemon(flags, 0, nullptr, nullptr, &Daemon::Access, &daemon,
                       MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (daemon.mhd == nullptr) {
    return absl::UnavailableError(base::StrCat(
        "--http ", options.address,
        ": cannot serve there (in use, not an address of this host, or the "
        "TLS certificate and key were refused)"));
  }
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(daemon.mhd, MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info == nullptr ? 0 : info->port;
  server->tls_ = tls;
  return server;
}

HttpServer::HttpServer(std::unique_ptr<Daemon> daemon)
    : daemon_(std::move(daemon)) {}

HttpServer::~HttpServer() = default;

}  // namespace profdiff::differ::web
