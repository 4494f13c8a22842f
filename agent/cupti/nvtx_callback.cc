#include "agent/cupti/nvtx_callback.h"

#include <generated_nvtx_meta.h>

#include <cstring>
#include <utility>

namespace profdiff::agent::cupti {
namespace {

std::string Text(const char* text) {
  return text == nullptr
             ? std::string()
             : std::string(text, strnlen(text, kMaxNvtxMessageBytes));
}

// The call's parameters, as the struct generated_nvtx_meta.h declares for it.
template <typename Params>
const Params& ParamsOf(const CUpti_NvtxData& data) {
  return *static_cast<const Params*>(data.functionParams);
}

// Calls are built field by field: gcc's -Wmissing-field-initializers refuses
// designated initializers that leave out the string and optional members.
NvtxCall Push(std::string message, uintptr_t domain = 0) {
  NvtxCall call;
  call.kind = NvtxCallKind::kPush;
  call.message = std::move(message);
  call.domain = domain;
  return call;
}

NvtxCall Pop(uintptr_t domain = 0) {
  NvtxCall call;
  call.kind = NvtxCallKind::kPop;
  call.domain = domain;
  return call;
}

// A start's id is the call's return value.
NvtxCall Start(std::string message, const CUpti_NvtxData& data) {
  NvtxCall call;
  call.kind = NvtxCallKind::kStart;
  call.message = std::move(message);
  if (data.functionReturnValue != nullptr)
    call.range_id =
        *static_cast<const nvtxRangeId_t*>(data.functionReturnValue);
  return call;
}

NvtxCall End(uint64_t range_id) {
  NvtxCall call;
  call.kind = NvtxCallKind::kEnd;
  call.range_id = range_id;
  return call;
}

NvtxCall Decode(CUpti_CallbackId cbid, const CUpti_NvtxData& data,
                const RegisteredStringLookup& registered) {
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      return Push(Text(ParamsOf<nvtxRangePushA_params>(data).message));
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      return Push(WideToUtf8(ParamsOf<nvtxRangePushW_params>(data).message));
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      return Push(NvtxMessageText(
          ParamsOf<nvtxRangePushEx_params>(data).eventAttrib, registered));
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto& p = ParamsOf<nvtxDomainRangePushEx_params>(data);
      return Push(NvtxMessageText(p.core.eventAttrib, registered),
                  reinterpret_cast<uintptr_t>(p.domain));
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
      return Pop();
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      return Pop(reinterpret_cast<uintptr_t>(
          ParamsOf<nvtxDomainRangePop_params>(data).domain));
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
      return Start(Text(ParamsOf<nvtxRangeStartA_params>(data).message), data);
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
      return Start(WideToUtf8(ParamsOf<nvtxRangeStartW_params>(data).message),
                   data);
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
      return Start(
          NvtxMessageText(ParamsOf<nvtxRangeStartEx_params>(data).eventAttrib,
                          registered),
          data);
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
      return Start(
          NvtxMessageText(
              ParamsOf<nvtxDomainRangeStartEx_params>(data).core.eventAttrib,
              registered),
          data);
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
      return End(ParamsOf<nvtxRangeEnd_params>(data).id);
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
      return End(ParamsOf<nvtxDomainRangeEnd_params>(data).core.id);
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const auto& p = ParamsOf<nvtxDomainRegisterStringA_params>(data);
      if (data.functionReturnValue == nullptr || p.string == nullptr) return {};
      NvtxCall call;
      call.kind = NvtxCallKind::kRegisterString;
      call.message = Text(p.string);
      call.string_handle =
          *static_cast<const nvtxStringHandle_t*>(data.functionReturnValue);
      return call;
    }
    default:
      return {};
  }
}

}  // namespace

NvtxCall DecodeNvtxCallback(CUpti_CallbackId cbid, const CUpti_NvtxData& data,
                            const RegisteredStringLookup& registered) {
  NvtxCall call = Decode(cbid, data, registered);
  if (call.message.size() > kMaxNvtxMessageBytes)
    call.message.resize(kMaxNvtxMessageBytes);
  return call;
}

}  // namespace profdiff::agent::cupti
