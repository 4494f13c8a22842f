// The flags of `profdiff diff`, bound to one struct: each member's initialiser
// is the flag's default, and base::FlagSet parses and checks every number and
// choice before the command reads anything.
#ifndef PROFDIFF_CLIENT_DIFF_FLAGS_H_
#define PROFDIFF_CLIENT_DIFF_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <absl/time/time.h>

#include "analysis/worker_profile.h"
#include "base/command_line.h"
#include "client/server_connection.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

struct DiffFlags {
  std::vector<std::string> views;  // none: all
  std::string path;
  analysis::ProfileOptions profile_options;  // --group-by, --kernels-by
  std::string ranks;                         // "0,2-3" or "all"; none: all
  v1::Normalization normalize = v1::NORMALIZATION_PER_STEP;
  double min_change_pct = 0;                               // read when given
  double min_change_us = 0;                                // read when given
  v1::CompareMode compare = v1::COMPARE_MODE_UNSPECIFIED;  // profdiff
  std::string steps;                                       // HTA mode
  v1::HtaDevice device = v1::HTA_DEVICE_ALL;               // HTA mode
  bool short_names = false;                                // HTA mode
  bool per_rank = false;
  std::string sort;
  std::string filter;
  // Read when given; else 20 for a table, 0 (all) otherwise. 64-bit and
  // clipped where used: a script's sys.maxsize means all rows.
  int64_t top = 0;
  int64_t depth = 3;   // module levels of the table (and the CSV when given)
  std::string format;  // none: -o's, else table
  absl::Duration timeout = absl::Minutes(5);
  std::string output;
  std::vector<std::string> fail_on;
  bool wide = false;
  ConnectionFlags connection;
};

// Registers every flag of `diff`, bound to `*f`, which must outlive `flags`'
// use.
void AddDiffFlags(base::FlagSet& flags, DiffFlags* f);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFF_FLAGS_H_
