// Table columns of names with a structure of their own, shortened by it
// rather than cut by characters anywhere (issue 45, 46).
#ifndef PROFDIFF_CLIENT_NAME_COLUMNS_H_
#define PROFDIFF_CLIENT_NAME_COLUMNS_H_

#include <string>
#include <vector>

#include "client/text_table.h"

namespace profdiff::client {

// Kernel names: shortened by their structure (differ/kernel_names.h), the
// same shortening as the findings and the HTML report, so a cell keeps the
// function and what tells two kernels apart.
TextTable::Column KernelNameColumn(std::string header);

// A tree's nodes, each indented two spaces a level: a cut shortens the name
// and never the indentation, so a node never prints under another parent.
TextTable::Column TreeNameColumn(std::string header);

// TreeNameColumn's shortening: each cell's name cut in the middle (head,
// "...", a third of the room for the tail) to fit `width` after its
// indentation; names that would print alike keep more of their tail, and
// past the width stay whole.
std::vector<std::string> ShortenTreeNames(const std::vector<std::string>& cells,
                                          size_t width);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_NAME_COLUMNS_H_
