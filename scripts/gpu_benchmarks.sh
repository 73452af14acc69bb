#!/usr/bin/env bash
# The GPU's tests and benchmarks, for a machine with an NVIDIA GPU (driver and CUDA toolkit).
# Builds catenary for this machine's GPU into build/ (scripts/build.sh with the CUDA backend on),
# runs the named parts, each writing its output under the results directory, and prints a summary
# table of the medians (also written to DIR/summary.txt). The figures of docs/performance.md come
# from these parts; each part below names its section there.
#
#   scripts/gpu_benchmarks.sh [OPTIONS] [PART ...]
#
# With no PART, the standard set:
#   tests gpu solvers sweep methods contact water mooring kernels transfers frames casefile cpu
# (gpu, sweep and cpu take the longest). `all`: the standard set, then the parts that need
# compute-sanitizer or Nsight Compute (memcheck racecheck profile element-ncu group-ncu), and
# resources.
#
# Parts:
#   tests        the [gpu] test cases (catenary_tests "[gpu]"): the CUDA backend against the CPU
#                backend on the same models. On this machine a [gpu] test that finds no usable
#                device fails instead of skipping (CATENARY_REQUIRE_GPU=1).
#   gpu          the solver benchmark on the GPU (catenary_benchmark, the falling cable pendulum):
#                auto solver, 100 ... 1,000,000 elements, full and modified Newton, 3 repetitions
#                each; full Newton again without the waits that time each stage (the wall time to
#                quote for small models). docs/performance.md, "GPU: H200" and "GPU: H100".
#   solvers      each linear solver on the GPU: block_tridiagonal, chain_elimination and krylov,
#                100 ... 100,000 elements, sparse_qr up to 10,000 (its fill grows fast), 10 steps;
#                the cable hung from a crane's boom (--crane: a border of 16 unknowns) by the
#                block methods and sparse QR, and in modified Newton against the plain cable.
#                docs/performance.md, "Linear solvers".
#   sweep        1 ... 10,000 copies of a 100-element cable run as one batch, by each block method,
#                full and modified Newton; the auto solver without stage waits; 1 ... 1,000 copies
#                of the crane in modified Newton. docs/performance.md, "Sweeps".
#   methods      what the automatic choice of block method for a sweep weighs: 1,000 and 10,000
#                copies in full Newton (a factorization an iteration), 100 and 1,000 in modified
#                Newton (mostly solves), by cyclic reduction and by chain elimination, 10 steps
#                (about 2 minutes). docs/performance.md, "Sweeps".
#   check        a short regression check after a change (about 5 minutes): the [gpu] tests, the
#                benchmark at 100,000 and 1,000,000 elements (full, modified, full without stage
#                waits) and the 10,000-copy sweep in modified Newton (auto solver and cyclic
#                reduction), 3 repetitions each. docs/performance.md, "GPU: H200" and "GPU: H100".
#   contact      the cost of seabed contact: the benchmark's cable with no seabed and half and all
#                of it on a frictional seabed (--seabed), 10,000 and 100,000 elements, 3
#                repetitions. docs/performance.md, "Contact".
#   water        the cost of the water's loads: the benchmark's cable in air and in water (--water),
#                10,000 and 100,000 elements, 3 repetitions. docs/performance.md, "Water".
#   mooring      the OC3-Hywind mooring in waves (scripts/oc3_benchmark.sh): 50 and 200 elements a
#                line for 600 s of simulated time on the GPU, 3 repetitions (about 5 minutes).
#                docs/performance.md, "Mooring".
#   kernels      the device element pass alone at 100,000 and 1,000,000 elements, launched as the
#                backend does and with registers capped for 2 to 4 blocks an SM: time, bandwidth
#                and fraction of the peak of each launch (catenary_element_pass_benchmark; about
#                10 s). docs/performance.md, "Element passes".
#   transfers    how fast a 48 MB vector (one of a 1,000,000-element model's) moves between device
#                and host, each way the backend could move it (catenary_transfer_benchmark).
#                docs/performance.md, "Output frames".
#   frames       what an output frame costs: the 10,000-copy case-file sweep for 20 steps by
#                modified Newton, output at the end only, then at every step (a frame's cost is
#                the difference over the 19 more frames); and the benchmark's 1,000,000-element
#                cable, whose out_ms is its two frames. docs/performance.md, "Output frames".
#   casefile     scripts/cable_sweep_10000.json (10,000 copies of a 100-element cable, 2 steps) run
#                by the catenary command on the GPU and on the CPU: loading, merging, set-up and
#                per-copy output as a user meets them; wall time and peak memory (about a minute).
#                docs/performance.md, "Sweeps".
#   cpu          the CPU backend on all cores of this machine, for the GPU's speed-up: 100 ...
#                100,000 elements (3 repetitions) and 1,000,000 (one run of 3 steps), full and
#                modified Newton; chain elimination instead of UMFPACK; the chain solver alone,
#                a 1,000,000-element chain planned for 1 ... nproc threads, and in series (one
#                thread) to measure an interior block's cost. docs/performance.md, "CPU threads".
#   memcheck     the [gpu] tests under compute-sanitizer's memcheck (out-of-bounds and misaligned
#                device accesses, API errors), less the at-scale cases (too slow under it) and the
#                compare cases (their command-line runs are other processes).
#   racecheck    shared-memory hazards under compute-sanitizer's racecheck: the element passes at
#                1,000 elements, and the group kernels of interleaved chain elimination in a
#                40-copy sweep (3 modified-Newton steps, so the float solves run too).
#   profile      every kernel launch's time (Nsight Compute, the device's own clocks) of a
#                100,000-element run (2 full-Newton steps) and of the 10,000 x 100-element sweep
#                (2 modified-Newton steps): profile_*.csv, and per loop body and per cyclic-
#                reduction level in profile_*.txt (scripts/kernel_times.py). docs/performance.md,
#                "Cost model and bounds".
#   element-ncu  what bounds the undamped 3D element passes at 1,000,000 elements (Nsight Compute:
#                speed of light, pipes, memory tables, the source counters' worst-coalesced
#                instructions): the forces pass capped at 2 blocks an SM, and the Jacobian block
#                pass (about 2 minutes). docs/performance.md, "Element passes".
#   group-ncu    what bounds interleaved chain elimination's group kernels (Nsight Compute: speed of
#                light, pipes, memory, warp stalls, occupancy, source counters), their first 8
#                launches in a 1,000-copy sweep by full Newton (about a minute).
#                docs/performance.md, "Linear solvers".
#   resources    registers, stack frame and spills of each device kernel as ptxas reports them for
#                the chosen architecture (scripts/kernel_resources.sh; builds in build-ptxas/, no
#                GPU needed). docs/performance.md, "Element passes".
#
# Options:
#   --out DIR          results directory (default results/gpu_benchmarks)
#   --arch ARCH        CMAKE_CUDA_ARCHITECTURES of the build: default native (this machine's GPU),
#                      90 (H100, H200) when nvidia-smi finds none
#   --no-build         run the executables already in the build directory
#   --build-dir DIR    the build directory to run from (default build; implies --no-build)
#   --timeout SECONDS  stop any one run after this long and go on with the next (default: no limit)
#   -h, --help         this text
#
# A run that fails or is stopped leaves a note at the end of its output file and is marked FAILED
# in the summary; the other parts still run. The script exits with 1 when any run failed.
set -euo pipefail

