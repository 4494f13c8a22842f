#include "client/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/escaping.h>

#include "differ/display_text.h"

namespace profdiff::client {
namespace {

namespace pb = google::protobuf;

constexpr char kHex[] = "0123456789abcdef";

void AppendHex4(uint32_t unit, std::string& out) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4)
    out += kHex[(unit >> shift) & 15];
}

// protobuf's escape of code point `cp` (json_escaping.cc): whether it has one,
// appended to `out`.
bool AppendEscape(uint32_t cp, std::string& out) {
  if (cp < 0xa0) {
    switch (cp) {
      case '\b':
        out += "\\b";
        return true;
      case '\t':
        out += "\\t";
        return true;
      case '\n':
        out += "\\n";
        return true;
      case '\f':
        out += "\\f";
        return true;
      case '\r':
        out += "\\r";
        return true;
      case '"':
        out += "\\\"";
        return true;
      case '\\':
        out += "\\\\";
        return true;
      default:
        break;
    }
    if (cp < 0x20 || cp == '<' || cp == '>' || cp >= 0x7f) {
      AppendHex4(cp, out);
      return true;
    }
    return false;
  }
  // Not needed by JSON; escaped against JavaScript's security bugs.
  const bool bmp =
      cp == 0x00ad || cp == 0x06dd || cp == 0x070f || cp == 0x17b4 ||
      cp == 0x17b5 || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb) ||
      (cp >= 0x0600 && cp <= 0x0603) || (cp >= 0x200b && cp <= 0x200f) ||
      (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
      (cp >= 0x206a && cp <= 0x206f);
  if (bmp) {
    AppendHex4(cp, out);
    return true;
  }
  if (cp == 0xe0001 || (cp >= 0x1d173 && cp <= 0x1d17a) ||
      (cp >= 0xe0020 && cp <= 0xe007f)) {
    const uint32_t offset = cp - 0x10000;
    AppendHex4(0xd800 + (offset >> 10), out);
    AppendHex4(0xdc00 + (offset & 0x3ff), out);
    return true;
  }
  return false;
}

bool PlainAscii(unsigned char c) {
  return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>';
}

// %.<digits>g.
void AppendGeneral(double value, int digits, std::string& out) {
  char buffer[40];
  const char* const end = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                        std::chars_format::general, digits)
                              .ptr;
  out.append(buffer, static_cast<size_t>(end - buffer));
}

// %.15g, or %.17g where 15 digits do not read back (protobuf's SimpleDtoa),
// as it says: printed, read back, printed again.
void AppendDoubleAsPrinted(double value, std::string& out) {
  const size_t start = out.size();
  AppendGeneral(value, 15, out);
  double back = 0;
  std::from_chars(out.data() + start, out.data() + out.size(), back);
  if (back != value) {
    out.resize(start);
    AppendGeneral(value, 17, out);
  }
}

// Microseconds of whole nanoseconds, most doubles printed, without a
// printf at all: a decimal of thousandths r / 1000 (r a whole number of up to
// 15 digits) is what %.15g prints for `value` when it reads back as `value`,
// which r / 1000.0 (the double nearest that decimal) tells. `value` is not
// whole. False for any other value.
bool AppendThousandths(double value, std::string& out) {
  if (!(std::abs(value) < 1e12)) return false;
  const int64_t r = std::llround(value * 1000);
  if (static_cast<double>(r) / 1000 != value) return false;
  const uint64_t magnitude =
      r < 0 ? uint64_t{0} - static_cast<uint64_t>(r) : static_cast<uint64_t>(r);
  const uint64_t fraction = magnitude % 1000;
  if (fraction == 0) return false;  // whole: printed as an integer
  char buffer[24];
  char* const end =
      std::to_chars(buffer, buffer + sizeof(buffer), magnitude / 1000).ptr;
  if (r < 0) out += '-';
  out.append(buffer, static_cast<size_t>(end - buffer));
  // The fraction's three digits less their trailing zeros.
  const char digits[] = {static_cast<char>('0' + fraction / 100),
                         static_cast<char>('0' + fraction / 10 % 10),
                         static_cast<char>('0' + fraction % 10)};
  size_t kept = 3;
  while (digits[kept - 1] == '0') --kept;
  out += '.';
  out.append(digits, kept);
  return true;
}

