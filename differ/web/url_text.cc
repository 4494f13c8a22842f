#include "differ/web/url_text.h"

#include <absl/strings/ascii.h>

namespace profdiff::differ::web {

std::string PercentEncode(std::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(byte) || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

std::string QueryString(
    const std::vector<std::pair<std::string, std::string>>& arguments) {
  std::string out;
  for (const auto& [key, value] : arguments) {
    if (!out.empty()) out.push_back('&');
    out += PercentEncode(key);
    out.push_back('=');
    out += PercentEncode(value);
  }
  return out;
}

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string FormDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() &&
               HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 +
                                      HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ParseForm(
    std::string_view body) {
  std::vector<std::pair<std::string, std::string>> fields;
  while (!body.empty()) {
    const size_t end = body.find('&');
    const std::string_view field = body.substr(0, end);
    body = end == std::string_view::npos ? std::string_view()
                                         : body.substr(end + 1);
    if (field.empty()) continue;
    const size_t eq = field.find('=');
    fields.emplace_back(
        FormDecode(field.substr(0, eq)),
        eq == std::string_view::npos ? "" : FormDecode(field.substr(eq + 1)));
  }
  return fields;
}

}  // namespace profdiff::differ::web