script=$0
usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$script"; }

standard=(tests gpu solvers sweep methods contact water mooring kernels transfers frames casefile cpu)
tooled=(memcheck racecheck profile element-ncu group-ncu resources)
out_dir=results/gpu_benchmarks
arch=
build=1
build_dir=build
limit=
parts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out_dir=$(realpath -m "$2"); shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --build-dir) build_dir=$(realpath -m "$2"); build=0; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    all) parts+=("${standard[@]}" "${tooled[@]}"); shift ;;
    tests|gpu|solvers|sweep|methods|contact|water|mooring|check|kernels|transfers|frames|casefile|cpu|memcheck|racecheck|profile|element-ncu|group-ncu|resources)
      parts+=("$1"); shift ;;
    *) echo "unknown part or option '$1' (scripts/gpu_benchmarks.sh --help lists them)" >&2; exit 2 ;;
  esac
done
[[ ${#parts[@]} -gt 0 ]] || parts=("${standard[@]}")
# From here on paths are relative to the repository's root (--out and --build-dir were made
# absolute above).
cd "$(dirname "$script")/.."

have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
[[ -n "$arch" ]] || { if ((have_gpu)); then arch=native; else arch=90; fi; }
needs_gpu=0
for part in "${parts[@]}"; do [[ "$part" == resources ]] || needs_gpu=1; done
if ((needs_gpu && !have_gpu)); then
  echo "nvidia-smi finds no NVIDIA GPU: these parts need one (only 'resources' runs without)" >&2
  exit 1
fi

mkdir -p "$out_dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if ((needs_gpu)); then
  if ((build)); then
    # The benchmark programs are built only with CATENARY_BENCHMARKS on.
    bash scripts/build.sh -DCATENARY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DBUILD_TESTING=ON \
      -DCATENARY_BENCHMARKS=ON
  fi
  tests_exe="$build_dir/tests/catenary_tests"
  [[ -x "$tests_exe" ]] || tests_exe="$build_dir/catenary_tests"
  for exe in "$build_dir/catenary" "$tests_exe" "$build_dir/catenary_benchmark" "$build_dir/catenary_chain_solver_benchmark" \
    "$build_dir/catenary_element_pass_benchmark" "$build_dir/catenary_transfer_benchmark"; do
    [[ -x "$exe" ]] || { echo "missing $exe: build with the CUDA backend (-DCATENARY_CUDA=ON) first" >&2; exit 1; }
  done
fi
# On a machine with a GPU, a [gpu] test that finds no usable device fails instead of skipping.
export CATENARY_REQUIRE_GPU=1

{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version --format=csv 2>&1 || true
  echo "nproc $(nproc)"
  lscpu | grep -E 'Model name|^CPU\(s\)' || true
} > "$out_dir/machine.txt"

failed=()     # the output files of runs that failed or were stopped
benches=()    # the scripts/benchmark.sh runs, by name: NAME.txt and NAME/ under the results

# run_into FILE COMMAND ...: the command's output (stdout and stderr) into FILE; a failure or a
# stop leaves a note at its end.
run_into() {
  local file=$1 status=0
  shift
  ${limit:+timeout "$limit"} "$@" > "$file" 2>&1 || status=$?
  if ((status != 0)); then
    echo "FAILED or stopped (exit $status): $*" >> "$file"
    failed+=("$file")
  fi
}

# bench NAME ARGS ...: scripts/benchmark.sh on the build's catenary_benchmark; it prints the
# medians of the repetitions (NAME.txt) and writes them with each repetition's CSV in NAME/.
bench() {
  local name=$1
  shift
  benches+=("$name")
  run_into "$out_dir/$name.txt" scripts/benchmark.sh --no-build -b "$build_dir" -o "$out_dir/$name" "$@"
}

# timed FILE COMMAND ...: run_into with the command's wall time and peak memory appended.
timed() {
  local file=$1
  shift
  if [[ -x /usr/bin/time ]]; then
    run_into "$file" /usr/bin/time -f "wall %e s, peak %M kB" "$@"
  else
    local start=$EPOCHREALTIME
    run_into "$file" "$@"
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "wall %.2f s\n", b - a }' >> "$file"
  fi
  # Drop the run's progress lines.
  sed -i '/%  t =/d' "$file"
}

ncu_exe() { command -v ncu || echo /usr/local/cuda/bin/ncu; }
sanitizer_exe() { command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer; }

gpu_tests() { run_into "$out_dir/gpu_tests.txt" "$tests_exe" "[gpu]"; }

# frames_case EVERY: the 10,000-copy sweep for 20 steps by modified Newton, output every EVERY s.
frames_case() {
  python3 - "$1" "$scratch/frames_case.json" <<'EOF'
import json, sys
case = json.load(open("scripts/cable_sweep_10000.json"))
case["analysis"].update(end_time=0.02, newton="modified")
case["output"]["interval"] = float(sys.argv[1])
json.dump(case, open(sys.argv[2], "w"))
EOF
}

declare -A seconds=()
for part in "${parts[@]}"; do
  echo "== $part"
  start=$SECONDS
  case "$part" in
    tests) gpu_tests ;;
    gpu)
      for newton in full modified; do
        bench "gpu_$newton" -B cuda -N "$newton" -r 3 -- 100 1000 10000 100000 1000000
      done
      bench gpu_full_no_stage_times -B cuda --no-stage-times -r 3 -- 100 1000 10000 100000 1000000 ;;
    solvers)
      bench gpu_sparse_qr -B cuda -L sparse_qr -r 3 -s 10 -- 100 1000 10000
      for solver in block_tridiagonal chain_elimination krylov; do
        bench "gpu_$solver" -B cuda -L "$solver" -r 3 -s 10 -- 100 1000 10000 100000
      done
      bench gpu_crane_sparse_qr -B cuda -L sparse_qr --crane -r 3 -s 10 -- 100 1000 10000
      for solver in block_tridiagonal chain_elimination; do
        bench "gpu_crane_$solver" -B cuda -L "$solver" --crane -r 3 -s 10 -- 100 1000 10000 100000
      done
      # Modified Newton, where the solves dominate: the crane's border against the plain cable.
      bench gpu_crane_modified -B cuda -N modified --crane -r 3 -s 10 -- 1000 100000
      bench gpu_cable_modified -B cuda -N modified -r 3 -s 10 -- 1000 100000 ;;
    sweep)
      for solver in block_tridiagonal chain_elimination; do
        for newton in full modified; do
          bench "gpu_sweep_${solver}_$newton" -B cuda -L "$solver" -N "$newton" -S 100 -r 3 -- 1 10 100 1000 10000
        done
      done
      bench gpu_sweep_no_stage_times -B cuda -N modified -S 100 --no-stage-times -r 3 -- 1 10 100 1000 10000
      bench gpu_crane_sweep_modified -B cuda -N modified -S 100 --crane -r 3 -s 10 -- 1 10 100 1000 ;;
    contact)
      bench gpu_no_seabed -B cuda -r 3 -s 20 -- 10000 100000
      for fraction in 0.5 1; do
        bench "gpu_seabed_$fraction" -B cuda --seabed "$fraction" -r 3 -s 20 -- 10000 100000
      done ;;
    water)
      bench gpu_in_air -B cuda -r 3 -s 20 -- 10000 100000
      bench gpu_in_water -B cuda --water -r 3 -s 20 -- 10000 100000 ;;
    mooring)
      for elements in 50 200; do
        run_into "$out_dir/mooring_$elements.txt" scripts/oc3_benchmark.sh -B cuda -b "$build_dir" -e "$elements" \
          -T 600 -r 3 -o "$out_dir/mooring_$elements"
      done ;;
    methods)
      for solver in block_tridiagonal chain_elimination; do
        bench "methods_full_$solver" -B cuda -L "$solver" -S 100 -r 3 -s 10 -- 1000 10000
        bench "methods_modified_$solver" -B cuda -L "$solver" -N modified -S 100 -r 3 -s 10 -- 100 1000
      done ;;
    check)
      gpu_tests
      for newton in full modified; do
        bench "check_$newton" -B cuda -N "$newton" -r 3 -- 100000 1000000
      done
      bench check_full_no_stage_times -B cuda --no-stage-times -r 3 -- 100000 1000000
      bench check_sweep_modified -B cuda -N modified -S 100 -r 3 -- 10000
      bench check_sweep_reduction -B cuda -N modified -S 100 -L block_tridiagonal -r 3 -- 10000 ;;
    kernels) run_into "$out_dir/element_pass.txt" "$build_dir/catenary_element_pass_benchmark" 100000 1000000 ;;
    transfers) run_into "$out_dir/transfers.txt" "$build_dir/catenary_transfer_benchmark" ;;
    frames)
      for every in 0.02 0.001; do
        frames_case "$every"
        timed "$out_dir/frames_every_$every.txt" "$build_dir/catenary" run "$scratch/frames_case.json" \
          --backend cuda --out "$scratch/frames_out"
        rm -rf "$scratch/frames_out"
      done
      run_into "$out_dir/frames_1m.txt" "$build_dir/catenary_benchmark" --backend cuda --steps 10 1000000 ;;
    casefile)
      for backend in cuda cpu; do
        timed "$out_dir/casefile_$backend.txt" "$build_dir/catenary" run scripts/cable_sweep_10000.json \
          --backend "$backend" --out "$scratch/casefile_$backend"
        rm -rf "$scratch/casefile_$backend"
      done ;;
    cpu)
      for newton in full modified; do
        bench "cpu_$newton" -B cpu -N "$newton" -r 3 -s 20 -- 100 1000 10000 100000
        bench "cpu_1m_$newton" -B cpu -N "$newton" -r 1 -s 3 -- 1000000
      done
      bench cpu_chains -B cpu -L chain_elimination -r 3 -s 10 -- 100 1000 10000 100000 1000000
      run_into "$out_dir/cpu_chain_solver.txt" "$build_dir/catenary_chain_solver_benchmark" 1000000 "$(nproc)" 5
      run_into "$out_dir/cpu_chain_solver_series.txt" env OMP_NUM_THREADS=1 \
        "$build_dir/catenary_chain_solver_benchmark" 100000 8 5 ;;
    memcheck)
      run_into "$out_dir/memcheck.txt" "$(sanitizer_exe)" --tool memcheck --target-processes application-only \
        --error-exitcode 3 "$tests_exe" "[gpu]" "~*compare*" "~*scale*" ;;
    racecheck)
      # The element passes that share memory between a block's threads (staged rows, the Jacobian
      # block pass).
      run_into "$out_dir/racecheck_element_pass.txt" "$(sanitizer_exe)" --tool racecheck --error-exitcode 3 \
        "$build_dir/catenary_element_pass_benchmark" 1000
      # Interleaved chain elimination's groups: 32 chains a thread block, shared memory between barriers.
      run_into "$out_dir/racecheck_chain_groups.txt" "$(sanitizer_exe)" --tool racecheck --error-exitcode 3 \
        "$build_dir/catenary_benchmark" --backend cuda --solver chain_elimination --newton modified --steps 3 \
        --sweep 100 40 ;;
    profile)
      for run in "100k 100000" "sweep --sweep 100 --newton modified 10000"; do
        name=${run%% *}
        # shellcheck disable=SC2086  # the run's arguments split on purpose
        run_into "$out_dir/profile_${name}_run.txt" "$(ncu_exe)" --csv --clock-control none \
          --metrics gpu__time_duration.sum --log-file "$out_dir/profile_$name.csv" \
          "$build_dir/catenary_benchmark" --backend cuda --steps 2 ${run#* }
        python3 scripts/kernel_times.py "$out_dir/profile_$name.csv" > "$out_dir/profile_$name.txt" 2>&1 || true
      done ;;
    element-ncu)
      # The forces pass capped at 2 blocks an SM (each of catenary_element_pass_benchmark's
      # layouts, forces alone then with the mass term) and the Jacobian block pass.
      run_into "$out_dir/element_ncu.txt" "$(ncu_exe)" --kernel-name-base demangled \
        -k 'regex:item_loop<\(int\)256, \(int\)2, catenary::cuda::ElementPass<\(int\)3, \(bool\)0, \(bool\)0>|jacobian_block_loop<\(int\)3, \(bool\)0>' \
        --launch-count 64 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section SourceCounters --print-details all \
        "$build_dir/catenary_element_pass_benchmark" 1000000 ;;
    group-ncu)
      run_into "$out_dir/group_ncu.txt" "$(ncu_exe)" --kernel-name-base demangled -k 'regex:shared_block_loop' \
        --launch-count 8 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section LaunchStats --section Occupancy --section SourceCounters \
        "$build_dir/catenary_benchmark" --backend cuda --solver chain_elimination --steps 2 --sweep 100 1000 ;;
    resources)
      run_into "$out_dir/kernel_resources.md" scripts/kernel_resources.sh build-ptxas "$arch" ;;
  esac
  seconds[$part]=$((SECONDS - start))
