// Decodes one CUPTI callback of the NVTX domain (its callback id and the NVTX
// call's parameters) into what it does to host ranges: a push or pop, a start
// or end, or a registered string. Pure: tested on hand-built
// generated_nvtx_meta.h structs, without CUDA or a GPU.
#ifndef PROFDIFF_AGENT_CUPTI_NVTX_CALLBACK_H_
#define PROFDIFF_AGENT_CUPTI_NVTX_CALLBACK_H_

#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <optional>
#include <string>

#include <cupti.h>

#include "agent/cupti/nvtx_message.h"

namespace profdiff::agent::cupti {

enum class NvtxCallKind {
  kOther,           // marks, naming, sync objects, anything else: not ranges
  kPush,            // nvtxRangePush*, nvtxDomainRangePushEx
  kPop,             // nvtxRangePop, nvtxDomainRangePop
  kStart,           // nvtxRangeStart*, nvtxDomainRangeStartEx
  kEnd,             // nvtxRangeEnd, nvtxDomainRangeEnd
  kRegisterString,  // nvtxDomainRegisterStringA with a string and a handle
};

struct NvtxCall {
  NvtxCallKind kind = NvtxCallKind::kOther;
  // kPush, kStart: the range's text, at most kMaxNvtxMessageBytes.
  // kRegisterString: the registered string, cut the same way.
  std::string message;
  // kPush, kPop: the NVTX domain handle's value (each domain has its own
  // stack), 0 for the global domain.
  uintptr_t domain = 0;
  // kStart: the id the call returned, absent when CUPTI passed no return
  // value. kEnd: the id the call ends.
  std::optional<uint64_t> range_id;
  // kRegisterString: the handle the call returned.
  nvtxStringHandle_t string_handle = nullptr;
};

// What the NVTX call `cbid` (a CUPTI_CBID_NVTX_* id) with `data` does.
// `registered` resolves messages passed as registered string handles; it is
// called only for the *Ex calls whose message is one. Pointers in `data` are
// read during the call only.
NvtxCall DecodeNvtxCallback(CUpti_CallbackId cbid, const CUpti_NvtxData& data,
                            const RegisteredStringLookup& registered);

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_NVTX_CALLBACK_H_
