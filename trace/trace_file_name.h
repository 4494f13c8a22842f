// What a trace file's name says, by the TensorBoard plugin's convention
// `<worker>.<timestamp>.pt.trace.json[.gz]`: whether it is a trace, and which
// worker wrote it.
#ifndef PROFDIFF_TRACE_TRACE_FILE_NAME_H_
#define PROFDIFF_TRACE_TRACE_FILE_NAME_H_

#include <string>
#include <string_view>

namespace profdiff::trace {

// True for "*.json" and "*.json.gz" (which includes "*.pt.trace.json[.gz]").
bool IsTraceFileName(std::string_view file_name);

// The worker name a file name encodes: "worker0" for
// "worker0.1623143089861.pt.trace.json.gz", else the name without
// ".json"/".json.gz"/".pt.trace".
std::string WorkerNameOf(std::string_view file_name);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_TRACE_FILE_NAME_H_
