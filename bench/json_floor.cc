#include "bench/json_floor.h"

namespace profdiff::bench {

size_t WalkEvents(simdjson::ondemand::parser& parser,
                  const trace::TraceFileBuffer& buffer) {
  namespace od = simdjson::ondemand;
  size_t touched = 0;
  od::document doc;
  const simdjson::padded_string_view json(buffer.data(), buffer.json().size(),
                                          buffer.capacity());
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

size_t WalkEventsDom(simdjson::dom::parser& parser,
                     const trace::TraceFileBuffer& buffer) {
  namespace dom = simdjson::dom;
  size_t touched = 0;
  dom::element doc;
  if (parser.parse(buffer.data(), buffer.json().size(), false).get(doc))
    return 0;
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