// The same without printing twice and reading back. The shortest digits that
// read back (std::to_chars) are %.15g's when there are at most 15 of them:
// a normal double's neighbours are closer than a unit of its 15th digit, so
// rounding it to 15 digits lands on them. When there are more, no 15 digits
// read back. (A subnormal's neighbours are farther apart: printed as said.)
void AppendDouble(double value, std::string& out) {
  if (!std::isfinite(value)) {
    out += std::isnan(value) ? "\"NaN\""
           : value > 0       ? "\"Infinity\""
                             : "\"-Infinity\"";
    return;
  }
  char buffer[40];
  if (value == std::trunc(value) && std::abs(value) < 1e15) {
    // Whole numbers below 15 digits print as integers under %.15g.
    if (value == 0) {
      out += std::signbit(value) ? "-0" : "0";
      return;
    }
    const auto end = std::to_chars(buffer, buffer + sizeof(buffer),
                                   static_cast<int64_t>(value))
                         .ptr;
    out.append(buffer, end);
    return;
  }
  if (AppendThousandths(value, out)) return;
  if (std::abs(value) < std::numeric_limits<double>::min()) {
    AppendDoubleAsPrinted(value, out);
    return;
  }
  // "[-]d[.ddd]e[+-]dd": the shortest digits and the decimal exponent.
  const char* const end = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                        std::chars_format::scientific)
                              .ptr;
  const char* const first = buffer + (value < 0 ? 1 : 0);
  const char* const e = std::find(first, end, 'e');
  const size_t digits = e - first > 1 ? static_cast<size_t>(e - first - 1) : 1;
  if (digits > 15) {
    AppendGeneral(value, 17, out);
    return;
  }
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), end, exponent);
  if (exponent < -4 || exponent >= 15) {
    // %g's scientific style is this text.
    out.append(buffer, static_cast<size_t>(end - buffer));
    return;
  }
  // Fixed: the digits with the point moved, or after "0." and zeros. The
  // value is not whole (or it is past 1e15, where the exponent is 15 or
  // more), so some digits follow the point.
  out.append(buffer, static_cast<size_t>(first - buffer));  // the sign
  const auto digit = [&](size_t i) { return i == 0 ? first[0] : first[i + 1]; };
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    for (size_t i = 0; i < digits; ++i) out += digit(i);
    return;
  }
  for (size_t i = 0; i <= static_cast<size_t>(exponent); ++i) out += digit(i);
  out += '.';
  for (size_t i = static_cast<size_t>(exponent) + 1; i < digits; ++i)
    out += digit(i);
}

template <typename Integer>
void AppendInteger(Integer value, std::string& out, bool quoted) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  if (quoted) out += '"';
  out.append(buffer, end);
  if (quoted) out += '"';
}

// How one message type is printed: its fields in the printer's order, each with
// its `"name": ` ready.
struct FieldPlan {
  const pb::FieldDescriptor* field;
  std::string key;
  // Printed only when set: a singular message, or a member of a oneof (a
  // proto3 `optional` included).
  bool when_set;
  // An enum whose values print as their display texts (differ/display_text.h).
  bool display_text;
};

// protobuf's printer fills a tree with every field of the type in declaration
// order, then the values as they come off the wire (in field-number order). A
// primitive member of a oneof has no place in that tree: when set, it comes
// after every other field.
std::vector<FieldPlan> PlanOf(const pb::Descriptor& type) {
  std::vector<FieldPlan> ordered;
  std::vector<FieldPlan> appended;
  for (int i = 0; i < type.field_count(); ++i) {
    const pb::FieldDescriptor* field = type.field(i);
    FieldPlan plan{field, "\"", false,
                   field->enum_type() != nullptr &&
                       differ::HasDisplayText(*field->enum_type())};
    AppendJsonEscaped(field->name(), plan.key);
    plan.key += "\": ";
    const bool message =
        field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
    if (!field->is_repeated() && !message &&
        field->containing_oneof() != nullptr) {
      plan.when_set = true;
      appended.push_back(std::move(plan));
    } else {
      plan.when_set = !field->is_repeated() && message;
      ordered.push_back(std::move(plan));
    }
  }
  std::sort(appended.begin(), appended.end(),
            [](const FieldPlan& a, const FieldPlan& b) {
              return a.field->number() < b.field->number();
            });
  for (FieldPlan& plan : appended) ordered.push_back(std::move(plan));
  return ordered;
}

