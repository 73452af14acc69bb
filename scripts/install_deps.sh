#!/usr/bin/env bash
# Installs the Debian packages catenary builds with, if any is missing; with --fuzz also Clang,
# for scripts/fuzz.sh. The CUDA toolkit (nvcc) is optional: with it the CUDA backend is built too.
set -euo pipefail
packages=(cmake g++ make libeigen3-dev nlohmann-json3-dev catch2 libsuitesparse-dev libspectra-dev libcli11-dev python3 libopenmpi-dev openmpi-bin)
# The Python module (pybind11) and what it and its tests use.
packages+=(python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pytest python3-matplotlib)
# zlib compresses the VTU frames; VTK's Python reader reads them back in the tests.
packages+=(zlib1g-dev python3-vtk9)
[ "${1:-}" = "--fuzz" ] && packages+=(clang)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "catenary: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
