#include "trace/string_pool.h"

namespace profdiff::trace {

StringPool::StringPool() {
  strings_.emplace_back();
  ids_.emplace(std::string_view(strings_.front()), StringId{0});
}

StringId StringPool::Intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  const StringId id{static_cast<uint32_t>(strings_.size())};
  strings_.emplace_back(text);
  ids_.emplace(std::string_view(strings_.back()), id);
  return id;
}

}  // namespace profdiff::trace
