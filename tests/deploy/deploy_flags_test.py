#!/usr/bin/env python3
"""Every flag the deployment files pass to a profdiff binary exists in that binary.

Reads the command lines the way each runtime builds them, then checks each `--flag` against the
flags the binary's --help lists ('-' and '_' are the same):
  1. deploy/k8s: every YAML document; each container's command + args with $(VAR) expanded as the
     kubelet does (one argument stays one argument) from its env, envFrom and the ConfigMaps in
     deploy/k8s; kustomization.yaml must list every manifest.
  2. deploy/systemd: each unit's Exec*= lines with $VAR (split at whitespace) and ${VAR} (one
     argument) expanded as systemd does, from Environment= and the EnvironmentFile= shipped in
     deploy/systemd (matched by file name).
  3. deploy/local/profdiff-local: the exact commands `start --print-commands` prints.
A failure names the file, the binary and the flag; a command that runs a binary the test does not
know, an undefined variable, or a source with no command at all fails too.

Usage: deploy_flags_test.py --agent BIN --aggregator BIN --differ BIN [--deploy-dir DIR]
Standard library plus PyYAML (Debian: python3-yaml).
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

BINARIES = ("profdiff-agent", "profdiff-aggregator", "profdiff-differ")
# Flags whose value is HOST:PORT of another service (checked against the k8s Services).
ADDRESS_FLAGS = {"aggregator", "store"}
HELP_TIMEOUT_S = 60
# A flag as --help lists it: indented, then --name (base::FlagSet's usage: "  --settle D";
# Abseil's, which the servers used before: "    --data_dir (...").
HELP_FLAG_LINE = re.compile(r"^\s+--([A-Za-z0-9][A-Za-z0-9_-]*)")
K8S_POD_SPEC_PATHS = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
SYSTEMD_EXEC_KEYS = ("ExecStartPre", "ExecStart", "ExecStartPost", "ExecReload", "ExecStop",
                     "ExecStopPost")
SYSTEMD_VAR_WORD = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_]*)$")
SYSTEMD_VAR_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def normalise(flag):
    return flag.replace("-", "_")


class Command:
    """One command line found in a deployment file."""

    def __init__(self, source, where, argv):
        self.source = source  # the file, relative to the repository
        self.where = where    # what in the file: "DaemonSet/profdiff-agent container agent"
        self.argv = argv

    def label(self):
        return f"{self.source}: {self.where}"


class Problems:
    def __init__(self):
        self.items = []

    def add(self, message):
        self.items.append(message)


# --- binaries -----------------------------------------------------------------------------------

def help_flags(path, *pre_args):
    """The flags `path [pre_args] --help` lists, normalised."""
    result = subprocess.run([path, *pre_args, "--help"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=HELP_TIMEOUT_S, check=False)
    flags = set()
    for line in (result.stdout + result.stderr).splitlines():
        match = HELP_FLAG_LINE.match(line)
        if match:
            flags.add(normalise(match.group(1)))
    return flags


def binary_flags(paths, problems):
    """{binary name: set of flags}; a missing binary or one whose --help lists nothing fails."""
    known = {}
    for name, path in paths.items():
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            problems.add(f"{name}: no executable at {path} (build the {name} target)")
            continue
        flags = help_flags(path)
        if name == "profdiff-agent":
            flags |= help_flags(path, "upload")
        if not flags:
            problems.add(f"{name}: `{path} --help` listed no flags (expected lines like '  --name')")
            continue
        known[name] = flags
    return known


def check_command(command, known, problems):
    """Checks every --flag of command against its binary; returns how many flags it checked."""
    if not command.argv:
        problems.add(f"{command.label()}: empty command")
        return 0
    binary = os.path.basename(command.argv[0])
    if binary not in BINARIES:
        problems.add(f"{command.label()}: runs '{command.argv[0]}', not a binary this test knows "
                     f"({', '.join(BINARIES)})")
        return 0
    if binary not in known:
        return 0  # already reported: the binary is missing
    args = command.argv[1:]
    if binary == "profdiff-agent" and args[:1] == ["upload"]:
        args = args[1:]
    checked = 0
    for arg in args:
        if arg == "--":
            break
        if re.search(r"(^|\s)--\S", arg) and re.search(r"\s", arg.strip()):
            # The kubelet never splits $(VAR), systemd splits only a whole-word $VAR.
            problems.add(f"{command.label()}: {binary}: one argument holds several words: "
                         f"'{arg}' (one flag or value per argument)")
            continue
        if arg.startswith("--"):
            name = arg[2:].split("=", 1)[0]
            checked += 1
            if normalise(name) not in known[binary]:
                problems.add(f"{command.label()}: {binary} has no flag --{name} "
                             f"(its --help lists: {', '.join(sorted(known[binary]))})")
        elif arg.startswith("-") and len(arg) > 1 and not re.match(r"^-\d", arg):
            problems.add(f"{command.label()}: {binary}: '{arg}': profdiff binaries take "
                         "--long flags only")
    return checked


def flag_values(argv):
    """{normalised flag: value} for `--flag value` and `--flag=value`."""
    values = {}
    for i, arg in enumerate(argv):
        if not arg.startswith("--") or arg == "--":
            continue
        name, eq, value = arg[2:].partition("=")
        if eq:
            values[normalise(name)] = value
        elif i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            values[normalise(name)] = argv[i + 1]
    return values


# --- Kubernetes ---------------------------------------------------------------------------------

def expand_k8s(text, env):
    """$(VAR) as the kubelet expands it: defined -> value, undefined -> left as is, $$ -> $.
    Returns (expanded, undefined variable names)."""
    out, undefined, i = [], [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("$(", i) and ")" in text[i + 2:]:
            end = text.index(")", i + 2)
            name = text[i + 2:end]
            if name in env:
                out.append(env[name])
            else:
                out.append(text[i:end + 1])
                undefined.append(name)
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out), undefined


def dig(document, path):
    node = document
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def container_env(container, config_maps, where, problems):
    """The container's environment as the kubelet builds it: envFrom, then env in order."""
    env = {}
    for source in container.get("envFrom") or []:
        ref = source.get("configMapRef")
        if ref is None:
            continue  # secretRef: values unknown here, and never flags of ours
        data = config_maps.get(ref.get("name"))
        if data is None:
            if not ref.get("optional"):
                problems.add(f"{where}: envFrom names ConfigMap '{ref.get('name')}', "
                             "which no manifest defines")
            continue
        prefix = source.get("prefix", "")
        env.update({prefix + key: str(value) for key, value in data.items()})
    for item in container.get("env") or []:
        name = item.get("name")
        if "value" in item:
            value, _ = expand_k8s(str(item["value"]), env)
        elif "valueFrom" in item:
            value_from = item["valueFrom"]
            if "configMapKeyRef" in value_from:
                ref = value_from["configMapKeyRef"]
                data = config_maps.get(ref.get("name"))
                if data is None or ref.get("key") not in data:
                    if not ref.get("optional"):
                        problems.add(f"{where}: env {name}: ConfigMap '{ref.get('name')}' key "
                                     f"'{ref.get('key')}' is not defined in any manifest")
                    continue
                value = str(data[ref["key"]])
            elif "fieldRef" in value_from:
                value = f"<{value_from['fieldRef'].get('fieldPath')}>"
            else:
                value = f"<{name}>"  # secretKeyRef, resourceFieldRef: known only at run time
        else:
            value = ""
        env[name] = value
    return env


