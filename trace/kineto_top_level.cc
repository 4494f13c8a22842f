// The top-level object of a Kineto trace: its events (handed to
// kineto_events.cc) and the fields beside them that describe the run.
#include <utility>

#include "base/status_macros.h"
#include "trace/kineto_parser.h"

namespace profdiff::trace::kineto {

template <typename Read>
absl::Status TraceParser::ForEachField(od::object& object, Read read) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field))
      return DocumentError(error, nullptr);
    od::value value = field.value();
    PD_RETURN_IF_ERROR(read(KeyView(field), value, field.key().raw()));
  }
  return absl::OkStatus();
}

absl::Status TraceParser::ParseTopObject(od::document& doc) {
  od::object top;
  if (auto error = doc.get_object().get(top))
    return DocumentError(error, nullptr);
  bool has_events = false;
  PD_RETURN_IF_ERROR(
      ForEachField(top,
                   [&](std::string_view key, od::value& value,
                       const char* where) -> absl::Status {
                     if (key == "traceEvents") {
                       events_offset_ = Offset(value.raw_json_token().data());
                       od::array events;
                       if (value.get_array().get(events)) {
                         return absl::InvalidArgumentError(
                             base::StrCat(source_, ": byte ", Offset(where),
                                          ": \"traceEvents\" is not an array"));
                       }
                       has_events = true;
                       return ParseEvents(events);
                     }
                     if (key == "deviceProperties")
                       return ParseDevices(value, where);
                     if (key == "distributedInfo")
                       return ParseDistributedInfo(value, where);
                     if (key == "baseTimeNanoseconds") {
                       bool present;
                       return TopInt(value, key, where,
                                     &out_.metadata.base_time_ns, &present);
                     }
                     if (key == "traceName") {
                       std::string_view name;
                       if (!value.get_string().get(name))
                         out_.metadata.trace_name = std::string(name);
                     }
                     return absl::OkStatus();
                   }));
  if (!has_events) {
    return NotATrace(base::StrCat(
        source_, ": no \"traceEvents\" array in the top-level object"));
  }
  return absl::OkStatus();
}

absl::Status TraceParser::TopInt(od::value& value, std::string_view field,
                                 const char* at, int64_t* out, bool* present) {
  // ReadInt's message speaks of an event; top-level fields get their own.
  if (ReadInt(value, field, at, out, present).ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(base::StrCat(source_, ": byte ", Offset(at),
                                                 ": field \"", field,
                                                 "\": expected an integer"));
}

absl::Status TraceParser::TopInt32(od::value& value, std::string_view field,
                                   const char* at, int32_t* out) {
  int64_t number = 0;  // null: 0
  bool present = false;
  PD_RETURN_IF_ERROR(TopInt(value, field, at, &number, &present));
  *out = static_cast<int32_t>(number);
  return absl::OkStatus();
}

absl::Status TraceParser::ParseDevices(od::value& value, const char* at) {
  od::array devices;
  if (value.get_array().get(devices)) {
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": byte ", Offset(at),
                     ": \"deviceProperties\" is not an array"));
  }
  for (auto device_result : devices) {
    od::object device;
    if (device_result.get_object().get(device)) {
      return absl::InvalidArgumentError(
          base::StrCat(source_, ": byte ", Offset(at),
                       ": \"deviceProperties\" entry is not an object"));
    }
    DeviceInfo info;
    PD_RETURN_IF_ERROR(
        ForEachField(device,
                     [&](std::string_view key, od::value& v,
                         const char* where) -> absl::Status {
                       bool present = false;
                       if (key == "name") {
                         std::string_view name;
                         if (v.get_string().get(name)) {
                           return absl::InvalidArgumentError(base::StrCat(
                               source_, ": byte ", Offset(where),
                               ": deviceProperties \"name\" is not a string"));
                         }
                         info.name = std::string(name);
                       } else if (key == "id") {
                         return TopInt(v, key, where, &info.id, &present);
                       } else if (key == "totalGlobalMem") {
                         return TopInt(v, key, where,
                                       &info.total_global_mem_bytes, &present);
                       } else if (key == "numSms") {
                         return TopInt32(v, key, where, &info.num_sms);
                       } else if (key == "computeMajor") {
                         return TopInt32(v, key, where, &info.compute_major);
                       } else if (key == "computeMinor") {
                         return TopInt32(v, key, where, &info.compute_minor);
                       } else if (key == "maxThreadsPerMultiprocessor") {
                         return TopInt32(v, key, where,
                                         &info.max_threads_per_multiprocessor);
                       } else if (key == "warpSize") {
                         return TopInt32(v, key, where, &info.warp_size);
                       }
                       return absl::OkStatus();
                     }));
    out_.metadata.devices.push_back(std::move(info));
  }
  return absl::OkStatus();
}

absl::Status TraceParser::ParseDistributedInfo(od::value& value,
                                               const char* at) {
  od::object info;
  if (value.get_object().get(info)) {
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": byte ", Offset(at),
                     ": \"distributedInfo\" is not an object"));
  }
  out_.metadata.has_distributed_info = true;
  return ForEachField(info,
                      [&](std::string_view key, od::value& v,
                          const char* where) -> absl::Status {
                        if (key == "backend") {
                          std::string_view backend;
                          if (!v.get_string().get(backend))
                            out_.metadata.backend = std::string(backend);
                        } else if (key == "rank") {
                          return TopInt32(v, key, where, &out_.metadata.rank);
                        } else if (key == "world_size") {
                          return TopInt32(v, key, where,
                                          &out_.metadata.world_size);
                        }
                        return absl::OkStatus();
                      });
}

}  // namespace profdiff::trace::kineto
