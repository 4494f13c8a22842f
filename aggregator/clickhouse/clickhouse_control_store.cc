#include "aggregator/clickhouse/clickhouse_control_store.h"

#include <utility>
#include <vector>

#include <absl/strings/escaping.h>
#include <absl/strings/str_split.h>
#include <absl/time/time.h>

#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/http_client.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

using clickhouse::HttpClient;
using clickhouse::RowBinaryWriter;
using clickhouse_parts::Quote;

constexpr absl::Duration kControlQueryTimeout = absl::Seconds(10);

// The messages of a one-column TSV of hex-encoded protos.
template <typename Message>
absl::StatusOr<std::vector<Message>> ParseHexRows(std::string_view body,
                                                  std::string_view table) {
  std::vector<Message> out;
  for (absl::string_view line :
       absl::StrSplit(base::ToAbsl(body), '\n', absl::SkipEmpty())) {
    Message message;
    if (!message.ParseFromString(absl::HexStringToBytes(line))) {
      return absl::DataLossError(
          base::StrCat("clickhouse ", table, ": a row does not parse"));
    }
    out.push_back(std::move(message));
  }
  return out;
}

class ClickHouseControlStore final : public ControlStore {
 public:
  explicit ClickHouseControlStore(std::unique_ptr<HttpClient> client)
      : client_(std::move(client)) {}

  absl::Status PutAgents(const std::vector<v1::AgentStatus>& agents) override {
    std::string rows;
    RowBinaryWriter writer(rows);
    for (const v1::AgentStatus& agent : agents) {
      writer.String(agent.agent_id());
      writer.Number<int64_t>(agent.seen_unix_ms());
      writer.String(agent.SerializeAsString());
    }
    return Annotated(client_->Insert(
        "INSERT INTO control_agents (agent_id, seen_ms, status) FORMAT "
        "RowBinary",
        rows));
  }

  absl::StatusOr<std::vector<v1::AgentStatus>> ListAgents(
      absl::Time seen_since) const override {
    PD_ASSIGN_OR_RETURN(
        const std::string body,
        Read(base::StrCat(
            "SELECT hex(argMax(status, seen_ms)) FROM control_agents GROUP BY "
            "agent_id HAVING max(seen_ms) >= ",
            absl::ToUnixMillis(seen_since), " ORDER BY agent_id FORMAT TSV")));
    return ParseHexRows<v1::AgentStatus>(body, "control_agents");
  }

  absl::Status PutCapture(const v1::Capture& capture) override {
    std::string rows;
    RowBinaryWriter writer(rows);
    writer.String(capture.capture_id());
    writer.Number<int64_t>(capture.created_unix_ms());
    writer.Number<uint8_t>(static_cast<uint8_t>(capture.state()));
    writer.String(capture.SerializeAsString());
    return Annotated(client_->Insert(
        "INSERT INTO control_captures (capture_id, created_ms, version, "
        "capture) FORMAT RowBinary",
        rows));
  }

  absl::StatusOr<std::optional<v1::Capture>> GetCapture(
      std::string_view capture_id) const override {
    PD_ASSIGN_OR_RETURN(
        const std::string body,
        Read(base::StrCat("SELECT hex(argMax(capture, version)) FROM "
                          "control_captures WHERE capture_id = ",
                          Quote(capture_id),
                          " GROUP BY capture_id FORMAT TSV")));
    PD_ASSIGN_OR_RETURN(std::vector<v1::Capture> captures,
                        ParseHexRows<v1::Capture>(body, "control_captures"));
    if (captures.empty()) return std::nullopt;
    return std::move(captures.front());
  }

  absl::StatusOr<std::vector<v1::Capture>> ListCaptures(
      absl::Time created_since) const override {
    PD_ASSIGN_OR_RETURN(
        const std::string body,
        Read(base::StrCat("SELECT hex(argMax(capture, version)) FROM "
                          "control_captures WHERE created_ms >= ",
                          absl::ToUnixMillis(created_since),
                          " GROUP BY capture_id ORDER BY capture_id FORMAT "
                          "TSV")));
    return ParseHexRows<v1::Capture>(body, "control_captures");
  }

  absl::Status PutAnswer(const v1::CaptureAnswer& answer) override {
    std::string rows;
    RowBinaryWriter writer(rows);
    writer.String(answer.capture_id());
    writer.String(answer.agent_id());
    writer.String(answer.SerializeAsString());
    return Annotated(client_->Insert(
        "INSERT INTO control_answers (capture_id, agent_id, answer) FORMAT "
        "RowBinary",
        rows));
  }

  absl::StatusOr<std::vector<v1::CaptureAnswer>> ListAnswers(
      std::string_view capture_id) const override {
    // FINAL: an agent's rows replace each other in the order they were
    // stored (each is the merge of the ones before, capture_coordinator.cc),
    // and until ClickHouse merges their parts a GROUP BY's any() may pick an
    // older one.
    PD_ASSIGN_OR_RETURN(
        const std::string body,
        Read(base::StrCat("SELECT hex(answer) FROM control_answers FINAL "
                          "WHERE capture_id = ",
                          Quote(capture_id), " ORDER BY agent_id FORMAT TSV")));
    return ParseHexRows<v1::CaptureAnswer>(body, "control_answers");
  }

 private:
  absl::Status Annotated(const absl::Status& status) const {
    return base::Annotate(status,
                          base::StrCat("clickhouse ", client_->address()));
  }

  absl::StatusOr<std::string> Read(const std::string& sql) const {
    absl::StatusOr<std::string> body = client_->Query(sql);
    if (!body.ok()) return Annotated(body.status());
    return body;
  }

  std::unique_ptr<HttpClient> client_;
};

}  // namespace

std::vector<std::string> ControlSchemaStatements(const std::string& database) {
  return {
      base::StrCat("CREATE TABLE IF NOT EXISTS ", database,
                   ".control_agents (agent_id String, seen_ms Int64, status "
                   "String) ENGINE = ReplacingMergeTree(seen_ms) ORDER BY "
                   "agent_id"),
      base::StrCat("CREATE TABLE IF NOT EXISTS ", database,
                   ".control_captures (capture_id String, created_ms Int64, "
                   "version UInt8, capture String) ENGINE = "
                   "ReplacingMergeTree(version) ORDER BY capture_id"),
      base::StrCat("CREATE TABLE IF NOT EXISTS ", database,
                   ".control_answers (capture_id String, agent_id String, "
                   "answer String) ENGINE = ReplacingMergeTree ORDER BY "
                   "(capture_id, agent_id)"),
  };
}

absl::StatusOr<std::unique_ptr<ControlStore>> OpenClickHouseControlStore(
    const StoreOptions& options) {
  PD_ASSIGN_OR_RETURN(const clickhouse::ClickHouseUrl url,
                      clickhouse::ParseClickHouseUrl(options.clickhouse_url));
  const std::string& shard = url.shards.front();
  auto client =
      std::make_unique<HttpClient>(shard, url.database, kControlQueryTimeout);
  for (const std::string& statement : ControlSchemaStatements(url.database)) {
    PD_RETURN_IF_ERROR(base::Annotate(
        client->Query(statement).status(),
        base::StrCat("clickhouse ", shard, ": creating the control tables")));
  }
  return std::make_unique<ClickHouseControlStore>(std::move(client));
}

}  // namespace profdiff::aggregator
