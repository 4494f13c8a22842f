// DecodeNvtxCallback on hand-built CUpti_NvtxData and generated_nvtx_meta.h
// parameter structs (no GPU): each range call becomes the push, pop, start or
// end it is, with its message, domain and id; registered strings are read and
// resolved; anything else is not a range.
#include "agent/cupti/nvtx_callback.h"

#include <generated_nvtx_meta.h>

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace profdiff::agent::cupti {
namespace {

// A CUpti_NvtxData for a call with `params` and, when not null, the call's
// return value at `result`.
CUpti_NvtxData DataFor(const void* params, const void* result = nullptr) {
  CUpti_NvtxData data{};
  data.functionName = "nvtx call";
  data.functionParams = params;
  data.functionReturnValue = result;
  return data;
}

nvtxEventAttributes_t AsciiAttributes(const char* message) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = message;
  return attributes;
}

// Handles and domains are opaque pointers the application only passes back.
template <typename Handle>
Handle FakeHandle(uintptr_t value) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a number on purpose, never used
  return reinterpret_cast<Handle>(value);
}

NvtxCall Decode(CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  return DecodeNvtxCallback(cbid, data, nullptr);
}

TEST(NvtxCallbackTest, RangePushAIsAPushOnTheGlobalDomain) {
  const nvtxRangePushA_params params{"aten::mm"};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangePushA, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "aten::mm");
  EXPECT_EQ(call.domain, 0u);
  EXPECT_FALSE(call.range_id.has_value());
}

TEST(NvtxCallbackTest, RangePushWIsConvertedToUtf8) {
  const nvtxRangePushW_params params{L"caf\u00e9"};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangePushW, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "caf\xc3\xa9");  // U+00E9 is C3 A9 in UTF-8
}

TEST(NvtxCallbackTest, RangePushExTakesTheAttributesMessage) {
  const nvtxEventAttributes_t attributes = AsciiAttributes("ProfilerStep#3");
  const nvtxRangePushEx_params params{&attributes};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangePushEx, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "ProfilerStep#3");
}

TEST(NvtxCallbackTest, RegisteredMessageIsResolvedThroughTheLookup) {
  const auto handle = FakeHandle<nvtxStringHandle_t>(0x5100);
  nvtxEventAttributes_t attributes = AsciiAttributes(nullptr);
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = handle;
  const nvtxRangePushEx_params params{&attributes};
  const NvtxCall call = DecodeNvtxCallback(
      CUPTI_CBID_NVTX_nvtxRangePushEx, DataFor(&params),
      [handle](nvtxStringHandle_t h) {
        return h == handle ? std::string("forward") : std::string("wrong");
      });
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "forward");
}

TEST(NvtxCallbackTest, DomainRangePushExCarriesItsDomain) {
  const nvtxEventAttributes_t attributes = AsciiAttributes("nccl:all_reduce");
  const nvtxDomainRangePushEx_params params{
      FakeHandle<nvtxDomainHandle_t>(0xd0), {&attributes}};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "nccl:all_reduce");
  EXPECT_EQ(call.domain, 0xd0u);
}

TEST(NvtxCallbackTest, RangePopIsAPopOnTheGlobalDomain) {
  const nvtxRangePop_params params{};
  const NvtxCall call = Decode(CUPTI_CBID_NVTX_nvtxRangePop, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPop);
  EXPECT_EQ(call.domain, 0u);
}

TEST(NvtxCallbackTest, DomainRangePopCarriesItsDomain) {
  const nvtxDomainRangePop_params params{FakeHandle<nvtxDomainHandle_t>(0xd0)};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPop);
  EXPECT_EQ(call.domain, 0xd0u);
}

TEST(NvtxCallbackTest, RangeStartATakesItsIdFromTheReturnValue) {
  const nvtxRangeStartA_params params{"data loading"};
  const nvtxRangeId_t id = 42;
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangeStartA, DataFor(&params, &id));
  EXPECT_EQ(call.kind, NvtxCallKind::kStart);
  EXPECT_EQ(call.message, "data loading");
  EXPECT_EQ(call.range_id, std::optional<uint64_t>(42));
}

// No return value from CUPTI: still a start (its message can open a step),
// without an id to end it by.
TEST(NvtxCallbackTest, RangeStartWithoutReturnValueHasNoId) {
  const nvtxRangeStartW_params params{L"io"};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangeStartW, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kStart);
  EXPECT_EQ(call.message, "io");
  EXPECT_FALSE(call.range_id.has_value());
}

