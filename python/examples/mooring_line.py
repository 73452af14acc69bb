"""A chain mooring line in waves (cases/mooring_line_waves.json) from Python, from its static
equilibrium: the fairlead tension and the touchdown point over time, at two wave heights.

    PYTHONPATH=build/python python3 python/examples/mooring_line.py [--end-time T] [--out PNG]
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import catenary  # noqa: E402

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--end-time", type=float, default=30.0)
    parser.add_argument("--out", default="mooring_line.png")
    args = parser.parse_args()
    case = catenary.Case.load(os.path.join(CASES, "mooring_line_waves.json"))
    case.set("/analysis/end_time", args.end_time)
    height = case.get("/model/water/waves/height")
    figure, (tension, touchdown) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for scale in (1.0, 2.0):
        case.set("/model/water/waves/height", scale * height)
        results = case.run()
        label = f"wave height {scale * height:g} m"
        tension.plot(results.time, results.columns["line.end.tension"] / 1e3, label=label)
        touchdown.plot(results.time, results.columns["line.touchdown"], label=label)
    tension.set(ylabel="fairlead tension (kN)")
    touchdown.set(ylabel="touchdown arc length (m)", xlabel="time (s)")
    for ax in (tension, touchdown):
        ax.grid(True, alpha=0.3)
        ax.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(args.out)


if __name__ == "__main__":
    main()
