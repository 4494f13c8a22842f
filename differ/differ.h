// The differ: two runs in, a DiffReport out (overview, aligned module tree,
// operator, kernel, memory and communication diffs with noise, per-rank
// steps, findings, or HTA's compare). It reads each run reduced over its
// workers (v1::RunDigest, analysis/run_digest.h): the CLI reduces the
// profiles it read, the Differ service gets digests from the store, and both
// diff them with the same code. It does no I/O.
#ifndef PROFDIFF_DIFFER_DIFFER_H_
#define PROFDIFF_DIFFER_DIFFER_H_

#include <string_view>

#include <absl/status/statusor.h>

#include "analysis/deferred_node_tables.h"
#include "analysis/module_node_tables.h"
#include "analysis/run_digest.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

// InvalidArgument for options that cannot apply (no such rank, step, sort
// column, bad regex); NotFound for a --path that names no node. `deferred`
// (both or neither): the module-node tables of the workers whose profiles
// were built without them (analysis/deferred_node_tables.h); it cannot serve
// options.node_tables or --compare hta (FailedPrecondition).
absl::StatusOr<v1::DiffReport> DiffRuns(
    const v1::RunProfile& baseline, const v1::RunProfile& experimental,
    const v1::DiffOptions& options,
    const analysis::DeferredRunTables* const deferred[2] = nullptr);

// The same of two digests of the ranks `options` names (all when none).
// InvalidArgument for HTA mode, which reads the profiles' steps (DiffRuns),
// and for a digest the diff cannot read (analysis/run_digest_check.h: a
// damaged one), naming the side, the run and what is wrong.
absl::StatusOr<v1::DiffReport> DiffDigests(const v1::RunDigest& baseline,
                                           const v1::RunDigest& experimental,
                                           const v1::DiffOptions& options);

// DiffDigests of digests known to be whole: made here from profiles
// (DigestForDiff), or checked by ValidateRunDigest. `node_tables` (both or
// neither) reduce the module nodes' rows of digests made without them
// (analysis::DigestOptions).
absl::StatusOr<v1::DiffReport> DiffCheckedDigests(
    const v1::RunDigest& baseline, const v1::RunDigest& experimental,
    const v1::DiffOptions& options,
    const analysis::ModuleNodeTables* const node_tables[2] = nullptr);

// The digest of `run`'s workers that `options` names, for the side `label`
// ("baseline", "experimental"); InvalidArgument naming the side when it has
// none of them.
absl::StatusOr<v1::RunDigest> DigestForDiff(
    const v1::RunProfile& run, const v1::DiffOptions& options,
    std::string_view label, analysis::DigestOptions digest = {});

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_DIFFER_H_
