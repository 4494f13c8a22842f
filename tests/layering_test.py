"""Fails when a dependency points up the ALLOWED table: an include, an include cycle, or a link.

Usage: layering_test.py SOURCE_DIR [LINK_GRAPH] (the file cmake/ProfdiffLinkGraph.cmake writes).
"""
import os
import re
import sys

# unit -> units it may use (besides itself). A unit is a folder, or a
# subfolder with rules of its own: the store contract sits above its backends, and only the
# server assembly (aggregator/) knows both backends.
ALLOWED = {
    "base": set(),
    "rpc": {"base"},
    "trace": {"base"},
    "analysis": {"base", "trace"},
    "differ": {"base", "rpc", "trace", "analysis"},
    "agent": {"base", "rpc", "trace"},
    "aggregator/store": {"base", "rpc", "trace", "analysis"},
    "aggregator/local": {"base", "rpc", "trace", "analysis", "aggregator/store"},
    "aggregator/clickhouse": {"base", "rpc", "trace", "analysis", "aggregator/store"},
    "aggregator": {"base", "rpc", "trace", "analysis", "aggregator/store", "aggregator/local",
                   "aggregator/clickhouse"},
    "report": {"base", "trace", "analysis", "differ"},
    # The differ's servers: its web UI, and the service assembly that serves both.
    "differ/web": {"base", "rpc", "trace", "analysis", "differ", "report"},
    "differ/service": {"base", "rpc", "trace", "analysis", "differ", "report", "differ/web"},
    "client": {"base", "rpc", "trace", "analysis", "differ", "report"},
}
SUBUNITS = {"aggregator/store", "aggregator/local", "aggregator/clickhouse", "differ/web",
            "differ/service"}

# CMake library -> unit. Libraries not listed (protos, third-party) are below every unit.
LIBRARIES = {
    "profdiff_base": "base",
    "profdiff_rpc": "rpc",
    "profdiff_trace": "trace",
    "profdiff_analysis": "analysis",
    "profdiff_differ": "differ",
    "profdiff_differ_service": "differ/service",
    "profdiff_differ_web": "differ/web",
    "profdiff_agent": "agent",
    "profdiff_cupti_capture": "agent",
    "profdiff_cupti": "agent",
    "profdiff_aggregator_store": "aggregator/store",
    "profdiff_aggregator_local": "aggregator/local",
    "profdiff_aggregator_clickhouse": "aggregator/clickhouse",
    "profdiff_aggregator": "aggregator",
    "profdiff_report": "report",
    "profdiff_client": "client",
}
# A unit's test binary links that unit and what the unit may use, nothing above it.
UNIT_TESTS = {
    "base_test": "base",
    "trace_test": "trace",
    "analysis_test": "analysis",
    "differ_test": "differ",
    "agent_test": "agent",
    "aggregator_test": "aggregator",
    "client_test": "client",
}
# Tests whose subject is several units working together: their unit, and the units above it
# they may link too, with why.
CROSS_UNIT_TESTS = {
    "cupti_test": ("agent", {"analysis"}),  # captured records must analyse as a Kineto file's do
    "stored_run_readers_test": ("aggregator", {"client", "differ"}),  # the CLI and differ read runs
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+(?:/[a-z_]+)*\.h)"')
# unit -> system headers it may not include, with why.
FORBIDDEN_SYSTEM = {
    # The local store reaches files, folders and the clock only through base::Env (base/env.h), so
    # its crash and disk-full tests can run on the fault-injecting Env.
    "aggregator/local": {"filesystem", "fstream", "fcntl.h", "unistd.h", "dirent.h", "sys/stat.h",
                         "sys/file.h", "cstdio"},
}
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')


def unit_of(path):
    """The unit a repository-relative source path belongs to, or None."""
    parts = path.split("/")
    if len(parts) >= 3 and "/".join(parts[:2]) in SUBUNITS:
        return "/".join(parts[:2])
    return parts[0] if parts[0] in ALLOWED else None


def sources(root):
    for folder in ALLOWED:
        if "/" in folder:
            continue
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if name.endswith((".h", ".cc")):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def check_includes(root):
    """Upward includes, and the include graph among project files for the cycle check."""
    errors, graph = [], {}
    for path in sources(root):
        unit = unit_of(path)
        graph[path] = []
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                system = SYSTEM_INCLUDE.match(line)
                if system and system.group(1) in FORBIDDEN_SYSTEM.get(unit, ()):
                    errors.append(f"{path}:{number}: {unit}/ may not include <{system.group(1)}>"
                                  " (files go through base::Env)")
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                graph[path].append(target)
                target_unit = unit_of(target)
                if target_unit is None or target_unit == unit:
                    continue
                if target_unit not in ALLOWED[unit]:
                    errors.append(f"{path}:{number}: {unit}/ may not include {target} ({target_unit}/)")
    return errors, graph


def check_cycles(graph):
    errors, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, []):
            if nxt not in graph:
                continue
            if state.get(nxt) == "open":
                cycle = stack[stack.index(nxt):] + [nxt]
                errors.append("include cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return errors


def check_links(link_graph):
    errors = []
    with open(link_graph, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            target, deps = words[0], [d.replace("profdiff::", "profdiff_") for d in words[1:]]
            if target in LIBRARIES:
                unit, extra = LIBRARIES[target], set()
            elif target in UNIT_TESTS:
                unit, extra = UNIT_TESTS[target], set()
            elif target in CROSS_UNIT_TESTS:
                unit, extra = CROSS_UNIT_TESTS[target]
            else:
                continue
            for dep in deps:
                dep_unit = LIBRARIES.get(dep)
                if dep_unit is None or dep_unit == unit or dep_unit in extra or dep_unit in ALLOWED[unit]:
                    continue
                errors.append(f"{link_graph}: {target} ({unit}) may not link {dep} ({dep_unit}/)")
    return errors


def main(root, link_graph):
    errors, graph = check_includes(root)
    errors += check_cycles(graph)
    if link_graph:
        errors += check_links(link_graph)
    for e in errors:
        print(e)
    print(f"{0 if errors else 1} passed, {1 if errors else 0} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None))
