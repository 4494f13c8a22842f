// `--sort`, `--filter` and `--top` (differ/row_order.h) on hand-built rows of
// `show` and `diff`: column names and their aliases, side prefixes, the default
// order, filter then top, and the errors listing the columns.
#include "differ/row_order.h"

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

// The names of `rows`, in order.
template <typename Row>
std::vector<std::string> Names(
    const google::protobuf::RepeatedPtrField<Row>& rows) {
  std::vector<std::string> names;
  for (const Row& r : rows) names.push_back(r.name());
  return names;
}

// `rows` ordered by `sort`, by name; InvalidArgument's message when refused.
template <typename Row>
std::vector<std::string> SortedBy(google::protobuf::RepeatedPtrField<Row> rows,
                                  const std::string& sort) {
  const absl::Status status = OrderRows(RowControls{sort, "", 0}, rows);
  if (!status.ok()) return {std::string(status.message())};
  return Names(rows);
}

// A profile's operators (what `show` sorts): host total 40, 15, 9 us; calls 1,
// 3, 9.
google::protobuf::RepeatedPtrField<v1::OperatorStats> ProfileOperators() {
  google::protobuf::RepeatedPtrField<v1::OperatorStats> rows;
  for (const auto& [name, calls, total] :
       {std::tuple("aten::mm", 1, 40.0), std::tuple("aten::add", 3, 15.0),
        std::tuple("aten::copy_", 9, 9.0)}) {
    v1::OperatorStats& r = *rows.Add();
    r.set_name(name);
    r.set_calls(calls);
    r.set_host_total_us(total);
    r.set_host_self_us(total);
  }
  return rows;
}

// An operator diff (what `diff` sorts): baseline host total 10, 30, 20 us,
// deltas +5, -8, +1 (magnitudes 5, 8, 1); only aten::b's change is
// significant. The changes' words sort b, c, a; their enum numbers c, a, b.
google::protobuf::RepeatedPtrField<v1::OperatorDiff> DiffOperatorRows() {
  google::protobuf::RepeatedPtrField<v1::OperatorDiff> rows;
  for (const auto& [name, base, delta, change] :
       {std::tuple("aten::c", 10.0, 5.0, v1::CHANGE_DELETED),
        std::tuple("aten::b", 30.0, -8.0, v1::CHANGE_DECREASED),
        std::tuple("aten::a", 20.0, 1.0, v1::CHANGE_INCREASED)}) {
    v1::OperatorDiff& r = *rows.Add();
    r.set_name(name);
    r.mutable_baseline()->set_host_total_us(base);
    r.mutable_experimental()->set_host_total_us(base + delta);
    r.mutable_delta()->set_host_total_us(delta);
    r.mutable_delta_pct()->set_host_total_us(100 * delta / base);
    r.set_compared(v1::OPERATOR_COMPARED_HOST_TOTAL_US);
    r.set_change(change);
    r.mutable_noise()->set_significant(change == v1::CHANGE_DECREASED);
  }
  return rows;
}

TEST(OrderRowsTest, ShowTakesTheDiffColumnNamesAndItsOldOnes) {
  const std::vector<std::string> by_total = {"aten::mm", "aten::add",
                                             "aten::copy_"};
  EXPECT_EQ(SortedBy(ProfileOperators(), "host_total_us"), by_total);
  EXPECT_EQ(SortedBy(ProfileOperators(), "host_total"), by_total);
  const std::vector<std::string> by_calls = {"aten::copy_", "aten::add",
                                             "aten::mm"};
  EXPECT_EQ(SortedBy(ProfileOperators(), "calls"), by_calls);
  const std::vector<std::string> by_name = {"aten::add", "aten::copy_",
                                            "aten::mm"};
  EXPECT_EQ(SortedBy(ProfileOperators(), "name"), by_name);
  // No --sort: the profile's own order.
  EXPECT_EQ(SortedBy(ProfileOperators(), ""), by_total);
}

TEST(OrderRowsTest, DiffTakesTheOldShowNamesBehindEverySidePrefix) {
  // A bare column is the delta, by magnitude: 8, 5, 1.
  const std::vector<std::string> by_delta = {"aten::b", "aten::c", "aten::a"};
  for (const char* sort : {"host_total_us", "host_total", "delta_host_total_us",
                           "delta_host_total"}) {
    EXPECT_EQ(SortedBy(DiffOperatorRows(), sort), by_delta) << sort;
  }
  // Baseline 30, 20, 10.
  const std::vector<std::string> by_baseline = {"aten::b", "aten::a",
                                                "aten::c"};
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "baseline_host_total_us"),
            by_baseline);
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "baseline_host_total"), by_baseline);
  // Experimental 22, 21, 15.
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "experimental_host_total"),
            (std::vector<std::string>{"aten::b", "aten::a", "aten::c"}));
  // |delta %|: 50, 26.7, 5.
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "delta_pct_host_total"),
            (std::vector<std::string>{"aten::c", "aten::b", "aten::a"}));
}

TEST(OrderRowsTest, NamesAndChangesSortAToZByTheWordPrinted) {
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "name"),
            (std::vector<std::string>{"aten::a", "aten::b", "aten::c"}));
  // "decreased" < "deleted" < "increased", as the column reads.
  EXPECT_EQ(SortedBy(DiffOperatorRows(), "change"),
            (std::vector<std::string>{"aten::b", "aten::c", "aten::a"}));
}

