#!/usr/bin/env bash
# Everything to run on a machine with a GPU, in parts that each fit a 10-minute slot: the [gpu]
# tests, then the benchmarks of docs/benchmarks.md (GPU sizes and solvers, the sweep, the CPU on
# all cores of the same machine for the speed-up). Results go to OUT_DIR, one file per part.
#
#   scripts/gpu_session.sh [-b BUILD_DIR] [-o OUT_DIR] [-a ARCHIVE] [-T SECONDS] PART ...
#
#   PART          tests | memcheck | casefile | frames | kernels | l1 | groups | profile | gpu | solvers | sweep | check | graphs | held | records | methods | double | cpu | all
#                 tests:   catenary_tests "[gpu]"
#                 memcheck: the [gpu] tests under compute-sanitizer (memcheck: out-of-bounds and
#                          misaligned device accesses, API errors), less the at-scale checks (too
#                          slow under it) and the compare test (its CLI runs are other processes);
#                          and the element passes under racecheck (shared-memory hazards), 1,000 elements,
#                          and the block solver's group kernels (interleaved chain elimination) under
#                          racecheck in a 40-copy sweep (3 modified-Newton steps: float solves too)
#                 casefile: scripts/cable_sweep_10000.json (10,000 copies of a 100-element cable,
#                          a grid from ranges, 2 steps) run by the catenary command on the GPU and
#                          on the CPU: load, merge, setup and per-copy output as a user meets them
#                          (/usr/bin/time -v: wall and peak memory; about 1 minute)
#                 frames:  what an output frame costs on the device's host: the same sweep for 20 steps
#                          by modified Newton, output at the end, then at every step; and the
#                          benchmark's 1,000,000-element cable's out_ms; first, how fast a 48 MB
#                          vector moves each way (catenary_transfer_benchmark; about 45 s in all)
#                 kernels: the element pass alone at 100,000 and 1,000,000 elements, launched as the
#                          backend does and with registers capped for 2 to 4 blocks an SM
#                          (catenary_element_pass_benchmark; about 10 s)
#                 l1:      what bounds the backend's undamped 3D element passes (ncu: speed of light,
#                          pipes, the memory tables' details, the source counters' worst-coalesced
#                          instructions) at 1,000,000 elements: every launch of the forces
#                          pass capped at 2 blocks an SM (the new layouts then element-major, forces
#                          alone then with the mass term: element_pass_benchmark's order) and of the
#                          Jacobian block pass (points shared, then element-major; about 2 minutes)
#                 groups:  what bounds interleaved elimination's group kernels (ncu: speed of light,
#                          pipes, memory, warp stall reasons, occupancy, source counters), their
#                          first 8 launches in a 1,000-copy sweep by full Newton (a factorization and a
#                          solve an iteration; about 1 minute)
#                 profile: every kernel launch's time (ncu, the device's own clocks) of a
#                          100,000-element run (2 full-Newton steps) and of the 10,000 x 100-element
#                          sweep (2 modified-Newton steps): profile_*.csv, and per loop body and per
#                          cyclic-reduction level in profile_*.txt (scripts/kernel_times.py)
#                 gpu:     auto solver, 100 ... 1,000,000 elements, 3 repetitions, full and
#                          modified Newton; full Newton again without stage waits
#                 solvers: block_tridiagonal, chain_elimination and krylov, 100 ... 100,000
#                          elements, 10 steps; sparse_qr up to 10,000; the cable hung from a
#                          crane's boom (--crane: the block methods with a border, sparse QR; and
#                          with modified Newton against the plain cable, auto solver)
#                 sweep:   1 ... 10,000 copies of a 100-element cable, each block method, full and
#                          modified Newton; auto and modified Newton without stage waits; 1 ... 1,000
#                          copies of the 100-element crane (--crane: each boom a block of its chain),
#                          modified Newton, 10 steps
#                 check:   after a change, in about 5 minutes: the [gpu] tests, the benchmark at
#                          100,000 and 1,000,000 elements (full and modified Newton; full Newton
#                          again without stage waits, as runs go) and the 10,000-copy sweep
#                          (modified Newton, by the auto solver, interleaved chain elimination
#                          there since the thirty-seventh session, and by cyclic reduction), 3
#                          repetitions each
#                 graphs:  check's benchmarks with the block solver's CUDA graphs turned off
#                          (CATENARY_CUDA_GRAPHS=0), to set against check's (about 4 minutes)
#                 held:    check's full- and modified-Newton benchmarks and its sweep with held rows
#                          kept in the blocks (CATENARY_HELD_ROWS=0: 9-wide blocks), to set
#                          against check's (about 3 minutes)
#                 records: check's modified-Newton benchmarks and its sweep by chain elimination
#                          with one element record an element (CATENARY_SHARED_RECORDS=0) instead
#                          of the shared ones, then with the residual's sums by the gather
#                          (CATENARY_CHAIN_FORCES=0) instead of in the forces pass, to set against
#                          check's (about 6 minutes)
#                 methods: what preferred_block_method weighs for a sweep: 1,000 and 10,000 copies
#                          of a 100-element cable in full Newton, 100 and 1,000 in modified Newton,
#                          by cyclic reduction and by chain elimination, 10 steps (about 2 minutes)
#                 double:  check's modified-Newton benchmarks and its sweeps (cyclic reduction and
#                          chain elimination) with the Newton updates solved from the double factors
#                          (CATENARY_FLOAT_FACTORS=0) instead of their float copy, to set against
#                          check's (about 3 minutes)
#                 cpu:     the CPU backend on all cores, 100 ... 100,000 elements (3 repetitions) and
#                          1,000,000 elements (one run of 3 steps), full and modified Newton; and
#                          with chain elimination instead of UMFPACK, full Newton; the chain
#                          solver alone, a 1,000,000-element chain cut for 1 .. nproc threads on
#                          all cores, and in series (one thread) to measure an interior block's cost
#   -b BUILD_DIR  holds catenary_tests (or tests/catenary_tests) and catenary_benchmark, built with
#                 CATENARY_CUDA=ON for sm_90; built there (Release) when missing (default build-gpu).
#                 On a bare device machine: a directory made by scripts/pack_for_device.sh (its
#                 lib/ goes on LD_LIBRARY_PATH, and the source and binary paths the tests were
#                 compiled with are linked to this checkout and the packed CLI)
#   -o OUT_DIR    default results/gpu_session
#   -a ARCHIVE    also pack OUT_DIR into this .tgz when the script ends, however it ends (the device
#                 tool brings back at most 8 files from $OUT: use -o /tmp/... -a "$OUT/results.tgz")
#   -T SECONDS    stop any one benchmark after this long and go on with the next (a device call
#                 ends at 10 minutes with everything in it); default: no limit
# A benchmark that fails or is stopped leaves a note in its .txt file; the other parts still run.
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=build-gpu
out_dir=results/gpu_session
parts=()
limit=
archive=
while [[ $# -gt 0 ]]; do
  case "$1" in
    -b) build_dir=$2; shift 2 ;;
    -o) out_dir=$2; shift 2 ;;
    -a) archive=$2; shift 2 ;;
    -T) limit=$2; shift 2 ;;
    -h|--help) sed -n '2,89p' "$0"; exit 0 ;;
    tests|memcheck|casefile|frames|kernels|l1|groups|profile|gpu|solvers|sweep|check|graphs|held|records|methods|double|cpu) parts+=("$1"); shift ;;
    all) parts+=(tests memcheck kernels profile gpu solvers sweep cpu); shift ;;
    *) echo "unknown part '$1' (tests, memcheck, casefile, frames, kernels, l1, groups, profile, gpu, solvers, sweep, check, graphs, held, records, methods, double, cpu or all)" >&2; exit 2 ;;
  esac
