// The table column of kernel names: names shortened by their structure
// (differ/kernel_names.h), the same shortening as the findings and the HTML
// report, so a table cell keeps the function and what tells two kernels apart.
#ifndef PROFDIFF_CLIENT_KERNEL_NAME_COLUMN_H_
#define PROFDIFF_CLIENT_KERNEL_NAME_COLUMN_H_

#include <string>

#include "client/text_table.h"

namespace profdiff::client {

// A left-aligned column headed `header` whose cells are kernel names.
TextTable::Column KernelNameColumn(std::string header);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_KERNEL_NAME_COLUMN_H_
