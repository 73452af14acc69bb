"""The shipped sweep (cases/cable_sweep.json: three moduli and lengths) from Python: its table,
and each copy's free end falling.

    PYTHONPATH=build/python python3 python/examples/cable_sweep.py [--out PNG]
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
    parser.add_argument("--out", default="cable_sweep.png")
    args = parser.parse_args()
    sweep = catenary.Case.load(os.path.join(CASES, "cable_sweep.json")).run()
    moduli = sweep.table["/model/materials/polymer/youngs_modulus"]
    figure, ax = plt.subplots(figsize=(8, 4.5))
    for k, modulus in enumerate(moduli):
        copy = sweep.copy(k)
        ax.plot(copy["time"], copy["cable.end.z"], label=f"E = {modulus:.0e} Pa: largest tension "
                f"{sweep.table['cable.largest_tension'][k]:.3g} N")
    ax.set(title="the free end's height", xlabel="time (s)", ylabel="z (m)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(args.out)


if __name__ == "__main__":
    main()
