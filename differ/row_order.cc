#include "differ/row_order.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "base/name_filter.h"
#include "base/str_cat.h"
#include "differ/display_text.h"

namespace profdiff::differ {
namespace {

namespace pb = google::protobuf;

// A numeric sort key read by reflection, so every value column sorts without a
// list to keep.
template <typename Row>
using SortKey = std::function<double(const Row&)>;

double NumberField(const pb::Message& m, const pb::FieldDescriptor* f) {
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      return r->GetDouble(m, f);
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return static_cast<double>(r->GetInt64(m, f));
    case pb::FieldDescriptor::CPPTYPE_INT32:
      return r->GetInt32(m, f);
    default:
      return 0;
  }
}

bool IsNumber(const pb::FieldDescriptor& f) {
  return f.cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE ||
         f.cpp_type() == pb::FieldDescriptor::CPPTYPE_INT64 ||
         f.cpp_type() == pb::FieldDescriptor::CPPTYPE_INT32;
}

std::string ValueColumns(const pb::Descriptor* values) {
  std::string names = "name, change";
  for (int i = 0; i < values->field_count(); ++i) {
    base::StrAppend(&names, ", [baseline_|experimental_|delta_|delta_pct_]",
                    values->field(i)->name());
  }
  return names;
}

// The key for `column` on a row with baseline/experimental/delta/delta_pct
// sub-messages of type `values`; deltas by magnitude.
template <typename Row>
absl::StatusOr<SortKey<Row>> ValueSortKey(const std::string& column,
                                          const pb::Descriptor* values,
                                          std::string_view what) {
  static constexpr std::pair<const char*, const char*> kPrefixes[] = {
      {"baseline_", "baseline"},
      {"experimental_", "experimental"},
      {"delta_pct_", "delta_pct"},
      {"delta_", "delta"},
      {"", "delta"}};
  for (const auto& [prefix, side] : kPrefixes) {
    if (!std::string_view(column).starts_with(prefix)) continue;
    const pb::FieldDescriptor* value =
        values->FindFieldByName(column.substr(std::string_view(prefix).size()));
    if (value == nullptr) continue;
    const pb::FieldDescriptor* sub = Row::descriptor()->FindFieldByName(side);
    const bool magnitude = std::string_view(side).starts_with("delta");
    return SortKey<Row>([sub, value, magnitude](const Row& row) {
      const double v =
          NumberField(row.GetReflection()->GetMessage(row, sub), value);
      return magnitude ? std::abs(v) : v;
    });
  }
  return absl::InvalidArgumentError(base::StrCat("--sort ", column, ": not a ",
                                                 what, " diff column (",
                                                 ValueColumns(values), ")"));
}

template <typename Row>
absl::Status Order(const v1::DiffOptions& options, const pb::Descriptor* values,
                   std::string_view what, const SortKey<Row>& default_delta,
                   pb::RepeatedPtrField<Row>& rows) {
  auto filter = base::NameFilter::Compile(options.filter());
  if (!filter.ok()) return filter.status();
  rows.erase(
      std::remove_if(rows.begin(), rows.end(),
                     [&](const Row& r) { return !filter->Matches(r.name()); }),
      rows.end());
  const std::string& column = options.sort();
  if (column == "name") {
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return a.name() < b.name();
    });
  } else if (column == "change") {
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      // By the text users see, as they read the column.
      return DisplayText(a.change()) < DisplayText(b.change());
    });
  } else if (column.empty()) {
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      if (a.noise().significant() != b.noise().significant())
        return a.noise().significant();
      const double da = default_delta(a), db = default_delta(b);
      if (da != db) return da > db;
      return a.name() < b.name();
    });
  } else {
    auto key = ValueSortKey<Row>(column, values, what);
    if (!key.ok()) return key.status();
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      return (*key)(a) > (*key)(b);
    });
  }
  if (options.top() > 0 && rows.size() > options.top()) {
    rows.DeleteSubrange(options.top(), rows.size() - options.top());
  }
  return absl::OkStatus();
}

bool IsValueColumn(const std::string& column, const pb::Descriptor* values) {
  if (column.empty() || column == "name" || column == "change") return true;
  for (std::string_view prefix :
       {"baseline_", "experimental_", "delta_pct_", "delta_", ""}) {
    if (std::string_view(column).starts_with(prefix) &&
        values->FindFieldByName(column.substr(prefix.size())) != nullptr) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsOperatorColumn(const std::string& column) {
  return IsValueColumn(column, v1::OperatorValues::descriptor());
}
bool IsKernelColumn(const std::string& column) {
  return IsValueColumn(column, v1::KernelValues::descriptor());
}

absl::Status OrderOperatorRows(const v1::DiffOptions& options,
                               pb::RepeatedPtrField<v1::OperatorDiff>& rows) {
  const SortKey<v1::OperatorDiff> compared = [](const v1::OperatorDiff& r) {
    return std::abs(r.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
                        ? r.delta().device_total_us()
                        : r.delta().host_total_us());
  };
  return Order(options, v1::OperatorValues::descriptor(), "operator", compared,
               rows);
}

absl::Status OrderKernelRows(const v1::DiffOptions& options,
                             pb::RepeatedPtrField<v1::KernelDiff>& rows) {
  const SortKey<v1::KernelDiff> total = [](const v1::KernelDiff& r) {
    return std::abs(r.delta().total_us());
  };
  return Order(options, v1::KernelValues::descriptor(), "kernel", total, rows);
}

absl::Status OrderHtaRows(const v1::DiffOptions& options,
                          pb::RepeatedPtrField<v1::HtaRow>& rows) {
  auto filter = base::NameFilter::Compile(options.filter());
  if (!filter.ok()) return filter.status();
  rows.erase(std::remove_if(rows.begin(), rows.end(),
                            [&](const v1::HtaRow& r) {
                              return !filter->Matches(r.name());
                            }),
             rows.end());
  const std::string& column = options.sort();
  if (!column.empty() && column != "name") {
    const pb::FieldDescriptor* field =
        v1::HtaRow::descriptor()->FindFieldByName(column);
    if (field == nullptr || !IsNumber(*field)) {
      std::string names = "name";
      for (int i = 0; i < v1::HtaRow::descriptor()->field_count(); ++i) {
        const pb::FieldDescriptor* f = v1::HtaRow::descriptor()->field(i);
        if (IsNumber(*f)) base::StrAppend(&names, ", ", f->name());
      }
      return absl::InvalidArgumentError(
          base::StrCat("--sort ", column, ": not an HTA column (", names, ")"));
    }
    const bool magnitude = std::string_view(column).starts_with("diff_");
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const v1::HtaRow& a, const v1::HtaRow& b) {
                       double x = NumberField(a, field),
                              y = NumberField(b, field);
                       if (magnitude) x = std::abs(x), y = std::abs(y);
                       return x > y;
                     });
  }
  if (options.top() > 0 && rows.size() > options.top()) {
    rows.DeleteSubrange(options.top(), rows.size() - options.top());
  }
  return absl::OkStatus();
}

}  // namespace profdiff::differ
