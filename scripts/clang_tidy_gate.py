#!/usr/bin/env python3
"""The clang-tidy gate: .clang-tidy's checks on every translation unit whose inputs changed.

clang-tidy-14 takes about 14 s of CPU per translation unit here (its matchers walk every header
the unit includes), so the whole tree is ~100 CPU-minutes: more than a CI run on two cores can
spend. What clang-tidy says of a unit depends only on what it reads, so the gate keeps a record,
`.clang-tidy-clean`: for each unit that was checked and found clean, a hash of its inputs. Its
inputs are the clang-tidy version, `.clang-tidy`, and every project file the unit reads (its
source and, as ninja's dependency log lists them, the project and generated headers it
includes). A unit is checked again unless the record holds exactly its current hash; one with
findings is left out of the record, so it is checked until it is clean. System headers are not
hashed (a Debian upgrade of a library is not a change of ours), nor are compile flags: after a
change of flags in CMake that could change a finding, run with --all.

  clang_tidy_gate.py --build DIR [--all] [--record] [--jobs N] [--list] [--log FILE]
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

RECORD_NAME = ".clang-tidy-clean"
TIDY = "clang-tidy-14"
# The folders whose translation units are ours (not generated protobuf code).
OUR_FOLDERS = ("agent", "aggregator", "analysis", "base", "bench", "client", "differ", "report",
               "rpc", "tests", "trace")
RECORD_HEADER = """\
# Written by scripts/clang_tidy_gate.py --record (scripts/lint.sh tidy --record): each translation
# unit clang-tidy-14 found clean, with a sha256 of its inputs (the clang-tidy version, .clang-tidy,
# and every project file it reads). `scripts/lint.sh tidy` checks every unit whose hash is not
# here.
"""


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tool_version():
    out = subprocess.run([TIDY, "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"version (\S+)", out)
    return match.group(1) if match else out.strip().replace("\n", " ")


def output_of(command):
    """The object file a compile command writes (its -o argument)."""
    words = shlex.split(command)
    return words[words.index("-o") + 1]


def our_units(root, compile_db):
    """The compile database's entries for our sources: {output (relative to build): source}."""
    pattern = re.compile("^" + re.escape(root) + "/(" + "|".join(OUR_FOLDERS) + ")/")
    units = {}
    for entry in compile_db:
        source = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if pattern.match(source):
            units[entry.get("output") or output_of(entry["command"])] = source
    return units


def parse_ninja_deps(text):
    """`ninja -t deps` output -> {target: [dependency paths]}."""
    deps = {}
    target = None
    for line in text.splitlines():
        if not line.strip():
            target = None
        elif not line.startswith(" "):
            target = line.split(": #deps", 1)[0]
            deps[target] = []
        elif target is not None:
            deps[target].append(line.strip())
    return deps


def input_name(path, root, build):
    """The name an input is hashed under, or None for a file outside the project (a system
    header). A build-folder file (generated protobuf headers, precompiled-header lists) is
    build/<its path there>, so a hash holds for a build folder anywhere."""
    path = os.path.normpath(path)
    if path == build or path.startswith(build + os.sep):
        return "build/" + os.path.relpath(path, build)
    if path.startswith(root + os.sep):
        return os.path.relpath(path, root)
    return None


def unit_inputs(units, deps, root, build):
    """{unit name: {input name: absolute path}}; a unit missing from the dependency log (not
    built) maps to None. A source compiled into two targets is one unit (clang-tidy checks it
    with the first compile command)."""
    inputs = {}
    for output, source in units.items():
        name = input_name(source, root, build)
        listed = deps.get(output)
        if listed is None:
            inputs.setdefault(name, None)
            continue
        files = {}
        for dep in listed:
            absolute = dep if os.path.isabs(dep) else os.path.join(build, dep)
            key = input_name(absolute, root, build)
            if key is not None:
                files[key] = os.path.normpath(absolute)
        files[name] = source
        if inputs.get(name):
            files.update(inputs[name])
        inputs[name] = files
    return inputs


