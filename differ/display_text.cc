#include "differ/display_text.h"

#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

namespace pb = google::protobuf;

bool HasDisplayText(const pb::EnumDescriptor& type) {
  for (int i = 0; i < type.value_count(); ++i) {
    if (type.value(i)->options().HasExtension(v1::display_text)) return true;
  }
  return false;
}

const std::string& DisplayText(const pb::EnumDescriptor& type, int number) {
  const pb::EnumValueDescriptor* value = type.FindValueByNumber(number);
  // An unset extension reads as its default, "".
  const pb::EnumValueOptions& options =
      value != nullptr ? value->options()
                       : pb::EnumValueOptions::default_instance();
  return options.GetExtension(v1::display_text);
}

}  // namespace profdiff::differ