class Writer {
 public:
  Writer(std::string& out, const JsonFlush& flush, size_t flush_bytes)
      : out_(out), flush_(flush), flush_bytes_(flush_bytes) {}

  void WriteRoot(const pb::Message& message) {
    WriteObject(message, 0);
    out_ += '\n';
  }

 private:
  // `{`, the fields one level in, `}` (on its own line unless there were
  // none).
  void WriteObject(const pb::Message& message, int level) {
    out_ += '{';
    bool first = true;
    const pb::Reflection& reflection = *message.GetReflection();
    for (const FieldPlan& plan : Plan(*message.GetDescriptor())) {
      const pb::FieldDescriptor* field = plan.field;
      if (plan.when_set && !reflection.HasField(message, field)) continue;
      Separate(first, level + 1);
      out_ += plan.key;
      if (field->is_repeated()) {
        WriteList(message, reflection, plan, level + 1);
      } else {
        WriteValue(message, reflection, plan, -1, level + 1);
      }
      if (flush_ && out_.size() >= flush_bytes_) flush_(out_);
    }
    if (!first) NewLine(level);
    out_ += '}';
  }

  void WriteList(const pb::Message& message, const pb::Reflection& reflection,
                 const FieldPlan& plan, int level) {
    out_ += '[';
    const int size = reflection.FieldSize(message, plan.field);
    bool first = true;
    for (int i = 0; i < size; ++i) {
      Separate(first, level + 1);
      WriteValue(message, reflection, plan, i, level + 1);
    }
    if (!first) NewLine(level);
    out_ += ']';
  }

  // The value of `plan`'s field (element `index` of a repeated one; -1:
  // singular).
  void WriteValue(const pb::Message& message, const pb::Reflection& reflection,
                  const FieldPlan& plan, int index, int level) {
    const pb::FieldDescriptor* field = plan.field;
    const bool repeated = index >= 0;
    switch (field->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        AppendDouble(repeated
                         ? reflection.GetRepeatedDouble(message, field, index)
                         : reflection.GetDouble(message, field),
                     out_);
        break;
      case pb::FieldDescriptor::CPPTYPE_FLOAT:  // refused by CanWriteJson
        break;
      case pb::FieldDescriptor::CPPTYPE_INT32:
        AppendInteger(repeated
                          ? reflection.GetRepeatedInt32(message, field, index)
                          : reflection.GetInt32(message, field),
                      out_, false);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT32:
        AppendInteger(repeated
                          ? reflection.GetRepeatedUInt32(message, field, index)
                          : reflection.GetUInt32(message, field),
                      out_, false);
        break;
      case pb::FieldDescriptor::CPPTYPE_INT64:
        AppendInteger(repeated
                          ? reflection.GetRepeatedInt64(message, field, index)
                          : reflection.GetInt64(message, field),
                      out_, true);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT64:
        AppendInteger(repeated
                          ? reflection.GetRepeatedUInt64(message, field, index)
                          : reflection.GetUInt64(message, field),
                      out_, true);
        break;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        out_ += (repeated ? reflection.GetRepeatedBool(message, field, index)
                          : reflection.GetBool(message, field))
                    ? "true"
                    : "false";
        break;
      case pb::FieldDescriptor::CPPTYPE_ENUM:
        WriteEnum(*field->enum_type(), plan.display_text,
                  repeated
                      ? reflection.GetRepeatedEnumValue(message, field, index)
                      : reflection.GetEnumValue(message, field));
        break;
      case pb::FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& text =
            repeated ? reflection.GetRepeatedStringReference(message, field,
                                                             index, &scratch)
                     : reflection.GetStringReference(message, field, &scratch);
        out_ += '"';
        if (field->type() == pb::FieldDescriptor::TYPE_BYTES) {
          std::string base64;
          absl::Base64Escape(text, &base64);
          out_ += base64;
        } else {
          AppendJsonEscaped(text, out_);
        }
        out_ += '"';
        break;
      }
      case pb::FieldDescriptor::CPPTYPE_MESSAGE:
        WriteObject(repeated
                        ? reflection.GetRepeatedMessage(message, field, index)
                        : reflection.GetMessage(message, field),
                    level);
        break;
    }
  }

  // Its name (an enum with display texts: the text, "" for a value without
  // one), or the number for a value this build does not know.
  void WriteEnum(const pb::EnumDescriptor& type, bool display_text,
                 int number) {
    const pb::EnumValueDescriptor* value = type.FindValueByNumber(number);
    if (value == nullptr) {
      AppendInteger(number, out_, false);
      return;
    }
    out_ += '"';
    AppendJsonEscaped(
        display_text ? differ::DisplayText(type, number) : value->name(), out_);
    out_ += '"';
  }

  void Separate(bool& first, int level) {
    if (!first) out_ += ',';
    first = false;
    NewLine(level);
  }

  void NewLine(int level) {
    out_ += '\n';
    out_.append(static_cast<size_t>(level), ' ');
  }

  const std::vector<FieldPlan>& Plan(const pb::Descriptor& type) {
    auto [it, inserted] = plans_.try_emplace(&type);
    if (inserted) it->second = PlanOf(type);
    return it->second;
  }

  std::string& out_;
  const JsonFlush& flush_;
  const size_t flush_bytes_;
  absl::flat_hash_map<const pb::Descriptor*, std::vector<FieldPlan>> plans_;
};