def unit_hash(files, common, hashes):
    """The hash of one unit's inputs: `common` (tool version, config) and its files' hashes."""
    digest = hashlib.sha256(common.encode())
    for key in sorted(files):
        digest.update(f"\n{key} {hashes[key]}".encode())
    return digest.hexdigest()


def read_record(path):
    """{unit name: hash} from the record; empty when there is none."""
    record = {}
    if not os.path.exists(path):
        return record
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split(" ", 1)
            if len(parts) != 2 or not re.fullmatch(r"[0-9a-f]{64}", parts[0]):
                sys.exit(f"{path}:{number}: expected '<sha256> <unit>', got {line!r}")
            record[parts[1]] = parts[0]
    return record


def write_record(path, clean):
    with open(path + ".tmp", "w") as f:
        f.write(RECORD_HEADER)
        for unit in sorted(clean):
            f.write(f"{clean[unit]} {unit}\n")
    os.replace(path + ".tmp", path)


def run_tidy(source, build):
    """clang-tidy on one unit: (exit code, output)."""
    done = subprocess.run([TIDY, "-p", build, "--quiet", source], capture_output=True, text=True)
    # clang-tidy counts the warnings it suppressed (system headers) in a line of its own.
    output = "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                       if not re.match(r"^\d+ warnings? (and \d+ errors? )?generated\.$", line))
    return done.returncode, output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, help="the build folder (compile database, ninja)")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--all", action="store_true", help="check every unit, whatever the record")
    parser.add_argument("--record", action="store_true",
                        help="write the record: the units found clean, now and before")
    parser.add_argument("--list", action="store_true", help="print the units it would check, only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--log", help="also write every unit's output here")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    build = os.path.realpath(args.build)
    record_path = os.path.join(root, RECORD_NAME)

    db_path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db_path):
        sys.exit(f"clang-tidy gate: {db_path} is missing: configure and build first")
    with open(db_path) as f:
        units = our_units(root, json.load(f))
    deps_text = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True,
                               text=True, check=True).stdout
    inputs = unit_inputs(units, parse_ninja_deps(deps_text), root, build)
    hashes = {}
    for files in inputs.values():
        for key, path in (files or {}).items():
            if key not in hashes:
                hashes[key] = file_hash(path)
    common = f"{TIDY} {tool_version()}\n.clang-tidy {file_hash(os.path.join(root, '.clang-tidy'))}"
    # A unit not built has no dependency list, so no hash: it is always checked, never recorded.
    current = {unit: unit_hash(files, common, hashes) if files is not None else None
               for unit, files in inputs.items()}

    record = read_record(record_path)
    selected = sorted(unit for unit, h in current.items()
                      if args.all or h is None or record.get(unit) != h)
    if args.list:
        for unit in selected:
            print(unit)
        return 0
    print(f"clang-tidy gate: {TIDY} on {len(selected)} of {len(current)} translation units "
          f"({'--all' if args.all else f'the rest are unchanged since found clean, {RECORD_NAME}'})",
          file=sys.stderr)

    failed = []
    # What the record will hold: the units still clean from before, and each unit found clean
    # now. With --record it is written as units finish, so an interrupted run keeps its work.
    clean = {unit: h for unit, h in current.items() if h is not None and record.get(unit) == h}
    log = open(args.log, "w") if args.log else None
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = pool.map(lambda unit: run_tidy(os.path.join(root, unit), build), selected)
        for unit, (code, output) in zip(selected, results):
            if log:
                log.write(f"== {unit} (exit {code})\n{output}\n")
                log.flush()
            if code != 0:
                failed.append(unit)
                clean.pop(unit, None)
                print(output, file=sys.stderr)
            elif current[unit] is not None:
                clean[unit] = current[unit]
            if args.record:
                write_record(record_path, clean)
    if log:
        log.close()
    if args.record:
        write_record(record_path, clean)
        print(f"clang-tidy gate: {len(clean)} clean units in {record_path}", file=sys.stderr)
    if failed:
        print(f"clang-tidy gate: findings in {len(failed)} of {len(selected)} units "
              f"(.clang-tidy's checks; whole output above):", file=sys.stderr)
        for unit in failed:
            print(f"  {unit}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