done

# The summary: each part's time and outcome, then the medians.
parts_table="$scratch/parts.tsv"
for part in "${parts[@]}"; do printf '%s\t%s\n' "$part" "${seconds[$part]}"; done > "$parts_table"
python3 - "$out_dir" "$parts_table" "${#failed[@]}" "${failed[@]}" "${benches[@]}" <<'EOF' | tee "$out_dir/summary.txt"
import csv, glob, os, re, sys

out_dir, parts_table, n_failed = sys.argv[1], sys.argv[2], int(sys.argv[3])
failed = set(sys.argv[4:4 + n_failed])
benches = sys.argv[4 + n_failed:]

def lines(name):
    path = os.path.join(out_dir, name)
    return open(path, errors="replace").read().splitlines() if os.path.exists(path) else []

print(f"# {' | '.join(lines('machine.txt')[:3])}")
print("\npart          minutes")
for part, secs in csv.reader(open(parts_table), delimiter="\t"):
    print(f"{part:<13} {int(secs) / 60:7.1f}")
if failed:
    print("\nFAILED or stopped: " + ", ".join(sorted(os.path.relpath(f, out_dir) for f in failed)))

for name in ("gpu_tests.txt",):
    for line in lines(name):
        if re.search(r"All tests passed|test cases:", line):
            print(f"\n[gpu] tests: {line.strip()}")

