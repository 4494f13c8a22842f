#include "differ/findings/replacements.h"

#include <algorithm>
#include <map>
#include <vector>

#include "base/number_format.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/noise.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// Kernel names shown this long at most: enough to tell GEMM variants apart.
constexpr size_t kKernelNameShown = 48;
// Autocast's dtype conversion: what a reader of a precision change looks for.
constexpr std::string_view kToCopy = "aten::_to_copy";

// One kernel of one operator, summed over the scopes it ran in.
struct KernelSide {
  std::string name;
  double time[2] = {0, 0};  // baseline, experimental
  std::vector<v1::FindingEvidence> evidence;
};

// What ran under one operator on one side only.
struct OperatorReplacement {
  std::string op;
  std::vector<KernelSide> gone;  // baseline only, largest first
  std::vector<KernelSide> came;  // experimental only, largest first
  double gone_us = 0;
  double came_us = 0;
};

// "fp32 sm80_xmma_gemm_f32f32... and 4 more, 12.1 ms": one side of a
// replacement, its precision said when every named kernel says the same.
std::string SideText(const std::vector<KernelSide>& kernels, double us) {
  std::string_view precision = KernelPrecision(kernels.front().name);
  for (const KernelSide& k : kernels) {
    if (KernelPrecision(k.name) != precision) precision = "";
  }
  std::string out = precision.empty() ? "" : base::StrCat(precision, " ");
  base::StrAppend(&out, ShortName(kernels.front().name, kKernelNameShown));
  if (kernels.size() > 1)
    base::StrAppend(&out, " and ", kernels.size() - 1, " more");
  base::StrAppend(&out, ", ", Duration(us));
  return out;
}

// The kernel rows of the top-level modules, each with its scope; or the whole
// step's when they name their operator.
absl::StatusOr<std::vector<std::pair<std::string, v1::KernelDiff>>> KernelRows(
    const FindingContext& c) {
  std::vector<std::pair<std::string, v1::KernelDiff>> rows;
  const FindingInputs& in = c.in();
  if (in.modules != nullptr && in.inside) {
    for (const v1::ModuleDiffNode& child : in.modules->children()) {
      if (child.kind() == v1::MODULE_NODE_KIND_UNKNOWN) continue;
      PD_ASSIGN_OR_RETURN(ScopedTables tables, in.inside(child.index_path()));
      for (v1::KernelDiff& row : tables.kernels) {
        rows.emplace_back(child.index_path(), std::move(row));
      }
    }
  }
  const bool by_operator =
      std::any_of(rows.begin(), rows.end(),
                  [](const auto& r) { return !r.second.op_name().empty(); });
  if (!by_operator && in.kernels != nullptr) {
    rows.clear();
    for (const v1::KernelDiff& row : *in.kernels) rows.emplace_back("", row);
  }
  return rows;
}

// Dtype conversions that grew: "; dtype conversions (aten::_to_copy) newly
// cost ..." or "".
std::string Conversions(const FindingContext& c, double& delta_us,
                        FindingEvidenceList& evidence) {
  if (c.in().operators == nullptr) return "";
  for (const v1::OperatorDiff& row : *c.in().operators) {
    if (row.name() != kToCopy) continue;
    const double host = row.delta().host_total_us();
    const double device = row.delta().device_total_us();
    if (!LargeEnough(
            host + device,
            row.baseline().host_total_us() + row.baseline().device_total_us(),
            c.threshold()) ||
        host + device <= 0) {
      return "";
    }
    *evidence.Add() = OperatorEvidence(row, "", c.threshold());
    delta_us += device > 0 ? device : host;
    return base::StrCat(
        ". Dtype conversions (", kToCopy, ", as autocast adds) ",
        row.change() == v1::CHANGE_ADDED ? "newly cost " : "cost ",
        SignedDuration(host), " of host time and ", SignedDuration(device),
        " of device time", c.per_step(), " (",
        base::CountText(row.baseline().calls()), " -> ",
        base::CountText(row.experimental().calls()), " calls)");
  }
  return "";
}

}  // namespace

