#include "report/html_report_data.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include <absl/container/btree_set.h>
#include <absl/container/node_hash_map.h>

#include "analysis/worker_profile.h"
#include "base/str_cat.h"
#include "differ/display_text.h"
#include "differ/kernel_names.h"
#include "trace/chrome_trace_writer.h"

namespace profdiff::report {
namespace {

using differ::DisplayText;

// A kernel name's characters in a table cell of the page (420 px at 13 px).
constexpr size_t kKernelNameShown = 60;

// Column layouts, written into the document for the page (design note 3).
constexpr char kLayout[] =
    R"({"row":["name","detail","change","compared","significant","has_interval","ci_low","ci_high"],)"
    R"("operator_values":["calls","host_self_us","host_total_us","device_self_us","device_total_us"],)"
    R"("kernel_values":["calls","total_us","mean_us","min_us","max_us"],)"
    R"("module_values":["calls","host_us","device_us","compare_us"],)"
    R"("overview":["metric","unit","baseline","experimental","delta","delta_pct","significant",)"
    R"("has_interval","ci_low","ci_high","baseline_text","experimental_text","baseline_missing",)"
    R"("experimental_missing"],)"
    R"("rank":["side","rank","worker","steps","slowest_compute","duration_us","kernel_us","memcpy_us",)"
    R"("memset_us","communication_us","runtime_us","dataloader_us","cpu_exec_us","other_us"],)"
    // Communication rows: the row's fields, (baseline, experimental) pairs of
    // the values, then one noise ([significant, has_interval, ci_low, ci_high])
    // per entry of *_noise.
    R"("collective":["collective","process_group","bytes_per_call","dtype","group_size","change",)"
    R"("baseline_size_missing","experimental_size_missing"],)"
    R"("collective_values":["calls","bytes","time_us","transfer_us","wait_us","algbw_gbps",)"
    R"("busbw_gbps","bytes_per_call"],)"
    R"("collective_noise":["calls","bytes","time_us","transfer_us","wait_us","bytes_per_call"],)"
    R"("rank_communication":["rank","baseline_missing","experimental_missing"],)"
    R"("rank_communication_values":["collective_us","exposed_us","overlap_ratio","wait_us",)"
    R"("transfer_us","last_arrivals","instances","time_us"],)"
    R"("rank_communication_noise":["exposed_us","wait_us"],)"
    // Memory rows (operators and module nodes), the same way.
    R"("memory_row":["name","detail","device","kind","change","compared"],)"
    R"("memory_values":["allocation_count","allocation_bytes","self_increase_bytes",)"
    R"("total_allocation_bytes","increase_bytes","peak_allocated_bytes"],)"
    R"("memory_noise":["allocation_bytes","self_increase_bytes"]})";

class Writer {
 public:
  void Number(double v) {
    if (!std::isfinite(v)) {
      out_.append("null");
    } else if (v == std::floor(v) && std::fabs(v) < 1e15) {
      base::StrAppend(&out_, static_cast<int64_t>(v));
    } else {
      // Shortest text that reads back as the same double: the page computes
      // deltas from the two sides, so rounding here would change them.
      char text[32];
      const auto [end, error] = std::to_chars(text, text + sizeof(text), v);
      out_.append(text, error == std::errc() ? end : text);
    }
  }
  void Bool(bool v) { out_.push_back(v ? '1' : '0'); }
  void String(std::string_view text) { trace::AppendJsonString(text, out_); }
  // An index into the string table.
  void Interned(const std::string& text) {
    auto [it, inserted] =
        ids_.try_emplace(text, static_cast<int64_t>(strings_.size()));
    if (inserted) strings_.push_back(&it->first);
    base::StrAppend(&out_, it->second);
  }
  // A kernel's name: interned, and shortened by its structure for the page.
  void KernelName(const std::string& text) {
    Interned(text);
    kernel_names_.insert(ids_.at(text));
  }
  void Raw(std::string_view text) { out_.append(text); }
  void Comma(bool& first) {
    if (!first) out_.push_back(',');
    first = false;
  }

