#include "trace/worker_info.h"

namespace profdiff::trace {
namespace {

v1::SourceFormat ToProto(SourceFormat format) {
  switch (format) {
    case SourceFormat::kKinetoJson:
      return v1::SOURCE_FORMAT_KINETO_JSON;
    case SourceFormat::kLegacyJson:
      return v1::SOURCE_FORMAT_LEGACY_JSON;
    case SourceFormat::kCupti:
      return v1::SOURCE_FORMAT_CUPTI;
    case SourceFormat::kUnspecified:
      break;
  }
  return v1::SOURCE_FORMAT_UNSPECIFIED;
}

SourceFormat FromProto(v1::SourceFormat format) {
  switch (format) {
    case v1::SOURCE_FORMAT_KINETO_JSON:
      return SourceFormat::kKinetoJson;
    case v1::SOURCE_FORMAT_LEGACY_JSON:
      return SourceFormat::kLegacyJson;
    case v1::SOURCE_FORMAT_CUPTI:
      return SourceFormat::kCupti;
    default:
      break;
  }
  return SourceFormat::kUnspecified;
}

}  // namespace

v1::WorkerInfo WorkerInfoOf(const Trace& trace) {
  const TraceMetadata& m = trace.metadata;
  v1::WorkerInfo info;
  info.set_rank(m.rank);
  info.set_world_size(m.world_size);
  info.set_backend(m.backend);
  info.set_distributed_info_present(m.has_distributed_info);
  info.set_base_time_ns(m.base_time_ns);
  info.set_trace_name(m.trace_name);
  info.set_source_path(m.source);
  info.set_source_format(ToProto(m.source_format));
  info.set_dropped_event_count(trace.counters.unsupported_phase_events);
  info.set_unknown_category_count(trace.counters.unknown_category_events);
  for (const DeviceInfo& d : m.devices) {
    v1::DeviceProperties* device = info.add_devices();
    device->set_id(d.id);
    device->set_name(d.name);
    device->set_total_global_mem_bytes(d.total_global_mem_bytes);
    device->set_num_sms(d.num_sms);
    device->set_compute_major(d.compute_major);
    device->set_compute_minor(d.compute_minor);
    device->set_max_threads_per_multiprocessor(
        d.max_threads_per_multiprocessor);
    device->set_warp_size(d.warp_size);
  }
  return info;
}

void ApplyWorkerInfo(const v1::WorkerInfo& info, Trace& trace) {
  TraceMetadata& m = trace.metadata;
  m.rank = info.rank();
  m.world_size = info.world_size();
  m.backend = info.backend();
  m.has_distributed_info = info.distributed_info_present();
  m.base_time_ns = info.base_time_ns();
  m.trace_name = info.trace_name();
  m.source = info.source_path();
  m.source_format = FromProto(info.source_format());
  trace.counters.unsupported_phase_events = info.dropped_event_count();
  trace.counters.unknown_category_events = info.unknown_category_count();
  m.devices.clear();
  for (const v1::DeviceProperties& d : info.devices()) {
    m.devices.push_back({d.id(), d.name(), d.total_global_mem_bytes(),
                         d.num_sms(), d.compute_major(), d.compute_minor(),
                         d.max_threads_per_multiprocessor(), d.warp_size()});
  }
}

}  // namespace profdiff::trace