def k8s_commands(k8s_dir, repo, problems):
    """The command lines of every container in deploy/k8s, and the Services' ports."""
    documents = []  # (file, document)
    manifest_files = []
    for root, _, files in os.walk(k8s_dir):
        for file in sorted(files):
            if not file.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(root, file)
            rel = os.path.relpath(path, repo)
            try:
                with open(path, encoding="utf-8") as f:
                    loaded = [d for d in yaml.safe_load_all(f) if d is not None]
            except yaml.YAMLError as error:
                problems.add(f"{rel}: not valid YAML: {error}")
                continue
            if file in ("kustomization.yaml", "kustomization.yml"):
                check_kustomization(path, rel, loaded, problems)
                continue
            manifest_files.append(path)
            documents.extend((rel, d) for d in loaded)
    if not manifest_files:
        problems.add(f"{os.path.relpath(k8s_dir, repo)}: no manifests")

    config_maps = {d["metadata"]["name"]: d.get("data") or {} for _, d in documents
                   if d.get("kind") == "ConfigMap"}
    services = {d["metadata"]["name"]: {p.get("port") for p in dig(d, ("spec", "ports")) or []}
                for _, d in documents if d.get("kind") == "Service"}
    commands = []
    for rel, document in documents:
        kind = document.get("kind")
        if kind not in K8S_POD_SPEC_PATHS:
            continue
        pod = dig(document, K8S_POD_SPEC_PATHS[kind]) or {}
        for field in ("initContainers", "containers"):
            for container in pod.get(field) or []:
                where = f"{kind}/{document['metadata']['name']} container {container.get('name')}"
                label = f"{rel}: {where}"
                command = container.get("command")
                if not command:
                    problems.add(f"{label}: no `command`: the test cannot tell which binary the "
                                 "image's entrypoint runs; name it (/usr/local/bin/profdiff-...)")
                    continue
                env = container_env(container, config_maps, label, problems)
                argv = []
                for arg in [*command, *(container.get("args") or [])]:
                    expanded, undefined = expand_k8s(str(arg), env)
                    for name in undefined:
                        problems.add(f"{label}: '$({name})' in '{arg}' is not defined "
                                     "(env, envFrom); the kubelet would pass it literally")
                    argv.append(expanded)
                found = Command(rel, where, argv)
                commands.append(found)
                check_k8s_ports(found, container, services, problems)
    return commands


