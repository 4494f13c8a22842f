// The JSON writer against protobuf's printer, its reference: real reports and
// profiles, then messages of every printed type filled at random through
// reflection (every field kind, presence, tricky strings and bytes that are not
// UTF-8, NaN and signed zeros, enum numbers no build knows).
#include "client/json_writer.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include "analysis/run_loader.h"
#include "base/str_cat.h"
#include "client/json_output.h"
#include "differ/differ.h"
#include "profdiff/v1/agents.pb.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/differ.pb.h"
#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.pb.h"
#include "profdiff/v1/trace.pb.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
namespace {

namespace pb = google::protobuf;

std::string Protobuf(const pb::Message& message) {
  // Serializing a string that is not UTF-8 logs an error; the text is the same.
  const pb::LogSilencer quiet;
  absl::StatusOr<std::string> json = ToJsonWithProtobuf(message);
  EXPECT_TRUE(json.ok()) << json.status();
  return json.ok() ? *json : "";
}

std::string Ours(const pb::Message& message) {
  std::string out;
  WriteJson(message, out);
  return out;
}

// The first line where the two differ, for a readable failure.
std::string FirstDifference(const std::string& expected,
                            const std::string& actual) {
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i])
    ++i;
  const size_t from = expected.rfind('\n', i) == std::string::npos
                          ? 0
                          : expected.rfind('\n', i) + 1;
  return "at byte " + std::to_string(i) + ": protobuf\n" +
         expected.substr(from, i - from + 60) + "\nours\n" +
         actual.substr(from, i - from + 60);
}

void ExpectSameJson(const pb::Message& message) {
  ASSERT_TRUE(CanWriteJson(*message.GetDescriptor()))
      << message.GetDescriptor()->full_name();
  const std::string expected = Protobuf(message);
  const std::string actual = Ours(message);
  EXPECT_TRUE(expected == actual) << message.GetDescriptor()->full_name() << " "
                                  << FirstDifference(expected, actual);
}

TEST(JsonWriterTest, RealReportsAndProfilesPrintAsProtobufPrintsThem) {
  const auto h200 = test_support::TracesDir() / "profdiff_h200";
  const std::string fp32 =
      (h200 / "transformer-fp32.pt.trace.json.gz").string();
  const std::string bf16 =
      (h200 / "transformer-bf16.pt.trace.json.gz").string();
  if (!std::filesystem::exists(fp32) || !std::filesystem::exists(bf16))
    GTEST_SKIP() << "SKIPPED: the H200 pair is not under " << h200;
  absl::StatusOr<std::vector<v1::RunProfile>> runs =
      analysis::LoadRuns({{fp32}, {bf16}}, {});
  ASSERT_TRUE(runs.ok()) << runs.status();
  ExpectSameJson((*runs)[0]);
  absl::StatusOr<v1::DiffReport> report =
      differ::DiffRuns((*runs)[0], (*runs)[1], {});
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectSameJson(*report);
  v1::DiffOptions hta;
  hta.set_compare(v1::COMPARE_MODE_HTA);
  hta.set_min_change_pct(0);  // a proto3 optional set to its zero
  report = differ::DiffRuns((*runs)[0], (*runs)[1], hta);
  ASSERT_TRUE(report.ok()) << report.status();
  ExpectSameJson(*report);
}

// Strings the escaper must get right: every class of code point it escapes,
// and every way a byte sequence can fail to be UTF-8.
const std::vector<std::string>& TrickyStrings() {
  static const std::vector<std::string> strings = {
      "",
      "aten::mm",
      "quote \" backslash \\ slash /",
      "<script>&amp;</script>",
      std::string("nul \0 inside", 12),
      "\x01\x07\x08\x09\x0a\x0b\x0c\x0d\x1f\x7f",
      "\xc2\x80\xc2\x9f\xc2\xa0\xc2\xad",      // C1, nbsp, soft hyphen
      "\xd8\x80\xdb\x9d\xdc\x8f\xe1\x9e\xb4",  // Arabic, Syriac, Khmer
      "\xe2\x80\x8b\xe2\x80\xa8\xe2\x80\xae\xe2\x81\xa0",  // zero width, LS,
                                                           // RLO
      "\xef\xbb\xbf\xef\xbf\xb9\xef\xbf\xbb",              // BOM, annotations
      "\xf3\xa0\x80\x81\xf3\xa0\x81\xbf\xf0\x9d\x85\xb3",  // tags, music
      "\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80",         // CJK, emoji
      "\x80 lone continuation",
      "\xc3( bad second byte",
      "\xe2\x82 cut three",
      "cut at the end \xe2\x82",
      "\xed\xa0\x80 surrogate",
      "\xf4\x90\x80\x80 past U+10FFFF",
      "\xc0\x80 overlong nul \xc1\x81 overlong A",
      "\xf8\x88\x80\x80\x80 five bytes \xff\xfe",
  };
  return strings;
}