std::string_view KernelPrecision(std::string_view kernel) {
  const auto has = [&](std::string_view token) {
    return kernel.find(token) != std::string_view::npos;
  };
  // Most specific first: "bf16" holds "f16", "tf32" holds "f32".
  if (has("bf16") || has("BFloat16") || has("bfloat16")) return "bf16";
  if (has("tf32")) return "tf32";
  if (has("f16") || has("Half") || has("hgemm") || has("fp16")) return "fp16";
  if (has("f32") || has("sgemm") || has("<float") || has("float>")) {
    return "fp32";
  }
  return "";
}

absl::StatusOr<std::optional<v1::Finding>> ReplacementFinding(
    const FindingContext& c, PairedKernels& paired) {
  PD_ASSIGN_OR_RETURN(auto rows, KernelRows(c));
  // (operator, kernel) -> both sides' time over every scope.
  std::map<std::pair<std::string, std::string>, KernelSide> kernels;
  for (const auto& [scope, row] : rows) {
    if (row.op_name().empty()) continue;
    KernelSide& k = kernels[{row.op_name(), row.name()}];
    k.name = row.name();
    k.time[0] += row.baseline().total_us();
    k.time[1] += row.experimental().total_us();
    k.evidence.push_back(KernelEvidence(row, scope, c.threshold()));
  }
  std::map<std::string, OperatorReplacement> by_op;
  for (auto& [key, k] : kernels) {
    const bool gone = k.time[0] > 0 && k.time[1] == 0;
    const bool came = k.time[0] == 0 && k.time[1] > 0;
    if (!gone && !came) continue;
    OperatorReplacement& r = by_op[key.first];
    r.op = key.first;
    (gone ? r.gone_us : r.came_us) += gone ? k.time[0] : k.time[1];
    (gone ? r.gone : r.came).push_back(std::move(k));
  }
  std::vector<OperatorReplacement*> replaced;
  for (auto& [op, r] : by_op) {
    if (r.gone.empty() || r.came.empty() ||
        !LargeEnough(r.gone_us + r.came_us, 0, c.threshold())) {
      continue;
    }
    for (auto* side : {&r.gone, &r.came}) {
      std::stable_sort(side->begin(), side->end(),
                       [](const KernelSide& x, const KernelSide& y) {
                         return std::max(x.time[0], x.time[1]) >
                                std::max(y.time[0], y.time[1]);
                       });
    }
    replaced.push_back(&r);
  }
  if (replaced.empty()) return std::nullopt;
  std::stable_sort(
      replaced.begin(), replaced.end(),
      [](const OperatorReplacement* x, const OperatorReplacement* y) {
        return x->gone_us + x->came_us > y->gone_us + y->came_us;
      });
  // Items hold commas: they are joined by semicolons.
  std::string items;
  std::vector<std::string> more;
  FindingEvidenceList evidence;
  double delta = 0;
  int shown = 0;
  for (const OperatorReplacement* r : replaced) {
    for (const auto* side : {&r->gone, &r->came}) {
      for (const KernelSide& k : *side) paired.insert({k.name, r->op});
    }
    if (shown == kReplacementsShown) {
      more.push_back(r->op);
      continue;
    }
    ++shown;
    base::StrAppend(&items, items.empty() ? "" : "; ", r->op, ": ",
                    SideText(r->gone, r->gone_us), " -> ",
                    SideText(r->came, r->came_us));
    delta += r->came_us - r->gone_us;
    for (const auto* side : {&r->gone, &r->came}) {
      for (const v1::FindingEvidence& e : side->front().evidence) {
        *evidence.Add() = e;
      }
    }
  }
  if (!more.empty()) {
    base::StrAppend(&items, "; and under ", NameList(more, kReplacementsShown));
  }
  std::string text =
      base::StrCat("Kernels replaced under the same operator (device time",
                   c.per_step(), "): ", items);
  base::StrAppend(&text, Conversions(c, delta, evidence), ".");
  return c.Make(v1::FINDING_KIND_REPLACEMENT, std::move(text), delta, true,
                std::move(evidence));
}

}  // namespace profdiff::differ
