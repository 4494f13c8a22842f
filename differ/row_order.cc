#include "differ/row_order.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/name_filter.h"
#include "base/str_cat.h"
#include "differ/display_text.h"

namespace profdiff::differ {
namespace {

namespace pb = google::protobuf;

// A row's value in one column: numbers compare as numbers, texts bytewise. A
// text is a view into the row or into the descriptor pool, valid while the row
// is.
using SortKey = std::variant<double, std::string_view>;

enum class Direction { kAscending, kDescending };

// One column of a table (design note 1).
template <typename Row>
struct Column {
  std::string name;
  std::vector<std::string> aliases;
  std::function<SortKey(const Row&)> key;
  Direction direction = Direction::kDescending;

  bool Answers(std::string_view column) const {
    return column == name ||
           std::find(aliases.begin(), aliases.end(), column) != aliases.end();
  }
  // Whether the key `x` comes before `y` in this column.
  bool Before(const SortKey& x, const SortKey& y) const {
    return direction == Direction::kAscending ? x < y : y < x;
  }
};

template <typename Row>
struct Table {
  std::string what;  // "an operator", "a kernel diff", ...: for messages
  std::vector<Column<Row>> columns;
  // Without --sort: by each in turn (design note 5); empty keeps the order.
  std::vector<Column<Row>> default_order;
  std::string listing;  // the columns as an error message lists them
};

// A value column of the operator and kernel tables, on the type holding the
// values (a profile's row itself, a diff's side).
template <typename Values>
struct ValueColumn {
  std::string name;
  std::vector<std::string> aliases;  // the names `show` used before
  double (*read)(const Values&);
};

// The value columns of each family, in proto field order (design note 2).
template <typename Values>
std::vector<ValueColumn<Values>> OperatorValueColumns() {
  return {
      {"calls",
       {},
       [](const Values& v) { return static_cast<double>(v.calls()); }},
      {"host_self_us",
       {"host_self"},
       [](const Values& v) { return v.host_self_us(); }},
      {"host_total_us",
       {"host_total"},
       [](const Values& v) { return v.host_total_us(); }},
      {"device_self_us",
       {"device_self"},
       [](const Values& v) { return v.device_self_us(); }},
      {"device_total_us",
       {"device_total"},
       [](const Values& v) { return v.device_total_us(); }},
  };
}

template <typename Values>
std::vector<ValueColumn<Values>> KernelValueColumns() {
  return {
      {"calls",
       {},
       [](const Values& v) { return static_cast<double>(v.calls()); }},
      {"total_us", {"total"}, [](const Values& v) { return v.total_us(); }},
      {"mean_us", {"mean"}, [](const Values& v) { return v.mean_us(); }},
      {"min_us", {"min"}, [](const Values& v) { return v.min_us(); }},
      {"max_us", {"max"}, [](const Values& v) { return v.max_us(); }},
  };
}

template <typename Row>
Column<Row> NameColumn() {
  return {"name",
          {},
          [](const Row& r) { return SortKey(std::string_view(r.name())); },
          Direction::kAscending};
}

// The columns as an error message lists them: `names`, then each value
// column behind `prefixes`, then the aliases.
template <typename Values>
std::string Listing(std::string names,
                    const std::vector<ValueColumn<Values>>& values,
                    std::string_view prefixes) {
  std::string aliases;
  for (const ValueColumn<Values>& v : values) {
    base::StrAppend(&names, ", ", prefixes, v.name);
    for (const std::string& alias : v.aliases)
      base::StrAppend(&aliases, aliases.empty() ? "" : ", ", alias);
  }
  if (aliases.empty()) return names;
  return base::StrCat(names, "; also ", aliases,
                      prefixes.empty() ? "" : ", with the same prefixes");
}

// A profile's table: its rows hold their values.
template <typename Row>
Table<Row> ProfileTable(std::string_view what,
                        const std::vector<ValueColumn<Row>>& values) {
  Table<Row> table;
  table.what = std::string(what);
  table.columns.push_back(NameColumn<Row>());
  for (const ValueColumn<Row>& v : values) {
    auto read = v.read;
    table.columns.push_back({v.name, v.aliases,
                             [read](const Row& r) { return SortKey(read(r)); },
                             Direction::kDescending});
  }
  table.listing = Listing("name", values, "");
  return table;
}

// A diff's side of a value (design note 3): which sub-message, and whether it
// sorts by magnitude.
template <typename Row, typename Values>
struct DiffSide {
  std::string_view prefix;
  const Values& (Row::*get)() const;
  bool magnitude;
};

// A diff's table: name, change, each value column per side, and the default
// order (design note 5) with `compared_delta` the |delta| of the compared
// column.
template <typename Row, typename Values>
Table<Row> DiffTable(std::string_view what,
                     const std::vector<ValueColumn<Values>>& values,
                     std::function<double(const Row&)> compared_delta) {
  const DiffSide<Row, Values> sides[] = {
      {"baseline_", &Row::baseline, false},
      {"experimental_", &Row::experimental, false},
      {"delta_", &Row::delta, true},
      {"delta_pct_", &Row::delta_pct, true},
  };
  Table<Row> table;
  table.what = std::string(what);
  table.columns.push_back(NameColumn<Row>());
  table.columns.push_back({"change",
                           {},
                           [](const Row& r) {
                             // By the word users read in the column.
                             return SortKey(
                                 std::string_view(DisplayText(r.change())));
                           },
                           Direction::kAscending});
  for (const DiffSide<Row, Values>& side : sides) {
    for (const ValueColumn<Values>& v : values) {
      auto read = v.read;
      Column<Row> column{
          base::StrCat(side.prefix, v.name),
          {},
          [read, get = side.get, magnitude = side.magnitude](const Row& r) {
            const double value = read((r.*get)());
            return SortKey(magnitude ? std::abs(value) : value);
          },
          Direction::kDescending};
      for (const std::string& alias : v.aliases)
        column.aliases.push_back(base::StrCat(side.prefix, alias));
      // No prefix is the delta.
      if (side.prefix == "delta_") {
        column.aliases.push_back(v.name);
        for (const std::string& alias : v.aliases)
          column.aliases.push_back(alias);
      }
      table.columns.push_back(std::move(column));
    }
  }
  table.default_order = {
      {"significant",
       {},
       [](const Row& r) {
         return SortKey(r.noise().significant() ? 1.0 : 0.0);
       },
       Direction::kDescending},
      {"compared delta",
       {},
       [compared_delta](const Row& r) { return SortKey(compared_delta(r)); },
       Direction::kDescending},
      NameColumn<Row>(),
  };
  table.listing = Listing("name, change", values,
                          "[baseline_|experimental_|delta_|delta_pct_]");
  return table;
}

Table<v1::HtaRow> HtaTable() {
  using R = v1::HtaRow;
  auto number = [](std::string name, double (*read)(const R&)) {
    return Column<R>{std::move(name),
                     {},
                     [read](const R& r) { return SortKey(read(r)); },
                     Direction::kDescending};
  };
  Table<R> table;
  table.what = "an HTA";
  table.columns = {
      NameColumn<R>(),
      number(
          "baseline_counts",
          [](const R& r) { return static_cast<double>(r.baseline_counts()); }),
      number("baseline_total_duration_us",
             [](const R& r) { return r.baseline_total_duration_us(); }),
      number("experimental_counts",
             [](const R& r) {
               return static_cast<double>(r.experimental_counts());
             }),
      number("experimental_total_duration_us",
             [](const R& r) { return r.experimental_total_duration_us(); }),
      // Differences by magnitude, as HTA's users read them.
      number("diff_counts",
             [](const R& r) {
               return std::abs(static_cast<double>(r.diff_counts()));
             }),
      number("diff_duration_us",
             [](const R& r) { return std::abs(r.diff_duration_us()); }),
  };
  for (const Column<R>& c : table.columns)
    base::StrAppend(&table.listing, table.listing.empty() ? "" : ", ", c.name);
  // The biggest change on top; HTA's own order (by name) is --sort name.
  table.default_order = {table.columns.back(), table.columns.front()};
  return table;
}

// The tables, built once: they are immutable after.
const Table<v1::OperatorStats>& OperatorStatsTable() {
  static const auto* const table = new Table<v1::OperatorStats>(
      ProfileTable("an operator", OperatorValueColumns<v1::OperatorStats>()));
  return *table;
}
const Table<v1::KernelStats>& KernelStatsTable() {
  static const auto* const table = new Table<v1::KernelStats>(
      ProfileTable("a kernel", KernelValueColumns<v1::KernelStats>()));
  return *table;
}
const Table<v1::OperatorDiff>& OperatorDiffTable() {
  static const auto* const table = new Table<v1::OperatorDiff>(
      DiffTable<v1::OperatorDiff, v1::OperatorValues>(
          "an operator diff", OperatorValueColumns<v1::OperatorValues>(),
          [](const v1::OperatorDiff& r) {
            return std::abs(r.compared() ==
                                    v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
                                ? r.delta().device_total_us()
                                : r.delta().host_total_us());
          }));
  return *table;
}
const Table<v1::KernelDiff>& KernelDiffTable() {
  static const auto* const table =
      new Table<v1::KernelDiff>(DiffTable<v1::KernelDiff, v1::KernelValues>(
          "a kernel diff", KernelValueColumns<v1::KernelValues>(),
          [](const v1::KernelDiff& r) {
            return std::abs(r.delta().total_us());
          }));
  return *table;
}
const Table<v1::HtaRow>& HtaRowTable() {
  static const auto* const table = new Table<v1::HtaRow>(HtaTable());
  return *table;
}

template <typename Row>
const Column<Row>* FindColumn(const Table<Row>& table,
                              std::string_view column) {
  for (const Column<Row>& c : table.columns) {
    if (c.Answers(column)) return &c;
  }
  return nullptr;
}

template <typename Row>
absl::Status Order(const Table<Row>& table, const RowControls& controls,
                   pb::RepeatedPtrField<Row>& rows) {
  auto filter = base::NameFilter::Compile(controls.filter);
  if (!filter.ok()) return filter.status();
  rows.erase(
      std::remove_if(rows.begin(), rows.end(),
                     [&](const Row& r) { return !filter->Matches(r.name()); }),
      rows.end());
  if (controls.sort.empty()) {
    if (!table.default_order.empty()) {
      std::stable_sort(rows.begin(), rows.end(),
                       [&](const Row& a, const Row& b) {
                         for (const Column<Row>& column : table.default_order) {
                           const SortKey x = column.key(a);
                           const SortKey y = column.key(b);
                           if (x != y) return column.Before(x, y);
                         }
                         return false;
                       });
    }
  } else {
    const Column<Row>* column = FindColumn(table, controls.sort);
    if (column == nullptr) {
      return absl::InvalidArgumentError(
          base::StrCat("--sort ", controls.sort, ": not ", table.what,
                       " column (", table.listing, ")"));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [column](const Row& a, const Row& b) {
                       return column->Before(column->key(a), column->key(b));
                     });
  }
  if (controls.top > 0 && rows.size() > controls.top)
    rows.DeleteSubrange(controls.top, rows.size() - controls.top);
  return absl::OkStatus();
}

}  // namespace

RowControls RowControls::Of(const v1::DiffOptions& options) {
  return {options.sort(), options.filter(), options.top()};
}

absl::Status OrderRows(const RowControls& controls,
                       pb::RepeatedPtrField<v1::OperatorStats>& rows) {
  return Order(OperatorStatsTable(), controls, rows);
}
absl::Status OrderRows(const RowControls& controls,
                       pb::RepeatedPtrField<v1::KernelStats>& rows) {
  return Order(KernelStatsTable(), controls, rows);
}
absl::Status OrderRows(const RowControls& controls,
                       pb::RepeatedPtrField<v1::OperatorDiff>& rows) {
  return Order(OperatorDiffTable(), controls, rows);
}
absl::Status OrderRows(const RowControls& controls,
                       pb::RepeatedPtrField<v1::KernelDiff>& rows) {
  return Order(KernelDiffTable(), controls, rows);
}
absl::Status OrderRows(const RowControls& controls,
                       pb::RepeatedPtrField<v1::HtaRow>& rows) {
  return Order(HtaRowTable(), controls, rows);
}

RowControls OperatorDiffControls(const v1::DiffOptions& options) {
  RowControls controls = RowControls::Of(options);
  // A column of the kernel diff alone sorts that; this table keeps its order.
  if (FindColumn(OperatorDiffTable(), controls.sort) == nullptr &&
      FindColumn(KernelDiffTable(), controls.sort) != nullptr) {
    controls.sort.clear();
  }
  return controls;
}

RowControls KernelDiffControls(const v1::DiffOptions& options) {
  RowControls controls = RowControls::Of(options);
  if (FindColumn(KernelDiffTable(), controls.sort) == nullptr &&
      FindColumn(OperatorDiffTable(), controls.sort) != nullptr) {
    controls.sort.clear();
  }
  return controls;
}

}  // namespace profdiff::differ
