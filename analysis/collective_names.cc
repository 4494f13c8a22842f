#include "analysis/collective_names.h"

#include <array>
#include <cctype>
#include <utility>

namespace profdiff::analysis {
namespace {

bool StripPrefix(std::string& s, std::string_view prefix) {
  if (!std::string_view(s).starts_with(prefix)) return false;
  s.erase(0, prefix.size());
  return true;
}

bool StripSuffix(std::string& s, std::string_view suffix) {
  if (!std::string_view(s).ends_with(suffix) || s.size() == suffix.size())
    return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace

std::string CanonicalCollective(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (char c : name)
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (std::string_view prefix : {"c10d::", "nccl:", "gloo:", "ucc:", "mpi:"})
    StripPrefix(s, prefix);
  while (!s.empty() && s.front() == '_') s.erase(0, 1);
  while (!s.empty() && s.back() == '_') s.pop_back();
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view suffix :
         {"_base", "_coalesced", "_into_tensor", "_tensor", "_any_source"})
      stripped = StripSuffix(s, suffix) || stripped;
  }
  if (s == "record_param_comms" || s == "wait" || s.empty()) return "";
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10>
      kSpellings = {{{"allreduce", "all_reduce"},
                     {"allgather", "all_gather"},
                     {"reducescatter", "reduce_scatter"},
                     {"alltoall", "all_to_all"},
                     {"all_to_allv", "all_to_all"},
                     {"alltoallv", "all_to_all"},
                     {"all_gather_v", "all_gather"},
                     {"monitored_barrier", "barrier"},
                     {"bcast", "broadcast"},
                     {"allgather_v", "all_gather"}}};
  for (const auto& [from, to] : kSpellings) {
    if (s == from) return std::string(to);
  }
  return s;
}

int64_t ElementBytes(std::string_view dtype) {
  std::string s;
  for (char c : dtype)
    s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  StripPrefix(s, "c10::");
  StripPrefix(s, "torch.");
  static constexpr std::array<std::pair<std::string_view, int64_t>, 22> kSizes =
      {{{"float", 4},    {"float32", 4},       {"double", 8},
        {"float64", 8},  {"half", 2},          {"float16", 2},
        {"bfloat16", 2}, {"long", 8},          {"long int", 8},
        {"int64", 8},    {"int", 4},           {"int32", 4},
        {"short", 2},    {"short int", 2},     {"int16", 2},
        {"char", 1},     {"signed char", 1},   {"int8", 1},
        {"byte", 1},     {"unsigned char", 1}, {"uint8", 1},
        {"bool", 1}}};
  for (const auto& [name, bytes] : kSizes) {
    if (s == name) return bytes;
  }
  if (s.starts_with("float8")) return 1;
  return 0;
}

double BusBandwidthFactor(std::string_view canonical_collective,
                          int32_t group_size) {
  if (group_size < 1) return 1;
  const double n = group_size;
  if (canonical_collective == "all_reduce") return 2 * (n - 1) / n;
  if (canonical_collective == "all_gather" ||
      canonical_collective == "reduce_scatter" ||
      canonical_collective == "all_to_all")
    return (n - 1) / n;
  return 1;
}

}  // namespace profdiff::analysis
