// The text of an NVTX message however the application passed it: ASCII, wide
// characters (converted to UTF-8), or a string registered earlier with
// nvtxDomainRegisterString.
#ifndef PROFDIFF_AGENT_CUPTI_NVTX_MESSAGE_H_
#define PROFDIFF_AGENT_CUPTI_NVTX_MESSAGE_H_

#include <nvtx3/nvToolsExt.h>

#include <functional>
#include <string>

namespace profdiff::agent::cupti {

// Looks up a registered string handle; "" when unknown.
using RegisteredStringLookup = std::function<std::string(nvtxStringHandle_t)>;

// `text` (a NUL-terminated wide string) in UTF-8; invalid code points become
// U+FFFD.
std::string WideToUtf8(const wchar_t* text);

// The message of `attributes`; "" when it is null or carries no message.
// Messages are cut to 4096 bytes: a range name longer than that is not a name.
std::string NvtxMessageText(const nvtxEventAttributes_t* attributes,
                            const RegisteredStringLookup& registered);

inline constexpr size_t kMaxNvtxMessageBytes = 4096;

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_NVTX_MESSAGE_H_
