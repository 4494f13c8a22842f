// A test of an event's name, asked once per distinct name: names repeat (a
// kernel runs thousands of times in a trace) and kernel names run to hundreds
// of bytes, so scanning each event's name again is most of the cost.
#ifndef PROFDIFF_ANALYSIS_NAME_TEST_MEMO_H_
#define PROFDIFF_ANALYSIS_NAME_TEST_MEMO_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/string_pool.h"

namespace profdiff::analysis {

class NameTestMemo {
 public:
  using Test = bool (*)(std::string_view name);

  // `strings` must outlive the memo and not grow while it is used.
  NameTestMemo(const trace::StringPool& strings, Test test)
      : strings_(strings), test_(test), answer_(strings.size(), kUnknown) {}

  bool operator()(trace::StringId name) {
    uint8_t& answer = answer_[name.value];
    if (answer == kUnknown) answer = test_(strings_.Get(name)) ? kYes : kNo;
    return answer == kYes;
  }

 private:
  static constexpr uint8_t kUnknown = 0;
  static constexpr uint8_t kNo = 1;
  static constexpr uint8_t kYes = 2;

  const trace::StringPool& strings_;
  Test test_;
  std::vector<uint8_t> answer_;  // by string id
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_NAME_TEST_MEMO_H_
