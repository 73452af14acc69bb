"""catenary from Python: load a case from a file or a dict, change its values by the JSON pointers
sweeps use, check it, run it and get its results as numpy arrays; build models in code
(catenary.model); drive a coupled run step by step (CoupledRun); plot (catenary.plot).

    import catenary
    case = catenary.Case.load("cases/falling_cable_pendulum.json")
    case.set("/model/materials/polymer/youngs_modulus", 5e9)
    results = case.run()
    tip = results.node("cable", "end")          # positions, frames x 3
    results.columns["total_energy"]             # any column of results.csv

Errors are InputError (a bad case: its message names the file, the JSON path and the rule, as
the command line's does), SimulationError (the analysis failed; .results holds the frames so far)
and OutputError (a result file could not be written).
"""
import copy
import csv
import json
import os
import tempfile

import numpy as np

from . import _catenary

__all__ = ["Case", "Results", "SweepResults", "CoupledRun", "InputError", "SimulationError", "OutputError"]


class InputError(ValueError):
    """A case, an argument or a state that cannot be used (the command line's exit code 2)."""


class SimulationError(RuntimeError):
    """The analysis failed (exit code 3); .results holds what was computed up to then."""

    def __init__(self, message, results=None):
        super().__init__(message)
        self.results = results


class OutputError(OSError):
    """A result file could not be written (exit code 4)."""


_catenary._set_exceptions(InputError, SimulationError, OutputError)


def _pointer_tokens(pointer):
    if not pointer.startswith("/"):
        raise InputError(f"{pointer}: a JSON pointer starts with '/'")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


class Case:
    """A case document (a dict with the case file's fields, docs/case-format.md) and the file it
    stands for: messages name that file, and files the case refers to are found beside it."""

    def __init__(self, document, path="case.json"):
        self.document = copy.deepcopy(document)
        self.path = os.fspath(path)

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        case = cls(json.loads(text), path)
        case._text = text  # the file's own text: its duplicate keys and such are checked as the command checks them
        return case

    def _case_text(self):
        text = getattr(self, "_text", None)
        if text is not None and json.loads(text) == self.document:
            return text
        return json.dumps(self.document)

    def get(self, pointer):
        node = self.document
        for token in _pointer_tokens(pointer):
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node

    def set(self, pointer, value):
        """Sets the value at a JSON pointer (as a sweep's parameter path names it)."""
        tokens = _pointer_tokens(pointer)
        node = self.document
        for token in tokens[:-1]:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            node[int(tokens[-1])] = value
        else:
            node[tokens[-1]] = value
        return self

    def check(self):
        """Checks the case as `catenary check` does; returns its sizes (InputError if it is bad)."""
        return _catenary.check(self._case_text(), self.path)

    def run(self, out=None, backend="cpu", threads=0):
        """Runs the case: Results (a sweep: SweepResults). The files `catenary run` writes go to
        `out`, or to a temporary directory removed when the results are dropped."""
        directory, keep = (os.fspath(out), None) if out else (None, tempfile.TemporaryDirectory(prefix="catenary-"))
        directory = directory or keep.name
        if "sweep" in self.document:
            failed = _catenary.run_sweep(self._case_text(), self.path, directory, backend, threads)
            return SweepResults(directory, failed, keep)
        raw = _catenary.run(self._case_text(), self.path, directory, backend, threads)
        results = Results(raw, directory, keep)
        if raw["status"] == "failed":
            raise SimulationError(raw["message"], results)
        return results

    def coupled(self, backend="cpu", out=None):
        """A CoupledRun of this case (its bodies whose motion is "coupled" moved from Python)."""
        return CoupledRun(self, backend, out)


def _table(header, rows):
    names = header.split(",") if header else []
    values = np.array([[float(x) for x in row.split(",")] for row in rows]) if rows else np.zeros((0, len(names)))
    return {name: values[:, k] for k, name in enumerate(names)}


