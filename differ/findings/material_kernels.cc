#include "differ/findings/material_kernels.h"

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// Whether `paired` holds kernel `name` under any operator (the whole step's
// rows may be grouped by name alone).
bool Paired(const PairedKernels& paired, const std::string& name) {
  auto it = paired.lower_bound({name, ""});
  return it != paired.end() && it->first == name;
}

bool Named(const std::vector<v1::Finding>& findings, const std::string& name) {
  for (const v1::Finding& f : findings) {
    for (const v1::FindingEvidence& e : f.evidence()) {
      if (e.table() == v1::EVIDENCE_TABLE_KERNELS && e.name() == name) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::vector<v1::Finding> MaterialKernelFindings(
    const FindingContext& c, const PairedKernels& paired,
    const std::vector<v1::Finding>& named,
    const std::vector<v1::Finding>& named_too) {
  std::vector<v1::Finding> out;
  const std::vector<v1::KernelDiff>* rows = c.in().kernels;
  if (rows == nullptr || !c.step_changed()) return out;
  std::vector<const v1::KernelDiff*> material;
  for (const v1::KernelDiff& row : *rows) {
    const double d = row.delta().total_us();
    if (!Changed(row, c.threshold()) || !SameSign(d, c.step_delta()) ||
        std::abs(d) < kMaterialKernelShare * std::abs(c.step_delta()) ||
        Paired(paired, row.name()) || Named(named, row.name()) ||
        Named(named_too, row.name())) {
      continue;
    }
    material.push_back(&row);
  }
  std::stable_sort(material.begin(), material.end(),
                   [](const v1::KernelDiff* x, const v1::KernelDiff* y) {
                     return std::abs(x->delta().total_us()) >
                            std::abs(y->delta().total_us());
                   });
  for (const v1::KernelDiff* row : material) {
    if (static_cast<int>(out.size()) == kMaterialKernelsShown) break;
    const v1::KernelValues& x = row->baseline();
    const v1::KernelValues& y = row->experimental();
    std::string text = base::StrCat(
        "Kernel ", ShortName(row->name()),
        row->op_name().empty() ? ""
                               : base::StrCat(" (under ", row->op_name(), ")"),
        " took ", Duration(x.total_us()), " -> ", Duration(y.total_us()),
        " of device time", c.per_step(), " (",
        SignedDuration(row->delta().total_us()), ", ",
        ChangePercent(x.total_us(), y.total_us()), ")",
        c.ShareClause(row->delta().total_us()), "; ",
        base::CountText(x.calls()), " -> ", base::CountText(y.calls()),
        " calls");
    if (x.calls() > 0 && y.calls() > 0) {
      base::StrAppend(&text, " of ", Duration(x.total_us() / x.calls()), " -> ",
                      Duration(y.total_us() / y.calls()), " each");
    }
    FindingEvidenceList evidence;
    *evidence.Add() = KernelEvidence(*row, "", c.threshold());
    out.push_back(c.Make(v1::FINDING_KIND_KERNEL, text + ".",
                         row->delta().total_us(), true, std::move(evidence)));
  }
  return out;
}

}  // namespace profdiff::differ
