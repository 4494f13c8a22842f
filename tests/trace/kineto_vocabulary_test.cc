// The Kineto vocabulary: which raw keys are which event fields and arguments
// (every spelling PyTorch has used, and the near misses that are not), which
// categories are which kinds, and the names and phase letters that carry a
// meaning.
#include "trace/kineto_vocabulary.h"

#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

// Raw key text as simdjson hands it over: the key after its opening quote,
// the closing quote, the rest of the input and padding.
std::string RawKey(std::string_view key) {
  std::string raw(key);
  raw.append("\": 1");
  raw.append(64, ' ');
  return raw;
}

EventField Classify(std::string_view key) {
  return ClassifyEventField(RawKey(key).data());
}

const ArgName* FindArg(const ArgNameTable& table, std::string_view key) {
  return table.Find(RawKey(key).data());
}

TEST(KinetoVocabularyTest, ClassifiesEveryEventField) {
  EXPECT_EQ(Classify("ph"), EventField::kPh);
  EXPECT_EQ(Classify("cat"), EventField::kCat);
  EXPECT_EQ(Classify("name"), EventField::kName);
  EXPECT_EQ(Classify("pid"), EventField::kPid);
  EXPECT_EQ(Classify("tid"), EventField::kTid);
  EXPECT_EQ(Classify("ts"), EventField::kTs);
  EXPECT_EQ(Classify("dur"), EventField::kDur);
  EXPECT_EQ(Classify("id"), EventField::kId);
  EXPECT_EQ(Classify("bp"), EventField::kBp);
  EXPECT_EQ(Classify("args"), EventField::kArgs);
}

TEST(KinetoVocabularyTest, NearMissEventFieldsAreUnknown) {
  EXPECT_EQ(Classify("phase"), EventField::kUnknown);  // "ph" + more
  EXPECT_EQ(Classify("p"), EventField::kUnknown);      // a prefix of "ph"
  EXPECT_EQ(Classify("Ph"), EventField::kUnknown);     // case matters
  EXPECT_EQ(Classify("s"), EventField::kUnknown);      // instant scope
  EXPECT_EQ(Classify(""), EventField::kUnknown);
  EXPECT_EQ(Classify(R"(\u0070h)"), EventField::kUnknown);  // escaped "ph"
}

TEST(KinetoVocabularyTest, EventFieldNameSpellsTheKey) {
  for (std::string_view key :
       {"ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "bp", "args"}) {
    EXPECT_EQ(EventFieldName(Classify(key)), key);
  }
  EXPECT_EQ(EventFieldName(EventField::kUnknown), "");
}

TEST(KinetoVocabularyTest, FindsBothExternalIdSpellings) {
  const ArgNameTable table;
  const ArgName* modern = FindArg(table, "External id");
  const ArgName* old = FindArg(table, "external id");  // PyTorch 2021
  ASSERT_NE(modern, nullptr);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(modern->slot, ArgSlot::kExternalId);
  EXPECT_EQ(old->slot, ArgSlot::kExternalId);
  EXPECT_EQ(modern->json, "External id");
  EXPECT_EQ(old->json, "external id");
}

TEST(KinetoVocabularyTest, FindsEachIdColumn) {
  const ArgNameTable table;
  const std::pair<std::string_view, ArgSlot> expected[] = {
      {"correlation", ArgSlot::kCorrelation},
      {"Sequence number", ArgSlot::kSequenceNumber},
      {"Fwd thread id", ArgSlot::kForwardThreadId},
      {"Python id", ArgSlot::kPythonId},
      {"Python parent id", ArgSlot::kPythonParentId},
  };
  for (const auto& [key, slot] : expected) {
    const ArgName* name = FindArg(table, key);
    ASSERT_NE(name, nullptr) << key;
    EXPECT_EQ(name->slot, slot) << key;
    EXPECT_EQ(name->key, ArgKey::kUnspecified) << key;
  }
}

TEST(KinetoVocabularyTest, FindsInputShapesInBothSpellings) {
  const ArgNameTable table;
  const ArgName* kineto = FindArg(table, "Input Dims");
  const ArgName* legacy = FindArg(table, "Input dims");
  ASSERT_NE(kineto, nullptr);
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(kineto->slot, ArgSlot::kInputShapes);
  EXPECT_EQ(legacy->slot, ArgSlot::kInputShapes);
}

TEST(KinetoVocabularyTest, FindsEveryTypedArgumentByItsJsonName) {
  const ArgNameTable table;
  for (int k = 1; k < kArgKeyCount; ++k) {
    const auto key = static_cast<ArgKey>(k);
    if (key == ArgKey::kFlowBindingEnclosing) continue;
    const ArgName* name = FindArg(table, ArgJsonName(key));
    ASSERT_NE(name, nullptr) << ArgJsonName(key);
    EXPECT_EQ(name->slot, ArgSlot::kTyped) << ArgJsonName(key);
    EXPECT_EQ(name->key, key) << ArgJsonName(key);
  }
  const ArgName* grid = FindArg(table, "grid");
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->key, ArgKey::kGrid);
}

