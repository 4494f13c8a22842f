#!/usr/bin/env bash
# Runs the profdiff Python package's pytest tests (tests/python) as ctest does:
#   run_pytest.sh BUILD_DIR [PYTEST ARGS...]
# Makes ${BUILD_DIR}/python-venv from Debian's /usr/bin/python3 (--system-site-packages: grpcio,
# protobuf, pandas, pytest and torch are Debian packages), installs ./python into it offline
# when its sources or protos/ changed, and runs pytest with the build's binaries.
# Exits 77 (ctest: skipped) with "SKIPPED: ..." when a prerequisite is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:?usage: run_pytest.sh BUILD_DIR [PYTEST ARGS...]}" && pwd)"
shift
python=/usr/bin/python3
venv="$build/python-venv"

skip() {
  echo "SKIPPED: $*"
  exit 77
}
[ -x "$python" ] || skip "no $python"
# ensurepip is what python3-venv adds; the rest are the package's and the tests' dependencies.
for module in ensurepip:python3-venv pip:python3-pip setuptools:python3-setuptools \
              wheel:python3-wheel grpc:python3-grpcio google.protobuf:python3-protobuf \
              pandas:python3-pandas pytest:python3-pytest; do
  "$python" -c "import ${module%%:*}" 2>/dev/null ||
    skip "$python cannot import ${module%%:*} (apt-get install ${module#*:}; scripts/install_deps.sh)"
done
command -v protoc >/dev/null || skip "no protoc (apt-get install protobuf-compiler)"
command -v grpc_python_plugin >/dev/null ||
  skip "no grpc_python_plugin (apt-get install protobuf-compiler-grpc)"
[ -x "$build/client/profdiff" ] || skip "not built: $build/client/profdiff"

# One install at a time: ctest runs the unit and e2e halves in parallel, and pip builds in
# ./python's tree.
exec 9>"$build/python-venv.lock"
flock 9
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
# Reinstalled when a source of the package or a proto changed (the stamp is their hash).
stamp="$(cd "$root" && find python protos -type f \( -name '*.py' -o -name '*.proto' -o \
           -name '*.toml' \) -not -path 'python/build/*' -not -path 'python/profdiff/v1/*' \
           -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$venv/.profdiff-stamp" 2>/dev/null)" != "$stamp" ]; then
  "$venv/bin/pip" install --quiet --no-index --no-build-isolation --no-deps --force-reinstall \
    "$root/python"
  echo "$stamp" >"$venv/.profdiff-stamp"
fi
flock -u 9

cd "$root/tests/python"
export PROFDIFF_BIN="$build/client/profdiff" PROFDIFF_BUILD_DIR="$build"
export PROFDIFF_TRACES="${PROFDIFF_TRACES:-$root/../shared/traces}"
export PYTHONDONTWRITEBYTECODE=1  # nothing written into the source tree
exec "$venv/bin/python" -m pytest -q "$@"
