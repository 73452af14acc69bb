#pragma once
// Reference models shared by the tests and the benchmarks, so both measure the same problem.
#include "catenary/model/model.hpp"

namespace catenary {

// The benchmark's falling cable pendulum: a 3D cable of `elements` elements of 0.1 m, pinned at
// its first node, straight along x, gravity -9.81 z; diameter 0.02 m, E = 2e9 Pa, 7800 kg/m^3.
Model falling_cable_pendulum(int elements);

// The same cable hung from a crane instead of the ground pin: its first node attached (position
// only) to the tip of a rigid boom (5 m, 500 kg, a slender bar) hinged to the ground at
// (-5, 0, 0) about y and released horizontal with the cable: the benchmark's model with a
// border (7 boom coordinates, 5 hinge rows, the normalization and 3 attachment rows).
Model crane_falling_cable(int elements);

// Hangs the first node of m's first line (position only, its slope free) from the tip of a crane
// boom: a slender rigid bar of `mass` and `length` along x whose other end is hinged to the
// ground at `pivot` about y, released horizontal, with moment of inertia `axial_inertia` about
// its own axis. Finalizes m.
void hang_first_line_from_boom(Model& m, double mass, double length, double axial_inertia, const Vec<3>& pivot);

// The RANCF paper's planar pendulum (Hu and Wang 2016): 5 beams of 5 m, 5 elements each, joined
// by planar revolute joints, the first pinned to ground, horizontal; square section 0.02 m,
// density 7800 kg/m^3, Young's modulus E, gravity -9.81 y.
Model rancf_pendulum(double youngs_modulus);

}  // namespace catenary
