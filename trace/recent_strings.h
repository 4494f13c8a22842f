// A small direct-mapped cache of recently seen strings, in front of a hash map.
// The reader looks up an event name (kernel names run to hundreds of bytes) and
// a shape list per event, and a few hundred distinct values make up nearly all
// of them: a slot picked from the length and the first and last 8 bytes, then
// one memcmp, costs less than hashing every byte.
#ifndef PROFDIFF_TRACE_RECENT_STRINGS_H_
#define PROFDIFF_TRACE_RECENT_STRINGS_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "trace/string_pool.h"

namespace profdiff::trace {

// Maps text to a StringId; a miss (or a slot taken by other text) is the
// caller's to resolve. `text` views given to Remember must outlive the cache.
class RecentStrings {
 public:
  // The id remembered for exactly `text`, or nullptr.
  const StringId* Find(std::string_view text) const {
    const Slot& slot = slots_[SlotOf(text)];
    return slot.text == text ? &slot.id : nullptr;
  }
  void Remember(std::string_view text, StringId id) {
    slots_[SlotOf(text)] = {text, id};
  }

 private:
  static constexpr size_t kSlots = 1024;

  static size_t SlotOf(std::string_view text) {
    uint64_t first = 0;
    uint64_t last = 0;
    const size_t n = text.size();
    if (n != 0) std::memcpy(&first, text.data(), n < 8 ? n : 8);
    if (n > 8) std::memcpy(&last, text.data() + n - 8, 8);
    const uint64_t h = (first * 0x9E3779B97F4A7C15ULL) ^
                       (last * 0xC2B2AE3D27D4EB4FULL) ^
                       (n * 0x165667B19E3779F9ULL);
    return static_cast<size_t>(h >> 54) & (kSlots - 1);
  }

  struct Slot {
    std::string_view text;
    StringId id;
  };
  std::array<Slot, kSlots> slots_{};
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_RECENT_STRINGS_H_
