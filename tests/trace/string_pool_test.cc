// Interned strings (string_pool.cc): the empty string is id 0, ids are dense in
// first-use order, and views stay valid as the pool grows.
#include "trace/string_pool.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

TEST(StringPoolTest, NewPoolHoldsOnlyTheEmptyStringAsIdZero) {
  StringPool pool;
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(pool.Get(StringId{}), "");
  EXPECT_EQ(pool.Intern(""), StringId{});
  EXPECT_EQ(pool.size(), 1u);
}

TEST(StringPoolTest, IdsAreDenseInFirstUseOrder) {
  StringPool pool;
  EXPECT_EQ(pool.Intern("aten::mm").value, 1u);
  EXPECT_EQ(pool.Intern("gemm").value, 2u);
  EXPECT_EQ(pool.Intern("aten::mm").value, 1u);
  EXPECT_EQ(pool.Intern("aten::add").value, 3u);
  EXPECT_EQ(pool.size(), 4u);
  EXPECT_EQ(pool.Get(StringId{2}), "gemm");
}

TEST(StringPoolTest, InternCopiesTheText) {
  StringPool pool;
  std::string text = "kernel";
  const StringId id = pool.Intern(text);
  text = "changed";
  EXPECT_EQ(pool.Get(id), "kernel");
  EXPECT_EQ(pool.Intern("kernel"), id);
}

TEST(StringPoolTest, ViewsStayValidAsThePoolGrows) {
  StringPool pool;
  const std::string_view first = pool.Get(pool.Intern("first"));
  const char* data = first.data();
  for (int i = 0; i < 10000; ++i) pool.Intern("s" + std::to_string(i));
  EXPECT_EQ(first, "first");
  EXPECT_EQ(pool.Get(StringId{1}).data(), data);
}

TEST(StringPoolTest, StringsDifferingInEmbeddedNulsAreDistinct) {
  StringPool pool;
  const StringId a = pool.Intern(std::string_view("a\0b", 3));
  const StringId b = pool.Intern(std::string_view("a\0c", 3));
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Get(a).size(), 3u);
}

TEST(StringPoolTest, MovedPoolKeepsItsIdsAndViews) {
  StringPool pool;
  const StringId id = pool.Intern("nccl:all_reduce");
  const std::string_view view = pool.Get(id);
  StringPool moved = std::move(pool);
  EXPECT_EQ(moved.Get(id), "nccl:all_reduce");
  EXPECT_EQ(moved.Get(id).data(), view.data());
  EXPECT_EQ(moved.Intern("nccl:all_reduce"), id);
}

TEST(StringPoolTest, TextHashIsTheSameForEqualBytesWhereverTheyLive) {
  const std::string a = "cudaLaunchKernel";
  const std::vector<char> b(a.begin(), a.end());
  EXPECT_EQ(TextHash()(a), TextHash()(std::string_view(b.data(), b.size())));
  EXPECT_NE(TextHash()("cudaLaunchKernel"), TextHash()("cudaMemcpyAsync"));
}

}  // namespace
}  // namespace profdiff::trace
