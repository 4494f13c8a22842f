#include "analysis/name_test_memo.h"

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "trace/string_pool.h"

namespace profdiff::analysis {
namespace {

std::vector<std::string>& AskedNames() {
  static std::vector<std::string> asked;
  return asked;
}

bool IsNccl(std::string_view name) {
  AskedNames().emplace_back(name);
  return name.find("nccl") != std::string_view::npos;
}

TEST(NameTestMemoTest, AnswersAsTheTestAndAsksItOncePerName) {
  AskedNames().clear();
  trace::StringPool strings;
  const trace::StringId gemm = strings.Intern("ampere_sgemm_128x64_tn");
  const trace::StringId nccl = strings.Intern("ncclDevKernel_AllReduce_Sum");
  const trace::StringId none;  // the empty string

  NameTestMemo is_nccl(strings, IsNccl);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(is_nccl(gemm));
    EXPECT_TRUE(is_nccl(nccl));
    EXPECT_FALSE(is_nccl(none));
  }
  EXPECT_EQ(AskedNames(),
            (std::vector<std::string>{"ampere_sgemm_128x64_tn",
                                      "ncclDevKernel_AllReduce_Sum", ""}));
}

TEST(NameTestMemoTest, MemosOfOnePoolAreIndependent) {
  AskedNames().clear();
  trace::StringPool strings;
  const trace::StringId nccl = strings.Intern("nccl:all_reduce");
  NameTestMemo first(strings, IsNccl);
  NameTestMemo second(
      strings, [](std::string_view name) { return name.starts_with("nccl:"); });
  EXPECT_TRUE(first(nccl));
  EXPECT_TRUE(second(nccl));
  EXPECT_TRUE(first(nccl));
  EXPECT_EQ(AskedNames().size(), 1u);
}

}  // namespace
}  // namespace profdiff::analysis
