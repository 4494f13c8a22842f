#include "analysis/communication_view.h"

#include <algorithm>
#include <map>

#include "analysis/step_breakdown.h"

namespace profdiff::analysis {

std::vector<CollectiveRow> ComputeCommunication(const trace::Trace& trace,
                                                const EventLinks& links,
                                                const OperatorTimes& times) {
  const trace::EventTable& t = trace.events;
  auto is_collective = [&](uint32_t op) {
    return IsCollectiveOpName(trace.strings.Get(t.name[op]));
  };
  std::map<std::string, CollectiveRow> rows;
  for (uint32_t op : links.operators) {
    if (!is_collective(op)) continue;
    bool nested = false;
    for (uint32_t p = links.op_parent[op]; p != kNoEvent && !nested;
         p = links.op_parent[p]) {
      nested = is_collective(p);
    }
    if (nested) continue;
    std::string name(trace.strings.Get(t.name[op]));
    if (auto collective = trace.StringArg(op, trace::ArgKey::kCollectiveName)) {
      name = std::string(trace.strings.Get(*collective));
    }
    CollectiveRow& row = rows[name];
    row.name = name;
    ++row.calls;
    row.host_ns += t.duration_ns[op];
    row.device_ns += times.device_total_ns[op];
    row.in_elements +=
        trace.IntArg(op, trace::ArgKey::kInMsgNelems).value_or(0);
    row.out_elements +=
        trace.IntArg(op, trace::ArgKey::kOutMsgNelems).value_or(0);
  }
  std::vector<CollectiveRow> result;
  result.reserve(rows.size());
  for (auto& [name, row] : rows) result.push_back(std::move(row));
  std::sort(result.begin(), result.end(),
            [](const CollectiveRow& a, const CollectiveRow& b) {
              return a.host_ns > b.host_ns;
            });
  return result;
}

}  // namespace profdiff::analysis
