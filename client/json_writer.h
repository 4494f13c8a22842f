// Writes a message as the JSON every `--format json` prints, byte for byte what
// protobuf 3.21's printer writes with the options json_output.h names (field
// names kept, every field present, one space of indent per level, display
// texts for enums), without protobuf's detour through the wire format and a
// tree of default values (about 70% of `profdiff show --format json`).
//
// Protobuf's printer is the reference: tests/client/json_writer_test.cc
// compares the two on real reports and profiles and on every edge (escapes,
// invalid UTF-8, NaN, unknown enum numbers, oneofs, proto3 `optional`).
// Messages this writer does not render (maps, floats, well-known types,
// proto2) are left to protobuf (CanWriteJson).
#ifndef PROFDIFF_CLIENT_JSON_WRITER_H_
#define PROFDIFF_CLIENT_JSON_WRITER_H_

#include <cstddef>
#include <functional>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

namespace profdiff::client {

// Whether WriteJson renders `type` (and every type under it) as protobuf does:
// proto3 files, no map or float field, no google.protobuf.* message.
bool CanWriteJson(const google::protobuf::Descriptor& type);

// Called with the text written so far once it passes the flush size: writes it
// out and clears it (a stream's sink). Null: everything stays in `out`.
using JsonFlush = std::function<void(std::string& out)>;

// Appends `message` as JSON to `out` (which CanWriteJson must allow), ending
// in a newline as protobuf's does; with `flush`, hands `out` over every
// `flush_bytes` or so.
void WriteJson(const google::protobuf::Message& message, std::string& out,
               const JsonFlush& flush = nullptr,
               size_t flush_bytes = size_t{1} << 16);

// `text` as a JSON string's contents, escaped as protobuf escapes it: `"`, `\`,
// control characters, `<`, `>`, U+007F-U+009F and the invisible or
// direction-changing code points; bytes that are not UTF-8 are dropped.
void AppendJsonEscaped(std::string_view text, std::string& out);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_JSON_WRITER_H_
