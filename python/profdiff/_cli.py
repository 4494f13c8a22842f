"""Running the `profdiff` binary: offline diffs and profiles of trace paths, and HTML reports."""
import os
import shutil
import subprocess

from ._errors import ProfdiffError


def find_binary():
    """The profdiff CLI: $PROFDIFF_BIN, else `profdiff` on PATH."""
    named = os.environ.get("PROFDIFF_BIN")
    if named:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise ProfdiffError(f"PROFDIFF_BIN={named}: no such executable file")
    found = shutil.which("profdiff")
    if found:
        return found
    raise ProfdiffError("the profdiff binary was not found: set PROFDIFF_BIN to it (a build "
                        "tree's build/client/profdiff) or put it on PATH")


def run(args, *, timeout=None):
    """Runs `profdiff ARGS...` and returns its standard output; a failure raises ProfdiffError
    with the command, exit status and the CLI's own message."""
    command = [find_binary(), *args]
    try:
        # COLUMNS: the CLI fits tables to it; nothing here is a table, but a stray terminal
        # width must not change what is printed.
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "COLUMNS": "120"})
    except subprocess.TimeoutExpired as error:
        raise ProfdiffError(f"`{_shown(command)}` did not finish within {timeout} s",
                            command=command) from error
    except OSError as error:
        raise ProfdiffError(f"cannot run {command[0]}: {error}", command=command) from error
    if done.returncode != 0:
        stderr = done.stderr.strip()
        raise ProfdiffError(
            f"`{_shown(command)}` exited {done.returncode}: {stderr or '(no message)'}",
            command=command, returncode=done.returncode, stderr=done.stderr)
    return done.stdout


def _shown(command):
    return " ".join(["profdiff", *command[1:]])