  void Noise(const v1::Noise& noise) {
    Bool(noise.significant());
    Raw(",");
    Bool(noise.has_interval());
    Raw(",");
    Number(noise.ci_low());
    Raw(",");
    Number(noise.ci_high());
  }

  template <typename Values, typename... Fields>
  void Pairs(const Values& b, const Values& e, Fields... fields) {
    ((Raw(","), Number((b.*fields)()), Raw(","), Number((e.*fields)())), ...);
  }

  void Operators(
      const google::protobuf::RepeatedPtrField<v1::OperatorDiff>& rows) {
    Raw("[");
    bool first = true;
    for (const v1::OperatorDiff& r : rows) {
      Comma(first);
      Raw("[");
      Interned(r.name());
      Raw(",");
      Interned(r.input_shapes());
      Raw(",");
      Interned(DisplayText(r.change()));
      Raw(",");
      Interned(DisplayText(r.compared()));
      Raw(",");
      Noise(r.noise());
      using V = v1::OperatorValues;
      Pairs(r.baseline(), r.experimental(), &V::calls, &V::host_self_us,
            &V::host_total_us, &V::device_self_us, &V::device_total_us);
      Raw("]");
    }
    Raw("]");
  }

  void Kernels(const google::protobuf::RepeatedPtrField<v1::KernelDiff>& rows) {
    Raw("[");
    bool first = true;
    for (const v1::KernelDiff& r : rows) {
      Comma(first);
      Raw("[");
      KernelName(r.name());
      Raw(",");
      Interned(r.op_name());
      Raw(",");
      Interned(DisplayText(r.change()));
      Raw(",");
      Interned("total_us");
      Raw(",");
      Noise(r.noise());
      using V = v1::KernelValues;
      Pairs(r.baseline(), r.experimental(), &V::calls, &V::total_us,
            &V::mean_us, &V::min_us, &V::max_us);
      Raw("]");
    }
    Raw("]");
  }

  template <typename Node>
  void Tables(const Node& node) {
    Raw("[");
    Operators(node.operators());
    Raw(",");
    Kernels(node.kernels());
    Raw("]");
  }

  void ModuleValues(const v1::ModuleValues& v) {
    Raw("[");
    Number(v.calls());
    Raw(",");
    Number(v.host_us());
    Raw(",");
    Number(v.device_us());
    Raw(",");
    Number(v.compare_us());
    Raw("]");
  }

  // `other`: the same node in the other grouping's report (null when there is
  // none).
  void Module(const v1::ModuleDiffNode& node, const v1::ModuleDiffNode* other) {
    Raw(R"({"n":)");
    String(node.name());
    Raw(R"(,"bn":)");
    String(node.baseline_name());
    Raw(R"(,"en":)");
    String(node.experimental_name());
    Raw(R"(,"p":)");
    String(node.path());
    Raw(R"(,"i":)");
    String(node.index_path());
    Raw(R"(,"s":)");
    String(DisplayText(node.status()));
    Raw(R"(,"k":)");
    String(v1::ModuleNodeKind_Name(node.kind()));
    Raw(R"(,"b":)");
    ModuleValues(node.baseline());
    Raw(R"(,"e":)");
    ModuleValues(node.experimental());
    Raw(R"(,"noise":[)");
    Noise(node.noise());
    Raw("]");
    size_t t_from = 0;
    size_t t_size = 0;
    if (node.operators_size() + node.kernels_size() > 0) {
      Raw(R"(,"t":)");
      t_from = out_.size();
      Tables(node);
      t_size = out_.size() - t_from;
    }
    // "u", the other grouping's tables, only where they differ from "t"
    // (null: none). Module nodes' tables group operators by name whatever the
    // grouping, so "u" repeated "t" on every node: 0.8 MB of the largest
    // report's 2.1 MB.
    if (other != nullptr &&
        other->operators_size() + other->kernels_size() > 0) {
      const size_t u_at = out_.size();
      Raw(R"(,"u":)");
      const size_t u_from = out_.size();
      Tables(*other);
      if (t_size > 0 && out_.size() - u_from == t_size &&
          out_.compare(u_from, t_size, out_, t_from, t_size) == 0) {
        out_.resize(u_at);
      }
    } else if (t_size > 0) {
      Raw(R"(,"u":null)");
    }
    Raw(R"(,"c":[)");
    bool first = true;
    for (int c = 0; c < node.children_size(); ++c) {
      Comma(first);
      // Both reports align the same trees, so children line up by position.
      const v1::ModuleDiffNode* other_child =
          other != nullptr && c < other->children_size() &&
                  other->children(c).path() == node.children(c).path()
              ? &other->children(c)
              : nullptr;
      Module(node.children(c), other_child);
    }
    Raw("]}");
  }

