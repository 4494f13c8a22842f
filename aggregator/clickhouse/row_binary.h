// ClickHouse's RowBinary format, both ways: rows for INSERT ... FORMAT
// RowBinary, and answers of SELECT ... FORMAT RowBinary (exact 64-bit integers
// and binary strings, which TSV and JSON would escape or quote). Little-endian
// fixed-width numbers; strings as LEB128 length + bytes.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_ROW_BINARY_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_ROW_BINARY_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <absl/status/status.h>

namespace profdiff::aggregator::clickhouse {

class RowBinaryWriter {
 public:
  explicit RowBinaryWriter(std::string& out) : out_(out) {}

  template <typename T>
  requires std::is_arithmetic_v<T>
  void Number(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value,
                sizeof(T));  // x86-64 and aarch64 are little-endian
    out_.append(bytes, sizeof(T));
  }
  void String(std::string_view value);
  void StringArray(const std::vector<std::string>& values);
  // LEB128, as lengths and counts are written (also Native's block header).
  void VarUInt(uint64_t value);

 private:
  std::string& out_;
};

// Reads an answer field by field; the first read past the end (or a length that
// runs past it) makes ok() false and every later read return zeros, so callers
// check once per row.
class RowBinaryReader {
 public:
  explicit RowBinaryReader(std::string_view data) : data_(data) {}

  bool done() const { return offset_ >= data_.size(); }
  bool ok() const { return ok_; }
  // DataLoss naming `what` and the offset, when a read failed.
  absl::Status status(std::string_view what) const;

  template <typename T>
  requires std::is_arithmetic_v<T> T Number() {
    T value{};
    if (!ok_ || data_.size() - offset_ < sizeof(T)) {
      ok_ = false;
      return value;
    }
    std::memcpy(&value, data_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  std::string_view String();
  std::vector<std::string> StringArray();
  // An array's element count (elements follow it).
  uint64_t VarUInt();

 private:
  std::string_view data_;
  size_t offset_ = 0;
  bool ok_ = true;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_ROW_BINARY_H_
