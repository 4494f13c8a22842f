#include "client/run_communication_renderer.h"

#include <vector>

#include <absl/strings/str_format.h>

#include "analysis/digest_communication.h"
#include "analysis/run_communication.h"
#include "base/number_format.h"
#include "base/str_cat.h"
#include "client/text_table.h"
#include "differ/communication_diff.h"
#include "differ/noise.h"

namespace profdiff::client {
using base::BytesText;
using base::CountText;
using base::Micros;
namespace {

constexpr size_t kNameWidth = 80;

// The collectives of one run: pooled over message sizes, or one row per size.
TextTable Collectives(
    const google::protobuf::RepeatedPtrField<v1::CollectiveDiff>& rows,
    bool pooled) {
  // Left out first to fit the terminal: bandwidth, then the calls.
  TextTable table({{"collective", Align::kLeft},
                   {"group", Align::kLeft, 1},
                   {pooled ? "bytes/call" : "message"},
                   {"calls", Align::kRight, 2},
                   {"time (us)"},
                   {"transfer (us)"},
                   {"wait (us)"},
                   {"algbw GB/s", Align::kRight, 3},
                   {"busbw GB/s", Align::kRight, 3}});
  for (const v1::CollectiveDiff& row : rows) {
    const v1::CollectiveValues& v = row.baseline();
    if (v.calls() == 0) continue;
    // A size the trace does not record is "-", and so is its bandwidth.
    const bool missing = row.baseline_size_missing();
    const std::string size =
        missing ? std::string("-")
        : pooled
            ? BytesText(v.bytes_per_call())
            : base::StrCat(BytesText(static_cast<double>(row.bytes_per_call())),
                           row.dtype().empty() ? "" : " " + row.dtype());
    table.AddRow({row.collective(),
                  row.process_group().empty() ? "default" : row.process_group(),
                  size, CountText(v.calls()), Micros(v.time_us()),
                  Micros(v.transfer_us()), Micros(v.wait_us()),
                  missing ? "-" : absl::StrFormat("%.3g", v.algbw_gbps()),
                  missing ? "-" : absl::StrFormat("%.3g", v.busbw_gbps())});
  }
  return table;
}

TextTable Ranks(const v1::CommunicationDiff& c) {
  // Left out first to fit the terminal: the overlap, then the transfer.
  TextTable table({{"rank"},
                   {"collective (us)"},
                   {"exposed (us)"},
                   {"overlap", Align::kRight, 3},
                   {"transfer (us)", Align::kRight, 2},
                   {"wait (us)"},
                   {"last"}});
  for (const v1::RankCommunicationDiff& r : c.ranks()) {
    if (r.baseline_missing()) continue;
    const v1::RankCommunicationValues& v = r.baseline();
    table.AddRow({base::StrCat(r.rank()), Micros(v.collective_us()),
                  Micros(v.exposed_us()),
                  absl::StrFormat("%.0f%%", 100 * v.overlap_ratio()),
                  Micros(v.transfer_us()), Micros(v.wait_us()),
                  base::StrCat(v.last_arrivals(), "/", v.instances())});
  }
  return table;
}

}  // namespace

std::string RenderRunCommunication(const v1::RunProfile& run,
                                   size_t line_width) {
  std::vector<const v1::WorkerProfile*> workers;
  workers.reserve(static_cast<size_t>(run.workers_size()));
  for (const v1::WorkerProfile& w : run.workers()) workers.push_back(&w);
  const v1::DigestCommunication digest = analysis::DigestCommunicationOf(
      analysis::RunCommunicationOf(workers, {}));
  if (digest.by_collective_size() == 0) {
    return "\nCommunication: no collectives in this run\n";
  }
  // The run against itself: its baseline side is what `diff` takes for it.
  const v1::CommunicationDiff c = differ::DiffCommunication(
      digest, digest, differ::ChangeThreshold{}, /*per_step=*/true);
  std::string out = "\nCommunication\n";
  out += WrapWords("  ", c.baseline_verdict(), line_width);
  out += WrapWords("",
                   "(per step, mean over ranks; transfer = the shortest "
                   "duration of an instance over its ranks, wait = duration - "
                   "transfer; last = instances a rank arrived last at / ran "
                   "with another rank)",
                   line_width);
  auto section = [&](const std::string& title, const TextTable& table) {
    if (table.row_count() == 0) return;
    out += base::StrCat("\n", title, "\n",
                        table.RenderText(kNameWidth, line_width));
  };
  section("Collectives", Collectives(c.by_collective(), true));
  section("Collectives by message size", Collectives(c.collectives(), false));
  section("Communication per rank", Ranks(c));
  return out;
}

}  // namespace profdiff::client
