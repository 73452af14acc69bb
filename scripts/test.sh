#!/usr/bin/env bash
# Builds catenary and runs the whole test suite (GPU tests skip, with a message, without a
# device). Where the CUDA backend was built, the CPU-only configuration (-DCATENARY_CUDA=OFF, as
# on a machine without the CUDA toolkit) is built and tested too, in build-cpu/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
if grep -q '^CATENARY_CUDA:BOOL=ON' build/CMakeCache.txt; then
  echo "catenary: the CPU-only configuration"
  bash scripts/build.sh --build-dir build-cpu -DCATENARY_CUDA=OFF
  (cd build-cpu && ctest --output-on-failure -j"$(nproc)")
fi
