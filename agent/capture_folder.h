// Where one process writes its trace of an on-demand capture: a folder of its
// own below LOGDIR/profdiff-captures/<run>/ that no other user can write to or
// find.
//
// Design:
// 1. LOGDIR/profdiff-captures/ and each <run>/ below it are the agent's, mode
//    0711: nobody else may create a file there, nor list what is there. One
//    that is not a real folder owned by the agent (a link, another user's) is
//    refused, never used: the log dir is often writable by every trainer.
// 2. Each armed process gets <run>/<host pid>-<16 random hex digits>/: given
//    to the process's user when the agent may (root with CAP_CHOWN), mode
//    0700; else mode 0700 when the process runs as the agent's user; else
//    mode 1733, which lets the process create its file, lets nobody list the
//    folder, and lets nobody replace another's file. The random part keeps
//    other users from guessing the path; ArmedCaptures uploads only the file
//    the process was told to write, owned by its uid.
#ifndef PROFDIFF_AGENT_CAPTURE_FOLDER_H_
#define PROFDIFF_AGENT_CAPTURE_FOLDER_H_

#include <string>
#include <string_view>

#include <absl/status/statusor.h>

#include "agent/peer_process.h"

namespace profdiff::agent {

// Makes (design notes 1 and 2) the folder process `process` writes its trace
// of `run` to, below `logdir` (absolute), and returns its absolute path.
// FailedPrecondition naming the folder when a shared one is not a real folder
// owned by the agent; the errno's code naming the folder when one cannot be
// made or its mode set.
absl::StatusOr<std::string> MakeProcessCaptureFolder(
    std::string_view logdir, std::string_view run,
    const VerifiedProcess& process);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CAPTURE_FOLDER_H_
