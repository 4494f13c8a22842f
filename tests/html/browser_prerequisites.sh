# Sourced by the browser tests' scripts (NODE_MODULES_DIR in $node_modules): skip() exits 77 with
# why, and the test is skipped unless traces, Debian's chromium, node and playwright-core are here.
skip() { echo "SKIPPED: $*"; exit 77; }
traces="${PROFDIFF_TRACES:-}"
[ -n "$traces" ] || skip "PROFDIFF_TRACES is not set"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "no ${CHROMIUM:-/usr/bin/chromium} (scripts/install_deps.sh installs Debian's chromium)"
command -v node >/dev/null || skip "no node (scripts/install_deps.sh installs Debian's nodejs)"
[ -d "$node_modules/playwright-core" ] ||
  skip "playwright-core is not under $node_modules (scripts/build.sh runs npm ci there; was the npm registry reachable?)"
