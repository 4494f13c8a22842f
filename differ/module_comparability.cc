#include "differ/module_comparability.h"

#include "base/str_cat.h"

namespace profdiff::differ {
namespace {

// At most this many names per side in a warning; the tree lists them all.
constexpr int kNamesShown = 4;

std::string NameList(const std::vector<std::string>& names) {
  std::string out;
  for (int i = 0; i < static_cast<int>(names.size()) && i < kNamesShown; ++i) {
    base::StrAppend(&out, i == 0 ? "" : ", ", names[i]);
  }
  if (static_cast<int>(names.size()) > kNamesShown) {
    base::StrAppend(&out, " and ", names.size() - kNamesShown, " more");
  }
  return out;
}

void Visit(const v1::ModuleDiffNode& node, std::vector<std::string>& warnings) {
  if (node.status() != v1::DIFF_STATUS_MATCHED) return;
  std::vector<std::string> removed, added;
  bool any_matched = false;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (child.status() == v1::DIFF_STATUS_MATCHED) any_matched = true;
    if (child.status() == v1::DIFF_STATUS_REMOVED)
      removed.push_back(child.baseline_name());
    if (child.status() == v1::DIFF_STATUS_ADDED)
      added.push_back(child.experimental_name());
  }
  if (!any_matched && !removed.empty() && !added.empty()) {
    const std::string where =
        node.path().empty() ? "the top level" : node.path();
    warnings.push_back(base::StrCat(
        "modules: below ", where, " nothing aligns (baseline ",
        NameList(removed), "; experimental ", NameList(added), "): only ",
        where, node.path().empty() ? "" : " and what is above it",
        " can be compared"));
    return;
  }
  for (const v1::ModuleDiffNode& child : node.children())
    Visit(child, warnings);
}

}  // namespace

std::vector<std::string> IncomparableSubtreeWarnings(
    const v1::ModuleDiffNode& root) {
  std::vector<std::string> warnings;
  Visit(root, warnings);
  return warnings;
}

}  // namespace profdiff::differ
