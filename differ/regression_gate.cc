#include "differ/regression_gate.h"

#include <re2/re2.h>

#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include <absl/strings/ascii.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include "base/str_cat.h"
#include "differ/display_text.h"
#include "differ/finding_evidence.h"
#include "differ/noise.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

using Subject = GateCondition::Subject;
using Unit = GateCondition::Unit;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The differ's default --min-change-us: 0.1% of the baseline step time.
constexpr double kDefaultMinChangeStepShare = 0.001;

// What an overview metric is measured in, for the units a condition may use.
enum class Measure { kTime, kFraction, kBytes, kCount, kText };

Measure MeasureOf(v1::OverviewMetric metric) {
  switch (metric) {
    case v1::OVERVIEW_METRIC_DEVICE:
      return Measure::kText;
    case v1::OVERVIEW_METRIC_GPU_UTILIZATION:
    case v1::OVERVIEW_METRIC_SM_EFFICIENCY:
    case v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY:
      return Measure::kFraction;
    case v1::OVERVIEW_METRIC_DEVICE_MEMORY:
    case v1::OVERVIEW_METRIC_PEAK_MEMORY:
    case v1::OVERVIEW_METRIC_AVERAGE_MEMORY:
      return Measure::kBytes;
    case v1::OVERVIEW_METRIC_RANKS:
    case v1::OVERVIEW_METRIC_STEPS:
      return Measure::kCount;
    default:
      return Measure::kTime;
  }
}

// "step_time" for OVERVIEW_METRIC_STEP_TIME.
std::string MetricName(v1::OverviewMetric metric) {
  std::string name = v1::OverviewMetric_Name(metric);
  constexpr std::string_view kPrefix = "OVERVIEW_METRIC_";
  if (std::string_view(name).starts_with(kPrefix))
    name.erase(0, kPrefix.size());
  return absl::AsciiStrToLower(name);
}

std::vector<std::string> KnownMetrics() {
  std::vector<std::string> names;
  for (int m = v1::OverviewMetric_MIN; m <= v1::OverviewMetric_MAX; ++m) {
    const auto metric = static_cast<v1::OverviewMetric>(m);
    if (!v1::OverviewMetric_IsValid(m) ||
        metric == v1::OVERVIEW_METRIC_UNSPECIFIED ||
        MeasureOf(metric) == Measure::kText)
      continue;
    names.push_back(MetricName(metric));
  }
  for (const char* memory : {"memory.peak", "memory.average", "memory.reserved",
                             "kernel:REGEX", "operator:REGEX", "module:REGEX"})
    names.push_back(memory);
  return names;
}

// Splits on commas outside (), [] and {} (a pattern may hold "{1,3}").
std::vector<std::string> SplitConditions(const std::string& value) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (char c : value) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back();
      continue;
    }
    out.back().push_back(c);
  }
  return out;
}

absl::Status Refuse(const std::string& condition, std::string_view why) {
  return absl::InvalidArgumentError(
      base::StrCat("--fail-on ", condition, ": ", why));
}

struct UnitScale {
  std::string_view name;
  Unit unit;
  double scale;  // to us or bytes
};
constexpr UnitScale kUnits[] = {
    {"%", Unit::kPercent, 1},         {"pp", Unit::kPoints, 1},
    {"us", Unit::kMicros, 1},         {"ms", Unit::kMicros, 1e3},
    {"s", Unit::kMicros, 1e6},        {"b", Unit::kBytes, 1},
    {"kb", Unit::kBytes, 1e3},        {"mb", Unit::kBytes, 1e6},
    {"gb", Unit::kBytes, 1e9},        {"kib", Unit::kBytes, 1024.0},
    {"mib", Unit::kBytes, 1048576.0}, {"gib", Unit::kBytes, 1073741824.0},
};

