"""The falling cable pendulum (cases/falling_cable_pendulum.json) from Python: run it at two
stiffnesses and plot the free end's path and the energies of each.

    PYTHONPATH=build/python python3 python/examples/falling_cable.py [--end-time T] [--out PNG]
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
    parser.add_argument("--end-time", type=float, default=2.0)
    parser.add_argument("--out", default="falling_cable.png")
    args = parser.parse_args()
    figure, (paths, energies) = plt.subplots(1, 2, figsize=(11, 4.5))
    for modulus in (2e9, 2e7):
        case = catenary.Case.load(os.path.join(CASES, "falling_cable_pendulum.json"))
        case.set("/analysis/end_time", args.end_time)
        case.set("/model/materials/polymer/youngs_modulus", modulus)
        results = case.run()
        tip = results.node("cable", "end")
        paths.plot(tip[:, 0], tip[:, 2], label=f"E = {modulus:.0e} Pa")
        energies.plot(results.time, results.energies["total"] - results.energies["total"][0],
                      label=f"E = {modulus:.0e} Pa")
    paths.set(title="the free end's path", xlabel="x (m)", ylabel="z (m)", aspect="equal")
    energies.set(title="total energy less its initial value", xlabel="time (s)", ylabel="J")
    for ax in (paths, energies):
        ax.grid(True, alpha=0.3)
        ax.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(args.out)


if __name__ == "__main__":
    main()
