// Real ClickHouse servers for tests: Debian's clickhouse-server on free
// 127.0.0.1 ports, each in a throwaway folder, all listed as the shards of
// cluster "profdiff" (CLICKHOUSE.md).
#ifndef PROFDIFF_TESTS_AGGREGATOR_CLICKHOUSE_CLUSTER_H_
#define PROFDIFF_TESTS_AGGREGATOR_CLICKHOUSE_CLUSTER_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "tests/support/child_process.h"

namespace profdiff::testing {

class ClickHouseCluster {
 public:
  // The server binary, or "" when ClickHouse is not installed (tests then SKIP
  // saying so).
  static std::string ServerBinary();

  // Starts `shards` servers under `dir` (emptied first) and waits until each
  // answers (new ports and another try when one does not). NotFound when
  // ClickHouse is not installed: tests SKIP then, and fail on any other error.
  static absl::StatusOr<std::unique_ptr<ClickHouseCluster>> Start(
      const std::string& dir, int shards);
  ~ClickHouseCluster();  // SIGKILLs the servers and removes their folders
  // The destructor leaves the servers' folders, for a caller that removes them
  // later (a benchmark that must not measure the removal).
  void LeaveFolder() { leave_folder_ = true; }

  // clickhouse://127.0.0.1:HTTP1,127.0.0.1:HTTP2/<database>
  std::string Url(const std::string& database) const;
  // Each shard's HTTP address, 127.0.0.1:PORT, in shard order.
  std::vector<std::string> Addresses() const;
  int shards() const { return static_cast<int>(servers_.size()); }
  // SIGKILL one shard (its data stays) / start it again on the same ports and
  // folder.
  void Kill(int shard);
  absl::Status Restart(int shard);

 private:
  struct Server {
    std::string dir;
    int http_port = 0;
    int tcp_port = 0;
    std::unique_ptr<ChildProcess> process;
  };
  static absl::StatusOr<std::unique_ptr<ClickHouseCluster>> TryStart(
      const std::string& dir, int shards);
  absl::Status Launch(Server& server);

  std::string binary_;
  std::string dir_;
  bool leave_folder_ = false;
  std::vector<Server> servers_;
};

}  // namespace profdiff::testing

#endif  // PROFDIFF_TESTS_AGGREGATOR_CLICKHOUSE_CLUSTER_H_
