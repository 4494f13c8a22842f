#include "agent/cupti/nvtx_message.h"

#include <cstdint>
#include <cstring>

namespace profdiff::agent::cupti {
namespace {

void AppendUtf8(uint32_t c, std::string& out) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string Cut(std::string text) {
  if (text.size() > kMaxNvtxMessageBytes) text.resize(kMaxNvtxMessageBytes);
  return text;
}

}  // namespace

std::string WideToUtf8(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != L'\0' && out.size() < kMaxNvtxMessageBytes; ++text) {
    AppendUtf8(static_cast<uint32_t>(*text),
               out);  // wchar_t is UTF-32 on Linux
  }
  return out;
}

std::string NvtxMessageText(const nvtxEventAttributes_t* attributes,
                            const RegisteredStringLookup& registered) {
  if (attributes == nullptr) return "";
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii == nullptr
                 ? ""
                 : std::string(attributes->message.ascii,
                               strnlen(attributes->message.ascii,
                                       kMaxNvtxMessageBytes));
    case NVTX_MESSAGE_TYPE_UNICODE:
      return Cut(WideToUtf8(attributes->message.unicode));
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return registered ? Cut(registered(attributes->message.registered)) : "";
    default:
      return "";
  }
}

}  // namespace profdiff::agent::cupti
