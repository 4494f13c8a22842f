#include "rpc/keepalive.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "base/parse_int.h"

namespace profdiff::rpc {
namespace {

std::optional<absl::Duration> OverriddenTime() {
  const char* text = std::getenv("PROFDIFF_GRPC_KEEPALIVE_MS");
  if (text == nullptr || *text == '\0') return std::nullopt;
  int64_t millis = 0;
  if (!base::ParseInt64(text, millis) || millis < 1) return std::nullopt;
  return absl::Milliseconds(millis);
}

Keepalive Make(absl::Duration time, absl::Duration timeout) {
  if (const std::optional<absl::Duration> overridden = OverriddenTime()) {
    return {*overridden, std::max(absl::Milliseconds(1), *overridden / 3)};
  }
  return {time, timeout};
}

}  // namespace

Keepalive ClientKeepalive() {
  return Make(absl::Seconds(30), absl::Seconds(10));
}
Keepalive ServerKeepalive() {
  return Make(absl::Seconds(60), absl::Seconds(20));
}

int GrpcMillis(absl::Duration duration) {
  return static_cast<int>(
      std::clamp<int64_t>(absl::ToInt64Milliseconds(duration), 1, INT32_MAX));
}

absl::Duration MinClientPingInterval() {
  return std::min(absl::Seconds(5), ClientKeepalive().time);
}

}  // namespace profdiff::rpc
