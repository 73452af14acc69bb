"""A clamped bar's modes (cases/cantilever_modes.json) from Python: its frequencies against
Euler-Bernoulli's and its first bending shapes along the bar.

    PYTHONPATH=build/python python3 python/examples/cantilever_modes.py [--elements N] [--out PNG]
"""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import catenary  # noqa: E402

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")
# Roots of cos(x) cosh(x) = -1: the clamped-free bar's bending modes, w = (beta L)^2 sqrt(EI / rho A L^4).
BETA_L = (1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349, 14.1371683910)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=32)
    parser.add_argument("--out", default="cantilever_modes.png")
    args = parser.parse_args()
    case = catenary.Case.load(os.path.join(CASES, "cantilever_modes.json"))
    case.set("/model/bodies/0/elements", args.elements)
    case.set("/output/vtu", False)
    results = case.run()
    E, rho, side = 2.1e11, 7800.0, 0.02
    scale = math.sqrt(E * side ** 2 / 12 / rho) / (2 * math.pi)
    figure, (frequencies, shapes) = plt.subplots(1, 2, figsize=(11, 4.5))
    found = results.natural_frequencies
    frequencies.plot(range(1, len(found) + 1), found, "o", label="catenary (axial mode included)")
    frequencies.plot(range(1, len(BETA_L) + 1), [b * b * scale for b in BETA_L], "x", label="Euler-Bernoulli bending")
    frequencies.set(title="natural frequencies", xlabel="mode", ylabel="Hz", yscale="log")
    x = results.q[-1][0::4]  # each node's x, y, x', y' at the equilibrium
    for k in range(4):
        shapes.plot(x, results.mode_shapes[k, 1::4].real, label=f"{found[k]:.2f} Hz")
    shapes.set(title="shapes across the bar (1 at the largest)", xlabel="x (m)", ylabel="y")
    for ax in (frequencies, shapes):
        ax.grid(True, alpha=0.3)
        ax.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(args.out)


if __name__ == "__main__":
    main()
