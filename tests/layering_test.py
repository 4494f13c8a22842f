"""Fails when a folder includes a project header from a folder above it in DESIGN.md's table."""
import os
import re
import sys

# folder -> folders it may include (besides itself); DESIGN.md "Layout".
ALLOWED = {
    "base": set(),
    "rpc": {"base"},
    "trace": {"base"},
    "analysis": {"base", "trace"},
    "differ": {"base", "rpc", "trace", "analysis"},
    "agent": {"base", "rpc", "trace"},
    "aggregator": {"base", "rpc", "trace", "analysis"},
    "client": {"base", "rpc", "trace", "analysis", "differ"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main(root):
    errors = []
    for folder, allowed in ALLOWED.items():
        top = os.path.join(root, folder)
        for dirpath, _, files in os.walk(top):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target in (folder, "profdiff"):  # own folder, generated protos
                            continue
                        if target in ALLOWED and target not in allowed:
                            errors.append(f"{os.path.relpath(path, root)}:{number}: {folder}/ may not include {target}/")
    for e in errors:
        print(e)
    print(f"{0 if errors else 1} passed, {1 if errors else 0} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
