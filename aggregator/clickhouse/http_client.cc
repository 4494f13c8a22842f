#include "aggregator/clickhouse/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "base/str_cat.h"

namespace profdiff::aggregator::clickhouse {
namespace {

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// A request body sent from its pieces as libcurl asks for it.
struct BodyPieces {
  std::span<const std::string_view> pieces;
  size_t piece = 0;
  size_t offset = 0;
};

size_t ReadBody(char* out, size_t size, size_t count, void* source) {
  BodyPieces& body = *static_cast<BodyPieces*>(source);
  const size_t room = size * count;
  size_t written = 0;
  while (written < room && body.piece < body.pieces.size()) {
    const std::string_view piece = body.pieces[body.piece];
    const size_t n = std::min(room - written, piece.size() - body.offset);
    std::memcpy(out + written, piece.data() + body.offset, n);
    written += n;
    body.offset += n;
    if (body.offset == piece.size()) {
      ++body.piece;
      body.offset = 0;
    }
  }
  return written;
}

// ClickHouse error codes that mean "a server could not be reached", whoever
// reported them: SOCKET_TIMEOUT (209), NETWORK_ERROR (210),
// ALL_CONNECTION_TRIES_FAILED (279), NO_REMOTE_SHARD_AVAILABLE (519).
bool IsUnreachable(std::string_view message) {
  for (std::string_view code :
       {"Code: 209,", "Code: 210,", "Code: 279,", "Code: 519,"}) {
    if (message.find(code) != std::string_view::npos) return true;
  }
  return false;
}

std::string FirstLine(std::string_view text) {
  const size_t end = text.find('\n');
  std::string line(
      text.substr(0, end == std::string_view::npos ? text.size() : end));
  constexpr size_t kMax = 600;
  if (line.size() > kMax) line = line.substr(0, kMax) + "...";
  return line;
}

}  // namespace

struct HttpClient::Handle {
  Handle() : curl(curl_easy_init(), &curl_easy_cleanup) {}
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl;
};

HttpClient::HttpClient(std::string address, std::string database,
                       absl::Duration timeout)
    : address_(std::move(address)),
      database_(std::move(database)),
      timeout_(timeout) {
  InitCurlOnce();
}

HttpClient::~HttpClient() = default;

std::unique_ptr<HttpClient::Handle> HttpClient::TakeHandle() const {
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Handle> handle = std::move(idle_.back());
      idle_.pop_back();
      return handle;
    }
  }
  return std::make_unique<Handle>();
}

void HttpClient::ReturnHandle(std::unique_ptr<Handle> handle) const {
  constexpr size_t kMaxIdle = 16;
  absl::MutexLock lock(&mu_);
  if (idle_.size() < kMaxIdle) idle_.push_back(std::move(handle));
}

absl::StatusOr<std::string> HttpClient::Post(
    std::string_view url_query, std::span<const std::string_view> body) const {
  std::unique_ptr<Handle> handle = TakeHandle();
  CURL* curl = handle->curl.get();
  if (curl == nullptr)
    return absl::ResourceExhaustedError("libcurl could not make a handle");
  curl_easy_reset(curl);
  const std::string url = base::StrCat("http://", address_, "/?", url_query);
  std::string response;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  // One piece is posted from where it is; several are read in turn, never
  // joined into one copy first.
  BodyPieces pieces{body};
  size_t body_bytes = 0;
  for (const std::string_view piece : body) body_bytes += piece.size();
  if (body.size() == 1 && !body.front().empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.front().data());
  } else {
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, &ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &pieces);
  }
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body_bytes));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(timeout_)));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  // No "Expect: 100-continue" round trip before large bodies.
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  curl_off_t connect_us = 0;
  curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
  ReturnHandle(std::move(handle));
  if (code == CURLE_OPERATION_TIMEDOUT && connect_us > 0) {
    // Connected, then no answer in time: the statement may still run (or have
    // run); retrying it on another shard would not help.
    return absl::DeadlineExceededError(
        base::StrCat("clickhouse ", address_, ": no answer within ",
                     absl::FormatDuration(timeout_)));
  }
  if (code != CURLE_OK) {
    return absl::UnavailableError(base::StrCat(
        "clickhouse ", address_, " unreachable: ", curl_easy_strerror(code)));
  }
  if (http_status != 200) {
    const std::string message =
        base::StrCat("clickhouse ", address_, ": HTTP ", http_status, ": ",
                     FirstLine(response));
    if (message.find("Code: 159,") != std::string::npos)
      return absl::DeadlineExceededError(message);
    const bool gateway =
        http_status == 502 || http_status == 503 || http_status == 504;
    return gateway || IsUnreachable(response) ? absl::UnavailableError(message)
                                              : absl::InternalError(message);
  }
  return response;
}

absl::StatusOr<std::string> HttpClient::Query(std::string_view sql,
                                              const Settings& settings) const {
  std::string query =
      database_.empty() ? "" : base::StrCat("database=", database_);
  for (const std::string& setting : settings)
    base::StrAppend(&query, query.empty() ? "" : "&", setting);
  const std::string_view body[] = {sql};
  return Post(query, body);
}

absl::Status HttpClient::Insert(std::string_view insert_sql,
                                std::string_view data) const {
  const std::string_view pieces[] = {data};
  return Insert(insert_sql, pieces);
}

absl::Status HttpClient::Insert(std::string_view insert_sql,
                                std::span<const std::string_view> data) const {
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, insert_sql.data(),
                       static_cast<int>(insert_sql.size())),
      &curl_free);
  if (escaped == nullptr)
    return absl::ResourceExhaustedError("libcurl could not escape a statement");
  return Post(base::StrCat("database=", database_, "&query=", escaped.get()),
              data)
      .status();
}

}  // namespace profdiff::aggregator::clickhouse