absl::StatusOr<GateCondition> ParseCondition(const std::string& text) {
  // The last comparison in the text is the condition's (a pattern may hold
  // "<" and ">": kernel:Kernel2<.*>>10%).
  static const re2::RE2 kShape(
      R"(^\s*(.+?)\s*([<>]=?)\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*([A-Za-z%]*)\s*$)");
  std::string subject, op, number, unit_text;
  if (!re2::RE2::FullMatch(text, kShape, &subject, &op, &number, &unit_text)) {
    return Refuse(text,
                  "expected METRIC OP THRESHOLD, such as step_time>5% or "
                  "kernel:.*nccl.*>10% (OP: >, >=, <, <=)");
  }
  GateCondition c;
  c.text = text;
  c.greater = op[0] == '>';
  c.inclusive = op.size() == 2;
  c.threshold = std::strtod(number.c_str(), nullptr);
  if (!std::isfinite(c.threshold))
    return Refuse(text, "the number is too large");
  // The subject.
  Measure measure = Measure::kTime;
  auto pattern = [&](std::string_view prefix) -> absl::Status {
    const std::string regex = subject.substr(prefix.size());
    if (regex.empty()) return Refuse(text, "an empty pattern");
    const re2::RE2 probe(regex, re2::RE2::Quiet);
    if (!probe.ok()) {
      return Refuse(text, base::StrCat("the pattern \"", regex,
                                       "\" does not compile: ", probe.error()));
    }
    absl::StatusOr<base::NameFilter> filter = base::NameFilter::Compile(regex);
    if (!filter.ok())
      return Refuse(text, std::string(filter.status().message()));
    c.pattern = *std::move(filter);
    return absl::OkStatus();
  };
  if (subject.starts_with("kernel:")) {
    c.subject = Subject::kKernel;
    if (absl::Status s = pattern("kernel:"); !s.ok()) return s;
  } else if (subject.starts_with("operator:")) {
    c.subject = Subject::kOperator;
    if (absl::Status s = pattern("operator:"); !s.ok()) return s;
  } else if (subject.starts_with("module:")) {
    c.subject = Subject::kModule;
    if (absl::Status s = pattern("module:"); !s.ok()) return s;
  } else if (subject.starts_with("memory.")) {
    c.subject = Subject::kMemory;
    c.memory_figure = subject.substr(7);
    if (c.memory_figure != "peak" && c.memory_figure != "average" &&
        c.memory_figure != "reserved") {
      return Refuse(text, "memory.peak, memory.average or memory.reserved");
    }
    measure = Measure::kBytes;
  } else {
    c.subject = Subject::kOverview;
    for (int m = v1::OverviewMetric_MIN; m <= v1::OverviewMetric_MAX; ++m) {
      const auto metric = static_cast<v1::OverviewMetric>(m);
      if (v1::OverviewMetric_IsValid(m) &&
          metric != v1::OVERVIEW_METRIC_UNSPECIFIED &&
          MeasureOf(metric) != Measure::kText && MetricName(metric) == subject)
        c.metric = metric;
    }
    if (c.metric == v1::OVERVIEW_METRIC_UNSPECIFIED) {
      return Refuse(text,
                    base::StrCat("unknown metric \"", subject, "\"; known: ",
                                 absl::StrJoin(KnownMetrics(), ", ")));
    }
    measure = MeasureOf(c.metric);
  }
  // The unit, and whether it fits the subject.
  const std::string unit = absl::AsciiStrToLower(unit_text);
  const UnitScale* scale = nullptr;
  for (const UnitScale& u : kUnits) {
    if (u.name == unit) scale = &u;
  }
  if (unit.empty()) {
    if (measure == Measure::kFraction) {
      return Refuse(text,
                    "a fraction's threshold needs % (relative) or pp "
                    "(percentage points)");
    }
    c.unit = measure == Measure::kBytes ? Unit::kBytes : Unit::kMicros;
    if (measure == Measure::kCount) c.unit = Unit::kMicros;  // a plain count
    return c;
  }
  if (scale == nullptr) {
    return Refuse(text, base::StrCat("unknown unit \"", unit_text,
                                     "\" (%, pp, us, ms, s, B, KiB, MiB, GiB, "
                                     "KB, MB, GB)"));
  }
  c.unit = scale->unit;
  c.threshold *= scale->scale;
  const bool fits =
      c.unit == Unit::kPercent ||
      (c.unit == Unit::kPoints && measure == Measure::kFraction) ||
      (c.unit == Unit::kMicros && measure == Measure::kTime) ||
      (c.unit == Unit::kBytes && measure == Measure::kBytes);
  if (!fits) {
    return Refuse(
        text,
        base::StrCat("\"", unit_text, "\" does not measure ", subject,
                     c.unit == Unit::kPoints ? " (pp is for fractions)" : ""));
  }
  return c;
}

