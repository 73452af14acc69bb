#!/usr/bin/env bash
# Builds the tests with AddressSanitizer and UndefinedBehaviorSanitizer (host code, the CUDA
# backend's host build included) and runs the whole suite. Not part of CI: about 10 minutes to
# build and 3 to run on 2 cores.
#
#   scripts/sanitize.sh [BUILD_DIR]     (default build-sanitize)
#
# UBSan's null-reference check is silenced inside Thrust (scripts/ubsan.supp): its sequential
# copy forms a reference to the first element of an empty range.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-sanitize}
flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=None -DCATENARY_CUDA=ON -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_CUDA_FLAGS="-O1 -Xcompiler=-g1,-fsanitize=address,-fsanitize=undefined,-fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target catenary_tests
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp
cd "$build_dir" && ctest --output-on-failure -j"$(nproc)"