// "bp" is read as an event field; inside "args" it is not an argument.
TEST(KinetoVocabularyTest, BindingPointIsNotAnArgument) {
  const ArgNameTable table;
  EXPECT_EQ(FindArg(table, "bp"), nullptr);
}

TEST(KinetoVocabularyTest, NearMissArgumentsAreNotFound) {
  const ArgNameTable table;
  EXPECT_EQ(FindArg(table, "External ids"), nullptr);  // a known name + more
  EXPECT_EQ(FindArg(table, "External"), nullptr);      // a prefix
  EXPECT_EQ(FindArg(table, "External ID"), nullptr);   // case matters
  EXPECT_EQ(FindArg(table, "Python"), nullptr);
  // Same first 8 bytes as "Sequence number", then different.
  EXPECT_EQ(FindArg(table, "Sequence numbers"), nullptr);
  EXPECT_EQ(FindArg(table, "Sequence id"), nullptr);
  EXPECT_EQ(FindArg(table, "Call stack"), nullptr);
  EXPECT_EQ(FindArg(table, R"(External\u0020id)"), nullptr);  // escaped
}

TEST(KinetoVocabularyTest, CategoriesOfEachKind) {
  EXPECT_EQ(KindOfCategory("cpu_op"), EventKind::kCpuOp);
  EXPECT_EQ(KindOfCategory("Operator"), EventKind::kCpuOp);  // legacy Kineto
  EXPECT_EQ(KindOfCategory("user_annotation"), EventKind::kUserAnnotation);
  EXPECT_EQ(KindOfCategory("gpu_user_annotation"),
            EventKind::kGpuUserAnnotation);
  EXPECT_EQ(KindOfCategory("python_function"), EventKind::kPythonFunction);
  EXPECT_EQ(KindOfCategory("cuda_runtime"), EventKind::kRuntime);
  EXPECT_EQ(KindOfCategory("hip_runtime"), EventKind::kRuntime);
  EXPECT_EQ(KindOfCategory("cuda_driver"), EventKind::kDriver);
  EXPECT_EQ(KindOfCategory("cuda_sync"), EventKind::kSync);
  EXPECT_EQ(KindOfCategory("kernel"), EventKind::kKernel);
  EXPECT_EQ(KindOfCategory("gpu_memcpy"), EventKind::kMemcpy);
  EXPECT_EQ(KindOfCategory("Memcpy"), EventKind::kMemcpy);
  EXPECT_EQ(KindOfCategory("gpu_memset"), EventKind::kMemset);
  EXPECT_EQ(KindOfCategory("overhead"), EventKind::kOverhead);
  EXPECT_EQ(KindOfCategory("Trace"), EventKind::kTraceSpan);
  EXPECT_EQ(KindOfCategory("cpu_instant_event"), EventKind::kInstant);
}

TEST(KinetoVocabularyTest, CategoriesMatchInAnyCase) {
  EXPECT_EQ(KindOfCategory("CPU_OP"), EventKind::kCpuOp);
  EXPECT_EQ(KindOfCategory("Kernel"), EventKind::kKernel);
  EXPECT_EQ(KindOfCategory("CUDA_Runtime"), EventKind::kRuntime);
}

