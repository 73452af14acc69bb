#!/usr/bin/env bash
# Builds catenary and runs the whole test suite (GPU tests skip, with a message, without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
