#!/usr/bin/env bash
# Installs the Debian 12 packages profdiff builds and tests with, only when one is missing.
# Non-interactive and idempotent; uses sudo only when not root.
set -euo pipefail

packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format-14 clang-tidy-14 pkg-config python3
  python3-yaml
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libmicrohttpd-dev
  libjemalloc-dev
  libabsl-dev libsimdjson-dev libdeflate-dev libisal-dev zlib1g-dev libzstd-dev libre2-dev libxxhash-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev clickhouse-server clickhouse-client
  python3-torch python3-torchvision python3-yaml
  python3-grpcio python3-protobuf python3-pandas python3-pytest python3-venv python3-pip
  python3-setuptools python3-wheel
  chromium
)
# The HTML report's browser test runs playwright-core on Node.js; a Node.js that is already
# installed (say from NodeSource, which bundles npm) is used as it is.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# With systemd, the package's own service would hold ports 8123/9000; tests start their own.
stop_system_clickhouse() {
  if [ -d /run/systemd/system ] && systemctl is-enabled clickhouse-server >/dev/null 2>&1; then
    $sudo systemctl disable --now clickhouse-server >/dev/null 2>&1 || true
  fi
}
if [ ${#missing[@]} -eq 0 ]; then
  stop_system_clickhouse
  exit 0
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Tests start their own ClickHouse servers; without systemd, keep the package's postinst from
# starting the system service (with systemd it is stopped and disabled below).
if [[ " ${missing[*]} " == *" clickhouse-server "* && ! -d /run/systemd/system && ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
  $sudo chmod +x /usr/sbin/policy-rc.d
  trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
stop_system_clickhouse
