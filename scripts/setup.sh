#!/usr/bin/env bash
# Installs every Debian package the project needs, only when something is missing.
# Safe to run repeatedly; uses sudo only when not already root.
set -euo pipefail

packages=(
  g++ cmake ninja-build
  verilator yosys opensta
  catch2 libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  clang libclang-rt-14-dev
  z3 gzip
  munge slurm-wlm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: installed ${#missing[@]} packages"