double RandomDouble(std::mt19937_64& random) {
  static const double kDoubles[] = {
      0.0,
      -0.0,
      1.0,
      -1.0,
      0.1,
      1.0 / 3,
      2.5,
      123456789012345.0,
      999999999999999.0,
      1e15,
      1e15 + 1,
      -1e16,
      1e21,
      1e300,
      1e-7,
      5e-324,
      std::numeric_limits<double>::min(),
      std::numeric_limits<double>::max(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      150109880320.0,
      0.30000000000000004,
  };
  switch (random() % 3) {
    case 0:
      return kDoubles[random() % std::size(kDoubles)];
    case 1: {
      const uint64_t bits = random();
      double value;
      std::memcpy(&value, &bits, sizeof(value));
      return value;
    }
    default:
      return std::ldexp(static_cast<double>(random() % 100000) - 50000,
                        static_cast<int>(random() % 80) - 40);
  }
}

std::string RandomString(std::mt19937_64& random) {
  const std::vector<std::string>& tricky = TrickyStrings();
  if (random() % 2 == 0) return tricky[random() % tricky.size()];
  std::string bytes(random() % 12, '\0');
  for (char& c : bytes) c = static_cast<char>(random() % 256);
  return bytes;
}

int64_t RandomInteger(std::mt19937_64& random) {
  static const int64_t kIntegers[] = {0,
                                      1,
                                      -1,
                                      std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int32_t>::min(),
                                      std::numeric_limits<int32_t>::max()};
  return random() % 2 == 0 ? kIntegers[random() % std::size(kIntegers)]
                           : static_cast<int64_t>(random());
}

// Sets each field of `message` at random (about half of them), up to `depth`
// messages deep.
void Fill(pb::Message& message, std::mt19937_64& random, int depth) {
  const pb::Descriptor& type = *message.GetDescriptor();
  const pb::Reflection& reflection = *message.GetReflection();
  for (int i = 0; i < type.field_count(); ++i) {
    const pb::FieldDescriptor* field = type.field(i);
    if (random() % 2 == 0) continue;
    const bool is_message =
        field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
    if (is_message && depth == 0) continue;
    const int count = field->is_repeated() ? static_cast<int>(random() % 4) : 1;
    for (int k = 0; k < count; ++k) {
      const bool add = field->is_repeated();
      switch (field->cpp_type()) {
        case pb::FieldDescriptor::CPPTYPE_DOUBLE:
          add ? reflection.AddDouble(&message, field, RandomDouble(random))
              : reflection.SetDouble(&message, field, RandomDouble(random));
          break;
        case pb::FieldDescriptor::CPPTYPE_FLOAT:
          break;
        case pb::FieldDescriptor::CPPTYPE_INT32: {
          const auto v = static_cast<int32_t>(RandomInteger(random));
          add ? reflection.AddInt32(&message, field, v)
              : reflection.SetInt32(&message, field, v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_UINT32: {
          const auto v = static_cast<uint32_t>(RandomInteger(random));
          add ? reflection.AddUInt32(&message, field, v)
              : reflection.SetUInt32(&message, field, v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_INT64: {
          const int64_t v = RandomInteger(random);
          add ? reflection.AddInt64(&message, field, v)
              : reflection.SetInt64(&message, field, v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_UINT64: {
          const auto v = static_cast<uint64_t>(RandomInteger(random));
          add ? reflection.AddUInt64(&message, field, v)
              : reflection.SetUInt64(&message, field, v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_BOOL:
          add ? reflection.AddBool(&message, field, random() % 2 == 0)
              : reflection.SetBool(&message, field, random() % 2 == 0);
          break;
        case pb::FieldDescriptor::CPPTYPE_ENUM: {
          // A known value, 0, or a number this build does not know.
          const pb::EnumDescriptor& e = *field->enum_type();
          const int v =
              random() % 3 == 0
                  ? static_cast<int>(random() % 1000) - 500
                  : e.value(static_cast<int>(random() % e.value_count()))
                        ->number();
          add ? reflection.AddEnumValue(&message, field, v)
              : reflection.SetEnumValue(&message, field, v);
          break;
        }
        case pb::FieldDescriptor::CPPTYPE_STRING:
          add ? reflection.AddString(&message, field, RandomString(random))
              : reflection.SetString(&message, field, RandomString(random));
          break;
        case pb::FieldDescriptor::CPPTYPE_MESSAGE:
          Fill(add ? *reflection.AddMessage(&message, field)
                   : *reflection.MutableMessage(&message, field),
               random, depth - 1);
          break;
      }
    }
  }
}

template <typename Message>
void ExpectSameForRandomMessages(int count) {
  std::mt19937_64 random(20261127);
  for (int i = 0; i < count; ++i) {
    Message message;
    Fill(message, random, 4);
    ExpectSameJson(message);
    if (testing::Test::HasFailure()) return;  // one case is enough to read
  }
}

TEST(JsonWriterTest, RandomReportsPrintAsProtobufPrintsThem) {
  ExpectSameForRandomMessages<v1::DiffReport>(150);
  ExpectSameForRandomMessages<v1::MultiDiffReport>(20);
}

TEST(JsonWriterTest, RandomProfilesPrintAsProtobufPrintsThem) {
  ExpectSameForRandomMessages<v1::RunProfile>(150);
}

TEST(JsonWriterTest, RandomStoreAndAgentMessagesPrintAsProtobufPrintsThem) {
  // Oneofs (agents), bytes (event batches), proto3 optionals (both).
  ExpectSameForRandomMessages<v1::ListRunsResponse>(100);
  ExpectSameForRandomMessages<v1::ListAgentsResponse>(100);
  ExpectSameForRandomMessages<v1::ControlMessage>(100);
  ExpectSameForRandomMessages<v1::AgentReport>(100);
  ExpectSameForRandomMessages<v1::ExportTraceChunk>(50);
  ExpectSameForRandomMessages<v1::EventBatch>(50);
}

// Doubles print as protobuf's %.15g-then-%.17g prints them: doubles near
// decimals of 1 to 17 digits (both sides of the line between 15 digits and
// more), subnormals (whose neighbours are far apart), random bits and times in
// microseconds.
TEST(JsonWriterTest, EveryKindOfDoublePrintsAsProtobufPrintsIt) {
  std::mt19937_64 random(20261202);
  v1::EventBatch batch;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = random();
    double value = 0;
    switch (i % 4) {
      case 0: {  // nearest a decimal of 1-17 digits, 1e-30 to 1e30
        const int digits = 1 + static_cast<int>(random() % 17);
        std::string text = std::to_string(1 + random() % 9);
        for (int d = 1; d < digits; ++d) text += std::to_string(random() % 10);
        base::StrAppend(&text, "e", static_cast<int>(random() % 61) - 30);
        value = std::strtod(text.c_str(), nullptr);
        break;
      }
      case 1: {  // subnormal
        const uint64_t subnormal = bits & ((uint64_t{1} << 52) - 1);
        std::memcpy(&value, &subnormal, sizeof(value));
        break;
      }
      case 2:  // any bits, NaN and infinities included
        std::memcpy(&value, &bits, sizeof(value));
        break;
      default:  // microseconds as profiles hold them
        value = static_cast<double>(bits % 100000000) / 1000;
        break;
    }
    if (bits % 2 == 0) value = -value;
    batch.add_arg_double(value);
  }
  ExpectSameJson(batch);
}

TEST(JsonWriterTest, EveryTrickyStringEscapesAsProtobufEscapesIt) {
  for (const std::string& text : TrickyStrings()) {
    v1::DiffReport report;
    report.add_warnings(text);
    ExpectSameJson(report);
  }
  // Every byte after a lead of each length, and on its own.
  for (int lead : {0xc3, 0xe2, 0xf0, 0xf4}) {
    for (int byte = 0; byte < 256; ++byte) {
      v1::DiffReport report;
      report.add_warnings(std::string(1, static_cast<char>(byte)));
      report.add_warnings(
          std::string{static_cast<char>(lead), static_cast<char>(byte), 'x'});
      report.add_warnings(std::string{static_cast<char>(lead),
                                      static_cast<char>(0x9f),
                                      static_cast<char>(byte), '.'});
      ExpectSameJson(report);
    }
  }
}

TEST(JsonWriterTest, StreamedInPiecesIsTheSameText) {
  std::mt19937_64 random(7);
  v1::RunProfile profile;
  for (int i = 0; i < 8; ++i) Fill(*profile.add_workers(), random, 4);
  std::string streamed;
  std::string out;
  int pieces = 0;
  WriteJson(
      profile, out,
      [&](std::string& text) {
        streamed += text;
        text.clear();
        ++pieces;
      },
      64);
  EXPECT_TRUE(out.empty());
  EXPECT_GT(pieces, 8);
  EXPECT_EQ(streamed, Ours(profile));
}

TEST(JsonWriterTest, LeavesMapsAndWellKnownTypesToProtobuf) {
  EXPECT_TRUE(CanWriteJson(*v1::DiffReport::descriptor()));
  EXPECT_TRUE(CanWriteJson(*v1::RunProfile::descriptor()));
  EXPECT_FALSE(CanWriteJson(*pb::FileDescriptorProto::descriptor()));
}

}  // namespace
}  // namespace profdiff::client