// A change as a condition reads it.
struct Change {
  Change(std::string change_name, double base, double exp, bool judged)
      : name(std::move(change_name)),
        baseline(base),
        experimental(exp),
        significant(judged) {}
  std::string name;
  double baseline = 0;
  double experimental = 0;
  bool significant = false;
  bool fraction = false;  // printed in percent, changed in points
  bool bytes = false;
};

double ValueIn(const Change& change, Unit unit) {
  const double delta = change.experimental - change.baseline;
  switch (unit) {
    case Unit::kPercent:
      if (change.baseline == 0) return delta > 0 ? kInfinity : 0;
      return 100 * delta / std::abs(change.baseline);
    case Unit::kPoints:
      return 100 * delta;
    case Unit::kMicros:
    case Unit::kBytes:
      return delta;
  }
  return delta;
}

std::string Amount(const Change& c, double v) {
  if (c.fraction) return absl::StrFormat("%.1f%%", 100 * v);
  if (c.bytes) return Bytes(v);
  return Duration(v);
}

std::string Describe(const Change& c) {
  const double delta = c.experimental - c.baseline;
  std::string change;
  if (c.fraction) {
    change = absl::StrFormat("%+.1f pp", 100 * delta);
  } else {
    change = ChangePercent(c.baseline, c.experimental);
  }
  return base::StrCat(c.name, " ", change, " (", Amount(c, c.baseline), " -> ",
                      Amount(c, c.experimental), ")");
}

class Evaluator {
 public:
  explicit Evaluator(const v1::DiffReport& report) : report_(report) {
    double step_us = 0;
    for (const v1::OverviewRow& row : report.overview().rows()) {
      if (row.metric() == v1::OVERVIEW_METRIC_STEP_TIME)
        step_us = row.baseline();
    }
    absl::StatusOr<ChangeThreshold> threshold = ChangeThresholdOf(
        report.options(), kDefaultMinChangeStepShare * step_us);
    if (threshold.ok()) threshold_ = *threshold;
  }

  v1::GateResult Evaluate(const GateCondition& c) const {
    v1::GateResult result;
    result.set_condition(c.text);
    for (const Change& change : ChangesOf(c)) {
      if (!change.significant) continue;
      if (!c.Crosses(ValueIn(change, c.unit))) continue;
      result.set_failed(true);
      result.add_crossed(Describe(change));
    }
    return result;
  }

