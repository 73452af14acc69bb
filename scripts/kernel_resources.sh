#!/usr/bin/env bash
# Static resources of the device kernels, as ptxas reports them for sm_90 (registers per thread,
# stack frame, spill stores / loads): what bounds a kernel's occupancy before any GPU runs it.
# Builds the library in its own directory with -Xptxas=-v and prints one table row per kernel
# whose loop body is one of catenary's functors (Thrust's own helper kernels are left out).
# No GPU needed; about 2 minutes on 2 cores the first time, 1 minute later (the CUDA sources).
#
#   scripts/kernel_resources.sh [BUILD_DIR]     (default build-ptxas)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-ptxas}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCATENARY_CUDA=ON -DCMAKE_CUDA_FLAGS="-Xptxas=-v" >/dev/null
log="$build_dir/ptxas.log"
# ptxas reports only when it compiles: drop this directory's CUDA objects (not the sources'
# timestamps, which would make every other build directory recompile them too).
find "$build_dir" -name '*.cu.o' -delete
cmake --build "$build_dir" -j"$(nproc)" --target catenary_core > "$log" 2>&1 || { tail -30 "$log"; exit 1; }
python3 - "$log" <<'EOF'
import re, subprocess, sys
lines = open(sys.argv[1]).read().splitlines()
entries = []
for i, line in enumerate(lines):
    m = re.search(r"Compiling entry function '(\w+)' for 'sm_\d+'", line)
    if not m:
        continue
    block = " ".join(lines[i + 1:i + 5])
    stack = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", block)
    regs = re.search(r"Used (\d+) registers", block)
    if stack and regs:
        entries.append((m.group(1), regs, stack))
names = subprocess.run(["c++filt"], input="\n".join(e[0] for e in entries), capture_output=True,
                       text=True).stdout.splitlines()
rows = {}
for name, (_, regs, stack) in zip(names, entries):
    # The functor a Thrust/CUB kernel runs, with its template arguments.
    # (One level of nesting: EachRightHandSide<catenary::cuda::SolveOdd<float>>.)
    functor = re.search(r"catenary::(?:cuda::)?((?:\(anonymous namespace\)::)?[A-Z]\w*(?:<(?:[^<>]|<[^<>]*>)*>)?)", name)
    if not functor:
        continue
    key = functor.group(1).replace("(anonymous namespace)::", "")
    rows[key] = (int(regs.group(1)), int(stack.group(1)), int(stack.group(2)), int(stack.group(3)))
print("| kernel body | registers | stack frame (bytes) | spill stores / loads (bytes) |")
print("|---|---:|---:|---:|")
for key in sorted(rows):
    r, s, st, ld = rows[key]
    print(f"| {key} | {r} | {s} | {st} / {ld} |")
EOF
