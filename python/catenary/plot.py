"""The standard plots of a run, with matplotlib: energies, node paths, line tensions, reactions, a
sweep's table. Each function draws on an Axes (a new figure's where none is given) and returns it.

    python3 -m catenary.plot RESULTS_DIR [--out DIR]

writes a run's standard plots as PNG files (energies.png, nodes.png, tensions.png, reactions.png,
those its results have) from its results.csv, or a sweep's (sweep.png) from its sweep.csv.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files, not windows: runs on a cluster node or in CI alike
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _axes(ax, title):
    if ax is None:
        ax = plt.figure(figsize=(8, 4.5)).add_subplot()
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return ax


def read_columns(path):
    """A CSV file of catenary's (results.csv, sweep.csv) as {column: array}; text columns as lists."""
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    columns = {}
    for k, name in enumerate(rows[0]):
        values = [row[k] for row in rows[1:]]
        try:
            columns[name] = np.array([float(x) for x in values])
        except ValueError:
            columns[name] = values
    return columns


def _over_time(columns, curves, title, unit, ax, **legend):
    """curves: (label, column name) pairs, each drawn against time."""
    ax = _axes(ax, title)
    for label, name in curves:
        ax.plot(columns["time"], columns[name], label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(unit)
    ax.legend(**legend)
    return ax


def energies(columns, ax=None):
    names = [n for n in ("kinetic_energy", "gravitational_energy", "elastic_energy", "total_energy") if n in columns]
    return _over_time(columns, [(n.replace("_", " "), n) for n in names], "energies", "J", ax)


def node_paths(columns, ax=None):
    """Each output node's path in the plane of its two largest motions."""
    ax = _axes(ax, "node paths")
    nodes = sorted({name[:-2] for name in columns if name.endswith(".x") and name[:-2] + ".y" in columns
                    and not name.startswith(("line.", "touchdown"))})
    for node in nodes:
        if f"{node}.vx" not in columns:
            continue
        axes = [c for c in ("x", "y", "z") if f"{node}.{c}" in columns]
        spans = [np.ptp(columns[f"{node}.{c}"]) for c in axes]
        first, second = (axes[i] for i in sorted(np.argsort(spans)[-2:]))
        ax.plot(columns[f"{node}.{first}"], columns[f"{node}.{second}"], label=f"{node} ({first}, {second})")
    ax.set_xlabel("m")
    ax.set_ylabel("m")
    ax.set_aspect("equal", adjustable="datalim")
    if nodes:
        ax.legend()
    return ax


def tensions(columns, ax=None):
    curves = [(n[: -len(".tension")], n) for n in columns if n.endswith(".tension")]
    return _over_time(columns, curves, "line tensions", "N", ax)


def reactions(columns, ax=None):
    curves = [(n[len("reaction."):], n) for n in columns if n.startswith("reaction.")]
    return _over_time(columns, curves, "constraint reactions", "N (or N m)", ax, fontsize="small", ncol=2)


def sweep_table(columns, x, y, ax=None):
    """One column of a sweep's table against another (a parameter against a result)."""
    ax = _axes(ax, f"{y} against {x}")
    ax.plot(columns[x], columns[y], "o-")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    return ax


def _save(ax, path):
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=120)
    plt.close(ax.figure)
    return path


def plot_directory(directory, out=None):
    """Writes the standard plots of the run (or sweep) in `directory` into `out` (default: the
    same directory); returns the files written."""
    out = out or directory
    os.makedirs(out, exist_ok=True)
    written = []
    sweep = os.path.join(directory, "sweep.csv")
    if os.path.exists(sweep):
        table = read_columns(sweep)
        numeric = [name for name, values in table.items() if isinstance(values, np.ndarray)]
        # Parameters are named by their JSON pointers; the chosen per-copy results follow the last frame's columns.
        parameters = [name for name in numeric if name.startswith("/") and np.ptp(table[name]) > 0]
        results = [name for name in numeric if name.endswith(".largest_tension") or "(" in name or "@" in name]
        results = results or [name for name in numeric if name == "total_energy"]
        if parameters and results:
            written.append(_save(sweep_table(table, parameters[0], results[0]), os.path.join(out, "sweep.png")))
        return written
    columns = read_columns(os.path.join(directory, "results.csv"))
    written.append(_save(energies(columns), os.path.join(out, "energies.png")))
    if any(name.endswith(".vx") for name in columns):
        written.append(_save(node_paths(columns), os.path.join(out, "nodes.png")))
    if any(name.endswith(".tension") for name in columns):
        written.append(_save(tensions(columns), os.path.join(out, "tensions.png")))
    if any(name.startswith("reaction.") for name in columns):
        written.append(_save(reactions(columns), os.path.join(out, "reactions.png")))
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m catenary.plot", description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="a run's (or a sweep's) output directory")
    parser.add_argument("--out", help="where the PNG files go (default: the directory)")
    args = parser.parse_args(argv)
    if not os.path.exists(os.path.join(args.directory, "results.csv")) and not os.path.exists(
            os.path.join(args.directory, "sweep.csv")):
        print(f"catenary.plot: error: {args.directory}: no results.csv or sweep.csv (not a run's output directory)",
              file=sys.stderr)
        return 2
    for path in plot_directory(args.directory, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