done
[[ ${#parts[@]} -gt 0 ]] || { sed -n '2,89p' "$0"; exit 2; }
mkdir -p "$out_dir"
if [[ -n "$archive" ]]; then
  archive=$(realpath -m "$archive")
  trap 'tar czf "$archive" -C "$(dirname "$out_dir")" "$(basename "$out_dir")"' EXIT
fi
# On a device machine a [gpu] test that finds no usable device fails instead of skipping.
export CATENARY_REQUIRE_GPU=1

if [[ -f "$build_dir/source_dir" ]]; then  # a pack from scripts/pack_for_device.sh
  build_dir=$(realpath "$build_dir")
  export LD_LIBRARY_PATH="$build_dir/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  source_dir=$(cat "$build_dir/source_dir")
  binary_path=$(cat "$build_dir/binary_path")
  if [[ ! -e "$source_dir" ]]; then mkdir -p "$(dirname "$source_dir")"; ln -s "$PWD" "$source_dir"; fi
  if [[ ! -e "$binary_path" ]]; then mkdir -p "$(dirname "$binary_path")"; ln -s "$build_dir/catenary" "$binary_path"; fi
fi
if [[ ! -x "$build_dir/catenary_benchmark" ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCATENARY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target catenary_tests catenary_benchmark catenary_chain_solver_benchmark \
    catenary_element_pass_benchmark
fi
tests_exe="$build_dir/tests/catenary_tests"
[[ -x "$tests_exe" ]] || tests_exe="$build_dir/catenary_tests"

{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  git rev-parse --short HEAD 2>/dev/null || true
  nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version --format=csv 2>&1 || true
  echo "nproc $(nproc)"
  lscpu | grep -E 'Model name|^CPU\(s\)' || true
} > "$out_dir/machine.txt"

# bench NAME ARGS...: one benchmark.sh run, its output in NAME.txt and its CSVs in NAME/.
bench() {
  local name=$1
  shift
  ${limit:+timeout "$limit"} scripts/benchmark.sh --no-build -b "$build_dir" -o "$out_dir/$name" "$@" \
    > "$out_dir/$name.txt" 2>&1 || echo "benchmark stopped or failed (exit $?)" >> "$out_dir/$name.txt"
}

gpu_tests() {
  ${limit:+timeout "$limit"} "$tests_exe" "[gpu]" > "$out_dir/gpu_tests.txt" 2>&1 ||
    echo "[gpu] tests FAILED or stopped (exit $?)" >> "$out_dir/gpu_tests.txt"
}

for part in "${parts[@]}"; do
  case "$part" in
    tests) gpu_tests ;;
    memcheck)
      ${limit:+timeout "$limit"} compute-sanitizer --tool memcheck --target-processes application-only --error-exitcode 3 "$tests_exe" "[gpu]" "~*compare*" "~*scale*" \
        > "$out_dir/gpu_memcheck.txt" 2>&1 || echo "memcheck FAILED or stopped (exit $?)" >> "$out_dir/gpu_memcheck.txt"
      # The element passes that share memory between a block's threads (staged rows, the Jacobian block pass).
      ${limit:+timeout "$limit"} compute-sanitizer --tool racecheck --error-exitcode 3 "$build_dir/catenary_element_pass_benchmark" 1000 \
        > "$out_dir/element_pass_racecheck.txt" 2>&1 || echo "racecheck FAILED or stopped (exit $?)" >> "$out_dir/element_pass_racecheck.txt"
      # Interleaved chain elimination's groups: 32 chains a thread block, shared memory between barriers.
      ${limit:+timeout "$limit"} compute-sanitizer --tool racecheck --error-exitcode 3 "$build_dir/catenary_benchmark" \
        --backend cuda --solver chain_elimination --newton modified --steps 3 --sweep 100 40 \
        > "$out_dir/chain_groups_racecheck.txt" 2>&1 || echo "racecheck FAILED or stopped (exit $?)" >> "$out_dir/chain_groups_racecheck.txt" ;;
    casefile)
      # The 10,000-copy sweep as a user runs it: the case file loaded, merged and written per copy.
      { for backend in cuda cpu; do
          echo "== catenary run scripts/cable_sweep_10000.json --backend $backend"
          ${limit:+timeout "$limit"} /usr/bin/time -v "$build_dir/catenary" run scripts/cable_sweep_10000.json \
            --backend "$backend" --out "/tmp/casefile_$backend" 2>&1 | grep -v "^\s*\(Average\|Socket\|Signals\|Swaps\|File system\|Page size\|Exit status\|Voluntary\|Involuntary\|Minor\|Major\)" ||
            echo "stopped or failed (exit $?)"
          rm -rf "/tmp/casefile_$backend"
        done; } > "$out_dir/casefile.txt" 2>&1 ;;
    frames)
      # What an output frame costs: the 10,000-copy case-file sweep for 20 steps by modified Newton,
      # output at the end only, then at every step (a frame's cost: the difference over 19 more
      # frames; the run's own "output" figure too); then the benchmark's 1,000,000-element cable, whose
      # out_ms is its two frames with no writing.
      { "$build_dir/catenary_transfer_benchmark" 2>&1 || echo "stopped or failed (exit $?)"
        for every in 0.02 0.001; do
          echo "== catenary run: scripts/cable_sweep_10000.json, 20 steps, modified Newton, output every $every s"
          python3 -c 'import json, sys; c = json.load(open("scripts/cable_sweep_10000.json"))
c["analysis"].update(end_time=0.02, newton="modified"); c["output"]["interval"] = float(sys.argv[1])
json.dump(c, open("/tmp/frames_case.json", "w"))' "$every"
          ${limit:+timeout "$limit"} /usr/bin/time -f "wall %e s, peak %M kB" "$build_dir/catenary" run /tmp/frames_case.json \
            --backend cuda --out /tmp/frames_out 2>&1 | grep -v "%  t =" || echo "stopped or failed (exit $?)"
          rm -rf /tmp/frames_out
        done
        ${limit:+timeout "$limit"} "$build_dir/catenary_benchmark" --backend cuda --steps 10 1000000 2>&1 ||
          echo "stopped or failed (exit $?)"; } > "$out_dir/frames.txt" 2>&1 ;;
    kernels)
      ${limit:+timeout "$limit"} "$build_dir/catenary_element_pass_benchmark" 100000 1000000 \
        > "$out_dir/element_pass.txt" 2>&1 || echo "stopped or failed (exit $?)" >> "$out_dir/element_pass.txt" ;;
    l1)
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      ${limit:+timeout "$limit"} "$ncu" --kernel-name-base demangled \
        -k 'regex:item_loop<\(int\)256, \(int\)2, catenary::cuda::ElementPass<\(int\)3, \(bool\)0, \(bool\)0>|jacobian_block_loop<\(int\)3, \(bool\)0>' \
        --launch-count 64 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section SourceCounters --print-details all \
        "$build_dir/catenary_element_pass_benchmark" 1000000 > "$out_dir/l1_forces.txt" 2>&1 ||
        echo "stopped or failed (exit $?)" >> "$out_dir/l1_forces.txt" ;;
    groups)
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      ${limit:+timeout "$limit"} "$ncu" --kernel-name-base demangled -k 'regex:shared_block_loop' --launch-count 8 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section LaunchStats --section Occupancy --section SourceCounters \
        "$build_dir/catenary_benchmark" --backend cuda --solver chain_elimination --steps 2 --sweep 100 1000 \
        > "$out_dir/groups_ncu.txt" 2>&1 || echo "stopped or failed (exit $?)" >> "$out_dir/groups_ncu.txt" ;;
    profile)
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      for run in "100k 100000" "sweep --sweep 100 --newton modified 10000"; do
        name=${run%% *}
        # shellcheck disable=SC2086  # the run's arguments split on purpose
        ${limit:+timeout "$limit"} "$ncu" --csv --clock-control none --metrics gpu__time_duration.sum \
          --log-file "$out_dir/profile_$name.csv" "$build_dir/catenary_benchmark" --backend cuda --steps 2 \
          ${run#* } > "$out_dir/profile_${name}_run.txt" 2>&1 ||
          echo "stopped or failed (exit $?)" >> "$out_dir/profile_${name}_run.txt"
        python3 scripts/kernel_times.py "$out_dir/profile_$name.csv" > "$out_dir/profile_$name.txt" 2>&1 || true
      done ;;
    gpu)
      for newton in full modified; do
        bench "gpu_$newton" -B cuda -N "$newton" -r 3 -- 100 1000 10000 100000 1000000
      done
      bench gpu_full_no_stage_times -B cuda --no-stage-times -r 3 -- 100 1000 10000 100000 1000000 ;;
    solvers)
      # Sparse QR's fill grows fast on these matrices: up to 10,000 elements only.
      bench gpu_sparse_qr -B cuda -L sparse_qr -r 3 -s 10 -- 100 1000 10000
      for solver in block_tridiagonal chain_elimination krylov; do
        bench "gpu_$solver" -B cuda -L "$solver" -r 3 -s 10 -- 100 1000 10000 100000
      done
      # The cable hung from a crane's boom: the block methods with a border against sparse QR.
      bench gpu_crane_sparse_qr -B cuda -L sparse_qr --crane -r 3 -s 10 -- 100 1000 10000
      for solver in block_tridiagonal chain_elimination; do
        bench "gpu_crane_$solver" -B cuda -L "$solver" --crane -r 3 -s 10 -- 100 1000 10000 100000
      done
      # Modified Newton, where the solves dominate: the crane's against the plain cable's.
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
    check)
      gpu_tests
      for newton in full modified; do
        bench "check_$newton" -B cuda -N "$newton" -r 3 -- 100000 1000000
      done
      bench check_full_no_stage_times -B cuda --no-stage-times -r 3 -- 100000 1000000
      bench check_sweep_modified -B cuda -N modified -S 100 -r 3 -- 10000
      bench check_sweep_reduction -B cuda -N modified -S 100 -L block_tridiagonal -r 3 -- 10000 ;;
    graphs)
      for newton in full modified; do
        CATENARY_CUDA_GRAPHS=0 bench "nographs_$newton" -B cuda -N "$newton" -r 3 -- 100000 1000000
      done
      CATENARY_CUDA_GRAPHS=0 bench nographs_full_no_stage_times -B cuda --no-stage-times -r 3 -- 100000 1000000
      CATENARY_CUDA_GRAPHS=0 bench nographs_sweep_modified -B cuda -N modified -S 100 -r 3 -- 10000 ;;
    held)
      for newton in full modified; do
        CATENARY_HELD_ROWS=0 bench "noheld_$newton" -B cuda -N "$newton" -r 3 -- 100000 1000000
      done
      CATENARY_HELD_ROWS=0 bench noheld_sweep_modified -B cuda -N modified -S 100 -r 3 -- 10000 ;;
    records)
      CATENARY_SHARED_RECORDS=0 bench own_records_modified -B cuda -N modified -r 3 -- 100000 1000000
      CATENARY_SHARED_RECORDS=0 bench own_records_sweep_elimination -B cuda -N modified -S 100 -L chain_elimination -r 3 -- 10000
      CATENARY_CHAIN_FORCES=0 bench gathered_modified -B cuda -N modified -r 3 -- 100000 1000000
      CATENARY_CHAIN_FORCES=0 bench gathered_sweep_elimination -B cuda -N modified -S 100 -L chain_elimination -r 3 -- 10000 ;;
    methods)
      # What preferred_block_method weighs for a sweep: a factorization an iteration (full Newton)
      # and the solves (modified), by each block method, 10 steps.
      for solver in block_tridiagonal chain_elimination; do
        bench "methods_full_$solver" -B cuda -L "$solver" -S 100 -r 3 -s 10 -- 1000 10000
        bench "methods_modified_$solver" -B cuda -L "$solver" -N modified -S 100 -r 3 -s 10 -- 100 1000
      done ;;
    double)
      CATENARY_FLOAT_FACTORS=0 bench double_modified -B cuda -N modified -r 3 -- 100000 1000000
      CATENARY_FLOAT_FACTORS=0 bench double_sweep_modified -B cuda -N modified -S 100 -r 3 -- 10000
      CATENARY_FLOAT_FACTORS=0 bench double_sweep_elimination -B cuda -N modified -S 100 -L chain_elimination -r 3 -- 10000
      CATENARY_FLOAT_FACTORS=0 bench double_sweep_no_stage_times -B cuda -N modified -S 100 --no-stage-times -r 3 -- 10000 ;;
    cpu)
      for newton in full modified; do
        bench "cpu_$newton" -B cpu -N "$newton" -r 3 -s 20 -- 100 1000 10000 100000
        bench "cpu_1m_$newton" -B cpu -N "$newton" -r 1 -s 3 -- 1000000
      done
      bench cpu_chains -B cpu -L chain_elimination -r 3 -s 10 -- 100 1000 10000 100000 1000000
      ${limit:+timeout "$limit"} "$build_dir/catenary_chain_solver_benchmark" 1000000 "$(nproc)" 5 \
        > "$out_dir/cpu_chain_solver.txt" 2>&1 || echo "stopped or failed (exit $?)" >> "$out_dir/cpu_chain_solver.txt"
      OMP_NUM_THREADS=1 ${limit:+timeout "$limit"} "$build_dir/catenary_chain_solver_benchmark" 100000 8 5 \
        > "$out_dir/cpu_chain_solver_series.txt" 2>&1 ||
        echo "stopped or failed (exit $?)" >> "$out_dir/cpu_chain_solver_series.txt" ;;
  esac
done
echo "results in $out_dir"
