// Asks a profdiff-differ for the diff of two stored runs (`profdiff diff RUN_A
// RUN_B`).
#ifndef PROFDIFF_CLIENT_DIFFER_CLIENT_H_
#define PROFDIFF_CLIENT_DIFFER_CLIENT_H_

#include <string>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/differ.pb.h"
#include "rpc/credentials.h"

namespace profdiff::client {

// The call has a deadline of `timeout`. Errors are the differ's (NOT_FOUND
// naming an unknown run; UNAVAILABLE when nothing answers) with "server ADDR: "
// in front.
absl::StatusOr<v1::DiffReport> DiffOnServer(
    const std::string& address, const rpc::ChannelSecurity& security,
    const v1::DiffRequest& request, absl::Duration timeout);

// DiffMany on the differ at `address`; errors are annotated with the address.
absl::StatusOr<v1::MultiDiffReport> DiffManyOnServer(
    const std::string& address, const rpc::ChannelSecurity& security,
    const v1::DiffManyRequest& request, absl::Duration timeout);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFFER_CLIENT_H_
