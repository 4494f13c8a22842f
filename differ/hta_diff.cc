#include "differ/hta_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "base/str_cat.h"

namespace profdiff::differ {
namespace {

struct Totals {
  int64_t counts = 0;
  int64_t duration_us = 0;
};

// Name -> totals of one side over its chosen ranks and steps.
absl::StatusOr<std::map<std::string, Totals>> SideTotals(
    const v1::RunProfile& run, const v1::DiffOptions& options,
    std::string_view label) {
  std::vector<const v1::WorkerProfile*> workers;
  for (const v1::WorkerProfile& w : run.workers()) workers.push_back(&w);
  std::stable_sort(workers.begin(), workers.end(),
                   [](const auto* x, const auto* y) {
                     return x->worker().rank() < y->worker().rank();
                   });
  if (workers.empty())
    return absl::InvalidArgumentError(
        base::StrCat(label, " run has no workers"));
  if (!options.ranks().empty()) {
    std::erase_if(workers, [&options](const v1::WorkerProfile* w) {
      return std::find(options.ranks().begin(), options.ranks().end(),
                       w->worker().rank()) == options.ranks().end();
    });
    if (workers.empty()) {
      return absl::InvalidArgumentError(
          base::StrCat(label, " run has none of the ranks given"));
    }
  } else if (!options.hta_all_ranks()) {
    workers.resize(1);  // HTA's default: the first (lowest) rank
  }
  // HTA numbers iterations over the whole trace set and, by default, takes the
  // lowest.
  std::set<int64_t> all_steps;
  for (const v1::WorkerProfile* w : workers) {
    for (const v1::HtaStep& step : w->hta_steps())
      all_steps.insert(step.step());
  }
  std::set<int64_t> steps;
  if (options.hta_all_steps()) {
    steps = all_steps;
  } else if (!options.hta_steps().empty()) {
    for (int64_t s : options.hta_steps()) {
      if (!all_steps.contains(s)) {
        std::string have;
        for (int64_t x : all_steps)
          base::StrAppend(&have, have.empty() ? "" : ", ", x);
        return absl::InvalidArgumentError(
            base::StrCat("--steps: the ", label, " run has no step ", s,
                         " (it has ", have.empty() ? "none" : have, ")"));
      }
      steps.insert(s);
    }
  } else if (!all_steps.empty()) {
    steps.insert(*all_steps.begin());
  }
  const bool cpu = options.hta_device() != v1::HTA_DEVICE_GPU;
  const bool gpu = options.hta_device() != v1::HTA_DEVICE_CPU;
  std::map<std::string, Totals> totals;
  for (const v1::WorkerProfile* w : workers) {
    for (const v1::HtaStep& step : w->hta_steps()) {
      if (!steps.contains(step.step())) continue;
      for (const v1::HtaOpStats& op : step.ops()) {
        if (op.device() ? !gpu : !cpu) continue;
        Totals& t = totals[options.hta_short_names() ? HtaShortName(op.name())
                                                     : op.name()];
        t.counts += op.count();
        t.duration_us += op.total_duration_us();
      }
    }
  }
  return totals;
}

}  // namespace

std::string HtaShortName(std::string_view name) {
  std::string stack;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '-' && i + 1 < name.size() && name[i + 1] == '>') {
      ++i;  // "->" is dropped before matching brackets
      continue;
    }
    if (c == '>' || c == ')') {
      const char open = c == '>' ? '<' : '(';
      while (!stack.empty() && stack.back() != open) stack.pop_back();
      if (!stack.empty()) stack.pop_back();
    } else {
      stack.push_back(c);
    }
  }
  const size_t space = stack.rfind(' ');
  return space == std::string::npos ? stack : stack.substr(space + 1);
}

absl::Status DiffHta(const v1::RunProfile& baseline,
                     const v1::RunProfile& experimental,
                     const v1::DiffOptions& options, v1::DiffReport& report) {
  auto a = SideTotals(baseline, options, "baseline");
  if (!a.ok()) return a.status();
  auto b = SideTotals(experimental, options, "experimental");
  if (!b.ok()) return b.status();
  std::set<std::string> names;
  for (const auto& [name, t] : *a) names.insert(name);
  for (const auto& [name, t] : *b) names.insert(name);
  v1::HtaOpsDiff& ops = *report.mutable_hta_ops_diff();
  for (const std::string& name : names) {
    const Totals ta = a->contains(name) ? a->at(name) : Totals{};
    const Totals tb = b->contains(name) ? b->at(name) : Totals{};
    v1::HtaRow& row = *report.add_hta_rows();
    row.set_name(name);
    row.set_baseline_counts(ta.counts);
    row.set_baseline_total_duration_us(static_cast<double>(ta.duration_us));
    row.set_experimental_counts(tb.counts);
    row.set_experimental_total_duration_us(static_cast<double>(tb.duration_us));
    row.set_diff_counts(tb.counts - ta.counts);
    row.set_diff_duration_us(
        static_cast<double>(tb.duration_us - ta.duration_us));
    row.set_change(tb.counts > ta.counts   ? v1::HTA_CHANGE_MORE
                   : tb.counts < ta.counts ? v1::HTA_CHANGE_FEWER
                                           : v1::HTA_CHANGE_SAME);
    if (ta.counts == 0) {
      ops.add_added(name);
    } else if (tb.counts == 0) {
      ops.add_deleted(name);
    } else if (tb.counts > ta.counts) {
      ops.add_increased(name);
    } else if (tb.counts < ta.counts) {
      ops.add_decreased(name);
    } else {
      ops.add_unchanged(name);
    }
  }
  return absl::OkStatus();
}

}  // namespace profdiff::differ
