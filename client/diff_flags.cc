#include "client/diff_flags.h"

#include "client/command_line.h"
#include "client/output_file.h"

namespace profdiff::client {
namespace {

// How errors have always worded a count's rule (README, scripts).
constexpr std::string_view kCountRule = "a number >= 0";

}  // namespace

void AddDiffFlags(base::FlagSet& flags, DiffFlags* f) {
  flags.AddList("view", &f->views,
                "findings|overview|modules|operators|kernels|comm|memory|"
                "ranks|all",
                "the views shown (several: commas, or --view again)");
  flags.AddString("path", &f->path, "P", "module drill-down");
  AddGroupingFlags(flags, &f->profile_options);
  flags.AddString("ranks", &f->ranks, "LIST|all", "ranks to compare");
  flags.AddEnum("normalize", &f->normalize,
                {{"per-step", v1::NORMALIZATION_PER_STEP},
                 {"total", v1::NORMALIZATION_TOTAL}},
                "values per kept step, or as totals");
  flags.AddDouble("min-change", &f->min_change_pct, "PCT",
                  "smallest change called significant", {.min = 0});
  flags.AddDouble("min-change-us", &f->min_change_us, "US",
                  "and at least this per step", {.min = 0});
  flags.AddEnum("compare", &f->compare,
                {{"profdiff", v1::COMPARE_MODE_UNSPECIFIED},
                 {"hta", v1::COMPARE_MODE_HTA}},
                "profdiff's comparison, or HTA's compare_traces");
  flags.AddString("steps", &f->steps, "LIST|all", "HTA mode: steps compared");
  flags.AddEnum("device", &f->device,
                {{"cpu", v1::HTA_DEVICE_CPU},
                 {"gpu", v1::HTA_DEVICE_GPU},
                 {"all", v1::HTA_DEVICE_ALL}},
                "HTA mode: the operators compared");
  flags.AddBool("short-names", &f->short_names, "HTA mode: short names");
  flags.AddBool("per-rank", &f->per_rank, "each rank's step and breakdown");
  flags.AddString("sort", &f->sort, "COLUMN", "the tables' order");
  flags.AddString("filter", &f->filter, "REGEX", "rows whose names match");
  flags.AddInt("top", &f->top, "N", "rows per table", {.min = 0});
  flags.SetRuleText("top", kCountRule);
  flags.AddInt("depth", &f->depth, "N", "module levels", {.min = 0});
  flags.SetRuleText("depth", kCountRule);
  flags.AddString("format", &f->format, "table|json|csv|html", "output format");
  flags.AddDuration("timeout", &f->timeout, "D", "deadline of the server call",
                    base::DurationRule::kPositive);
  flags.SetRuleText("timeout", "a duration such as 30s or 5m");
  AddOutputFlag(flags, &f->output, "write to FILE instead of standard output");
  flags.AddList("fail-on", &f->fail_on, "EXPR", "a CI gate's conditions");
  flags.AddBool("wide", &f->wide, "every column, however wide");
  AddConnectionFlags(flags, &f->connection);
}

}  // namespace profdiff::client
