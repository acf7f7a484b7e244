#!/usr/bin/env bash
# Installs the Debian packages hmtt needs, only those that are missing.
# Usage: scripts/deps.sh [core|all]   (default: all)
#   core: what `make build` needs (compilers, libraries)
#   all:  core + the tools the test tiers use (RTL synthesis, QEMU, kernel, browser,
#         python3-jsonschema for the profile-schema tests of the chameleon and psnap tiers)
set -euo pipefail
tier=${1:-all}

core=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev
      verilator libsystemc-dev libpcap-dev libboost-dev liblz4-dev lz4 zlib1g-dev liblzma-dev
      libsqlite3-dev sqlite3 doctest-dev libcli11-dev nlohmann-json3-dev
      libfftw3-dev gnuplot-nox valgrind)
extra=(yosys nextpnr-ice40 fpga-icestorm tshark qemu-system-x86 busybox-static
       cpio kmod xz-utils zstd iproute2 chromium linux-headers-amd64 sparse
       python3-jsonschema)

pkgs=("${core[@]}")
[ "$tier" = all ] && pkgs+=("${extra[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
