#include "agent/process_job_id.h"

#include <fstream>
#include <iterator>
#include <vector>

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "base/str_cat.h"

namespace profdiff::agent {

std::string JobIdOfEnvironment(std::string_view environ_block) {
  absl::string_view torchelastic;
  absl::string_view slurm;
  for (absl::string_view entry :
       absl::StrSplit(base::ToAbsl(environ_block), '\0', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&entry, "TORCHELASTIC_RUN_ID=")) {
      torchelastic = entry;
    } else if (absl::ConsumePrefix(&entry, "SLURM_JOB_ID=")) {
      slurm = entry;
    }
  }
  return std::string(torchelastic.empty() ? slurm : torchelastic);
}

std::string JobIdOfProcess(int32_t pid, int32_t parent) {
  if (parent > 0) {
    // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and
    // parentheses, so the fields after it start at the last ')'.
    std::ifstream stat_file(base::StrCat("/proc/", pid, "/stat"));
    const std::string stat((std::istreambuf_iterator<char>(stat_file)),
                           std::istreambuf_iterator<char>());
    const size_t comm_end = stat.rfind(')');
    int64_t ppid = -1;
    std::vector<absl::string_view> fields = absl::StrSplit(
        absl::string_view(stat).substr(
            comm_end == std::string::npos ? stat.size() : comm_end + 1),
        ' ', absl::SkipEmpty());
    if (fields.size() < 2 || !absl::SimpleAtoi(fields[1], &ppid) ||
        ppid != parent) {
      return "";
    }
  }
  std::ifstream file(base::StrCat("/proc/", pid, "/environ"), std::ios::binary);
  if (!file) return "";
  const std::string block((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  return JobIdOfEnvironment(block);
}

}  // namespace profdiff::agent
