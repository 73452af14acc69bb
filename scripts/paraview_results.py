#!/usr/bin/env pvpython
"""Opens a catenary run's VTU frames in ParaView with sensible defaults.

    pvpython scripts/paraview_results.py RESULTS_DIR [--screenshot FILE.png] [--state FILE.pvsm]

RESULTS_DIR is a run's output directory (its results.pvd lists the frames). The cables and beams
are drawn as tubes of their own size: the Tube filter's radius follows each point's `radius`
(half the section's outer diameter; VaryRadius 'By Absolute Scalar' takes the value itself as the
radius), coloured by `tension`. The rigid bodies are drawn as their faces (contact shapes, or the
box of their mass and inertia) and body axes in grey. The camera looks at the whole model from
an oblique point above it, z up.

Without options the view opens for interaction; --screenshot writes the first frame to a PNG
file, --state writes a ParaView state file to open in the ParaView window (File > Load State).
"""
import argparse
import os
import sys

from paraview.simple import (ColorBy, ExtractSurface, GetActiveViewOrCreate, GetAnimationScene, Interact,
                             PVDReader, Render, SaveScreenshot, SaveState, Show, Tube)

BODY_GREY = [0.72, 0.72, 0.76]


def main():
    parser = argparse.ArgumentParser(description="Open a catenary run's results.pvd in ParaView.")
    parser.add_argument("results", help="the run's output directory, holding results.pvd")
    parser.add_argument("--screenshot", help="write the first frame to this PNG file instead of opening the view")
    parser.add_argument("--state", help="write a ParaView state file (.pvsm) of the pipeline")
    args = parser.parse_args()
    pvd = os.path.join(args.results, "results.pvd")
    if not os.path.isfile(pvd):
        sys.exit("paraview_results.py: no results.pvd in %s (was the run's output.vtu false?)" % args.results)

    frames = PVDReader(FileName=pvd)
    GetAnimationScene().UpdateAnimationUsingDataTimeSteps()
    view = GetActiveViewOrCreate("RenderView")

    # Rigid bodies (and the cables' centrelines, inside their tubes) as surfaces in grey.
    bodies = Show(frames, view)
    bodies.Representation = "Surface"
    ColorBy(bodies, None)
    bodies.AmbientColor = BODY_GREY
    bodies.DiffuseColor = BODY_GREY

    # Cables and beams: the Tube filter takes polygonal data, hence the surface extraction first.
    # Rigid bodies' points have radius 0: their axis lines give no visible tube.
    tubes = Tube(Input=ExtractSurface(Input=frames))
    tubes.Scalars = ["POINTS", "radius"]
    tubes.VaryRadius = "By Absolute Scalar"
    tubes.NumberofSides = 16
    tubes.Capping = 1
    cables = Show(tubes, view)
    cables.Representation = "Surface"
    ColorBy(cables, ("POINTS", "tension"))
    cables.RescaleTransferFunctionToDataRange(True, False)
    cables.SetScalarBarVisibility(view, True)

    # The whole model from an oblique point above it, z up (gravity is -z in the shipped cases).
    view.CameraPosition = [1.0, -1.6, 0.9]
    view.CameraFocalPoint = [0.0, 0.0, 0.0]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.ResetCamera()
    view.OrientationAxesVisibility = 1
    Render(view)

    if args.state:
        SaveState(args.state)
    if args.screenshot:
        SaveScreenshot(args.screenshot, view, ImageResolution=[1600, 1000])
    elif not args.state:
        Interact(view)


if __name__ == "__main__":
    main()
