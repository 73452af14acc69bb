#!/usr/bin/env bash
# Builds the solver benchmark (Release) and runs it R times; prints the median of every column per n.
#
#   scripts/benchmark.sh [-B cpu|cuda|cuda-host] [-L SOLVER] [-S ELEMENTS] [--crane] [--seabed F] [--water] [-r REPS] [-t THREADS]
#                        [-s STEPS] [-H STEP] [-N NEWTON]
#                        [-b BUILD_DIR] [-o OUT_DIR]
#                        [--no-stage-times] [--no-build] [-- n ...]
#
#   -B BACKEND    cpu (default) or cuda (builds with CUDA for sm_90, the H100/H200); cuda-host
#                 runs the CUDA backend's code on the host (same build as cuda; algorithms, not speed)
#   -L SOLVER     the linear solver: auto (default), block_tridiagonal, chain_elimination, sparse_qr or
#                 krylov (the CPU backend takes chain_elimination, and UMFPACK for any other)
#   -S ELEMENTS   sweep benchmark: each n is a number of copies of an ELEMENTS-element cable run
#                 as one batch
#   --crane       the cable hangs from a rigid boom's tip (a chain with a border of 16 unknowns;
#                 with -S, copies of the crane, each boom a block of its cable's chain)
#   --seabed F    the far fraction F of each cable lies on a frictional seabed (docs/performance.md,
#                 Contact)
#   --water       the cable falls through water with a current and a wave (docs/performance.md, Water)
#   -r REPS       repetitions (default 3)
#   -t THREADS    OMP_NUM_THREADS (default: all cores, nproc)
#   -s STEPS      HHT steps per run (default 50, the benchmark's default)
#   -H STEP       fixed time step in s (default 1e-3, the benchmark's default)
#   -N NEWTON     full (default: a Newton matrix per iteration) or modified (one per step)
#   -b BUILD_DIR  build directory (default build-bench, or build-bench-cuda). Configured with
#                 -DCATENARY_BENCHMARKS=ON -DBUILD_TESTING=OFF, and -DCATENARY_CUDA=OFF for the CPU
#                 backend; a separate directory keeps it from racing other builds in build/.
#   -o OUT_DIR    where the per-repetition CSVs and medians go (default results/BACKEND_benchmark)
#   --no-stage-times  no device waits between stages (stage columns 0; see catenary_benchmark)
#   --no-build    skip the build
#   n ...         element counts (default 8 16 32 ... 16384)
set -euo pipefail

cd "$(dirname "$0")/.."
backend=cpu
sweep=()
crane=()
seabed=()
water=()
solver=()
stage_times=()
reps=3
threads=$(nproc)
steps=50
step=1e-3
newton=full
build_dir=
out_dir=
build=1
sizes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -B) backend=$2; shift 2 ;;
    -S) sweep=(--sweep "$2"); shift 2 ;;
    --crane) crane=(--crane); shift ;;
    --seabed) seabed=(--seabed "$2"); shift 2 ;;
    --water) water=(--water); shift ;;
    -L) solver=(--solver "$2"); shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -t) threads=$2; shift 2 ;;
    -s) steps=$2; shift 2 ;;
    -H) step=$2; shift 2 ;;
    -N) newton=$2; shift 2 ;;
    -b) build_dir=$2; shift 2 ;;
    -o) out_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-stage-times) stage_times=(--no-stage-times); shift ;;
    --) shift; sizes=("$@"); break ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) sizes+=("$1"); shift ;;
  esac
done

case "$backend" in
  cpu) cuda_flags=(-DCATENARY_CUDA=OFF); : "${build_dir:=build-bench}" ;;
  cuda|cuda-host) cuda_flags=(-DCATENARY_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90); : "${build_dir:=build-bench-cuda}" ;;
  *) echo "unknown backend '$backend' (cpu, cuda or cuda-host)" >&2; exit 2 ;;
esac
: "${out_dir:=results/${backend}_benchmark}"
if [[ $build -eq 1 ]]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${cuda_flags[@]}" -DCATENARY_BENCHMARKS=ON -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$build_dir" -j"$(nproc)" --target catenary_benchmark
fi
exe="$build_dir/catenary_benchmark"
mkdir -p "$out_dir"
export OMP_NUM_THREADS=$threads

echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'), backend=$backend, OMP_NUM_THREADS=$OMP_NUM_THREADS, steps=$steps, step=$step, newton=$newton, reps=$reps"
csvs=()
for ((r = 1; r <= reps; ++r)); do
  csv="$out_dir/run_t${threads}_${r}.csv"
  echo "## repetition $r"
  errors="$out_dir/stderr_t${threads}_${r}.txt"
  # Exit 1: some sizes failed, each with its reason in the status column; anything else (bad
  # arguments, no usable backend, a crash) stops the script with catenary_benchmark's own words.
  status=0
  "$exe" --backend "$backend" "${sweep[@]}" "${crane[@]}" "${seabed[@]}" "${water[@]}" "${solver[@]}" "${stage_times[@]}" \
    --steps "$steps" --step "$step" \
    --newton "$newton" --csv "$csv" "${sizes[@]}" 2>"$errors" || status=$?
  if [[ $status -ne 0 && $status -ne 1 ]]; then
    echo "catenary_benchmark failed (exit $status, repetition $r); $errors:" >&2
    tail -5 "$errors" >&2
    exit "$status"
  fi
  csvs+=("$csv")
done

python3 - "$out_dir/medians_t${threads}.csv" "${csvs[@]}" <<'EOF'
import csv, statistics, sys
out, files = sys.argv[1], sys.argv[2:]
rows = {}
order = []
for f in files:
    with open(f) as fh:
        for r in csv.DictReader(fh):
            n = int(r["n"])
            if n not in rows:
                rows[n] = []
                order.append(n)
            rows[n].append(r)
cols = ["newton_per_step", "wall_ms_per_step", "step_ms", "ms_per_newton", "element_ms_per_step",
        "assembly_ms_per_step", "factorization_ms_per_step", "solve_ms_per_step",
        "other_ms_per_step", "setup_ms", "cold_start_ms", "initial_state_ms", "output_ms", "krylov_per_newton", "element_gb_s", "element_peak_fraction", "peak_mib", "estimated_device_mib"]
short = ["it/step", "wall/step", "step", "ms/newton", "element", "assembly", "factor", "solve", "other", "setup_ms",
         "cold_ms", "init_ms", "out_ms", "kry/newton", "el GB/s", "peak frac", "peak MiB", "est MiB"]
print(f"# medians of {len(files)} repetitions, per-step times in ms")
print(f"{'n':>7} {'dofs':>8} {'steps':>6} " + " ".join(f"{s:>10}" for s in short) + "  status  solver")
with open(out, "w") as fh:
    fh.write("n,dofs,steps," + ",".join(cols) + ",runs,status,solver\n")
    for n in sorted(order):
        rs = rows[n]
        med = [statistics.median(float(r[c]) for r in rs) for c in cols]
        status = "ok" if all(r["status"] == "ok" for r in rs) else "FAILED"
        solver = rs[0].get("solver", "")
        print(f"{n:>7} {rs[0]['dofs']:>8} {rs[0]['steps']:>6} " + " ".join(f"{v:>10.3f}" for v in med) + f"  {status}  {solver}")
        fh.write(f"{n},{rs[0]['dofs']},{rs[0]['steps']}," + ",".join(f"{v:.6f}" for v in med) + f",{len(rs)},{status},{solver}\n")
print(f"# medians written to {out}")
EOF
