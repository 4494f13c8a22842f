#include "agent/process_job_id.h"

#include <fstream>
#include <iterator>

#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "base/id_rules.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::agent {

absl::StatusOr<std::string> JobIdOfEnvironment(std::string_view environ_block) {
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
  const bool elastic = !torchelastic.empty();
  const absl::string_view job = elastic ? torchelastic : slurm;
  if (job.empty()) return std::string();
  if (absl::Status valid =
          base::ValidateId(elastic ? "TORCHELASTIC_RUN_ID" : "SLURM_JOB_ID",
                           std::string_view(job.data(), job.size()));
      !valid.ok()) {
    return valid;
  }
  return std::string(job);
}

absl::StatusOr<std::string> JobIdOfProcess(int32_t pid) {
  std::ifstream file(base::StrCat("/proc/", pid, "/environ"), std::ios::binary);
  if (pid <= 0 || !file) return std::string();
  const std::string block((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  absl::StatusOr<std::string> job = JobIdOfEnvironment(block);
  if (!job.ok()) return base::Annotate(job.status(), base::StrCat("pid ", pid));
  return job;
}

}  // namespace profdiff::agent