TEST(OrderRowsTest, DefaultDiffOrderIsSignificantFirstThenLargestDelta) {
  auto rows = DiffOperatorRows();
  rows.Mutable(0)->mutable_noise()->set_significant(true);  // aten::c
  // Significant: c (|5|), b (|8|); then a (|1|).
  EXPECT_EQ(SortedBy(rows, ""),
            (std::vector<std::string>{"aten::b", "aten::c", "aten::a"}));
  // Ties on both go by name.
  for (v1::OperatorDiff& r : rows) {
    r.mutable_noise()->set_significant(false);
    r.mutable_delta()->set_host_total_us(2);
  }
  EXPECT_EQ(SortedBy(rows, ""),
            (std::vector<std::string>{"aten::a", "aten::b", "aten::c"}));
}

TEST(OrderRowsTest, FilterThenTop) {
  auto rows = DiffOperatorRows();
  ASSERT_TRUE(
      OrderRows(RowControls{"baseline_host_total_us", "aten::[ac]", 1}, rows)
          .ok());
  EXPECT_EQ(Names(rows), std::vector<std::string>{"aten::a"});
  EXPECT_EQ(OrderRows(RowControls{"", "([", 0}, rows).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(OrderRowsTest, UnknownColumnIsInvalidArgumentListingColumnsAndAliases) {
  auto rows = DiffOperatorRows();
  const absl::Status diff = OrderRows(RowControls{"speed", "", 0}, rows);
  EXPECT_EQ(diff.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(diff.message(),
            "--sort speed: not an operator diff column (name, change, "
            "[baseline_|experimental_|delta_|delta_pct_]calls, "
            "[baseline_|experimental_|delta_|delta_pct_]host_self_us, "
            "[baseline_|experimental_|delta_|delta_pct_]host_total_us, "
            "[baseline_|experimental_|delta_|delta_pct_]device_self_us, "
            "[baseline_|experimental_|delta_|delta_pct_]device_total_us; also "
            "host_self, host_total, device_self, device_total, with the same "
            "prefixes)");
  google::protobuf::RepeatedPtrField<v1::KernelStats> kernels;
  const absl::Status show =
      OrderRows(RowControls{"host_total", "", 0}, kernels);
  EXPECT_EQ(show.message(),
            "--sort host_total: not a kernel column (name, calls, total_us, "
            "mean_us, min_us, max_us; also total, mean, min, max)");
  // A profile's rows have one side: no prefixes.
  auto operators = ProfileOperators();
  EXPECT_EQ(OrderRows(RowControls{"baseline_calls", "", 0}, operators).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(OrderRowsTest, AColumnOfOneDiffTableLeavesTheOtherInItsOrder) {
  v1::DiffOptions options;
  for (const char* kernel_only : {"total_us", "total", "baseline_mean"}) {
    options.set_sort(kernel_only);
    EXPECT_EQ(OperatorDiffControls(options).sort, "") << kernel_only;
    EXPECT_EQ(KernelDiffControls(options).sort, kernel_only);
  }
  for (const char* operator_only : {"host_total_us", "delta_device_self"}) {
    options.set_sort(operator_only);
    EXPECT_EQ(OperatorDiffControls(options).sort, operator_only);
    EXPECT_EQ(KernelDiffControls(options).sort, "") << operator_only;
  }
  for (const char* both : {"calls", "name", "change", "no_such_column"}) {
    options.set_sort(both);
    EXPECT_EQ(OperatorDiffControls(options).sort, both);
    EXPECT_EQ(KernelDiffControls(options).sort, both);
  }
}

TEST(OrderRowsTest, HtaRowsSortByTheirOwnColumns) {
  google::protobuf::RepeatedPtrField<v1::HtaRow> rows;
  for (const auto& [name, diff_counts, diff_us] :
       {std::tuple("b", 1, 0.0), std::tuple("a", -3, 5.0),
        std::tuple("c", 2, -20.0), std::tuple("d", 0, 0.0)}) {
    v1::HtaRow& r = *rows.Add();
    r.set_name(name);
    r.set_diff_counts(diff_counts);
    r.set_baseline_counts(10 - diff_counts);
    r.set_diff_duration_us(diff_us);
  }
  // By default the biggest |diff_duration| first, then by name; HTA's own
  // order (by name) with --sort name.
  EXPECT_EQ(SortedBy(rows, ""), (std::vector<std::string>{"c", "a", "b", "d"}));
  EXPECT_EQ(SortedBy(rows, "name"),
            (std::vector<std::string>{"a", "b", "c", "d"}));
  rows.DeleteSubrange(3, 1);
  // By magnitude: 3, 2, 1.
  EXPECT_EQ(SortedBy(rows, "diff_counts"),
            (std::vector<std::string>{"a", "c", "b"}));
  EXPECT_EQ(SortedBy(rows, "baseline_counts"),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SortedBy(rows, "change"),
            std::vector<std::string>{
                "--sort change: not an HTA column (name, baseline_counts, "
                "baseline_total_duration_us, experimental_counts, "
                "experimental_total_duration_us, diff_counts, "
                "diff_duration_us)"});
}

}  // namespace
}  // namespace profdiff::differ
