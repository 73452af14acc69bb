"""The Python module (python/catenary) against references of its own: closed forms (a cantilever's
small tip deflection, the elastic catenary), the same case built in code and read from its file,
the command line's outputs, the coupled run's symmetry and its saved states, the plots' files."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import catenary
import catenary.model
import catenary.plot

CASES = os.path.join(os.environ.get("CATENARY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                     "cases")


def shipped(name):
    return catenary.Case.load(os.path.join(CASES, name))


def test_small_tip_load_deflects_a_cantilever_by_f_l3_over_3_ei_and_halves_with_twice_e():
    case = shipped("cantilever_static.json")
    case.set("/model/loads/0/force", [0, 0, -1.0])  # F L^2 / EI = 6e-4: linear
    case.set("/analysis/load_steps", 1)
    E, d, L = case.get("/model/materials/steel/youngs_modulus"), 0.02, 1.0
    EI = E * math.pi * d ** 4 / 64
    tip = case.run().node("rod", "end")[-1]
    assert tip[2] == pytest.approx(-1.0 * L ** 3 / (3 * EI), rel=1e-3)
    case.set("/model/materials/steel/youngs_modulus", 2 * E)
    assert case.run().node("rod", "end")[-1][2] == pytest.approx(tip[2] / 2, rel=1e-6)


def test_a_cantilevers_design_sensitivities_are_the_closed_forms_by_both_methods():
    case = shipped("cantilever_static.json")
    case.set("/model/loads/0/force", [0, 0, -1.0])  # linear: tip z = F L^3 / (3 E I)
    E, d, L = case.get("/model/materials/steel/youngs_modulus"), 0.02, 1.0
    EI = E * math.pi * d ** 4 / 64
    variables = ["/model/materials/steel/youngs_modulus", "/model/loads/0/force/2"]
    objective = {"name": "tip_z", "type": "node_position", "node": {"body": "rod", "index": "end"}, "component": "z"}
    for method in ("direct", "adjoint"):
        case.set("/sensitivity", {"variables": variables, "objectives": [objective], "method": method})
        s = case.run().sensitivities
        assert s["method"] == method
        tip = s["objectives"][0]
        assert tip["derivatives"][variables[0]] == pytest.approx(-tip["value"] / E, rel=1e-5)
        assert tip["derivatives"][variables[1]] == pytest.approx(L ** 3 / (3 * EI), rel=1e-4)
    assert shipped("cantilever_static.json").run().sensitivities is None


def test_a_cantilevers_modes_scale_with_the_square_root_of_e_and_are_written_for_paraview():
    case = shipped("cantilever_modes.json")
    E, rho, side, L = 2.1e11, 7800, 0.02, 1.0
    euler_bernoulli = 1.8751040687 ** 2 * math.sqrt(E * side ** 2 / 12 / rho) / L ** 2 / (2 * math.pi)
    results = case.run()
    assert results.natural_frequencies[0] == pytest.approx(euler_bernoulli, rel=2e-5)
    assert np.all(np.abs(results.damping_ratios) < 1e-10)
    assert results.mode_shapes.shape == (6, 33 * 4)
    assert abs(results.mode_shapes[0, 32 * 4 + 1]) == pytest.approx(1.0)
    assert os.path.exists(os.path.join(results.directory, "modes", "mode_001.pvd"))
    case.set("/model/materials/steel/youngs_modulus", 4 * E)
    assert case.run().natural_frequencies[0] == pytest.approx(2 * results.natural_frequencies[0], rel=1e-9)


def irvine_sag(span, length, w, ea):
    """Midspan sag of the elastic catenary between equal supports (Irvine, Cable Structures, 2.2)."""
    lo, hi = 1e-6, 1e9
    for _ in range(200):
        h = math.sqrt(lo * hi)
        if h * length / ea + 2 * h / w * math.asinh(w * length / (2 * h)) < span:
            lo = h
        else:
            hi = h
    v = w * length / 2
    return w * length ** 2 / (8 * ea) + h / w * (math.sqrt(1 + (v / h) ** 2) - 1)


def test_a_nearly_flexible_hanging_cable_sags_as_the_elastic_catenary():
    case = shipped("hanging_cable.json")
    E, rho, d = 1e11, 7800, 0.01
    area = math.pi * d * d / 4
    case.set("/model/materials/rope/youngs_modulus", E)
    case.set("/model/sections/wire", {"shape": "general", "area": area, "inertia": 1e-18})  # no bending stiffness
    results = case.run()
    mid = results.node("cable", 20)[-1]
    assert -mid[2] == pytest.approx(irvine_sag(10.0, 12.0, rho * area * 9.81, E * area), rel=1e-6)
    assert results.summary["status"] == "ok"


def test_a_model_built_in_code_is_the_shipped_file():
    m = catenary.model.Model(dimension=3, gravity=[0, 0, -9.81])
    m.material("polymer", youngs_modulus=2e9, density=7800)
    m.section("rod", shape="circle", diameter=0.02)
    m.straight_cable("cable", start=[0, 0, 0], end=[1, 0, 0], elements=10, material="polymer", section="rod")
    m.constraint("spherical", name="pin", node={"body": "cable", "index": "start"})
    analysis = {"type": "dynamic", "end_time": 0.05, "step": 1e-3, "alpha": -0.2}
    output = {"interval": 0.01, "nodes": [{"body": "cable", "index": "end"}, {"body": "cable", "index": 5}]}
    built = m.case("falling_cable_pendulum", analysis=analysis, output=output).run()
    shipped_case = shipped("falling_cable_pendulum.json")
    shipped_case.set("/analysis/end_time", 0.05)
    from_file = shipped_case.run()
    np.testing.assert_array_equal(built.q, from_file.q)
    assert list(built.columns) == list(from_file.columns)
    # The writer's columns are the frames': the free end's position, the energies.
    np.testing.assert_array_equal(built.columns["cable.end.z"], built.node("cable", "end")[:, 2])
    np.testing.assert_allclose(built.columns["total_energy"], built.energies["total"], rtol=1e-12, atol=1e-12)
    assert built.time[-1] == pytest.approx(0.05)


def test_bad_input_and_a_failed_analysis_raise_with_the_command_lines_messages():
    case = shipped("cantilever_static.json").set("/model/materials/steel/youngs_modulus", -1.0)
    with pytest.raises(catenary.InputError, match="/model/materials/steel/youngs_modulus"):
        case.check()
    with pytest.raises(catenary.InputError, match="JSON pointer"):
        case.set("model", 1)
    failing = catenary.Case.load(os.path.join(os.path.dirname(__file__), "..", "failing_cases", "diverging_pendulum.json"))
    with pytest.raises(catenary.SimulationError) as failure:
        failing.run()
    assert "failed" in str(failure.value)
    assert failure.value.results.time.size >= 1  # the frames up to the failure


def test_a_sweeps_table_holds_each_copys_last_frame(tmp_path):
    results = shipped("cable_sweep.json").run(out=tmp_path)
    assert results.failed == []
    assert len(results.table["status"]) == 3
    for k in range(3):
        copy = results.copy(k)
        assert results.table["total_energy"][k] == pytest.approx(copy["total_energy"][-1], rel=1e-12)


def test_a_coupled_run_from_python_pulls_the_spar_back_and_returns_to_a_saved_state():
    run = shipped("oc3_coupled_platform.json").coupled().initialize(True)
    assert run.bodies == ["spar"]
    rest = run.loads()[0]
    assert rest[2] < -1e6
    assert abs(rest[0]) < 1e-6 * abs(rest[2]) and abs(rest[1]) < 1e-6 * abs(rest[2])
    rates = np.zeros((1, 6))
    for k in range(1, 11):
        run.advance(0.1 * k, [[0.2 * k, 0, 0, 0, 0, 0]], rates)
    assert run.time == pytest.approx(1.0)
    assert run.loads()[0][0] < -1e3
    saved = run.save()
    run.advance(1.5, [[2.5, 0, 0, 0, 0, 0]], rates)
    first = run.loads()
    run.restore(saved)
    assert run.time == pytest.approx(1.0)
    run.advance(1.5, [[2.5, 0, 0, 0, 0, 0]], rates)
    np.testing.assert_array_equal(run.loads(), first)
    with pytest.raises(catenary.InputError, match="six per coupled body"):
        run.advance(2.0, [0, 0], [0, 0])


def test_the_standard_plots_of_a_run_are_written_as_png_files(tmp_path):
    case = shipped("crane_boom_cable.json")
    case.set("/analysis/end_time", 0.2)
    case.run(out=tmp_path / "run")
    done = subprocess.run([sys.executable, "-m", "catenary.plot", str(tmp_path / "run"), "--out", str(tmp_path / "png")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = done.stdout.split()
    assert os.path.join(str(tmp_path / "png"), "energies.png") in written
    for path in written:
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "catenary.plot", str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 2 and "no results.csv" in bad.stderr


def test_the_c_api_from_python_through_ctypes():
    """The C ABI itself (catenary/coupling.h), as a Python tool without the module would call it."""
    import ctypes
    lib = ctypes.CDLL(os.environ["CATENARY_COUPLING_LIBRARY"])
    lib.catenary_error.restype = ctypes.c_char_p
    lib.catenary_time.restype = ctypes.c_double
    lib.catenary_coupled_body_name.restype = ctypes.c_char_p
    run = ctypes.c_void_p()
    path = os.path.join(CASES, "oc3_coupled_platform.json").encode()
    assert lib.catenary_create(b"no_such_case.json", b"cpu", None, ctypes.byref(run)) == 2
    assert b"no_such_case.json" in lib.catenary_error()
    assert lib.catenary_create(path, b"cpu", None, ctypes.byref(run)) == 0, lib.catenary_error()
    assert lib.catenary_coupled_body_name(run, 0) == b"spar"
    assert lib.catenary_initialize(run, 1) == 0
    Six = ctypes.c_double * 6
    motion, rates, loads = Six(1.0, 0, 0, 0, 0, 0), Six(), Six()
    assert lib.catenary_advance(run, ctypes.c_double(0.5), motion, rates) == 0, lib.catenary_error()
    assert lib.catenary_time(run) == pytest.approx(0.5)
    assert lib.catenary_loads(run, loads) == 0
    # The same steps through the module: the same loads, bit for bit.
    module_run = shipped("oc3_coupled_platform.json").coupled().initialize(True)
    module_run.advance(0.5, [list(motion)], [list(rates)])
    np.testing.assert_array_equal(module_run.loads()[0], np.array(loads[:]))
    lib.catenary_destroy(run)


def test_the_oc3_lines_stiffness_through_the_coupled_run_is_jonkmans():
    """The OC3-Hywind mooring's linearized restoring at the undisplaced spar (Jonkman, Definition of
    the Floating System for Phase IV of OC3, NREL/TP-500-47535, 2010): K11 = 41,180 N/m,
    K33 = 11,940 N/m, K15 = -2,821,000 N/rad about the platform's reference point at the still
    water line, 89.9155 m above the centre of mass. The spar is moved 0.2 m slowly (a cosine ramp
    over 40 s, then held 20 s) from the static equilibrium; the lines' 20 elements add under 3 %."""
    case = shipped("oc3_coupled_platform.json")

    def load_change(dof):
        run = case.coupled().initialize(True)
        rest = run.loads()[0]
        ramp, amplitude = 40.0, 0.2
        while run.time < ramp + 20.0 - 1e-9:
            t = run.time + 0.5
            motion, rates = np.zeros((1, 6)), np.zeros((1, 6))
            motion[0, dof] = amplitude * (1 - math.cos(math.pi * min(t / ramp, 1.0))) / 2
            rates[0, dof] = amplitude * math.pi / (2 * ramp) * math.sin(math.pi * t / ramp) if t < ramp else 0.0
            run.advance(t, motion, rates)
        return (run.loads()[0] - rest) / amplitude

    surge = load_change(0)
    assert -surge[0] == pytest.approx(41180, rel=0.03)
    # The moment about the still-water-line point: about the centre of mass, plus (0, 0, -89.9155) x F
    # (the centre of mass below that point); the restoring -K15 x per metre of surge.
    assert surge[4] - 89.9155 * surge[0] == pytest.approx(2.821e6, rel=0.03)
    assert -load_change(2)[2] == pytest.approx(11940, rel=0.03)


@pytest.mark.parametrize("example, arguments", [("falling_cable.py", ["--end-time", "0.05", "--out"]),
                                                ("mooring_line.py", ["--end-time", "1", "--out"]),
                                                ("cable_sweep.py", ["--out"]),
                                                ("cantilever_modes.py", ["--elements", "16", "--out"]),
                                                ("coupled_spar.py", ["--end-time", "20"])])
def test_the_python_examples_run(tmp_path, example, arguments):
    script = os.path.join(os.path.dirname(__file__), "..", "..", "python", "examples", example)
    if arguments[-1] == "--out":
        arguments = arguments + [str(tmp_path / "plot.png")]
    done = subprocess.run([sys.executable, script] + arguments, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
