// What the CLI prints for a change on every real pair: a percentage within
// ±10^4 %, "new" for a zero baseline, a factor ("x120") past +10^4 %.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/run_loader.h"
#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/differ.h"
#include "tests/support/real_pairs.h"
#include "tests/support/traces_dir.h"

namespace profdiff::client {
using base::SignedPercent;
namespace {

namespace fs = std::filesystem;

// A percentage as the CLI prints it is within ±10^4 %: "new" for a zero
// baseline, a factor ("x120") past +10^4 %.
void ExpectPrintedPercentBounded(double pct, double baseline,
                                 double experimental, const std::string& what) {
  const std::string text = SignedPercent(pct, baseline, experimental);
  if (text.ends_with('%')) {
    EXPECT_LE(std::abs(std::stod(text)), 1e4) << what << ": " << text;
  }
}

TEST(PrintedPercentTest, NoPercentageOverTenThousandOnEveryRealPair) {
  const fs::path root = test_support::TracesDir();
  int pairs = 0;
  for (const auto& [a, b] : test_support::RealTracePairs(root)) {
    if (!fs::exists(root / a) || !fs::exists(root / b)) continue;
    auto runs =
        analysis::LoadRuns({{(root / a).string()}, {(root / b).string()}}, {});
    ASSERT_TRUE(runs.ok()) << runs.status();
    absl::StatusOr<v1::DiffReport> diffed =
        differ::DiffRuns((*runs)[0], (*runs)[1], {});
    ASSERT_TRUE(diffed.ok()) << diffed.status();
    ++pairs;
    SCOPED_TRACE(base::StrCat(a, " vs ", b));
    const v1::DiffReport& report = *diffed;
    for (const v1::OverviewRow& row : report.overview().rows()) {
      ExpectPrintedPercentBounded(row.delta_pct(), row.baseline(),
                                  row.experimental(),
                                  v1::OverviewMetric_Name(row.metric()));
    }
    for (const v1::OperatorDiff& row : report.operators()) {
      ExpectPrintedPercentBounded(
          row.delta_pct().host_total_us(), row.baseline().host_total_us(),
          row.experimental().host_total_us(), row.name());
      ExpectPrintedPercentBounded(
          row.delta_pct().device_total_us(), row.baseline().device_total_us(),
          row.experimental().device_total_us(), row.name());
    }
    for (const v1::KernelDiff& row : report.kernels()) {
      ExpectPrintedPercentBounded(row.delta_pct().total_us(),
                                  row.baseline().total_us(),
                                  row.experimental().total_us(), row.name());
    }
    std::vector<const v1::ModuleDiffNode*> nodes = {&report.modules()};
    while (!nodes.empty()) {
      const v1::ModuleDiffNode& n = *nodes.back();
      nodes.pop_back();
      ExpectPrintedPercentBounded(n.delta_pct(), n.baseline().compare_us(),
                                  n.experimental().compare_us(), n.path());
      for (const v1::ModuleDiffNode& c : n.children()) nodes.push_back(&c);
    }
  }
  if (pairs == 0) GTEST_SKIP() << "none of the real pairs is under " << root;
}

}  // namespace
}  // namespace profdiff::client
