#include "differ/findings/categories.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/str_cat.h"
#include "differ/display_text.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// A category as a reader of a GPU run understands it: the plugin's names
// are the step's wall time by who is busy, so "CPU Exec" is host time while
// the GPU is idle, not "the CPU did more work".
std::string CategoryName(const FindingContext& c, v1::OverviewMetric metric) {
  const std::string& name = DisplayText(metric);
  if (!c.on_device()) return name;
  switch (metric) {
    case v1::OVERVIEW_METRIC_CPU_EXEC:
      return base::StrCat(name, " (host time while the GPU is idle)");
    case v1::OVERVIEW_METRIC_RUNTIME:
      return base::StrCat(name, " (CUDA runtime calls while the GPU is idle)");
    case v1::OVERVIEW_METRIC_OTHER:
      return base::StrCat(name, " (neither the GPU nor a host operator busy)");
    default:
      return name;
  }
}

}  // namespace

std::vector<v1::Finding> CategoryFindings(const FindingContext& c) {
  std::vector<v1::Finding> out;
  const FindingInputs& in = c.in();
  if (in.overview == nullptr) return out;
  const double step_delta = c.step_delta();
  const bool step_changed = c.step_changed();
  std::vector<const v1::OverviewRow*> rows;
  double largest = std::abs(step_delta);
  for (const v1::OverviewRow& row : in.overview->rows()) {
    if (row.metric() < v1::OVERVIEW_METRIC_KERNEL ||
        row.metric() > v1::OVERVIEW_METRIC_OTHER ||
        !RowChanged(row, c.threshold()))
      continue;
    rows.push_back(&row);
    largest = std::max(largest, std::abs(row.delta()));
  }
  // Without a step-time change, shares of it mean nothing: a category is
  // named when it is 10% of the largest change, with its own percentage.
  std::erase_if(rows, [&](const v1::OverviewRow* row) {
    return std::abs(row->delta()) <
           kCategoryShare * (step_changed ? std::abs(step_delta) : largest);
  });
  std::stable_sort(rows.begin(), rows.end(),
                   [](const v1::OverviewRow* x, const v1::OverviewRow* y) {
                     return std::abs(x->delta()) > std::abs(y->delta());
                   });
  std::vector<std::string> items;
  double delta = 0;
  FindingEvidenceList evidence;
  for (const v1::OverviewRow* row : rows) {
    // Communication is a finding of its own: it is what DDP comparisons
    // are mostly about.
    if (row->metric() == v1::OVERVIEW_METRIC_COMMUNICATION) {
      v1::Finding f = c.Make(
          v1::FINDING_KIND_COMMUNICATION,
          base::StrCat("Communication ", Duration(row->baseline()), " -> ",
                       Duration(row->experimental()), c.per_step(), " (",
                       SignedDuration(row->delta()), ", ",
                       ChangePercent(row->baseline(), row->experimental()), ")",
                       c.ShareClause(row->delta()), "."),
          row->delta(), true);
      *f.add_evidence() = OverviewEvidence(*row, c.threshold());
      out.push_back(std::move(f));
      continue;
    }
    std::string share = ChangePercent(row->baseline(), row->experimental());
    if (step_changed) {
      share = SameSign(row->delta(), step_delta)
                  ? Share(row->delta() / step_delta)
                  : "against it";
    }
    items.push_back(base::StrCat(CategoryName(c, row->metric()), " ",
                                 SignedDuration(row->delta()), c.per_step(),
                                 " (", share, ")"));
    delta += row->delta();
    *evidence.Add() = OverviewEvidence(*row, c.threshold());
  }
  if (items.empty()) return out;
  v1::Finding made =
      c.Make(v1::FINDING_KIND_CATEGORY,
             base::StrCat(step_changed
                              ? "By category (share of the step-time change): "
                              : "By category (change of each): ",
                          NameList(items, 8), "."),
             delta, true, std::move(evidence));
  // Before a communication finding: the categories say where time went.
  out.insert(out.begin(), std::move(made));
  return out;
}

}  // namespace profdiff::differ
