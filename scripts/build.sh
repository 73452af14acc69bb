#!/usr/bin/env bash
# Configures and builds catenary in Release (CUDA backend on when nvcc is found).
#   scripts/build.sh [--build-dir DIR] [CMAKE_ARGS ...]    (default DIR: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
if [ "${1:-}" = "--build-dir" ]; then
  build_dir=$2
  shift 2
fi
bash scripts/install_deps.sh
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir" -j"$(nproc)"
