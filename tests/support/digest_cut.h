// Where a kept run digest can be cut and still parse: the damage the
// kept-digest tests of both stores and the differ inflict.
#ifndef PROFDIFF_TESTS_SUPPORT_DIGEST_CUT_H_
#define PROFDIFF_TESTS_SUPPORT_DIGEST_CUT_H_

#include <cstddef>

#include <google/protobuf/descriptor.h>

#include "profdiff/v1/digest.pb.h"

namespace profdiff::test_support {

// How many bytes at the end of `digest`'s serialization hold its kernels and
// every field numbered after them. Protobuf writes fields in number order, so
// the bytes without that tail parse, as a digest with no kernels; read off the
// descriptor, so a field added later is counted too.
inline size_t BytesFromKernelsOn(const v1::RunDigest& digest) {
  v1::RunDigest prefix = digest;
  const google::protobuf::Descriptor* descriptor = prefix.GetDescriptor();
  const int kernels = descriptor->FindFieldByName("kernels")->number();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = descriptor->field(i);
    if (field->number() >= kernels)
      prefix.GetReflection()->ClearField(&prefix, field);
  }
  return digest.ByteSizeLong() - prefix.ByteSizeLong();
}

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_DIGEST_CUT_H_
