#include "tests/aggregator/clickhouse_cluster.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <absl/strings/str_join.h>

#include "aggregator/clickhouse/http_client.h"
#include "base/str_cat.h"
#include "tests/support/wait_until.h"

namespace profdiff::testing {
namespace {

namespace fs = std::filesystem;

// A port the kernel just handed out; free again once the socket closes (a small
// race with other processes, which a failed start reports).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

std::string ClickHouseCluster::ServerBinary() {
  for (const char* path :
       {"/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"}) {
    if (fs::exists(path)) return path;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<ClickHouseCluster>> ClickHouseCluster::Start(
    const std::string& dir, int shards) {
  if (ServerBinary().empty()) {
    return absl::NotFoundError(
        "clickhouse-server is not installed (scripts/install_deps.sh installs "
        "it)");
  }
  // A free port may be taken between FreePort() and the server's bind (another
  // test process): try again with new ports.
  constexpr int kTries = 3;
  absl::Status last;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    absl::StatusOr<std::unique_ptr<ClickHouseCluster>> cluster =
        TryStart(dir, shards);
    if (cluster.ok()) return cluster;
    last = cluster.status();
  }
  return last;
}

absl::StatusOr<std::unique_ptr<ClickHouseCluster>> ClickHouseCluster::TryStart(
    const std::string& dir, int shards) {
  auto cluster = std::make_unique<ClickHouseCluster>();
  cluster->binary_ = ServerBinary();
  cluster->dir_ = dir;
  std::error_code error;
  fs::remove_all(dir, error);
  for (int i = 0; i < shards; ++i) {
    Server server;
    server.dir = base::StrCat(dir, "/shard", i);
    server.http_port = FreePort();
    server.tcp_port = FreePort();
    cluster->servers_.push_back(std::move(server));
  }
  std::string shards_xml;
  for (const Server& server : cluster->servers_) {
    base::StrAppend(&shards_xml, "<shard><replica><host>127.0.0.1</host><port>",
                    server.tcp_port, "</port></replica></shard>");
  }
  for (Server& server : cluster->servers_) {
    fs::create_directories(server.dir);
    const std::string config = base::StrCat(server.dir, "/config.xml");
    std::ofstream(config)
        << "<yandex>\n"
        << "<logger><level>warning</level><console>1</console></logger>\n"
        << "<listen_host>127.0.0.1</listen_host>\n"
        << "<http_port>" << server.http_port << "</http_port><tcp_port>"
        << server.tcp_port << "</tcp_port>\n"
        << "<path>" << server.dir << "/data/</path><tmp_path>" << server.dir
        << "/tmp/</tmp_path>\n"
        << "<user_files_path>" << server.dir
        << "/user_files/</user_files_path>\n"
        << "<format_schema_path>" << server.dir
        << "/format_schemas/</format_schema_path>\n"
        << "<users_config>" << config << "</users_config>\n"
        << "<mark_cache_size>268435456</mark_cache_size>\n"
        << "<profiles><default><max_memory_usage>4000000000</"
           "max_memory_usage></default></profiles>\n"
        << "<users><default><password></password><networks><ip>127.0.0.1</ip></"
           "networks>"
        << "<profile>default</profile><quota>default</quota></default></"
           "users>\n"
        << "<quotas><default></default></quotas>\n"
        << "<remote_servers><profdiff>" << shards_xml
        << "</profdiff></remote_servers>\n"
        << "</yandex>\n";
    if (absl::Status status = cluster->Launch(server); !status.ok())
      return status;
  }
  return cluster;
}

absl::Status ClickHouseCluster::Launch(Server& server) {
  server.process = std::make_unique<ChildProcess>(std::vector<std::string>{
      binary_, base::StrCat("--config-file=", server.dir, "/config.xml")});
  aggregator::clickhouse::HttpClient client(
      base::StrCat("127.0.0.1:", server.http_port), "", absl::Seconds(5));
  if (test_support::WaitUntil([&] { return client.Query("SELECT 1").ok(); },
                              absl::Seconds(30))) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(
      base::StrCat("clickhouse-server on port ", server.http_port,
                   " did not answer within 30 s: ", server.process->Output()));
}

ClickHouseCluster::~ClickHouseCluster() {
  for (Server& server : servers_) server.process.reset();
  std::error_code error;
  if (!dir_.empty() && !leave_folder_) fs::remove_all(dir_, error);
}

std::vector<std::string> ClickHouseCluster::Addresses() const {
  std::vector<std::string> addresses;
  addresses.reserve(servers_.size());
  for (const Server& server : servers_)
    addresses.push_back(base::StrCat("127.0.0.1:", server.http_port));
  return addresses;
}

std::string ClickHouseCluster::Url(const std::string& database) const {
  return base::StrCat("clickhouse://", absl::StrJoin(Addresses(), ","), "/",
                      database);
}

void ClickHouseCluster::Kill(int shard) {
  Server& server = servers_[static_cast<size_t>(shard)];
  if (server.process == nullptr) return;
  server.process->Signal(SIGKILL);
  server.process->Wait();
  server.process.reset();
}

absl::Status ClickHouseCluster::Restart(int shard) {
  Kill(shard);
  return Launch(servers_[static_cast<size_t>(shard)]);
}

}  // namespace profdiff::testing
