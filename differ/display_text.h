// The text users see for a value of a diff enum (DiffStatus, Change,
// ModuleCompared, OperatorCompared, OverviewMetric, HtaChange, ValueUnit,
// RunSide): its
// `display_text` in diff.proto. The differ sets enums; every renderer (tables,
// CSV, HTML report, JSON) prints this text, so all of them print the same words
// the schema names in one place.
#ifndef PROFDIFF_DIFFER_DISPLAY_TEXT_H_
#define PROFDIFF_DIFFER_DISPLAY_TEXT_H_

#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/generated_enum_reflection.h>
#include <google/protobuf/generated_enum_util.h>

namespace profdiff::differ {

// Whether any value of `type` has a display text (the enums above do; the
// others print their value names).
bool HasDisplayText(const google::protobuf::EnumDescriptor& type);

// The display text of value `number` of `type`: "" for an UNSPECIFIED value, a
// value without one, or a number this build does not know (a newer peer's).
// The reference lives as long as the generated descriptor pool (the program).
const std::string& DisplayText(const google::protobuf::EnumDescriptor& type,
                               int number);

template <typename Enum>
const std::string& DisplayText(Enum value) {
  static_assert(google::protobuf::is_proto_enum<Enum>::value);
  return DisplayText(*google::protobuf::GetEnumDescriptor<Enum>(),
                     static_cast<int>(value));
}

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_DISPLAY_TEXT_H_
