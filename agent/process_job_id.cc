#include "agent/process_job_id.h"

#include <fstream>
#include <iterator>

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

std::string JobIdOfProcess(int32_t pid) {
  std::ifstream file(base::StrCat("/proc/", pid, "/environ"), std::ios::binary);
  if (!file) return "";
  const std::string block((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  return JobIdOfEnvironment(block);
}

}  // namespace profdiff::agent