class Results:
    """A run's frames: time, q, v, lambda (frames x unknowns), the energies, and every column of
    results.csv (columns) as the run wrote it; summary is summary.json. An eigen analysis's modes:
    eigenvalues, mode_shapes, natural_frequencies, damping_ratios. A case's design
    sensitivities: sensitivities."""

    def __init__(self, raw, directory, keep=None):
        self._keep = keep  # a temporary output directory lives as long as the results
        self.directory = directory
        self.backend = raw["backend"]
        self.time = raw["time"]
        self.q, self.v, self.lambda_ = raw["q"], raw["v"], raw["lambda"]
        self.energies = {"kinetic": raw["kinetic"], "gravitational": raw["gravitational"], "elastic": raw["elastic"]}
        self.energies["total"] = self.energies["kinetic"] + self.energies["gravitational"] + self.energies["elastic"]
        self.columns = _table(raw["header"], raw["rows"])
        # An eigen analysis's modes (empty otherwise): eigenvalues s (1/s) and shapes (modes by
        # coordinates, each scaled to 1 at its largest position entry), complex.
        self.eigenvalues, self.mode_shapes = raw["eigenvalues"], raw["mode_shapes"]
        with open(os.path.join(directory, "summary.json"), encoding="utf-8") as f:
            self.summary = json.load(f)
        self._layout = raw

    @property
    def sensitivities(self):
        """A case's design sensitivities (static or dynamic), sensitivities.json as read (None
        without a "sensitivity" section): "method", "variables" ({"path", "value"} each) and
        "objectives" ({"name", "value", "derivatives": {pointer: d value / d variable}} each)."""
        path = os.path.join(self.directory, "sensitivities.json")
        if not os.path.exists(path):
            return None
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    @property
    def natural_frequencies(self):
        """An eigen analysis's natural frequencies |s| / 2 pi (Hz), nearest the shift first."""
        return np.abs(self.eigenvalues) / (2 * np.pi)

    @property
    def damping_ratios(self):
        """An eigen analysis's damping ratios -Re s / |s|."""
        return -self.eigenvalues.real / np.abs(self.eigenvalues)

    def node(self, body, index):
        """Positions of a node of a cable or beam over the frames (frames x dimension): index is a
        node number from 0, or "start" / "end", as a case's node references are."""
        for b in self._layout["bodies"]:
            if b["name"] == body:
                count = b["node_count"]
                k = {"start": 0, "end": count - 1}.get(index, index)
                if not 0 <= k < count:
                    raise InputError(f"body '{body}' has nodes 0 to {count - 1}, not {index}")
                d = self._layout["dimension"]
                first = 2 * d * (b["first_node"] + k)
                return self.q[:, first:first + d]
        raise InputError(f"no cable or beam named '{body}'")

    def rigid_body(self, name):
        """A rigid body's centre of mass and Euler parameters over the frames (frames x 7)."""
        for b in self._layout["rigid_bodies"]:
            if b["name"] == name:
                return self.q[:, b["first_coordinate"]:b["first_coordinate"] + 7]
        raise InputError(f"no rigid body named '{name}'")


class SweepResults:
    """A sweep's table (sweep.csv's columns, a row a copy), its failed copies and each copy's
    results.csv columns."""

    def __init__(self, directory, failed, keep=None):
        self._keep = keep
        self.directory = directory
        self.failed = list(failed)
        with open(os.path.join(directory, "sweep.csv"), encoding="utf-8") as f:
            rows = list(csv.reader(f))
        self.table = {}
        for k, name in enumerate(rows[0]):
            column = [row[k] for row in rows[1:]]
            try:
                self.table[name] = np.array([float(x) for x in column])
            except ValueError:
                self.table[name] = column
        with open(os.path.join(directory, "sweep.json"), encoding="utf-8") as f:
            self.index = json.load(f)

    def copy(self, k):
        """Copy k's results.csv columns."""
        with open(os.path.join(self.directory, f"copy_{k:04d}", "results.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        return _table(rows[0], rows[1:])


class CoupledRun:
    """A run a program drives step by step (the C API's catenary_advance, catenary/coupling.h):
    the case's bodies whose motion is "coupled" move as advance() says, and loads() gives the
    cables' pull on them: per body the force (N) and the torque about its centre of mass (N m)."""

    def __init__(self, case, backend="cpu", out=None):
        self._run = _catenary.CoupledRun(case._case_text(), case.path, backend, os.fspath(out) if out else "")
        self.bodies = self._run.bodies()

    def initialize(self, static_equilibrium=True):
        self._run.initialize(static_equilibrium)
        return self

    def advance(self, t_next, motion, rates):
        """motion, rates: per coupled body x, y, z, roll, pitch, yaw at t_next (bodies x 6)."""
        self._run.advance(float(t_next), np.asarray(motion, dtype=float).ravel(),
                          np.asarray(rates, dtype=float).ravel())

    @property
    def time(self):
        return self._run.time()

    def loads(self):
        return np.array(self._run.loads()).reshape(len(self.bodies), 6)

    def save(self):
        return self._run.save()

    def restore(self, state):
        self._run.restore(state)
