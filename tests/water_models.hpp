#pragma once
// Models of lines in water for the backend checks: a line through a wave's surface in a sheared
// current, with drag and added mass.
#include "catenary/model/builders.hpp"
#include "catenary/model/model.hpp"
#include "catenary/model/waves.hpp"

namespace catenary::testing {

// A 3 m line (2D: a beam) from 1 m below the still surface to 0.5 m above it, under gravity, in a
// current that grows towards the surface and a regular wave (0.4 m, 3 s) without a ramp: the
// surface cuts elements at any time, and every load of the water acts (buoyancy, drag across and
// along, fluid inertia, added mass). Without drag the model reads no velocities (undamped).
inline Model line_in_waves(int D, int elements, bool drag = true) {
  Model m;
  m.dimension = D;
  m.gravity[D - 1] = -9.81;
  Vec3 start{}, end{};
  start[D - 1] = -1.0;
  end[0] = 3.0;
  end[D - 1] = 0.5;
  const int body = add_straight_line(m, "line", start, end, elements, {1e5, 1.0, 2.0, 0.0});
  FluidLoad water{};
  water.density = 1025.0;
  water.depth = 12.0;
  const std::vector<WaveComponent> wave = {regular_wave_component({0.4, 3.0, 0.3, 0.5}, 12.0, 9.81)};
  add_water_values(m, water, {-12.0, 0.0}, {0.1, 0.05, 0.0, 0.6, -0.1, 0.0}, wave);
  FluidLoad section = water;
  section.diameter = 0.05;
  section.drag_normal = drag ? 1.2 : 0.0;
  section.drag_tangential = drag ? 0.3 : 0.0;
  section.added_mass_normal = 1.0;
  section.added_mass_tangential = 0.2;
  add_fluid_load(m, section, body);
  finalize_model(m);
  return m;
}

}  // namespace catenary::testing
