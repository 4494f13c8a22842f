// An overview row's value as the several-run table and page print it.
#ifndef PROFDIFF_REPORT_OVERVIEW_CELLS_H_
#define PROFDIFF_REPORT_OVERVIEW_CELLS_H_

#include <string>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::report {

// A row of words (the device's name), not of numbers.
bool IsTextRow(const v1::OverviewRow& row);

// One side's value with its unit ("12.5%", "1.2 GiB", "830.1"), "-" when the
// side lacks the row.
std::string OverviewCell(const v1::OverviewRow& row, bool experimental);

}  // namespace profdiff::report

#endif  // PROFDIFF_REPORT_OVERVIEW_CELLS_H_
