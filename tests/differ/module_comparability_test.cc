#include "differ/module_comparability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::ModuleDiffNode Node(const std::string& path, v1::DiffStatus status,
                        std::vector<v1::ModuleDiffNode> children = {}) {
  v1::ModuleDiffNode node;
  node.set_path(path);
  node.set_status(status);
  const std::string name = path.substr(path.rfind('/') + 1);
  if (status != v1::DIFF_STATUS_ADDED) node.set_baseline_name(name);
  if (status != v1::DIFF_STATUS_REMOVED) node.set_experimental_name(name);
  for (v1::ModuleDiffNode& child : children)
    *node.add_children() = std::move(child);
  return node;
}

TEST(ModuleComparabilityTest, MatchedNodeWhoseSubModulesAllDifferIsNamed) {
  const v1::ModuleDiffNode root =
      Node("", v1::DIFF_STATUS_MATCHED,
           {Node("DDP_0", v1::DIFF_STATUS_MATCHED,
                 {Node("DDP_0/Mlp_0", v1::DIFF_STATUS_REMOVED,
                       {Node("DDP_0/Mlp_0/Linear_0", v1::DIFF_STATUS_REMOVED)}),
                  Node("DDP_0/FlatMlp_0", v1::DIFF_STATUS_ADDED),
                  Node("DDP_0/(unknown)", v1::DIFF_STATUS_UNKNOWN)})});
  EXPECT_THAT(
      IncomparableSubtreeWarnings(root),
      ElementsAre(
          "modules: below DDP_0 nothing aligns (baseline Mlp_0; experimental "
          "FlatMlp_0): only DDP_0 and what is above it can be compared"));
}

TEST(ModuleComparabilityTest, TopLevelThatAlignsNothingSaysTheTopLevel) {
  const v1::ModuleDiffNode root = Node("", v1::DIFF_STATUS_MATCHED,
                                       {Node("A_0", v1::DIFF_STATUS_REMOVED),
                                        Node("B_0", v1::DIFF_STATUS_ADDED)});
  EXPECT_THAT(IncomparableSubtreeWarnings(root),
              ElementsAre(HasSubstr("below the top level nothing aligns")));
}

TEST(ModuleComparabilityTest, OneMatchedChildOrOnlyAdditionsAreComparable) {
  // ResNet50 -> ResNet152: blocks added next to matched ones is an ordinary
  // diff.
  const v1::ModuleDiffNode grown =
      Node("", v1::DIFF_STATUS_MATCHED,
           {Node("layer3", v1::DIFF_STATUS_MATCHED,
                 {Node("layer3/Bottleneck_0", v1::DIFF_STATUS_MATCHED),
                  Node("layer3/Bottleneck_6", v1::DIFF_STATUS_ADDED)})});
  EXPECT_THAT(IncomparableSubtreeWarnings(grown), IsEmpty());
  const v1::ModuleDiffNode only_added = Node(
      "", v1::DIFF_STATUS_MATCHED, {Node("Head_0", v1::DIFF_STATUS_ADDED)});
  EXPECT_THAT(IncomparableSubtreeWarnings(only_added), IsEmpty());
}

TEST(ModuleComparabilityTest, LongListsAreCut) {
  std::vector<v1::ModuleDiffNode> children;
  children.reserve(7);
  for (int i = 0; i < 6; ++i)
    children.push_back(
        Node("Old_" + std::to_string(i), v1::DIFF_STATUS_REMOVED));
  children.push_back(Node("New_0", v1::DIFF_STATUS_ADDED));
  EXPECT_THAT(
      IncomparableSubtreeWarnings(
          Node("", v1::DIFF_STATUS_MATCHED, std::move(children))),
      ElementsAre(HasSubstr("baseline Old_0, Old_1, Old_2, Old_3 and 2 more; "
                            "experimental New_0")));
}

}  // namespace
}  // namespace profdiff::differ