def check_kustomization(path, rel, documents, problems):
    """Every manifest next to kustomization.yaml is one of its resources, and each exists."""
    folder = os.path.dirname(path)
    listed = set()
    for document in documents:
        for resource in document.get("resources") or []:
            listed.add(resource)
            if not os.path.exists(os.path.join(folder, resource)):
                problems.add(f"{rel}: resource '{resource}' does not exist")
    for file in sorted(os.listdir(folder)):
        if file.endswith((".yaml", ".yml")) and not file.startswith("kustomization.") \
                and file not in listed:
            problems.add(f"{rel}: does not list {file} under resources (apply -k would skip it)")


def check_k8s_ports(command, container, services, problems):
    """--listen's port is a containerPort; an address flag naming a Service uses its port."""
    values = flag_values(command.argv)
    container_ports = {p.get("containerPort") for p in container.get("ports") or []}
    if "listen" in values:
        port = values["listen"].rpartition(":")[2]
        if not port.isdigit() or int(port) not in container_ports:
            problems.add(f"{command.label()}: --listen {values['listen']}: port not among the "
                         f"containerPorts {sorted(p for p in container_ports if p)}")
    for flag in ADDRESS_FLAGS & values.keys():
        host, _, port = values[flag].rpartition(":")
        service = host.split(".")[0]
        if service in services and (not port.isdigit() or int(port) not in services[service]):
            problems.add(f"{command.label()}: --{flag} {values[flag]}: Service '{service}' "
                         f"serves ports {sorted(services[service])}")


# --- systemd ------------------------------------------------------------------------------------

def read_unit(path):
    """[(section, key, value)] of a unit file: comments dropped, backslash continuations joined."""
    entries, section, pending = [], "", ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if pending:
                line = pending + " " + line.lstrip()
                pending = ""
            stripped = line.strip()
            if not stripped or stripped[0] in "#;":
                continue
            if stripped.endswith("\\"):
                pending = stripped[:-1].rstrip()
                continue
            if stripped.startswith("[") and stripped.endswith("]"):
                section = stripped[1:-1]
                continue
            key, eq, value = stripped.partition("=")
            if eq:
                entries.append((section, key.strip(), value.strip()))
    return entries


