// The page of several runs against one baseline (report/multi_diff_page.h):
// the overviews side by side, a button and a frame per run with its own page,
// names escaped, the script nonce on the page's script.
#include "report/multi_diff_page.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// Run `name` against baseline "base<0>": its step time from 1000 us to
// `step_us` (significant when `significant`) and GPU utilization 40% to
// `gpu`.
v1::DiffReport Report(const std::string& name, double step_us, bool significant,
                      double gpu) {
  v1::DiffReport r;
  r.mutable_baseline()->set_run("base<0>");
  r.mutable_experimental()->set_run(name);
  v1::OverviewRow& step = *r.mutable_overview()->add_rows();
  step.set_metric(v1::OVERVIEW_METRIC_STEP_TIME);
  step.set_unit(v1::VALUE_UNIT_US);
  step.set_baseline(1000);
  step.set_experimental(step_us);
  step.set_delta(step_us - 1000);
  step.set_delta_pct((step_us - 1000) / 10);
  step.mutable_noise()->set_significant(significant);
  if (gpu >= 0) {
    v1::OverviewRow& util = *r.mutable_overview()->add_rows();
    util.set_metric(v1::OVERVIEW_METRIC_GPU_UTILIZATION);
    util.set_unit(v1::VALUE_UNIT_FRACTION);
    util.set_baseline(0.4);
    util.set_experimental(gpu);
    util.set_delta(gpu - 0.4);
  }
  return r;
}

TEST(MultiDiffPageTest, OverviewsSitSideBySideWithTheirDeltas) {
  const std::string page = RenderMultiDiffHtml(
      {Report("fast", 900, true, 0.5), Report("slow", 1100, false, -1)},
      {"<p>one</p>", "<p>two</p>"});
  EXPECT_THAT(page, HasSubstr("<title>profdiff: base&lt;0&gt; against 2 runs"
                              "</title>"));
  EXPECT_THAT(page, HasSubstr("<th>fast</th><th>&Delta; 1</th>"
                              "<th>slow</th><th>&Delta; 2</th>"));
  EXPECT_THAT(page, HasSubstr("<tr><td>Average step time</td><td>1000.0</td>"
                              "<td>900.0</td><td class=\"sig\">-10.0%</td>"
                              "<td>1100.0</td><td>+10.0%</td></tr>"));
  // A fraction's delta is in percentage points; a run without the row: "-".
  EXPECT_THAT(page, HasSubstr("<tr><td>GPU utilization</td><td>40.0%</td>"
                              "<td>50.0%</td><td>+10.0 pp</td>"
                              "<td>-</td><td></td></tr>"));
}

TEST(MultiDiffPageTest, EachRunHasAButtonAndAFrameOfItsPage) {
  const std::string page = RenderMultiDiffHtml(
      {Report("a&b", 900, true, -1), Report("c", 1100, false, -1)},
      {"<p class=\"x\">one</p>", "<p>two</p>"});
  EXPECT_THAT(page, HasSubstr("<button data-run=\"0\" class=\"shown\">run 1: "
                              "a&amp;b</button><button data-run=\"1\">run 2: "
                              "c</button>"));
  EXPECT_EQ(Count(page, "<iframe "), 2u);
  // The first frame shows; its page is escaped into the attribute.
  EXPECT_THAT(page, HasSubstr("<iframe data-run=\"0\" title=\"a&amp;b against "
                              "the baseline\" srcdoc=\"&lt;p class=&quot;x"
                              "&quot;&gt;one&lt;/p&gt;\"></iframe>"));
  EXPECT_THAT(page, HasSubstr("<iframe data-run=\"1\" title=\"c against the "
                              "baseline\" hidden srcdoc="));
}

TEST(MultiDiffPageTest, NonceAndHeaderGoWhereThePageSays) {
  PageOptions options;
  options.script_nonce = "n0nce";
  options.header_html = "<nav id=\"top\">home</nav>";
  const std::string page =
      RenderMultiDiffHtml({Report("a", 900, true, -1)}, {"p"}, options);
  EXPECT_THAT(page, HasSubstr("<script nonce=\"n0nce\">"));
  EXPECT_EQ(Count(page, "<script"), 1u);
  EXPECT_THAT(page, HasSubstr("<body>\n<nav id=\"top\">home</nav><h1>"));
  EXPECT_THAT(RenderMultiDiffHtml({Report("a", 900, true, -1)}, {"p"}),
              Not(HasSubstr("nonce=")));
}

TEST(MultiDiffPageTest, NoRunsIsAnEmptyPageNotACrash) {
  const std::string page = RenderMultiDiffHtml({}, {});
  EXPECT_THAT(page, HasSubstr("<h1> against 0 runs</h1>"));
  EXPECT_EQ(Count(page, "<iframe"), 0u);
  EXPECT_THAT(page, HasSubstr("</html>\n"));
}

}  // namespace
}  // namespace profdiff::report
