#include "bench/json_floor.h"

#include <cstdint>
#include <cstring>
#include <memory>

#include <libdeflate.h>

#include "base/file_reader.h"

namespace profdiff::bench {
namespace {

// simdjson reads up to this far past a text's end.
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

struct FreeDecompressor {
  void operator()(libdeflate_decompressor* d) const {
    libdeflate_free_decompressor(d);
  }
};

}  // namespace

bool FloorText::Load(const std::string& path) {
  size_t file_size = 0;
  if (!base::ReadFileInto(path, uint64_t{1} << 40, file_, file_size).ok())
    return false;
  const char* in = file_.data();
  if (file_size < 18 || static_cast<unsigned char>(in[0]) != 0x1f ||
      static_cast<unsigned char>(in[1]) != 0x8b) {
    if (!json_.Grow(file_size + kPadding, 0).ok()) return false;
    std::memcpy(json_.data(), in, file_size);
    size_ = file_size;
  } else {
    const std::unique_ptr<libdeflate_decompressor, FreeDecompressor> inflater(
        libdeflate_alloc_decompressor());
    uint32_t isize;  // the (last) member's size mod 2^32: the first guess
    std::memcpy(&isize, in + file_size - 4, sizeof(isize));
    size_t room = std::max<size_t>(isize, size_t{1} << 16);
    size_ = 0;
    size_t in_offset = 0;
    // Members one after another; a member that does not fit starts again in
    // a buffer twice the size.
    while (in_offset < file_size) {
      if (!json_.Grow(size_ + room + kPadding, size_).ok()) return false;
      size_t in_used = 0;
      size_t out_used = 0;
      const libdeflate_result result = libdeflate_gzip_decompress_ex(
          inflater.get(), in + in_offset, file_size - in_offset,
          json_.data() + size_, json_.size() - kPadding - size_, &in_used,
          &out_used);
      if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
        room *= 2;
        continue;
      }
      if (result != LIBDEFLATE_SUCCESS) return false;
      in_offset += in_used;
      size_ += out_used;
    }
  }
  std::memset(json_.data() + size_, ' ', kPadding);
  return true;
}

size_t WalkEvents(simdjson::ondemand::parser& parser, const FloorText& text) {
  namespace od = simdjson::ondemand;
  size_t touched = 0;
  od::document doc;
  const simdjson::padded_string_view json(text.data(), text.json().size(),
                                          text.capacity());
  if (parser.iterate(json).get(doc)) return 0;
  od::object top;
  if (doc.get_object().get(top)) return 0;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key) || key != "traceEvents") continue;
    od::array events;
    if (field.value().get_array().get(events)) return 0;
    for (auto event : events) {
      od::object object;
      if (event.get_object().get(object)) continue;
      for (auto f : object) {
        od::value v;
        if (f.value().get(v)) continue;
        od::object args;
        if (v.type().value_unsafe() == od::json_type::object &&
            !v.get_object().get(args)) {
          for (auto a : args) {
            od::value av;
            if (!a.value().get(av)) touched += av.raw_json_token().size();
          }
        } else {
          touched += v.raw_json_token().size();
        }
      }
    }
  }
  return touched;
}

namespace {

// A scalar's share of the walk: a string's length, 8 for a number or bool.
size_t Touch(simdjson::dom::element value) {
  std::string_view text;
  return value.get_string().get(text) ? 8 : text.size();
}

}  // namespace

size_t WalkEventsDom(simdjson::dom::parser& parser, const FloorText& text) {
  namespace dom = simdjson::dom;
  size_t touched = 0;
  dom::element doc;
  if (parser.parse(text.data(), text.json().size(), false).get(doc)) return 0;
  dom::array events;
  if (doc["traceEvents"].get_array().get(events)) return 0;
  for (dom::element event : events) {
    dom::object object;
    if (event.get_object().get(object)) continue;
    for (dom::key_value_pair field : object) {
      touched += field.key.size();
      dom::object args;
      if (field.value.get_object().get(args)) {
        touched += Touch(field.value);
        continue;
      }
      for (dom::key_value_pair arg : args)
        touched += arg.key.size() + Touch(arg.value);
    }
  }
  return touched;
}

}  // namespace profdiff::bench
