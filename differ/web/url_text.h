// Text that goes into the web UI's URLs: percent-encoded parts and query
// strings made from a request's arguments.
#ifndef PROFDIFF_DIFFER_WEB_URL_TEXT_H_
#define PROFDIFF_DIFFER_WEB_URL_TEXT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace profdiff::differ::web {

// Everything but A-Z a-z 0-9 - . _ ~ as %XX (RFC 3986's unreserved set).
std::string PercentEncode(std::string_view text);

// "a=1&b=x%20y" (no leading '?'); empty for no arguments.
std::string QueryString(
    const std::vector<std::pair<std::string, std::string>>& arguments);

// An application/x-www-form-urlencoded body's fields, decoded ('+' is a
// space; a malformed %XX is kept as it is).
std::vector<std::pair<std::string, std::string>> ParseForm(
    std::string_view body);

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_URL_TEXT_H_
