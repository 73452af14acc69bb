#!/usr/bin/env bash
# Builds the tests with AddressSanitizer and UndefinedBehaviorSanitizer (host code, the CUDA
# backend's host build included) and runs them; the first sanitizer report ends its test with a
# failure, and the script exits non-zero. CI runs it with --quick.
#
#   scripts/sanitize.sh [--quick] [BUILD_DIR]     (default build-sanitize)
#
# --quick leaves out the two at-scale checks of the CUDA backend's code on the host (20,000-
# element cables; the device-memory estimate over 2,000-element runs): the code of the small
# [cuda-host] checks at sizes made for a device, 40 % of the run's time. It leaves out too the
# checks whose cost is many runs of code the others run once: the integrators' convergence
# orders and long undamped runs (refined step after step), the shipped cases run whole on the
# CUDA backend's host code (each case's code paths run in the other tests), and the sheave cases
# beyond the Atwood machine's (the same cable-shape contact code, longer); the unsanitized builds
# run them all.
#
# UBSan's null-reference check is silenced inside Thrust (scripts/ubsan.supp): its sequential
# copy forms a reference to the first element of an empty range.
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=()
if [ "${1:-}" = "--quick" ]; then
  exclude=(-E "code run on the host at scale|device-memory estimate bounds|observed order|converges with second order|resolved undamped mode never grows|compare passes for every shipped case with the CUDA|sheave_hoist.json: the load rises|a batch of two Atwood sheaves")
  shift
fi
build_dir=${1:-build-sanitize}
# nvcc where scripts/build.sh finds it.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
flags="-O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer"
# No Python module: its sanitized code would load into an interpreter built without the runtime.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=None -DCATENARY_CUDA=ON -DCATENARY_PYTHON=OFF -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_CUDA_FLAGS="-O1 -Xcompiler=-g1,-fsanitize=address,-fsanitize=undefined,-fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target catenary_tests coupling_api_test catenary_coupled_platform
# halt_on_error: a report exits 1, which fails the test (and a test whose `catenary` child reports
# sees exit status 1, which no test expects). hard_rss_limit_mb: a runaway allocation is a report
# rather than the machine's OOM killer (the largest test takes 2.9 GiB).
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:hard_rss_limit_mb=8192
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/scripts/ubsan.supp
cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 900 "${exclude[@]}"