TEST(KinetoVocabularyTest, UnknownCategoryIsOther) {
  EXPECT_EQ(KindOfCategory("mystery_category"), EventKind::kOther);
  EXPECT_EQ(KindOfCategory("ac2g"), EventKind::kOther);
  EXPECT_EQ(KindOfCategory("cpu_op "), EventKind::kOther);  // not trimmed
  EXPECT_EQ(KindOfCategory(""), EventKind::kOther);
}

TEST(KinetoVocabularyTest, StepAndModuleNamesRefineTheCategoryKind) {
  EXPECT_EQ(
      KindOfCategorizedEvent(EventKind::kUserAnnotation, "ProfilerStep#4"),
      EventKind::kProfilerStep);
  EXPECT_EQ(KindOfCategorizedEvent(EventKind::kCpuOp, "ProfilerStep#0"),
            EventKind::kProfilerStep);
  EXPECT_EQ(
      KindOfCategorizedEvent(EventKind::kPythonFunction, "nn.Module: Linear_0"),
      EventKind::kModule);
  // The names only mean this in those categories.
  EXPECT_EQ(KindOfCategorizedEvent(EventKind::kKernel, "ProfilerStep#4"),
            EventKind::kKernel);
  EXPECT_EQ(
      KindOfCategorizedEvent(EventKind::kUserAnnotation, "nn.Module: Linear_0"),
      EventKind::kUserAnnotation);
  EXPECT_EQ(KindOfCategorizedEvent(EventKind::kCpuOp, "aten::mm"),
            EventKind::kCpuOp);
}

TEST(KinetoVocabularyTest, UncategorizedEventsAreOpsStepsOrAnnotations) {
  EXPECT_EQ(KindOfUncategorizedEvent("aten::mm"), EventKind::kCpuOp);
  EXPECT_EQ(KindOfUncategorizedEvent("ProfilerStep#2"),
            EventKind::kProfilerStep);
  EXPECT_EQ(KindOfUncategorizedEvent("nn.Module: Conv2d"),
            EventKind::kUserAnnotation);
  // The prefix must be exact.
  EXPECT_EQ(KindOfUncategorizedEvent("profilerstep#2"), EventKind::kCpuOp);
}

TEST(KinetoVocabularyTest, MemoryInstantsAreMemoryEvents) {
  EXPECT_EQ(KindOfInstantEvent("[memory]"), EventKind::kMemory);
  EXPECT_EQ(KindOfInstantEvent("[memory] "), EventKind::kInstant);
  EXPECT_EQ(KindOfInstantEvent("marker"), EventKind::kInstant);
}

TEST(KinetoVocabularyTest, PhaseLetters) {
  EXPECT_EQ(PhaseOfLetter('X'), EventPhase::kComplete);
  EXPECT_EQ(PhaseOfLetter('i'), EventPhase::kInstant);
  EXPECT_EQ(PhaseOfLetter('I'), EventPhase::kInstant);
  EXPECT_EQ(PhaseOfLetter('s'), EventPhase::kFlowStart);
  EXPECT_EQ(PhaseOfLetter('t'), EventPhase::kFlowStep);
  EXPECT_EQ(PhaseOfLetter('f'), EventPhase::kFlowEnd);
  EXPECT_EQ(PhaseOfLetter('C'), EventPhase::kCounter);
  EXPECT_EQ(PhaseOfLetter('M'), EventPhase::kMetadata);
}

TEST(KinetoVocabularyTest, PhasesPyTorchDoesNotWriteAreNotKnown) {
  EXPECT_EQ(PhaseOfLetter('B'), std::nullopt);  // begin/end pairs
  EXPECT_EQ(PhaseOfLetter('E'), std::nullopt);
  EXPECT_EQ(PhaseOfLetter('b'), std::nullopt);  // async
  EXPECT_EQ(PhaseOfLetter('x'), std::nullopt);
}

}  // namespace
}  // namespace profdiff::trace