  // The string table, then the document: `strings` must come first for one-pass
  // readers.
  std::string Finish(const std::string& body) {
    std::string doc = R"({"strings":[)";
    for (size_t i = 0; i < strings_.size(); ++i) {
      if (i > 0) doc.push_back(',');
      trace::AppendJsonString(*strings_[i], doc);
    }
    doc.append("],");
    // Kernel names as the tables and findings shorten them (issue 45): the
    // string's index and its short form, where that differs.
    const std::vector<int64_t> ids(kernel_names_.begin(), kernel_names_.end());
    std::vector<std::string> names;
    names.reserve(ids.size());
    for (int64_t id : ids) names.push_back(*strings_[id]);
    const std::vector<std::string> shown =
        differ::ShortenKernelNames(names, kKernelNameShown);
    doc.append(R"("kernel_short":[)");
    bool first = true;
    for (size_t k = 0; k < names.size(); ++k) {
      if (shown[k] == names[k]) continue;
      if (!first) doc.push_back(',');
      first = false;
      base::StrAppend(&doc, "[", ids[k], ",");
      trace::AppendJsonString(shown[k], doc);
      doc.push_back(']');
    }
    doc.append("],");
    doc.append(body);
    doc.push_back('}');
    // Design note 2: `<` only occurs inside JSON strings, where \u003c means
    // the same.
    std::string escaped;
    escaped.reserve(doc.size());
    for (char c : doc) {
      if (c == '<') {
        escaped.append("\\u003c");
      } else {
        escaped.push_back(c);
      }
    }
    return escaped;
  }

  std::string& out() { return out_; }

