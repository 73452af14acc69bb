#!/usr/bin/env bash
# Fuzzes the case loader (tests/fuzz/case_loader_fuzz.cpp) with libFuzzer under AddressSanitizer
# and UndefinedBehaviorSanitizer, from a corpus seeded with cases/ and tests/bad_cases/.
#
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR]    (defaults: 60, build-fuzz)
#
# CI runs it for a minute; for hours, give the seconds (the corpus in BUILD_DIR/corpus grows from
# run to run). An input that crashes, hangs (10 s) or takes more than 2 GiB is written to
# BUILD_DIR/findings/ and the script exits 1: make it a test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build_dir=${2:-build-fuzz}
bash scripts/install_deps.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -DCATENARY_CUDA=OFF -DCATENARY_FUZZ=ON -DBUILD_TESTING=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target catenary_fuzz_case_loader
mkdir -p "$build_dir/corpus" "$build_dir/findings"
cp -n cases/*.json tests/bad_cases/*.json "$build_dir/corpus/"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$build_dir/catenary_fuzz_case_loader" "$build_dir/corpus" -dict=tests/fuzz/case.dict \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$build_dir/findings/" \
  -print_final_stats=1
