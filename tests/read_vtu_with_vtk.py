#!/usr/bin/python3
"""Reads catenary's VTU frames with VTK's own reader (Debian's python3-vtk9).

Usage: read_vtu_with_vtk.py CATENARY CASE DIR

Runs the shipped case CASE (a cable hanging off a rigid body drawn as its inertia box) for two
output intervals with each VTU encoding (ascii, binary, compressed) into DIR/<encoding>, then reads
every frame that each results.pvd lists with vtk.vtkXMLUnstructuredGridReader and checks that VTK
reads them without error, that the point and cell counts are those the file names, that every
array agrees across the three encodings value for value, and that the first frame's cable points
lie on the case's straight initial line and its rigid body's first point is the body's position.
Exits 1 with a message on the first failure.
"""
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import vtk

ENCODINGS = ("ascii", "binary", "compressed")
ARRAYS = ("velocity", "axial_strain", "curvature", "tension", "radius")


def fail(message):
    print("read_vtu_with_vtk: " + message)
    sys.exit(1)


class ErrorCatcher:
    """Records VTK's error events, which its readers report instead of raising."""

    def __init__(self):
        self.errors = []

    def __call__(self, caller, event):
        self.errors.append(event)


def run_case(catenary, case, directory, encoding):
    with open(case) as f:
        document = json.load(f)
    step = document["analysis"]["step"]
    document["analysis"]["end_time"] = 20 * step
    document["output"]["interval"] = 10 * step
    document["output"]["vtu_encoding"] = encoding
    document["output"].pop("directory", None)
    os.makedirs(directory, exist_ok=True)
    copy = os.path.join(directory, "case.json")
    with open(copy, "w") as f:
        json.dump(document, f)
    out = os.path.join(directory, "results")
    subprocess.run([catenary, "run", copy, "--out", out, "--threads", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    return document, out


def read_frames(results):
    """Every frame results.pvd lists, read by VTK: a list of vtkUnstructuredGrid."""
    collection = ElementTree.parse(os.path.join(results, "results.pvd")).getroot()
    frames = []
    for entry in collection.iter("DataSet"):
        path = os.path.join(results, entry.get("file"))
        reader = vtk.vtkXMLUnstructuredGridReader()
        catcher = ErrorCatcher()
        reader.AddObserver("ErrorEvent", catcher)
        reader.GetExecutive().AddObserver("ErrorEvent", catcher)
        reader.SetFileName(path)
        reader.Update()
        grid = reader.GetOutput()
        if catcher.errors or reader.GetErrorCode() != 0:
            fail("VTK could not read %s" % path)
        with open(path, "rb") as f:
            head = f.read(2000).decode("latin-1")
        points = int(head.split('NumberOfPoints="')[1].split('"')[0])
        cells = int(head.split('NumberOfCells="')[1].split('"')[0])
        if grid.GetNumberOfPoints() != points or grid.GetNumberOfCells() != cells:
            fail("%s: VTK reads %d points and %d cells, the file names %d and %d" %
                 (path, grid.GetNumberOfPoints(), grid.GetNumberOfCells(), points, cells))
        frames.append(grid)
    if not frames:
        fail("%s lists no frames" % results)
    return frames


def values(grid):
    """The frame's points, point arrays, cells and cell types as lists of numbers."""
    out = {"points": [grid.GetPoint(i) for i in range(grid.GetNumberOfPoints())]}
    for name in ARRAYS:
        array = grid.GetPointData().GetArray(name)
        if array is None:
            fail("no point array '%s'" % name)
        out[name] = [array.GetTuple(i) for i in range(array.GetNumberOfTuples())]
    body_id = grid.GetCellData().GetArray("body_id")
    out["body_id"] = [body_id.GetTuple1(i) for i in range(body_id.GetNumberOfTuples())]
    out["cells"] = []
    for c in range(grid.GetNumberOfCells()):
        ids = grid.GetCell(c).GetPointIds()
        out["cells"].append((grid.GetCellType(c), [ids.GetId(k) for k in range(ids.GetNumberOfIds())]))
    return out


def check_initial_geometry(document, first):
    """The cable's points on its straight line from start to end, evenly spaced; then the rigid
    body's centre of mass."""
    cable = document["model"]["bodies"][0]
    samples = document["output"].get("vtu_samples_per_element", 4)
    count = cable["elements"] * samples + 1
    start, end = cable["start"], cable["end"]
    for i in range(count):
        expected = [s + (e - s) * i / (count - 1) for s, e in zip(start, end)]
        if any(abs(a - b) > 1e-12 for a, b in zip(first["points"][i], expected)):
            fail("first frame's cable point %d is %s, the case's line puts it at %s" %
                 (i, first["points"][i], expected))
    position = document["model"]["rigid_bodies"][0]["position"]
    if any(abs(a - b) > 1e-12 for a, b in zip(first["points"][count], position)):
        fail("first frame's rigid body centre is %s, the case's position %s" % (first["points"][count], position))
    radius = [r[0] for r in first["radius"]]
    if not all(r > 0.0 for r in radius[:count]) or any(r != 0.0 for r in radius[count:]):
        fail("radius is not positive on the cable and 0 on the rigid body: %s" % radius)


def main():
    if len(sys.argv) != 4:
        fail("usage: read_vtu_with_vtk.py CATENARY CASE DIR")
    catenary, case, directory = sys.argv[1:]
    frames = {}
    for encoding in ENCODINGS:
        document, results = run_case(catenary, case, os.path.join(directory, encoding), encoding)
        frames[encoding] = [values(grid) for grid in read_frames(results)]
    reference = frames["binary"]
    for encoding in ("ascii", "compressed"):
        if len(frames[encoding]) != len(reference):
            fail("%s wrote %d frames, binary %d" % (encoding, len(frames[encoding]), len(reference)))
        for k, (frame, other) in enumerate(zip(frames[encoding], reference)):
            for name, data in frame.items():
                if data != other[name]:
                    fail("frame %d: %s read from the %s file differs from the binary file's" % (k, name, encoding))
    check_initial_geometry(document, reference[0])
    print("read_vtu_with_vtk: %d frames in each of %s agree; the first matches the case's initial geometry" %
          (len(reference), ", ".join(ENCODINGS)))


if __name__ == "__main__":
    main()
