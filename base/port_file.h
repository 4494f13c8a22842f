// The port file a server writes once serving, so scripts that start it on port
// 0 learn the port.
#ifndef PROFDIFF_BASE_PORT_FILE_H_
#define PROFDIFF_BASE_PORT_FILE_H_

#include <string>

#include <absl/status/status.h>

namespace profdiff::base {

// Writes "<port>\n" to `path` atomically; OK and nothing written when `path` is
// empty.
absl::Status WritePortFile(const std::string& path, int port);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_PORT_FILE_H_