bool CanWrite(const pb::Descriptor& type,
              std::vector<const pb::Descriptor*>& seen) {
  if (std::find(seen.begin(), seen.end(), &type) != seen.end()) return true;
  seen.push_back(&type);
  if (type.file()->syntax() != pb::FileDescriptor::SYNTAX_PROTO3 ||
      type.file()->package() == "google.protobuf") {
    return false;
  }
  for (int i = 0; i < type.field_count(); ++i) {
    const pb::FieldDescriptor* field = type.field(i);
    // No float field is printed: protobuf's %.6g/%.9g is not reproduced.
    if (field->is_map() || field->type() == pb::FieldDescriptor::TYPE_FLOAT)
      return false;
    if (field->message_type() != nullptr &&
        !CanWrite(*field->message_type(), seen)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool CanWriteJson(const pb::Descriptor& type) {
  std::vector<const pb::Descriptor*> seen;
  return CanWrite(type, seen);
}

void WriteJson(const pb::Message& message, std::string& out,
               const JsonFlush& flush, size_t flush_bytes) {
  Writer(out, flush, flush_bytes).WriteRoot(message);
  if (flush) flush(out);
}

void AppendJsonEscaped(std::string_view text, std::string& out) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t plain = i;
    while (plain < n && PlainAscii(static_cast<unsigned char>(text[plain])))
      ++plain;
    out.append(text.data() + i, plain - i);
    i = plain;
    if (i == n) break;
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      AppendEscape(lead, out);
      ++i;
      continue;
    }
    // A multi-byte sequence, read as protobuf reads it: a bad byte drops
    // what was read up to and including it, and a sequence cut off by the end
    // is dropped.
    uint32_t cp = 0;
    int left = 0;
    if (lead >= 0xc0 && lead <= 0xdf) {
      cp = lead & 0x1f;
      left = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      cp = lead & 0x0f;
      left = 2;
    } else if (lead >= 0xf0 && lead <= 0xf7) {
      cp = lead & 0x07;
      left = 3;
    } else {
      ++i;  // a continuation byte or 0xf8..0xff where a lead should be
      continue;
    }
    size_t j = i + 1;
    bool ok = true;
    while (left > 0 && j < n) {
      const auto c = static_cast<unsigned char>(text[j++]);
      --left;
      cp = (cp << 6) | (c & 0x3f);
      if (c < 0x80 || c > 0xbf) {
        ok = false;
        break;
      }
    }
    if (ok && left == 0 && (cp & 0xfffff800) != 0xd800 && cp <= 0x10ffff) {
      if (!AppendEscape(cp, out)) out.append(text.data() + i, j - i);
    }
    i = j;
  }
}

}  // namespace profdiff::client
