// Who may read the web UI: the differ's bearer token guards it as it guards
// the gRPC side. A browser proves it once at the login form and gets a session
// cookie; scripts send "Authorization: Bearer TOKEN" on every request.
#ifndef PROFDIFF_DIFFER_WEB_WEB_AUTH_H_
#define PROFDIFF_DIFFER_WEB_WEB_AUTH_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "differ/web/http_server.h"

namespace profdiff::differ::web {

inline constexpr char kSessionCookie[] = "profdiff_session";

// `chars` hex digits from the kernel's random generator (session ids, CSP
// nonces).
std::string RandomHex(size_t chars);

class WebAuth {
 public:
  // An empty `token`: everyone is let in.
  explicit WebAuth(std::string token,
                   absl::Duration session_lifetime = absl::Hours(12),
                   size_t max_sessions = 4096);

  bool required() const { return !token_.empty(); }
  // The request carries the token (bearer header) or a live session cookie.
  bool Allows(const HttpRequest& request) const;
  // A new session for a login that gave the right token (compared in constant
  // time); empty for a wrong one. The oldest session goes past max_sessions.
  std::string Login(std::string_view submitted);
  // Ends the request's session, if any.
  void Logout(const HttpRequest& request);
  // The Set-Cookie value for `session` (empty: the cookie cleared).
  std::string CookieFor(const std::string& session, bool tls) const;

 private:
  std::string SessionOf(const HttpRequest& request) const;

  const std::string token_;
  const absl::Duration lifetime_;
  const size_t max_sessions_;
  mutable absl::Mutex mu_;
  // session id -> when it ends
  mutable absl::flat_hash_map<std::string, absl::Time> sessions_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_WEB_AUTH_H_
