#!/usr/bin/env bash
# The OC3-Hywind mooring benchmark (docs/performance.md, "Mooring"): cases/oc3_mooring_waves.json
# (three 902.2 m chain lines in a regular wave, the spar moved by it, from the static equilibrium)
# with ELEMENTS elements a line, run for END_TIME s of simulated time, REPS times. Prints each
# run's wall time, real-time factor (simulated over wall seconds), steps, rejected steps, mean step
# and Newton iterations, then the medians. With --designs N the case is a sweep of N line designs
# (the three lines' unstretched length from 897.2 to 907.2 m) run as one batch, and the figure of
# merit is designs an hour: N x 3 h of simulated time over the wall time that 3 h would take.
#
#   scripts/oc3_benchmark.sh [-B cpu|cuda] [-e ELEMENTS] [-T END_TIME] [-r REPS] [-t THREADS]
#                            [--designs N] [-b BUILD_DIR] [-o OUT_DIR]
#
#   -B BACKEND   cpu (default) or cuda (a build with the CUDA backend, on a machine with a GPU)
#   -e ELEMENTS  elements a line (default 50; the case's)
#   -T END_TIME  simulated seconds (default 10800: the benchmark's 3 hours)
#   -r REPS      repetitions (default 3)
#   -t THREADS   OMP_NUM_THREADS (default 1: one core)
#   -b BUILD_DIR where catenary is built (default build; built there if missing)
#   -o OUT_DIR   the runs' outputs (default results/oc3_benchmark)
set -euo pipefail
cd "$(dirname "$0")/.."
backend=cpu elements=50 end_time=10800 reps=3 threads=1 designs=0 build_dir=build out=results/oc3_benchmark
while [ $# -gt 0 ]; do
  case $1 in
    -B) backend=$2; shift 2 ;;
    -e) elements=$2; shift 2 ;;
    -T) end_time=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -t) threads=$2; shift 2 ;;
    --designs) designs=$2; shift 2 ;;
    -b) build_dir=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    *) echo "oc3_benchmark.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$build_dir/catenary" ] || bash scripts/build.sh --build-dir "$build_dir"
mkdir -p "$out"
variant="$out/oc3_e${elements}_T${end_time}_d${designs}.json"
python3 - "$variant" "$elements" "$end_time" "$designs" <<'EOF'
import json, sys
path, elements, end_time, designs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
case = json.load(open("cases/oc3_mooring_waves.json"))
for body in case["model"]["bodies"]:
    body["elements"] = elements
case["analysis"]["end_time"] = end_time
case["output"]["interval"] = 10.0  # a frame a wave period: the run, not its writing
case["output"]["vtu"] = False
if designs > 0:
    lengths = [897.2 + 10.0 * k / max(designs - 1, 1) for k in range(designs)]
    case["sweep"] = {"parameters": [{"path": "/model/bodies/%d/length" % i, "values": lengths} for i in range(3)]}
json.dump(case, open(path, "w"), indent=1)
EOF
echo "oc3 benchmark: $elements elements a line, $end_time s, backend $backend, $threads thread(s), designs $designs"
echo "run,wall_s,realtime_factor,steps,rejected,mean_step_s,newton_iterations"
rows=()
for r in $(seq 1 "$reps"); do
  dir="$out/run_$r"
  start=$(date +%s.%N)
  OMP_NUM_THREADS=$threads "$build_dir/catenary" run "$variant" --backend "$backend" --out "$dir" >"$dir.log" 2>&1 ||
    { echo "run $r failed:"; tail -5 "$dir.log"; exit 1; }
  end=$(date +%s.%N)
  summary="$dir/summary.json"
  [ "$designs" -gt 0 ] && summary="$dir/copy_0000/summary.json"
  # The wall time of the whole command: loading, the static start, the run and its output.
  row=$(python3 - "$summary" "$end_time" "$r" "$start" "$end" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
T, wall = float(sys.argv[2]), float(sys.argv[5]) - float(sys.argv[4])
print("%s,%.2f,%.3f,%d,%d,%.4f,%d" % (sys.argv[3], wall, T / wall, s["steps"], s["rejected_steps"], T / s["steps"],
                                      s["newton_iterations"]))
EOF
)
  echo "$row"
  rows+=("$row")
done
printf '%s\n' "${rows[@]}" | python3 -c "
import statistics, sys
rows = [line.split(',') for line in sys.stdin if line.strip()]
wall = statistics.median(float(r[1]) for r in rows)
factor = statistics.median(float(r[2]) for r in rows)
print('median: wall %.2f s, real-time factor %.3f' % (wall, factor), end='')
designs = $designs
if designs > 0:
    print(', %.1f designs of 3 h an hour' % (designs * factor * 3600.0 / 10800.0))
else:
    print()
"
