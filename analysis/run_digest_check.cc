#include "analysis/run_digest_check.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/digest_communication.h"
#include "analysis/digest_module_tree.h"
#include "analysis/digest_tables.h"
#include "analysis/run_digest.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::analysis {
namespace {

using Metrics = google::protobuf::RepeatedPtrField<v1::ReducedMetric>;

// The first problem found, with where it is.
class Checker {
 public:
  explicit Checker(const v1::RunDigest& digest) : digest_(digest) {}

  absl::Status Check() {
    CheckRanks();
    if (problem_.empty()) CheckOverview();
    if (problem_.empty()) CheckTables();
    if (problem_.empty()) CheckModules();
    if (problem_.empty()) CheckCommunication();
    if (problem_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        base::StrCat("run ", base::QuoteBytes(digest_.run()),
                     ": digest cannot be diffed: ", problem_));
  }

 private:
  template <typename... Args>
  void Fail(Args&&... args) {
    if (problem_.empty()) problem_ = base::StrCat(args...);
  }

  void CheckRanks() {
    if (digest_.ranks().empty()) {
      Fail("it has no ranks (an empty or cut digest)");
      return;
    }
    if (digest_.rank_rows_size() != digest_.ranks_size()) {
      Fail("rank_rows: expected one per rank (", digest_.ranks_size(),
           "), found ", digest_.rank_rows_size());
      return;
    }
    int64_t slots = 0;
    for (int i = 0; i < digest_.ranks_size(); ++i) {
      const v1::DigestRank& row = digest_.rank_rows(i);
      if (i > 0 && digest_.ranks(i) == digest_.ranks(i - 1)) {
        Fail("rank ", digest_.ranks(i), " is given twice (workers ",
             base::QuoteBytes(digest_.rank_rows(i - 1).worker_name()), " and ",
             base::QuoteBytes(row.worker_name()), ")");
        return;
      }
      if (i > 0 && digest_.ranks(i) < digest_.ranks(i - 1)) {
        Fail("ranks: expected ascending, found ", digest_.ranks(i), " after ",
             digest_.ranks(i - 1));
        return;
      }
      if (row.rank() != digest_.ranks(i)) {
        Fail("rank_rows[", i, "]: expected rank ", digest_.ranks(i), ", found ",
             row.rank());
        return;
      }
      if (row.steps() < 0) {
        Fail("rank_rows[", i, "] (rank ", row.rank(),
             "): steps: expected >= 0, found ", row.steps());
        return;
      }
      slots += std::max(row.steps(), 1);
    }
    if (digest_.slots() != slots) {
      Fail("slots: expected ", slots,
           " (the rank rows' kept steps, at least 1 each), found ",
           digest_.slots());
    }
  }

  // `metrics` has `expected` entries (or, where `empty_allowed`, none), none
  // with a sample count below 0.
  void CheckMetrics(const Metrics& metrics, int expected,
                    const std::string& where, bool empty_allowed = false) {
    if (!problem_.empty()) return;
    if (metrics.size() != expected && !(empty_allowed && metrics.empty())) {
      Fail(where, ": expected ", expected, " metrics",
           empty_allowed ? " or none" : "", ", found ", metrics.size());
      return;
    }
    for (int m = 0; m < metrics.size(); ++m) {
      if (metrics[m].samples().count() < 0) {
        Fail(where, " metric ", m, ": sample count ",
             metrics[m].samples().count(), " below 0");
        return;
      }
    }
  }

  void CheckOverview() {
    CheckMetrics(digest_.overview().step_metrics(), kStepMetrics,
                 "overview.step_metrics");
  }

  template <typename Row>
  void CheckRows(const google::protobuf::RepeatedPtrField<Row>& rows,
                 int expected, const std::string& where) {
    for (int i = 0; i < rows.size() && problem_.empty(); ++i) {
      CheckMetrics(
          rows[i].metrics(), expected,
          base::StrCat(where, "[", i, "] ", base::QuoteBytes(rows[i].name())));
    }
  }

  void CheckTables() {
    CheckRows(digest_.operators(), kOperatorMetrics, "operators");
    CheckRows(digest_.kernels(), kKernelMetrics, "kernels");
    CheckRows(digest_.memory().operators(), kMemoryMetrics, "memory.operators");
    CheckRows(digest_.memory().modules(), kMemoryMetrics, "memory.modules");
  }

  // Iterative: a tree's depth is the store's, not the stack's, concern.
  void CheckModules() {
    std::vector<std::pair<const v1::DigestModuleNode*, std::string>> stack = {
        {&digest_.modules(), "modules"}};
    while (!stack.empty() && problem_.empty()) {
      auto [node, path] = std::move(stack.back());
      stack.pop_back();
      CheckMetrics(node->metrics(), kModuleMetrics, path);
      CheckMetrics(node->unknown(), kModuleMetrics, path + " (unknown)",
                   /*empty_allowed=*/true);
      CheckRows(node->operators(), kOperatorMetrics, path + " operators");
      CheckRows(node->kernels(), kKernelMetrics, path + " kernels");
      for (int i = 0; i < node->children_size(); ++i) {
        stack.emplace_back(
            &node->children(i),
            base::StrCat(path, "/", i, " ",
                         base::QuoteBytes(node->children(i).name())));
      }
    }
  }

  void CheckCommunication() {
    const v1::DigestCommunication& c = digest_.communication();
    if (c.rank_count() < 0 || c.slots() < 0) {
      Fail("communication: rank_count ", c.rank_count(), " and slots ",
           c.slots(), ": expected >= 0");
      return;
    }
    for (const auto& [rows, where] :
         {std::pair{&c.collectives(), "communication.collectives"},
          std::pair{&c.by_collective(), "communication.by_collective"}}) {
      for (int i = 0; i < rows->size() && problem_.empty(); ++i) {
        const v1::DigestCollectiveRow& row = (*rows)[i];
        CheckMetrics(row.metrics(), kCollectiveMetrics,
                     base::StrCat(where, "[", i, "] ",
                                  base::QuoteBytes(row.collective())));
      }
    }
  }

  const v1::RunDigest& digest_;
  std::string problem_;
};

}  // namespace

absl::Status ValidateRunDigest(const v1::RunDigest& digest) {
  return Checker(digest).Check();
}

}  // namespace profdiff::analysis
