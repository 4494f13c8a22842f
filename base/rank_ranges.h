// Ranks printed as ranges ("0-2,4,6,7"), the form `--ranks` reads, so a run of
// a thousand ranks is one short line: every header, warning and note that
// lists ranks prints them this way.
#ifndef PROFDIFF_BASE_RANK_RANGES_H_
#define PROFDIFF_BASE_RANK_RANGES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace profdiff::base {

// `ascending` ranks as ranges: consecutive runs of three or more as "A-B", the
// rest one by one, joined by ","; past `max_ranges` ranges the rest are
// counted ("0-3,5 and 12 more"). Empty input: "".
std::string RankRanges(std::span<const int32_t> ascending,
                       size_t max_ranges = 64);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_RANK_RANGES_H_
