// ClickHouse's HTTP interface (the one protocol both Debian's 18.16 and current
// releases speak): statements and SELECTs as POST bodies, INSERT data as the
// body with the statement in the URL. Connections are kept alive in a small
// pool; every call has a deadline.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_HTTP_CLIENT_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_HTTP_CLIENT_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

namespace profdiff::aggregator::clickhouse {

// Query settings sent as URL parameters ("name=value").
using Settings = std::vector<std::string>;

class HttpClient {
 public:
  // `address` is HOST:HTTP_PORT; `database` the default database of every
  // statement (none when empty, for CREATE DATABASE).
  HttpClient(std::string address, std::string database, absl::Duration timeout);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const std::string& address() const { return address_; }

  // Runs `sql` and returns the response body. Errors:
  //  Unavailable: the server (or, for a Distributed read, a shard behind it)
  //  cannot be reached; Internal: ClickHouse refused the statement (its message
  //  is kept).
  absl::StatusOr<std::string> Query(std::string_view sql,
                                    const Settings& settings = {}) const;
  // Runs "INSERT INTO ... FORMAT F" with `data` as its rows. A failed insert
  // stored nothing (ClickHouse inserts one block of up to max_insert_block_size
  // rows atomically).
  absl::Status Insert(std::string_view insert_sql, std::string_view data) const;
  // The same with the rows in pieces, sent in turn as one body (a group
  // commit's chunks, not copied into one string first).
  absl::Status Insert(std::string_view insert_sql,
                      std::span<const std::string_view> data) const;

 private:
  struct Handle;
  absl::StatusOr<std::string> Post(
      std::string_view url_query, std::span<const std::string_view> body) const;
  std::unique_ptr<Handle> TakeHandle() const;
  void ReturnHandle(std::unique_ptr<Handle> handle) const;

  const std::string address_;
  const std::string database_;
  const absl::Duration timeout_;
  mutable absl::Mutex mu_;
  mutable std::vector<std::unique_ptr<Handle>> idle_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_HTTP_CLIENT_H_
