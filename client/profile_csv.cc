#include "client/profile_csv.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "base/str_cat.h"

namespace profdiff::client {
namespace {

// The worker a row belongs to: its name and rank lead every row.
template <typename Row>
void AddWorker(CsvColumns<Row>& c) {
  c.Add("worker_name",
        [](const Row& r) { return r.worker->worker().worker_name(); });
  c.Add("rank",
        [](const Row& r) { return CsvInteger(r.worker->worker().rank()); });
}

// `fields` of the message `get` reads, each under `prefix`.
template <typename Row, typename Message, typename Get>
void AddFields(CsvColumns<Row>& c, const std::string& prefix,
               const std::vector<CsvField<Message>>& fields, Get get) {
  for (const CsvField<Message>& f : fields) {
    c.Add(prefix + f.name,
          [f, get](const Row& r) { return CsvNumber(f.get(get(r))); });
  }
}

// The name of the device the worker's kernels ran on, else the first listed
// ("" without deviceProperties).
std::string DeviceName(const v1::WorkerProfile& w) {
  if (w.worker().devices().empty()) return "";
  const int64_t used =
      w.devices().empty() ? w.worker().devices(0).id() : w.devices(0).device();
  for (const v1::DeviceProperties& d : w.worker().devices()) {
    if (d.id() == used) return d.name();
  }
  return w.worker().devices(0).name();
}

struct WorkerRow {
  const v1::WorkerProfile* worker;
};

std::vector<WorkerRow> Workers(const v1::RunProfile& run) {
  std::vector<WorkerRow> rows;
  for (const v1::WorkerProfile& w : run.workers()) rows.push_back({&w});
  return rows;
}

std::string OverviewCsv(const v1::RunProfile& run) {
  using Row = WorkerRow;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("world_size", [](const Row& r) {
    return CsvInteger(r.worker->worker().world_size());
  });
  c.Add("backend", [](const Row& r) { return r.worker->worker().backend(); });
  c.Add("device_name", [](const Row& r) { return DeviceName(*r.worker); });
  c.Add("steps",
        [](const Row& r) { return CsvInteger(r.worker->steps_size()); });
  c.Add("steps_dropped",
        [](const Row& r) { return CsvInteger(r.worker->steps_dropped()); });
  AddFields<Row>(c, "average_step_", MeanStepCsvFields(),
                 [](const Row& r) -> const v1::StepStats& {
                   return r.worker->average_step();
                 });
  // Where the trace does not record a GPU metric it is empty, never 0 (as
  // the table's "-").
  c.Add("gpu_utilization", [](const Row& r) {
    const v1::WorkerProfile& w = *r.worker;
    const bool gpu = !w.devices().empty() || !w.worker().devices().empty();
    return gpu ? CsvNumber(w.gpu_utilization()) : std::string();
  });
  c.Add("sm_efficiency", [](const Row& r) {
    const auto& d = r.worker->devices();
    return std::any_of(d.begin(), d.end(),
                       [](const auto& m) { return m.has_sm_efficiency(); })
               ? CsvNumber(r.worker->sm_efficiency())
               : std::string();
  });
  c.Add("achieved_occupancy_pct", [](const Row& r) {
    const auto& d = r.worker->devices();
    return std::any_of(d.begin(), d.end(),
                       [](const auto& m) { return m.has_occupancy(); })
               ? CsvNumber(r.worker->achieved_occupancy_pct())
               : std::string();
  });
  c.Add("span_count",
        [](const Row& r) { return CsvInteger(r.worker->span_count()); });
  c.Add("event_count",
        [](const Row& r) { return CsvInteger(r.worker->event_count()); });
  c.Add("unknown_category_count", [](const Row& r) {
    return CsvInteger(r.worker->worker().unknown_category_count());
  });
  c.Add("dropped_event_count", [](const Row& r) {
    return CsvInteger(r.worker->worker().dropped_event_count());
  });
  return c.Render(Workers(run));
}

// A row of a worker's repeated field.
template <typename Item>
struct ItemRow {
  const v1::WorkerProfile* worker;
  const Item* item;
};

template <typename Item, typename Items>
std::vector<ItemRow<Item>> ItemRows(const v1::RunProfile& run, Items items) {
  std::vector<ItemRow<Item>> rows;
  for (const v1::WorkerProfile& w : run.workers()) {
    for (const Item& item : items(w)) rows.push_back({&w, &item});
  }
  return rows;
}

std::string StepsCsv(const v1::RunProfile& run) {
  using Row = ItemRow<v1::StepStats>;
  using S = v1::StepStats;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("step", [](const Row& r) { return CsvInteger(r.item->step()); });
  c.Add("start_us", [](const Row& r) { return CsvNumber(r.item->start_us()); });
  std::vector<CsvField<S>> fields = MeanStepCsvFields();
  fields.push_back({"host_start_us", &S::host_start_us});
  fields.push_back({"host_duration_us", &S::host_duration_us});
  AddFields<Row>(c, "", fields,
                 [](const Row& r) -> const S& { return *r.item; });
  return c.Render(ItemRows<S>(
      run,
      [](const v1::WorkerProfile& w) -> const auto& { return w.steps(); }));
}

std::string OperatorsCsv(const v1::RunProfile& run) {
  using Row = ItemRow<v1::OperatorStats>;
  using O = v1::OperatorStats;
  using P = v1::OperatorPerStep;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("name", [](const Row& r) { return r.item->name(); });
  c.Add("input_shapes", [](const Row& r) { return r.item->input_shapes(); });
  AddFields<Row>(
      c, "",
      std::vector<CsvField<O>>{{"calls", &O::calls},
                               {"host_self_us", &O::host_self_us},
                               {"host_total_us", &O::host_total_us},
                               {"device_self_us", &O::device_self_us},
                               {"device_total_us", &O::device_total_us}},
      [](const Row& r) -> const O& { return *r.item; });
  AddFields<Row>(
      c, "per_step_",
      std::vector<CsvField<P>>{{"calls", &P::calls},
                               {"host_self_us", &P::host_self_us},
                               {"host_total_us", &P::host_total_us},
                               {"device_self_us", &P::device_self_us},
                               {"device_total_us", &P::device_total_us}},
      [](const Row& r) -> const P& { return r.item->per_step(); });
  return c.Render(ItemRows<O>(
      run,
      [](const v1::WorkerProfile& w) -> const auto& { return w.operators(); }));
}

std::string KernelsCsv(const v1::RunProfile& run) {
  using Row = ItemRow<v1::KernelStats>;
  using K = v1::KernelStats;
  using P = v1::KernelPerStep;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("name", [](const Row& r) { return r.item->name(); });
  c.Add("op_name", [](const Row& r) { return r.item->op_name(); });
  AddFields<Row>(c, "",
                 std::vector<CsvField<K>>{{"calls", &K::calls},
                                          {"total_us", &K::total_us},
                                          {"mean_us", &K::mean_us},
                                          {"max_us", &K::max_us},
                                          {"min_us", &K::min_us}},
                 [](const Row& r) -> const K& { return *r.item; });
  // No launch recorded them (ROCm traces): unknown, not 0.
  c.Add("blocks_per_sm", [](const Row& r) {
    return r.item->blocks_per_sm_missing() ? std::string()
                                           : CsvNumber(r.item->blocks_per_sm());
  });
  c.Add("achieved_occupancy_pct", [](const Row& r) {
    return r.item->occupancy_missing()
               ? std::string()
               : CsvNumber(r.item->achieved_occupancy_pct());
  });
  AddFields<Row>(c, "per_step_",
                 std::vector<CsvField<P>>{{"calls", &P::calls},
                                          {"total_us", &P::total_us}},
                 [](const Row& r) -> const P& { return r.item->per_step(); });
  return c.Render(ItemRows<K>(
      run,
      [](const v1::WorkerProfile& w) -> const auto& { return w.kernels(); }));
}

struct ModuleRow {
  const v1::WorkerProfile* worker;
  const v1::ModuleNode* node;
  int depth;
  std::string index_path;  // child indices from the root joined by "/"
};

void FlattenModules(const v1::WorkerProfile& w, const v1::ModuleNode& node,
                    int depth, const std::string& index_path,
                    std::vector<ModuleRow>& out) {
  out.push_back({&w, &node, depth, index_path});
  for (int i = 0; i < node.children_size(); ++i) {
    FlattenModules(
        w, node.children(i), depth + 1,
        index_path.empty() ? base::StrCat(i) : base::StrCat(index_path, "/", i),
        out);
  }
}

std::string ModulesCsv(const v1::RunProfile& run) {
  std::vector<ModuleRow> rows;
  for (const v1::WorkerProfile& w : run.workers()) {
    if (w.has_modules()) FlattenModules(w, w.modules(), 0, "", rows);
  }
  using Row = ModuleRow;
  using N = v1::ModuleNode;
  using P = v1::ModulePerStep;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("depth", [](const Row& r) { return CsvInteger(r.depth); });
  c.Add("index_path", [](const Row& r) { return r.index_path; });
  c.Add("path", [](const Row& r) { return r.node->path(); });
  c.Add("name", [](const Row& r) { return r.node->name(); });
  c.Add("kind", [](const Row& r) { return CsvEnumWord(r.node->kind()); });
  AddFields<Row>(
      c, "",
      std::vector<CsvField<N>>{{"calls", &N::calls},
                               {"host_us", &N::host_us},
                               {"host_self_us", &N::host_self_us},
                               {"device_us", &N::device_us},
                               {"device_self_us", &N::device_self_us},
                               {"device_union_us", &N::device_union_us},
                               {"compare_us", &N::compare_us}},
      [](const Row& r) -> const N& { return *r.node; });
  AddFields<Row>(
      c, "per_step_",
      std::vector<CsvField<P>>{{"calls", &P::calls},
                               {"host_us", &P::host_us},
                               {"host_self_us", &P::host_self_us},
                               {"device_us", &P::device_us},
                               {"device_self_us", &P::device_self_us},
                               {"compare_us", &P::compare_us}},
      [](const Row& r) -> const P& { return r.node->per_step(); });
  // Only a forward module has a backward node.
  auto backward = [](const Row& r, double us) {
    return r.node->kind() == v1::MODULE_NODE_KIND_MODULE ? CsvNumber(us)
                                                         : std::string();
  };
  c.Add("backward_host_us", [backward](const Row& r) {
    return backward(r, r.node->backward_host_us());
  });
  c.Add("backward_device_us", [backward](const Row& r) {
    return backward(r, r.node->backward_device_us());
  });
  c.Add("per_step_backward_host_us", [backward](const Row& r) {
    return backward(r, r.node->per_step().backward_host_us());
  });
  c.Add("per_step_backward_device_us", [backward](const Row& r) {
    return backward(r, r.node->per_step().backward_device_us());
  });
  return c.Render(rows);
}

std::string MemoryCsv(const v1::RunProfile& run) {
  using Row = ItemRow<v1::MemoryStats>;
  CsvColumns<Row> c;
  AddWorker(c);
  c.Add("device", [](const Row& r) { return r.item->device(); });
  c.Add("peak_allocated_bytes", [](const Row& r) {
    return CsvInteger(r.item->peak_allocated_bytes());
  });
  c.Add("average_allocated_bytes", [](const Row& r) {
    return CsvNumber(r.item->average_allocated_bytes());
  });
  c.Add("peak_reserved_bytes",
        [](const Row& r) { return CsvInteger(r.item->peak_reserved_bytes()); });
  c.Add("event_count",
        [](const Row& r) { return CsvInteger(r.item->event_count()); });
  c.Add("allocated_from_bytes",
        [](const Row& r) { return CsvBool(r.item->allocated_from_bytes()); });
  // The kept step of the peak, as the steps view numbers it (issue 44).
  c.Add("peak_step", [](const Row& r) {
    return r.item->has_peak_step() ? CsvInteger(r.item->peak_step())
                                   : std::string();
  });
  c.Add("peak_step_index", [](const Row& r) {
    return r.item->peak_step_index() < 0
               ? std::string()
               : CsvInteger(r.item->peak_step_index());
  });
  c.Add("peak_offset_ns",
        [](const Row& r) { return CsvInteger(r.item->peak_offset_ns()); });
  c.Add("peak_operator", [](const Row& r) { return r.item->peak_operator(); });
  c.Add("peak_module", [](const Row& r) { return r.item->peak_module(); });
  return c.Render(ItemRows<v1::MemoryStats>(
      run,
      [](const v1::WorkerProfile& w) -> const auto& { return w.memory(); }));
}

// Every table: its name, its view and how it is written, in order.
struct TableSpec {
  std::string_view name;
  ProfileView view;
  std::string (*render)(const v1::RunProfile&);
};
constexpr TableSpec kTables[] = {
    {"overview", ProfileView::kOverview, OverviewCsv},
    {"steps", ProfileView::kSteps, StepsCsv},
    {"operators", ProfileView::kOperators, OperatorsCsv},
    {"kernels", ProfileView::kKernels, KernelsCsv},
    {"modules", ProfileView::kModules, ModulesCsv},
    {"memory", ProfileView::kMemory, MemoryCsv},
};

}  // namespace

std::vector<CsvField<v1::StepStats>> MeanStepCsvFields() {
  using S = v1::StepStats;
  return {{"duration_us", &S::duration_us},
          {"kernel_us", &S::kernel_us},
          {"memcpy_us", &S::memcpy_us},
          {"memset_us", &S::memset_us},
          {"communication_us", &S::communication_us},
          {"runtime_us", &S::runtime_us},
          {"dataloader_us", &S::dataloader_us},
          {"cpu_exec_us", &S::cpu_exec_us},
          {"other_us", &S::other_us},
          {"device_activity_count", &S::device_activity_count},
          {"collective_us", &S::collective_us},
          {"collective_exposed_us", &S::collective_exposed_us}};
}

absl::StatusOr<std::vector<std::string>> ProfileCsvTables(
    const std::set<ProfileView>& views) {
  std::vector<std::string> names;
  for (const ProfileView view : views) {
    if (view == ProfileView::kAll) continue;
    if (std::none_of(std::begin(kTables), std::end(kTables),
                     [&](const TableSpec& t) { return t.view == view; })) {
      return absl::InvalidArgumentError(
          "--format csv: a view asked for has no CSV table yet (--format "
          "json has it)");
    }
  }
  for (const TableSpec& t : kTables) {
    if (views.contains(ProfileView::kAll) || views.contains(t.view))
      names.emplace_back(t.name);
  }
  return names;
}

absl::StatusOr<std::vector<CsvFile>> RenderRunProfileCsv(
    const v1::RunProfile& run, const std::vector<std::string>& tables) {
  std::vector<CsvFile> files;
  for (const std::string& name : tables) {
    const auto spec =
        std::find_if(std::begin(kTables), std::end(kTables),
                     [&](const TableSpec& t) { return t.name == name; });
    if (spec == std::end(kTables)) {
      return absl::InvalidArgumentError(
          base::StrCat("--view ", name, ": no CSV table of that name"));
    }
    files.push_back({name, spec->render(run)});
  }
  return files;
}

}  // namespace profdiff::client
