// Which nodes of a diffed module tree the table and CSV formats print: the
// tree to a depth, the nodes --filter names, the --top largest changes, each
// with its ancestors (README "the module table's rows").
#ifndef PROFDIFF_CLIENT_MODULE_TABLE_ROWS_H_
#define PROFDIFF_CLIENT_MODULE_TABLE_ROWS_H_

#include <set>

#include "base/name_filter.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

struct ModuleTableRows {
  // Nodes of the tree passed to SelectModuleTableRows; print a node when it is
  // here, in tree order.
  std::set<const v1::ModuleDiffNode*> shown;
  int hidden = 0;  // rows left out by `top`
};

// The root, and the nodes to `max_depth` below it whose name `filter` matches,
// with their ancestors; then, past `top` (> 0) rows besides the root, only the
// `top` matched nodes with the largest |delta compare_us| (earlier first among
// equals) and their ancestors. The pointers point into `root`, which must
// outlive the result.
ModuleTableRows SelectModuleTableRows(const v1::ModuleDiffNode& root,
                                      int max_depth,
                                      const base::NameFilter& filter, int top);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_MODULE_TABLE_ROWS_H_