 private:
  std::string out_;
  absl::node_hash_map<std::string, int64_t>
      ids_;  // node-stable: strings_ points at its keys
  std::vector<const std::string*> strings_;
  // Kernel names' string ids, in order (a set: a name counts once).
  absl::btree_set<int64_t> kernel_names_;
};

void Summary(Writer& w, const v1::RunSummary& s) {
  w.Raw(R"({"run":)");
  w.String(s.run());
  w.Raw(R"(,"ranks":[)");
  bool first = true;
  for (int32_t r : s.ranks()) {
    w.Comma(first);
    w.Number(r);
  }
  w.Raw(R"(],"steps_per_rank":)");
  w.Number(s.steps_per_rank());
  w.Raw(R"(,"steps_dropped":)");
  w.Number(s.steps_dropped());
  w.Raw(R"(,"device":)");
  w.String(s.device_name());
  w.Raw(R"(,"module_source":)");
  w.String(v1::ModuleTreeSource_Name(s.module_source()));
  w.Raw(R"(,"operator_grouping":)");
  w.String(v1::Grouping_Name(s.operator_grouping()));
  w.Raw(R"(,"kernel_grouping":)");
  w.String(v1::Grouping_Name(s.kernel_grouping()));
  w.Raw("}");
}

void Overview(Writer& w, const v1::Overview& overview) {
  w.Raw("[");
  bool first = true;
  for (const v1::OverviewRow& r : overview.rows()) {
    w.Comma(first);
    w.Raw("[");
    w.String(DisplayText(r.metric()));
    w.Raw(",");
    w.String(DisplayText(r.unit()));
    for (double v :
         {r.baseline(), r.experimental(), r.delta(), r.delta_pct()}) {
      w.Raw(",");
      w.Number(v);
    }
    w.Raw(",");
    w.Noise(r.noise());
    w.Raw(",");
    w.String(r.baseline_text());
    w.Raw(",");
    w.String(r.experimental_text());
    w.Raw(",");
    w.Bool(r.baseline_missing());
    w.Raw(",");
    w.Bool(r.experimental_missing());
    w.Raw("]");
  }
  w.Raw("]");
}

void Ranks(Writer& w,
           const google::protobuf::RepeatedPtrField<v1::RankSteps>& ranks) {
  w.Raw("[");
  bool first = true;
  for (const v1::RankSteps& r : ranks) {
    w.Comma(first);
    w.Raw("[");
    w.String(DisplayText(r.side()));
    w.Raw(",");
    w.Number(r.rank());
    w.Raw(",");
    w.String(r.worker_name());
    w.Raw(",");
    w.Number(r.steps());
    w.Raw(",");
    w.Bool(r.slowest_compute());
    const v1::StepStats& s = r.average_step();
    for (double v : {s.duration_us(), s.kernel_us(), s.memcpy_us(),
                     s.memset_us(), s.communication_us(), s.runtime_us(),
                     s.dataloader_us(), s.cpu_exec_us(), s.other_us()}) {
      w.Raw(",");
      w.Number(v);
    }
    w.Raw("]");
  }
  w.Raw("]");
}

// "What changed": a handful of findings, so objects with the proto's field
// names rather than rows through the layout.
void Findings(Writer& w,
              const google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  w.Raw("[");
  bool first = true;
  for (const v1::Finding& f : findings) {
    w.Comma(first);
    w.Raw(R"({"text":)");
    w.String(f.text());
    w.Raw(R"(,"kind":)");
    w.String(DisplayText(f.kind()));
    w.Raw(R"(,"significant":)");
    w.Bool(f.significant());
    w.Raw(R"(,"delta_us":)");
    w.Number(f.delta_us());
    w.Raw(R"(,"delta_bytes":)");
    w.Number(f.delta_bytes());
    w.Raw(R"(,"share_of_step_change":)");
    w.Number(f.share_of_step_change());
    w.Raw(R"(,"evidence":[)");
    bool first_evidence = true;
    for (const v1::FindingEvidence& e : f.evidence()) {
      w.Comma(first_evidence);
      w.Raw(R"({"table":)");
      w.String(DisplayText(e.table()));
      w.Raw(R"(,"name":)");
      w.String(e.name());
      w.Raw(R"(,"path":)");
      w.String(e.path());
      w.Raw(R"(,"index_path":)");
      w.String(e.index_path());
      w.Raw(R"(,"input_shapes":)");
      w.String(e.input_shapes());
      w.Raw(R"(,"unit":)");
      w.String(DisplayText(e.unit()));
      w.Raw(R"(,"baseline":)");
      w.Number(e.baseline());
      w.Raw(R"(,"experimental":)");
      w.Number(e.experimental());
      w.Raw(R"(,"delta":)");
      w.Number(e.delta());
      w.Raw(R"(,"significant":)");
      w.Bool(e.significant());
      w.Raw("}");
    }
    w.Raw("]}");
  }
  w.Raw("]");
}

void Collectives(
    Writer& w,
    const google::protobuf::RepeatedPtrField<v1::CollectiveDiff>& rows) {
  w.Raw("[");
  bool first = true;
  for (const v1::CollectiveDiff& r : rows) {
    w.Comma(first);
    w.Raw("[");
    w.Interned(r.collective());
    w.Raw(",");
    w.Interned(r.process_group());
    w.Raw(",");
    w.Number(static_cast<double>(r.bytes_per_call()));
    w.Raw(",");
    w.Interned(r.dtype());
    w.Raw(",");
    w.Number(r.group_size());
    w.Raw(",");
    w.Interned(DisplayText(r.change()));
    w.Raw(",");
    w.Bool(r.baseline_size_missing());
    w.Raw(",");
    w.Bool(r.experimental_size_missing());
    using V = v1::CollectiveValues;
    w.Pairs(r.baseline(), r.experimental(), &V::calls, &V::bytes, &V::time_us,
            &V::transfer_us, &V::wait_us, &V::algbw_gbps, &V::busbw_gbps,
            &V::bytes_per_call);
    for (const v1::Noise* noise :
         {&r.calls_noise(), &r.bytes_noise(), &r.time_noise(),
          &r.transfer_noise(), &r.wait_noise(), &r.bytes_per_call_noise()}) {
      w.Raw(",");
      w.Noise(*noise);
    }
    w.Raw("]");
  }
  w.Raw("]");
}

void Straggler(Writer& w, const v1::StragglerVerdict& s) {
  w.Raw(R"({"found":)");
  w.Bool(s.found());
  w.Raw(R"(,"rank":)");
  w.Number(s.rank());
  w.Raw(R"(,"last_arrivals":)");
  w.Number(s.last_arrivals());
  w.Raw(R"(,"instances":)");
  w.Number(s.instances());
  w.Raw(R"(,"share":)");
  w.Number(s.share());
  w.Raw(R"(,"collective":)");
  w.String(s.collective());
  w.Raw("}");
}

// The collectives of both sides (rows through the layout's collective*) and
// each rank's communication (rank_communication*).
void Communication(Writer& w, const v1::CommunicationDiff& c) {
  w.Raw(R"({"by_collective":)");
  Collectives(w, c.by_collective());
  w.Raw(R"(,"collectives":)");
  Collectives(w, c.collectives());
  w.Raw(R"(,"ranks":[)");
  bool first = true;
  for (const v1::RankCommunicationDiff& r : c.ranks()) {
    w.Comma(first);
    w.Raw("[");
    w.Number(r.rank());
    w.Raw(",");
    w.Bool(r.baseline_missing());
    w.Raw(",");
    w.Bool(r.experimental_missing());
    using V = v1::RankCommunicationValues;
    w.Pairs(r.baseline(), r.experimental(), &V::collective_us, &V::exposed_us,
            &V::overlap_ratio, &V::wait_us, &V::transfer_us, &V::last_arrivals,
            &V::instances, &V::time_us);
    w.Raw(",");
    w.Noise(r.exposed_noise());
    w.Raw(",");
    w.Noise(r.wait_noise());
    w.Raw("]");
  }
  w.Raw(R"(],"baseline_straggler":)");
  Straggler(w, c.baseline_straggler());
  w.Raw(R"(,"experimental_straggler":)");
  Straggler(w, c.experimental_straggler());
  w.Raw(R"(,"baseline_verdict":)");
  w.String(c.baseline_verdict());
  w.Raw(R"(,"experimental_verdict":)");
  w.String(c.experimental_verdict());
  w.Raw(R"(,"baseline_instances":)");
  w.Number(c.baseline_instances());
  w.Raw(R"(,"experimental_instances":)");
  w.Number(c.experimental_instances());
  w.Raw("}");
}

void MemoryRows(
    Writer& w,
    const google::protobuf::RepeatedPtrField<v1::MemoryRowDiff>& rows) {
  w.Raw("[");
  bool first = true;
  for (const v1::MemoryRowDiff& r : rows) {
    w.Comma(first);
    w.Raw("[");
    w.Interned(r.name());
    w.Raw(",");
    w.Interned(r.detail());
    w.Raw(",");
    w.Interned(r.device());
    w.Raw(",");
    w.Interned(r.kind() == v1::MODULE_NODE_KIND_UNSPECIFIED
                   ? ""
                   : v1::ModuleNodeKind_Name(r.kind()));
    w.Raw(",");
    w.Interned(DisplayText(r.change()));
    w.Raw(",");
    w.Interned(DisplayText(r.compared()));
    using V = v1::MemoryValues;
    w.Pairs(r.baseline(), r.experimental(), &V::allocation_count,
            &V::allocation_bytes, &V::self_increase_bytes,
            &V::total_allocation_bytes, &V::increase_bytes,
            &V::peak_allocated_bytes);
    w.Raw(",");
    w.Noise(r.allocation_noise());
    w.Raw(",");
    w.Noise(r.increase_noise());
    w.Raw("]");
  }
  w.Raw("]");
}

// "step" is the kept step's index, "step_id" the trace's N of ProfilerStep#N
// (null in a digest kept from before it was recorded), which the report prints
// as the steps view does (issue 44).
void PeakPlace(Writer& w, const v1::MemoryPeakPlace& p) {
  w.Raw(R"({"rank":)");
  w.Number(p.rank());
  w.Raw(R"(,"step":)");
  w.Number(p.step_index());
  w.Raw(R"(,"step_id":)");
  if (p.has_step()) {
    w.Number(static_cast<double>(p.step()));
  } else {
    w.Raw("null");
  }
  w.Raw(R"(,"offset_ns":)");
  w.Number(static_cast<double>(p.offset_ns()));
  w.Raw(R"(,"operator":)");
  w.String(p.operator_name());
  w.Raw(R"(,"module":)");
  w.String(p.module_path());
  // [operator, bytes, blocks] per holder.
  w.Raw(R"(,"holders":[)");
  bool first = true;
  for (const v1::MemoryHolder& h : p.holders()) {
    w.Comma(first);
    w.Raw("[");
    w.String(h.operator_name());
    w.Raw(",");
    w.Number(static_cast<double>(h.bytes()));
    w.Raw(",");
    w.Number(h.blocks());
    w.Raw("]");
  }
  w.Raw("]}");
}

// A curve as flat [offset_ns, allocated, reserved, ...] triples: up to 2000
// points a side, so no per-point object.
void Curve(Writer& w, const v1::MemoryCurve& c) {
  w.Raw(R"({"rank":)");
  w.Number(c.rank());
  w.Raw(R"(,"steps":[)");
  bool first = true;
  for (int64_t offset : c.step_offsets_ns()) {
    w.Comma(first);
    w.Number(static_cast<double>(offset));
  }
  w.Raw(R"(],"step_ends":[)");
  first = true;
  for (int64_t offset : c.step_end_offsets_ns()) {
    w.Comma(first);
    w.Number(static_cast<double>(offset));
  }
  // Each kept step's N of ProfilerStep#N, to label the step axis.
  w.Raw(R"(],"step_ids":[)");
  first = true;
  for (int64_t id : c.step_ids()) {
    w.Comma(first);
    w.Number(static_cast<double>(id));
  }
  w.Raw(R"(],"points":[)");
  first = true;
  for (const v1::MemoryPoint& p : c.points()) {
    w.Comma(first);
    w.Number(static_cast<double>(p.offset_ns()));
    w.Raw(",");
    w.Number(static_cast<double>(p.allocated_bytes()));
    w.Raw(",");
    w.Number(static_cast<double>(p.reserved_bytes()));
  }
  w.Raw("]}");
}

// Per device: [baseline, experimental] pairs of the figures, places and
// curves; the operator and module rows through the layout's memory_*.
void Memory(Writer& w, const v1::MemoryDiff& m) {
  w.Raw(R"({"sources":[)");
  w.String(v1::MemorySource_Name(m.baseline_source()));
  w.Raw(",");
  w.String(v1::MemorySource_Name(m.experimental_source()));
  w.Raw(R"(],"devices":[)");
  bool first = true;
  for (const v1::DeviceMemoryDiff& d : m.devices()) {
    w.Comma(first);
    w.Raw(R"({"device":)");
    w.String(d.device());
    const std::pair<const char*, std::pair<double, double>> figures[] = {
        {"peak", {d.baseline_peak_bytes(), d.experimental_peak_bytes()}},
        {"average",
         {d.baseline_average_bytes(), d.experimental_average_bytes()}},
        {"reserved",
         {d.baseline_peak_reserved_bytes(),
          d.experimental_peak_reserved_bytes()}}};
    for (const auto& [name, values] : figures) {
      w.Raw(R"(,")");
      w.Raw(name);
      w.Raw(R"(":[)");
      w.Number(values.first);
      w.Raw(",");
      w.Number(values.second);
      w.Raw("]");
    }
    w.Raw(R"(,"from_bytes":)");
    w.Bool(d.allocated_from_bytes());
    w.Raw(R"(,"places":[)");
    PeakPlace(w, d.baseline_peak());
    w.Raw(",");
    PeakPlace(w, d.experimental_peak());
    w.Raw(R"(],"curves":[)");
    Curve(w, d.baseline_curve());
    w.Raw(",");
    Curve(w, d.experimental_curve());
    w.Raw("]}");
  }
  w.Raw(R"(],"operators":)");
  MemoryRows(w, m.operators());
  w.Raw(R"(,"modules":)");
  MemoryRows(w, m.modules());
  w.Raw("}");
}

}  // namespace

std::string HtmlReportData(const v1::DiffReport& report,
                           const v1::DiffReport* other_grouping) {
  Writer w;
  w.Raw(R"("layout":)");
  w.Raw(kLayout);
  w.Raw(R"(,"baseline":)");
  Summary(w, report.baseline());
  w.Raw(R"(,"experimental":)");
  Summary(w, report.experimental());
  if (other_grouping != nullptr) {
    w.Raw(R"(,"other_operator_grouping":)");
    w.String(v1::Grouping_Name(other_grouping->baseline().operator_grouping()));
    w.Raw(R"(,"other_kernel_grouping":)");
    w.String(v1::Grouping_Name(other_grouping->baseline().kernel_grouping()));
  }
  // A module node's tables have these whatever the report's groupings.
  w.Raw(R"(,"node_operator_grouping":)");
  w.String(v1::Grouping_Name(
      analysis::GroupingOf(analysis::kModuleNodeOperatorGrouping)));
  w.Raw(R"(,"node_kernel_grouping":)");
  w.String(v1::Grouping_Name(
      analysis::GroupingOf(analysis::kModuleNodeKernelGrouping)));
  w.Raw(R"(,"warnings":[)");
  bool first = true;
  for (const std::string& warning : report.warnings()) {
    w.Comma(first);
    w.String(warning);
  }
  w.Raw(R"(],"findings":)");
  Findings(w, report.findings());
  w.Raw(R"(,"overview":)");
  Overview(w, report.overview());
  w.Raw(R"(,"ranks":)");
  Ranks(w, report.ranks());
  w.Raw(R"(,"tables":)");
  w.Tables(report);
  if (other_grouping != nullptr) {
    w.Raw(R"(,"other_tables":)");
    w.Tables(*other_grouping);
  }
  // Only a report with collectives on a side has a communication section.
  if (report.communication().collectives_size() +
          report.communication().by_collective_size() >
      0) {
    w.Raw(R"(,"communication":)");
    Communication(w, report.communication());
  }
  // Only a report with memory on a side has a memory section.
  if (report.memory().devices_size() + report.memory().operators_size() > 0) {
    w.Raw(R"(,"memory":)");
    Memory(w, report.memory());
  }
  if (report.has_modules()) {
    w.Raw(R"(,"modules":)");
    w.Module(report.modules(),
             other_grouping != nullptr && other_grouping->has_modules()
                 ? &other_grouping->modules()
                 : nullptr);
  }
  const std::string body = std::move(w.out());
  return w.Finish(body);
}

}  // namespace profdiff::report
