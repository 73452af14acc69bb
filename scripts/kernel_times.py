#!/usr/bin/env python3
"""Kernel times from an Nsight Compute profile, summed per loop body and listed per solver level.

What you get: where a run's GPU time goes. Profile a run with

    ncu --csv --clock-control none --metrics gpu__time_duration.sum --log-file PROFILE.csv \\
        build/catenary_benchmark --backend cuda --steps 2 100000

(scripts/gpu_benchmarks.sh profile does this for two runs), then this prints, per loop body (the
catenary functor a Thrust/CUB kernel runs, named as scripts/kernel_resources.sh names them), the
launches, total and median microseconds and the share of the kernel time; then, for the block
solvers' level kernels, each launch in order: the time of every level of the cyclic reduction,
which the benchmark's stage columns give only summed (docs/performance.md, "Cost model and bounds":
the latency of a level).

    scripts/kernel_times.py PROFILE.csv [--levels N]    (N: level launches listed per kernel, default 40)
"""
import csv
import re
import statistics
import sys
from collections import OrderedDict

LEVEL_KERNELS = ("FactorOdd", "PremultiplyOdd", "UpdateEven", "FactorLeft", "SolveOdd", "ReduceEven", "BackSubstituteOdd",
                 "SolveLeft")
TO_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def body(kernel_name):
    """The catenary functor in a kernel's demangled name, or the name's head for other kernels."""
    # An anonymous namespace is "(anonymous namespace)" in older ncu versions, "<unnamed>" in newer.
    m = re.search(r"catenary::(?:cuda::)?(?:(?:\(anonymous namespace\)|<unnamed>)::)?([A-Z]\w*(?:<[^<>]*>)?)", kernel_name)
    if m:
        return m.group(1)
    return kernel_name.split("(")[0][:60]


def read_launches(path):
    """(body, microseconds) for each launch in the profile's order."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own notes are not quoted
    launches = []
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        launches.append((body(row["Kernel Name"]), value * TO_US[row.get("Metric Unit", "nsecond")]))
    return launches


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    listed = int(args[args.index("--levels") + 1]) if "--levels" in args else 40
    try:
        launches = read_launches(args[0])
    except OSError as e:
        print(f"{args[0]}: {e.strerror}", file=sys.stderr)
        return 1
    if not launches:
        print(f"{args[0]}: no gpu__time_duration.sum rows", file=sys.stderr)
        return 1
    by_body = OrderedDict()
    for name, us in launches:
        by_body.setdefault(name, []).append(us)
    total = sum(us for _, us in launches)
    print(f"{len(launches)} launches, {total / 1e3:.3f} ms of kernel time in all")
    print(f"{'loop body':<48} {'launches':>8} {'total ms':>10} {'share':>6} {'median us':>10}")
    for name, times in sorted(by_body.items(), key=lambda item: -sum(item[1])):
        print(f"{name:<48} {len(times):>8} {sum(times) / 1e3:>10.3f} {100 * sum(times) / total:>5.1f}% "
              f"{statistics.median(times):>10.1f}")
    for name in LEVEL_KERNELS:
        if name in by_body:
            times = by_body[name][:listed]
            print(f"\n{name}, launches in order (us): " + " ".join(f"{us:.1f}" for us in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