TEST(NvtxCallbackTest, RangeStartExTakesTheAttributesMessage) {
  const nvtxEventAttributes_t attributes = AsciiAttributes("checkpoint");
  const nvtxRangeStartEx_params params{&attributes};
  const nvtxRangeId_t id = 7;
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangeStartEx, DataFor(&params, &id));
  EXPECT_EQ(call.kind, NvtxCallKind::kStart);
  EXPECT_EQ(call.message, "checkpoint");
  EXPECT_EQ(call.range_id, std::optional<uint64_t>(7));
}

TEST(NvtxCallbackTest, DomainRangeStartExTakesTheCoreMessage) {
  const nvtxEventAttributes_t attributes = AsciiAttributes("prefetch");
  const nvtxDomainRangeStartEx_params params{
      FakeHandle<nvtxDomainHandle_t>(0xd0), {&attributes}};
  const nvtxRangeId_t id = 9;
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, DataFor(&params, &id));
  EXPECT_EQ(call.kind, NvtxCallKind::kStart);
  EXPECT_EQ(call.message, "prefetch");
  EXPECT_EQ(call.range_id, std::optional<uint64_t>(9));
}

TEST(NvtxCallbackTest, RangeEndCarriesTheIdItEnds) {
  const nvtxRangeEnd_params params{42};
  const NvtxCall call = Decode(CUPTI_CBID_NVTX_nvtxRangeEnd, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kEnd);
  EXPECT_EQ(call.range_id, std::optional<uint64_t>(42));
}

TEST(NvtxCallbackTest, DomainRangeEndCarriesTheCoreId) {
  const nvtxDomainRangeEnd_params params{FakeHandle<nvtxDomainHandle_t>(0xd0),
                                         {43}};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kEnd);
  EXPECT_EQ(call.range_id, std::optional<uint64_t>(43));
}

TEST(NvtxCallbackTest, RegisterStringGivesTheHandleAndText) {
  const nvtxDomainRegisterStringA_params params{
      FakeHandle<nvtxDomainHandle_t>(0xd0), "backward"};
  const nvtxStringHandle_t handle = FakeHandle<nvtxStringHandle_t>(0x5100);
  const NvtxCall call = Decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
                               DataFor(&params, &handle));
  EXPECT_EQ(call.kind, NvtxCallKind::kRegisterString);
  EXPECT_EQ(call.message, "backward");
  EXPECT_EQ(call.string_handle, handle);
}

TEST(NvtxCallbackTest, RegisterStringWithoutHandleOrStringIsNothing) {
  const nvtxDomainRegisterStringA_params no_string{
      FakeHandle<nvtxDomainHandle_t>(0xd0), nullptr};
  const nvtxStringHandle_t handle = FakeHandle<nvtxStringHandle_t>(0x5100);
  EXPECT_EQ(Decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
                   DataFor(&no_string, &handle))
                .kind,
            NvtxCallKind::kOther);
  const nvtxDomainRegisterStringA_params params{
      FakeHandle<nvtxDomainHandle_t>(0xd0), "backward"};
  EXPECT_EQ(
      Decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, DataFor(&params)).kind,
      NvtxCallKind::kOther);
}

TEST(NvtxCallbackTest, MarkIsNotARange) {
  const nvtxMarkA_params params{"epoch 2"};
  const NvtxCall call = Decode(CUPTI_CBID_NVTX_nvtxMarkA, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kOther);
  EXPECT_EQ(call.message, "");
}

// kMaxNvtxMessageBytes = 4096: a 5000-byte message keeps its first 4096.
TEST(NvtxCallbackTest, LongMessageIsCut) {
  const std::string text(5000, 'x');
  const nvtxRangePushA_params params{text.c_str()};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangePushA, DataFor(&params));
  EXPECT_EQ(call.message, std::string(4096, 'x'));
}

TEST(NvtxCallbackTest, NullMessageIsEmpty) {
  const nvtxRangePushA_params params{nullptr};
  const NvtxCall call =
      Decode(CUPTI_CBID_NVTX_nvtxRangePushA, DataFor(&params));
  EXPECT_EQ(call.kind, NvtxCallKind::kPush);
  EXPECT_EQ(call.message, "");
}

}  // namespace
}  // namespace profdiff::agent::cupti
