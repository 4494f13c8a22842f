#include "report/overview_cells.h"

#include <absl/strings/str_format.h>

#include "base/number_format.h"

namespace profdiff::report {

bool IsTextRow(const v1::OverviewRow& row) {
  return row.unit() == v1::VALUE_UNIT_UNSPECIFIED &&
         (!row.baseline_text().empty() || !row.experimental_text().empty());
}

std::string OverviewCell(const v1::OverviewRow& row, bool experimental) {
  if (experimental ? row.experimental_missing() : row.baseline_missing())
    return "-";
  const double v = experimental ? row.experimental() : row.baseline();
  if (row.unit() == v1::VALUE_UNIT_FRACTION)
    return absl::StrFormat("%.1f%%", 100 * v);
  if (row.unit() == v1::VALUE_UNIT_BYTES) return base::BytesText(v);
  if (IsTextRow(row))
    return experimental ? row.experimental_text() : row.baseline_text();
  if (row.unit() == v1::VALUE_UNIT_US) return base::Micros(v);
  return absl::StrFormat("%.4g", v);
}

}  // namespace profdiff::report
