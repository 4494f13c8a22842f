#include "differ/web/web_auth.h"

#include <algorithm>
#include <array>
#include <random>

#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "base/str_cat.h"
#include "rpc/bearer_token_checker.h"

namespace profdiff::differ::web {
std::string RandomHex(size_t chars) {
  std::random_device device;  // the kernel's generator (getrandom)
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  while (out.size() < chars) {
    const uint32_t word = device();
    for (int shift = 0; shift < 32 && out.size() < chars; shift += 4) {
      out.push_back(kHex[(word >> shift) & 0xf]);
    }
  }
  return out;
}

WebAuth::WebAuth(std::string token, absl::Duration session_lifetime,
                 size_t max_sessions)
    : token_(std::move(token)),
      lifetime_(session_lifetime),
      max_sessions_(std::max<size_t>(max_sessions, 1)) {}

std::string WebAuth::SessionOf(const HttpRequest& request) const {
  for (absl::string_view part : absl::StrSplit(request.cookie, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, kSessionCookie) &&
        absl::ConsumePrefix(&part, "=")) {
      return std::string(part);
    }
  }
  return "";
}

bool WebAuth::Allows(const HttpRequest& request) const {
  if (!required()) return true;
  absl::string_view header = request.authorization;
  if (absl::ConsumePrefix(&header, "Bearer ")) {
    return rpc::ConstantTimeEquals(
        std::string_view(header.data(), header.size()), token_);
  }
  const std::string session = SessionOf(request);
  if (session.empty()) return false;
  absl::MutexLock lock(&mu_);
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return false;
  if (it->second < absl::Now()) {
    sessions_.erase(it);
    return false;
  }
  return true;
}

std::string WebAuth::Login(std::string_view submitted) {
  if (!required() || !rpc::ConstantTimeEquals(submitted, token_)) return "";
  std::string session = RandomHex(64);  // 256 bits
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  absl::erase_if(sessions_,
                 [&](const auto& entry) { return entry.second < now; });
  if (sessions_.size() >= max_sessions_) {
    auto oldest = std::min_element(
        sessions_.begin(), sessions_.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    sessions_.erase(oldest);
  }
  sessions_[session] = now + lifetime_;
  return session;
}

void WebAuth::Logout(const HttpRequest& request) {
  const std::string session = SessionOf(request);
  absl::MutexLock lock(&mu_);
  sessions_.erase(session);
}

std::string WebAuth::CookieFor(const std::string& session, bool tls) const {
  // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends
  // it along; Secure over TLS.
  return base::StrCat(
      kSessionCookie, "=", session, "; Path=/; HttpOnly; SameSite=Strict",
      tls ? "; Secure" : "",
      session.empty()
          ? "; Max-Age=0"
          : base::StrCat("; Max-Age=", absl::ToInt64Seconds(lifetime_)));
}

}  // namespace profdiff::differ::web
