// Name columns shortened by their structure (client/name_columns.h).
#include "client/name_columns.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

// Issue 46: a cut that lost the indentation printed
// aten::_efficient_attention_forward under aten::pow.
TEST(NameColumnsTest, TreeNamesAreCutInTheNameNeverTheIndentation) {
  const std::vector<std::string> cells = {
      "Model_Forward",
      "  TransformerLayer_0",
      "    aten::pow",
      "    aten::scaled_dot_product_attention",
      "      aten::_scaled_dot_product_efficient_attention",
      "        aten::_efficient_attention_forward",
  };
  const std::vector<std::string> shown = ShortenTreeNames(cells, 24);
  ASSERT_EQ(shown.size(), cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t indent = cells[i].find_first_not_of(' ');
    EXPECT_EQ(shown[i].find_first_not_of(' '), indent) << shown[i];
    EXPECT_LE(shown[i].size(), 24u) << shown[i];
  }
  EXPECT_EQ(shown[2], "    aten::pow");
  EXPECT_EQ(shown[5], "        aten::_ef...ward");  // 16 after the indent
}

TEST(NameColumnsTest, TreeNamesThatWouldPrintAlikeKeepMoreTail) {
  const std::vector<std::string> cells = {"  aten::linear_backward_one_x",
                                          "  aten::linear_backward_two_x",
                                          "  aten::linear_backward_one_x"};
  const std::vector<std::string> shown = ShortenTreeNames(cells, 16);
  EXPECT_NE(shown[0], shown[1]);
  EXPECT_EQ(shown[0], shown[2]);  // the same name prints alike
  EXPECT_EQ(shown[0].substr(0, 2), "  ");
}

TEST(NameColumnsTest, DeepIndentationKeepsAReadableName) {
  const std::string deep =
      std::string(60, ' ') + "aten::addmm_with_a_long_name";
  const std::vector<std::string> shown = ShortenTreeNames({deep}, 40);
  EXPECT_EQ(shown[0].find_first_not_of(' '), 60u);
  EXPECT_EQ(shown[0].size(), 60u + 12u);  // the narrowest cut
}

TEST(NameColumnsTest, KernelColumnShortensByStructure) {
  const TextTable::Column column = KernelNameColumn("kernel");
  ASSERT_TRUE(column.shorten);
  EXPECT_EQ(column
                .shorten({"void at::native::(anonymous "
                          "namespace)::cunn_SoftMaxForward<4, float, float, "
                          "float, at::native::(anonymous "
                          "namespace)::SoftMaxForwardEpilogue>(float*, "
                          "float const*, int)"},
                         32)
                .front(),
            "cunn_SoftMaxForward<4,float,...>");
}

}  // namespace
}  // namespace profdiff::client
