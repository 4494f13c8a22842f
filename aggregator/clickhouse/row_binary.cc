#include "aggregator/clickhouse/row_binary.h"

#include "base/str_cat.h"

namespace profdiff::aggregator::clickhouse {
void RowBinaryWriter::VarUInt(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void RowBinaryWriter::String(std::string_view value) {
  VarUInt(value.size());
  out_.append(value);
}

void RowBinaryWriter::StringArray(const std::vector<std::string>& values) {
  VarUInt(values.size());
  for (const std::string& value : values) String(value);
}

uint64_t RowBinaryReader::VarUInt() {
  uint64_t value = 0;
  for (int shift = 0; ok_ && shift < 64; shift += 7) {
    if (offset_ >= data_.size()) break;
    const uint8_t byte = static_cast<uint8_t>(data_[offset_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  ok_ = false;
  return 0;
}

std::string_view RowBinaryReader::String() {
  const uint64_t size = VarUInt();
  if (!ok_ || data_.size() - offset_ < size) {
    ok_ = false;
    return {};
  }
  const std::string_view value = data_.substr(offset_, size);
  offset_ += size;
  return value;
}

std::vector<std::string> RowBinaryReader::StringArray() {
  std::vector<std::string> values;
  const uint64_t count = VarUInt();
  for (uint64_t i = 0; ok_ && i < count; ++i) values.emplace_back(String());
  return values;
}

absl::Status RowBinaryReader::status(std::string_view what) const {
  if (ok_) return absl::OkStatus();
  return absl::DataLossError(base::StrCat("clickhouse answer to ", what,
                                          " is cut short or damaged near byte ",
                                          offset_, " of ", data_.size()));
}

}  // namespace profdiff::aggregator::clickhouse