if benches:
    print("\nsolver benchmark, medians of the repetitions (ms per step; cpu_* on this machine's cores)")
    cols = [("newton_per_step", "it/step"), ("wall_ms_per_step", "wall/step"), ("step_ms", "step"),
            ("element_ms_per_step", "element"), ("factorization_ms_per_step", "factor"),
            ("solve_ms_per_step", "solve"), ("peak_mib", "peak MiB")]
    print(f"{'run':<36} {'n':>8} " + " ".join(f"{s:>9}" for _, s in cols) + "  status  solver")
    for name in benches:
        files = sorted(glob.glob(os.path.join(out_dir, name, "medians_t*.csv")))
        if not files:
            print(f"{name:<36} (no medians)")
            continue
        for row in csv.DictReader(open(files[-1])):
            values = " ".join(f"{float(row.get(c) or 'nan'):>9.3f}" for c, _ in cols)
            print(f"{name:<36} {row['n']:>8} {values}  {row['status']:<6}  {row.get('solver', '')}")

def table(title, name, keep):
    rows = [l for l in lines(name) if keep(l)]
    if rows:
        print(f"\n{title}")
        for l in rows:
            print(l)

table("element passes, median ms of a pass (element_pass.txt)", "element_pass.txt",
      lambda l: l.strip() and not l.startswith("#") and "FAILED" not in l)