 private:
  std::vector<Change> ChangesOf(const GateCondition& c) const {
    std::vector<Change> out;
    switch (c.subject) {
      case Subject::kOverview:
        for (const v1::OverviewRow& row : report_.overview().rows()) {
          if (row.metric() != c.metric || row.baseline_missing() ||
              row.experimental_missing())
            continue;
          // The step's absolute floor (--min-change-us) is in us: a
          // fraction or byte row without noise is judged by the share alone.
          const ChangeThreshold share{threshold_.min_pct, 0};
          Change& change = out.emplace_back(
              std::string(DisplayText(row.metric())), row.baseline(),
              row.experimental(),
              RowChanged(row,
                         row.unit() == v1::VALUE_UNIT_US ? threshold_ : share));
          change.fraction = row.unit() == v1::VALUE_UNIT_FRACTION;
          change.bytes = row.unit() == v1::VALUE_UNIT_BYTES;
        }
        break;
      case Subject::kMemory:
        for (const v1::DeviceMemoryDiff& d : report_.memory().devices()) {
          // One value a run: no noise to judge it by.
          Change m(base::StrCat(d.device(), " ", c.memory_figure, " memory"), 0,
                   0, /*judged=*/true);
          m.bytes = true;
          if (c.memory_figure == "peak") {
            m.baseline = d.baseline_peak_bytes();
            m.experimental = d.experimental_peak_bytes();
          } else if (c.memory_figure == "average") {
            m.baseline = d.baseline_average_bytes();
            m.experimental = d.experimental_average_bytes();
          } else {
            m.baseline = d.baseline_peak_reserved_bytes();
            m.experimental = d.experimental_peak_reserved_bytes();
          }
          out.push_back(std::move(m));
        }
        break;
      case Subject::kKernel:
        for (const v1::KernelDiff& k : report_.kernels()) {
          if (!c.pattern.Matches(k.name())) continue;
          out.emplace_back(base::StrCat("kernel ", ShortName(k.name())),
                           k.baseline().total_us(), k.experimental().total_us(),
                           k.change() != v1::CHANGE_UNCHANGED);
        }
        break;
      case Subject::kOperator:
        for (const v1::OperatorDiff& o : report_.operators()) {
          if (!c.pattern.Matches(o.name())) continue;
          const bool device =
              o.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
          out.emplace_back(
              base::StrCat("operator ", o.name(),
                           o.input_shapes().empty() ? "" : " ",
                           o.input_shapes(), device ? " (device)" : " (host)"),
              device ? o.baseline().device_total_us()
                     : o.baseline().host_total_us(),
              device ? o.experimental().device_total_us()
                     : o.experimental().host_total_us(),
              o.change() != v1::CHANGE_UNCHANGED);
        }
        break;
      case Subject::kModule:
        AddModules(c, report_.modules(), out);
        break;
    }
    return out;
  }

  void AddModules(const GateCondition& c, const v1::ModuleDiffNode& node,
                  std::vector<Change>& out) const {
    if (node.status() != v1::DIFF_STATUS_UNKNOWN && !node.path().empty() &&
        c.pattern.Matches(node.path())) {
      const double a = node.baseline().compare_us();
      const double b = node.experimental().compare_us();
      bool significant = false;
      switch (node.status()) {
        case v1::DIFF_STATUS_ADDED:
        case v1::DIFF_STATUS_REMOVED:
          significant = true;
          break;
        default:
          significant = node.noise().has_interval()
                            ? node.noise().significant()
                            : b != a && LargeEnough(b - a, a, threshold_);
      }
      out.emplace_back(base::StrCat("module ", node.path()), a, b, significant);
    }
    for (const v1::ModuleDiffNode& child : node.children())
      AddModules(c, child, out);
  }

  const v1::DiffReport& report_;
  ChangeThreshold threshold_;
};

}  // namespace

bool GateCondition::Crosses(double value) const {
  if (greater) return inclusive ? value >= threshold : value > threshold;
  return inclusive ? value <= threshold : value < threshold;
}

absl::StatusOr<std::vector<GateCondition>> ParseGate(
    const std::vector<std::string>& values) {
  std::vector<GateCondition> out;
  for (const std::string& value : values) {
    for (const std::string& text : SplitConditions(value)) {
      if (absl::StripAsciiWhitespace(text).empty())
        return Refuse(base::StrCat("\"", value, "\""), "an empty condition");
      absl::StatusOr<GateCondition> condition = ParseCondition(text);
      if (!condition.ok()) return condition.status();
      out.push_back(*std::move(condition));
    }
  }
  return out;
}

std::vector<v1::GateResult> EvaluateGate(
    const std::vector<GateCondition>& conditions,
    const v1::DiffReport& report) {
  const Evaluator evaluator(report);
  std::vector<v1::GateResult> out;
  out.reserve(conditions.size());
  for (const GateCondition& c : conditions)
    out.push_back(evaluator.Evaluate(c));
  return out;
}

bool GateReadsRows(const std::vector<GateCondition>& conditions) {
  for (const GateCondition& c : conditions) {
    if (c.subject == Subject::kKernel || c.subject == Subject::kOperator ||
        c.subject == Subject::kModule)
      return true;
  }
  return false;
}

}  // namespace profdiff::differ
