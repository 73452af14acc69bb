#!/usr/bin/env bash
# The static resources of catenary's device kernels as ptxas reports them: registers a thread,
# stack frame, and spill stores and loads. These bound a kernel's occupancy (how many blocks an SM
# holds) before any GPU runs it: check them after changing a device functor, or when a pass is
# slower than its memory traffic predicts (docs/performance.md, "Element passes").
#
# Configures a build of the library in its own directory with -Xptxas=-v, compiles the CUDA
# sources and prints a Markdown table, one row per kernel whose loop body is one of catenary's
# functors (Thrust's own helper kernels are left out). Needs the CUDA toolkit, not a GPU; about
# 2 minutes on 2 cores the first time, 1 minute later. scripts/gpu_benchmarks.sh resources runs it
# too, into its results directory.
#
#   scripts/kernel_resources.sh [BUILD_DIR [ARCH]]   (default build-ptxas, and 90: H100, H200)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-ptxas}
arch=${2:-90}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCATENARY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DCMAKE_CUDA_FLAGS="-Xptxas=-v" >/dev/null
log="$build_dir/ptxas.log"
# ptxas reports only when it compiles: drop this directory's CUDA objects (not the sources'
# timestamps, which would make every other build directory recompile them too).
find "$build_dir" -name '*.cu.o' -delete
# The CUDA sources: their own library where the build has one, else part of catenary_core.
target=catenary_core
grep -q 'add_library(catenary_cuda' CMakeLists.txt && target=catenary_cuda
cmake --build "$build_dir" -j"$(nproc)" --target "$target" > "$log" 2>&1 || { tail -30 "$log"; exit 1; }
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
