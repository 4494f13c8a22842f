// Interned strings of one span: names, categories and shapes are stored once
// and referred to by StringId, so the reader allocates per distinct string, not
// per event.
#ifndef PROFDIFF_TRACE_STRING_POOL_H_
#define PROFDIFF_TRACE_STRING_POOL_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include <absl/container/flat_hash_map.h>
#include <absl/hash/hash.h>
#include <absl/strings/string_view.h>

namespace profdiff::trace {

// Index into a StringPool; 0 is the empty string ("none").
struct StringId {
  uint32_t value = 0;
  friend bool operator==(StringId a, StringId b) { return a.value == b.value; }
  friend bool operator!=(StringId a, StringId b) { return a.value != b.value; }
  template <typename H>
  friend H AbslHashValue(H h, StringId id) {
    return H::combine(std::move(h), id.value);
  }
};

// Debian's Abseil has its own string_view and hashes std::string_view through
// std::hash, which is slower; this hashes the same bytes as an
// absl::string_view.
struct TextHash {
  size_t operator()(std::string_view text) const {
    return absl::Hash<absl::string_view>()(
        absl::string_view(text.data(), text.size()));
  }
};

// Owns distinct strings; ids are dense from 0 and stable for the pool's life.
// Views returned by Get() stay valid while the pool lives (strings are never
// moved). Not thread-safe.
class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // Returns the id of `text`, adding it when new.
  StringId Intern(std::string_view text);
  std::string_view Get(StringId id) const { return strings_[id.value]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string>
      strings_;  // deque: growth never moves the strings the views point at
  absl::flat_hash_map<std::string_view, StringId, TextHash> ids_;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_STRING_POOL_H_
