#!/usr/bin/env python3
"""Links a binary against the static archives of its third-party libraries.

Used as the profdiff CLI's CXX_LINKER_LAUNCHER (client/CMakeLists.txt): a
one-shot command pays for every shared library at start-up, and the CLI's 60
(gRPC, OpenSSL, protobuf, ~40 of Abseil) took 40 ms of a 160 ms diff to map and
relocate on this project's 2-core VMs; linked from their archives, 19 ms.

  static_link_launcher.py NAME... -- LINKER ARG...

Each ARG that is a system shared library (lib<name>.so[.N]) with a lib<name>.a
beside it, or a -l<name> whose archive lies beside those, is replaced by that
archive, except the libraries that must stay shared (the C and C++ runtimes,
and jemalloc, which must stay the process's malloc). The NAMEs are the
libraries those archives need in turn (pkg-config --static); the archives and
theirs go last, in one --start-group, so their order does not matter. Anything
with no archive stays as it was.
"""
import os
import re
import sys

STAY_SHARED = {"c", "m", "dl", "rt", "pthread", "atomic", "stdc++", "gcc_s",
               "jemalloc"}
SHARED = re.compile(r"^lib(?P<name>.+?)\.so(\.\d+)*$")


def archive_for(path):
    match = SHARED.match(os.path.basename(path))
    if not os.path.isabs(path) or match is None:
        return None
    if match.group("name") in STAY_SHARED:
        return None
    archive = os.path.join(os.path.dirname(path),
                           "lib%s.a" % match.group("name"))
    return archive if os.path.exists(archive) else None


def archive_for_flag(arg, folders):
    """The archive for a -l<name> flag, looked up in `folders`, or None."""
    if not arg.startswith("-l"):
        return None
    for folder in folders:
        archive = archive_for(os.path.join(folder, "lib%s.so" % arg[2:]))
        if archive is not None:
            return archive
    return None


def static_command(needed, command):
    """The link `command` with its libraries' archives in their place."""
    kept, archives, folders = [], [], []
    # A library named by -l (the CLI's own use of re2) is looked up where the
    # paths named found theirs: left as it is, it would link shared.
    lib_folders = sorted({os.path.dirname(arg) for arg in command
                          if archive_for(arg) is not None})
    for arg in command:
        archive = archive_for(arg) or archive_for_flag(arg, lib_folders)
        if archive is None:
            kept.append(arg)
            continue
        if archive not in archives:
            archives.append(archive)
        if os.path.dirname(archive) not in folders:
            folders.append(os.path.dirname(archive))
    if archives:
        for name in needed:
            if name in STAY_SHARED:
                continue
            found = [os.path.join(f, "lib%s.a" % name) for f in folders
                     if os.path.exists(os.path.join(f, "lib%s.a" % name))]
            if found and found[0] not in archives:
                archives.append(found[0])
            elif not found:
                kept.append("-l" + name)
        kept += ["-Wl,--start-group"] + archives + ["-Wl,--end-group"]
    return kept


def main(argv):
    if "--" not in argv:
        sys.exit("usage: static_link_launcher.py NAME... -- LINKER ARG...")
    split = argv.index("--")
    command = static_command(argv[:split], argv[split + 1:])
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
