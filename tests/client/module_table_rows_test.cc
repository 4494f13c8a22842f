// Which module rows a table prints (client/module_table_rows.h): the root, the
// matching nodes to a depth with their ancestors, and past --top the largest
// changes only, with the count of rows left out.
#include "client/module_table_rows.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::client {
namespace {

v1::ModuleDiffNode& Add(v1::ModuleDiffNode& parent, const std::string& name,
                        double delta) {
  v1::ModuleDiffNode& n = *parent.add_children();
  n.set_name(name);
  n.mutable_delta()->set_compare_us(delta);
  return n;
}

// (root) > Enc_0 (+5) > {Attn_1 (-40) > Proj_3 (+1), MLP_2 (+10)}; Head_4 (+20)
v1::ModuleDiffNode Tree() {
  v1::ModuleDiffNode root;
  root.set_name("(root)");
  v1::ModuleDiffNode& enc = Add(root, "Enc_0", 5);
  Add(Add(enc, "Attn_1", -40), "Proj_3", 1);
  Add(enc, "MLP_2", 10);
  Add(root, "Head_4", 20);
  return root;
}

base::NameFilter Filter(const std::string& pattern) {
  return base::NameFilter::Compile(pattern).value();
}

// The names of the shown nodes, in tree order.
std::vector<std::string> Shown(const v1::ModuleDiffNode& node,
                               const ModuleTableRows& rows) {
  std::vector<std::string> names;
  if (rows.shown.contains(&node)) names.push_back(node.name());
  for (const v1::ModuleDiffNode& c : node.children()) {
    for (std::string& n : Shown(c, rows)) names.push_back(std::move(n));
  }
  return names;
}

TEST(ModuleTableRowsTest, EveryNodeToTheDepth) {
  const v1::ModuleDiffNode root = Tree();
  const ModuleTableRows all = SelectModuleTableRows(root, 10, Filter(""), 0);
  EXPECT_EQ(Shown(root, all),
            (std::vector<std::string>{"(root)", "Enc_0", "Attn_1", "Proj_3",
                                      "MLP_2", "Head_4"}));
  EXPECT_EQ(all.hidden, 0);
  const ModuleTableRows one = SelectModuleTableRows(root, 1, Filter(""), 0);
  EXPECT_EQ(Shown(root, one),
            (std::vector<std::string>{"(root)", "Enc_0", "Head_4"}));
  const ModuleTableRows none = SelectModuleTableRows(root, 0, Filter(""), 0);
  EXPECT_EQ(Shown(root, none), std::vector<std::string>{"(root)"});
}

TEST(ModuleTableRowsTest, AFilterKeepsMatchesWithTheirAncestors) {
  const v1::ModuleDiffNode root = Tree();
  const ModuleTableRows rows =
      SelectModuleTableRows(root, 10, Filter("Proj"), 0);
  EXPECT_EQ(Shown(root, rows),
            (std::vector<std::string>{"(root)", "Enc_0", "Attn_1", "Proj_3"}));
  // The root is always shown, and never matched itself.
  const ModuleTableRows nothing =
      SelectModuleTableRows(root, 10, Filter("root"), 0);
  EXPECT_EQ(Shown(root, nothing), std::vector<std::string>{"(root)"});
}

TEST(ModuleTableRowsTest, TopKeepsTheLargestChangesAndCountsTheRest) {
  const v1::ModuleDiffNode root = Tree();
  // The two largest |delta|: Attn_1 (40) and Head_4 (20); Enc_0 comes as
  // Attn_1's ancestor.
  const ModuleTableRows rows = SelectModuleTableRows(root, 10, Filter(""), 2);
  EXPECT_EQ(Shown(root, rows),
            (std::vector<std::string>{"(root)", "Enc_0", "Attn_1", "Head_4"}));
  EXPECT_EQ(rows.hidden, 2);  // Proj_3 and MLP_2
  // A top the rows fit in leaves them all.
  const ModuleTableRows fits = SelectModuleTableRows(root, 10, Filter(""), 5);
  EXPECT_EQ(fits.shown.size(), 6u);
  EXPECT_EQ(fits.hidden, 0);
}

TEST(ModuleTableRowsTest, EqualChangesKeepTheEarlierNode) {
  v1::ModuleDiffNode root;
  Add(root, "A", 3);
  Add(root, "B", -3);
  Add(root, "C", 3);
  const ModuleTableRows rows = SelectModuleTableRows(root, 1, Filter(""), 1);
  EXPECT_EQ(Shown(root, rows), (std::vector<std::string>{"", "A"}));
  EXPECT_EQ(rows.hidden, 2);
}

}  // namespace
}  // namespace profdiff::client
