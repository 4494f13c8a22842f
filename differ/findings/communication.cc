#include "differ/findings/communication.h"

#include <cmath>
#include <string>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/findings/name_lists.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// A side's bytes per call, or "size not recorded" (not 0 B).
std::string SizeText(const v1::CollectiveDiff& row, int side) {
  if (side == 0 ? row.baseline_size_missing() : row.experimental_size_missing())
    return "size not recorded";
  return Bytes(side == 0 ? row.baseline().bytes_per_call()
                         : row.experimental().bytes_per_call());
}

}  // namespace

std::optional<v1::Finding> CollectiveFinding(const FindingContext& c) {
  const v1::CommunicationDiff* communication = c.in().communication;
  if (communication == nullptr) return std::nullopt;
  const v1::CollectiveDiff* best = nullptr;
  for (const v1::CollectiveDiff& row : communication->by_collective()) {
    const bool moved =
        row.change() == v1::CHANGE_ADDED ||
        row.change() == v1::CHANGE_DELETED || row.calls_noise().significant() ||
        row.bytes_noise().significant() ||
        row.bytes_per_call_noise().significant() ||
        row.time_noise().significant() || row.wait_noise().significant();
    if (moved && (best == nullptr || std::abs(row.delta().time_us()) >
                                         std::abs(best->delta().time_us())))
      best = &row;
  }
  if (best == nullptr) return std::nullopt;
  const v1::CollectiveValues& x = best->baseline();
  const v1::CollectiveValues& y = best->experimental();
  std::string text = base::StrCat(
      best->collective(),
      best->process_group().empty()
          ? ""
          : base::StrCat(" (process group ", best->process_group(), ")"),
      ": ", base::CountText(x.calls()), " -> ", base::CountText(y.calls()),
      " calls", c.per_step(), " (", ChangePercent(x.calls(), y.calls()), "), ",
      best->baseline_size_missing() || best->experimental_size_missing()
          ? base::StrCat(SizeText(*best, 0), " -> ", SizeText(*best, 1))
          : base::StrCat(Bytes(x.bytes_per_call()), " -> ",
                         Bytes(y.bytes_per_call())),
      " per call; time ", Duration(x.time_us()), " -> ", Duration(y.time_us()),
      " (transfer ", Duration(x.transfer_us()), " -> ",
      Duration(y.transfer_us()), ", wait ", Duration(x.wait_us()), " -> ",
      Duration(y.wait_us()), ")");
  if (x.busbw_gbps() > 0 && y.busbw_gbps() > 0) {
    text += base::StrCat(", bus bandwidth ", Bandwidth(x.busbw_gbps()), " -> ",
                         Bandwidth(y.busbw_gbps()));
  }
  text += ".";
  v1::Finding f = c.Make(v1::FINDING_KIND_COMMUNICATION, std::move(text),
                         best->delta().time_us(), true);
  *f.add_evidence() = CollectiveEvidence(*best);
  return f;
}

}  // namespace profdiff::differ