table("transfers, medians of 7 (transfers.txt)", "transfers.txt", lambda l: " ms" in l)
table("the 1,000,000-element cable, 10 steps: out_ms is its two frames (frames_1m.txt)", "frames_1m.txt",
      lambda l: l.strip() and not l.startswith("#") and "FAILED" not in l)
table("chain solver on all cores, medians (cpu_chain_solver.txt)", "cpu_chain_solver.txt",
      lambda l: l.strip() and "FAILED" not in l)
walls = [(os.path.basename(f), l) for f in sorted(glob.glob(os.path.join(out_dir, "*.txt")))
         if re.match(r"(frames_every|casefile)_", os.path.basename(f))
         for l in lines(os.path.basename(f)) if l.startswith("wall ")]
if walls:
    print("\ncase-file runs by the catenary command")
    for f, l in walls:
        print(f"{f:<28} {l}")
checks = [(os.path.basename(f), l.strip()) for f in [os.path.join(out_dir, "memcheck.txt")]
          + sorted(glob.glob(os.path.join(out_dir, "racecheck_*.txt")))
          for l in lines(os.path.basename(f)) if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
if checks:
    print("\ncompute-sanitizer")
    for f, l in checks:
        print(f"{f:<28} {l}")
EOF
echo "results in $out_dir"
[[ ${#failed[@]} -eq 0 ]] || exit 1