def read_environment_file(path):
    """KEY=VALUE lines as systemd reads an EnvironmentFile= (quotes removed, comments dropped)."""
    env = {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            key, eq, value = line.partition("=")
            if not eq:
                continue
            value = value.strip()
            if value[:1] in ("'", '"'):
                value = " ".join(shlex.split(value))
            env[key.strip()] = value
    return env


def expand_systemd(words, env, label, problems):
    """systemd's Exec*= expansion: a word that is exactly $VAR becomes the value split at
    whitespace; ${VAR} anywhere becomes the value as is; $$ is a literal $."""
    argv = []
    for word in words:
        whole = SYSTEMD_VAR_WORD.match(word)
        if whole:
            name = whole.group(1)
            if name not in env:
                problems.add(f"{label}: ${name} is not defined (Environment=, EnvironmentFile=)")
                continue
            argv.extend(env[name].split())
            continue

        def braced(match):
            if match.group(1) not in env:
                problems.add(f"{label}: ${{{match.group(1)}}} is not defined "
                             "(Environment=, EnvironmentFile=)")
                return match.group(0)
            return env[match.group(1)]

        expanded = SYSTEMD_VAR_BRACED.sub(braced, word.replace("$$", "\0"))
        if re.search(r"\$[A-Za-z_]", expanded):
            problems.add(f"{label}: '{word}': systemd expands $VAR only as a whole word "
                         "(use ${VAR} inside a word)")
        argv.append(expanded.replace("\0", "$"))
    return argv


def systemd_commands(systemd_dir, repo, problems):
    commands = []
    units = sorted(f for f in os.listdir(systemd_dir) if f.endswith(".service"))
    if not units:
        problems.add(f"{os.path.relpath(systemd_dir, repo)}: no .service units")
    for unit in units:
        path = os.path.join(systemd_dir, unit)
        rel = os.path.relpath(path, repo)
        env = {}
        entries = read_unit(path)
        for section, key, value in entries:
            if section != "Service":
                continue
            if key == "EnvironmentFile":
                optional = value.startswith("-")
                shipped = os.path.join(systemd_dir, os.path.basename(value.lstrip("-")))
                if os.path.isfile(shipped):
                    env.update(read_environment_file(shipped))
                elif not optional:
                    problems.add(f"{rel}: EnvironmentFile={value}: deploy/systemd ships no "
                                 f"{os.path.basename(shipped)}")
            elif key == "Environment":
                for assignment in shlex.split(value):
                    name, _, assigned = assignment.partition("=")
                    env[name] = assigned
        for section, key, value in entries:
            if section != "Service" or key not in SYSTEMD_EXEC_KEYS:
                continue
            label = f"{rel}: {key}"
            words = shlex.split(value.lstrip("@-:+!|"))
            argv = expand_systemd(words, env, label, problems)
            if key != "ExecStart" and os.path.basename(argv[0] if argv else "") not in BINARIES:
                continue  # a helper (kill, mkdir) around the service: not ours to check
            commands.append(Command(rel, key, argv))
    return commands


# --- local launcher -----------------------------------------------------------------------------

def launcher_commands(launcher, paths, repo, problems):
    """The commands `profdiff-local start --print-commands` prints (one per line, shell-quoted)."""
    rel = os.path.relpath(launcher, repo)
    env = dict(os.environ)
    env.pop("PROFDIFF_BIN_DIR", None)
    env["PROFDIFF_AGGREGATOR_BIN"] = paths["profdiff-aggregator"]
    env["PROFDIFF_DIFFER_BIN"] = paths["profdiff-differ"]
    with tempfile.TemporaryDirectory() as data_dir:
        result = subprocess.run(
            [launcher, "start", "--print-commands", "--data-dir", data_dir,
             "--aggregator-port", "0", "--differ-port", "0", "--v", "1"],
            env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=HELP_TIMEOUT_S, check=False)
    if result.returncode != 0:
        problems.add(f"{rel}: start --print-commands exited {result.returncode}: "
                     f"{result.stderr.strip()}")
        return []
    commands = []
    for line in result.stdout.splitlines():
        if line.strip():
            argv = shlex.split(line)
            commands.append(Command(rel, f"start: {os.path.basename(argv[0])}", argv))
    return commands


# --- main ---------------------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--agent", required=True, help="path of profdiff-agent")
    parser.add_argument("--aggregator", required=True, help="path of profdiff-aggregator")
    parser.add_argument("--differ", required=True, help="path of profdiff-differ")
    parser.add_argument("--deploy-dir", default=os.path.join(here, "..", "..", "deploy"),
                        help="the deploy/ folder (default: the one in this repository)")
    args = parser.parse_args()
    deploy = os.path.abspath(args.deploy_dir)
    repo = os.path.dirname(deploy)
    paths = {"profdiff-agent": os.path.abspath(args.agent),
             "profdiff-aggregator": os.path.abspath(args.aggregator),
             "profdiff-differ": os.path.abspath(args.differ)}

    problems = Problems()
    known = binary_flags(paths, problems)
    sources = {
        "k8s": (k8s_commands(os.path.join(deploy, "k8s"), repo, problems), set(BINARIES)),
        "systemd": (systemd_commands(os.path.join(deploy, "systemd"), repo, problems),
                    set(BINARIES)),
        "local": (launcher_commands(os.path.join(deploy, "local", "profdiff-local"), paths, repo,
                                    problems), {"profdiff-aggregator", "profdiff-differ"}),
    }
    summary = []
    for name, (commands, expected) in sources.items():
        flags = sum(check_command(command, known, problems) for command in commands)
        ran = {os.path.basename(c.argv[0]) for c in commands if c.argv}
        # A source whose parsing found nothing would pass vacuously: each must run what it ships.
        for missing in sorted(expected - ran):
            problems.add(f"deploy/{name}: found no command running {missing}")
        summary.append(f"{name}: {len(commands)} commands, {flags} flags")

    if problems.items:
        for message in problems.items:
            print(f"FAILED: {message}", file=sys.stderr)
        print(f"deploy_flags: {len(problems.items)} problem(s) ({'; '.join(summary)})",
              file=sys.stderr)
        return 1
    print(f"deploy_flags: OK ({'; '.join(summary)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
