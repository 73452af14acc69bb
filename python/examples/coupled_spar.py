"""A spar moored by catenary's lines, its surge integrated here (cases/oc3_coupled_platform.json):
a steady current force pushes it off until the lines hold it. The Python counterpart of
scripts/coupled_platform.c, in one degree of freedom.

    PYTHONPATH=build/python python3 python/examples/coupled_spar.py [--end-time T] [--force F]
"""
import argparse
import os

import numpy as np

import catenary

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--end-time", type=float, default=120.0)
    parser.add_argument("--force", type=float, default=4e5, help="the current's force along x, N")
    args = parser.parse_args()
    mass, damping, dt = 7.466e6 + 7.9e6, 2e6, 0.1  # with added mass; heavy damping settles it soon
    run = catenary.Case.load(os.path.join(CASES, "oc3_coupled_platform.json")).coupled().initialize(True)
    x = v = 0.0
    rest = run.loads()[0, 0]
    while run.time < args.end_time - 1e-9:
        lines = run.loads()[0, 0] - rest
        v += dt * (args.force + lines - damping * v) / mass
        x += dt * v
        run.advance(run.time + dt, np.array([[x, 0, 0, 0, 0, 0]]), np.array([[v, 0, 0, 0, 0, 0]]))
    lines = run.loads()[0, 0] - rest
    print(f"t = {run.time:.1f} s: surge {x:.3f} m, the lines pull {lines:.4g} N against {args.force:.4g} N")


if __name__ == "__main__":
    main()
