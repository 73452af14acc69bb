#include "water_reader.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "catenary/model/waves.hpp"

namespace catenary {

namespace {

using namespace case_reading;

// A wave heading in degrees from the +x axis towards +y, in radians; a planar model's waves run
// along x, forwards (0) or back (180).
double read_heading(const Node& w, int D) {
  if (!w.has("heading")) return 0.0;
  const Node hn = w.child("heading");
  const double degrees = get_number(hn);
  if (D == 2 && degrees != 0.0 && degrees != 180.0)
    hn.fail("must be 0 or 180 in a planar model (its waves run along x)");
  return degrees * kPi / 180.0;
}

// /water/waves: a regular (Airy) wave, or an irregular sea state from a spectrum.
std::vector<WaveComponent> read_waves(const Node& w, int D, double depth, double gravity) {
  if (!w.v.is_object()) w.fail("must be an object" + w.got());
  const std::string type = get_choice(w.required("type"), {"regular", "jonswap", "pierson_moskowitz"}, "wave type");
  if (type == "regular") {
    expect_object(w, {"type", "height", "period", "heading", "phase"});
    RegularWave r;
    r.height = get_positive(w.required("height"));
    r.period = get_positive(w.required("period"));
    r.heading = read_heading(w, D);
    r.phase = w.has("phase") ? get_number(w.child("phase")) * kPi / 180.0 : 0.0;
    return {regular_wave_component(r, depth, gravity)};
  }
  const bool jonswap = type == "jonswap";
  std::vector<std::string> keys = {"type", "significant_height", "peak_period", "heading", "components", "seed",
                                   "frequencies"};
  if (jonswap) keys.push_back("gamma");
  expect_object(w, keys);
  WaveSpectrum s;
  s.significant_height = get_positive(w.required("significant_height"));
  s.peak_period = get_positive(w.required("peak_period"));
  s.heading = read_heading(w, D);
  if (jonswap) {
    s.gamma = 3.3;
    if (w.has("gamma")) {
      const Node gn = w.child("gamma");
      s.gamma = get_number(gn);
      if (!(s.gamma >= 1.0 && s.gamma <= 7.0)) gn.fail("must be in [1, 7], where the JONSWAP form holds");
    }
  }
  s.components = w.has("components") ? get_positive_int(w.child("components")) : 200;
  if (s.components > 10000) w.child("components").fail("must be at most 10000");
  if (w.has("seed")) {
    const Node sn = w.child("seed");
    const int seed = get_int(sn, "must be a non-negative integer");
    if (seed < 0) sn.fail("must be a non-negative integer");
    s.seed = static_cast<std::uint64_t>(seed);
  }
  const double peak = 2.0 * kPi / s.peak_period;
  s.min_frequency = 0.5 * peak;
  s.max_frequency = 5.0 * peak;
  if (w.has("frequencies")) {
    const Node fn = w.child("frequencies");
    if (!fn.v.is_array() || fn.v.size() != 2) fn.fail("must be [lowest, highest] in rad/s" + fn.got());
    s.min_frequency = get_positive(fn.at(0));
    s.max_frequency = get_number(fn.at(1));
    if (!(s.max_frequency > s.min_frequency)) fn.at(1).fail("must be above the lowest frequency");
  }
  return spectrum_components(s, depth, gravity);
}

// /water/current: a uniform velocity, or a profile of velocities at heights.
void read_current(const Node& c, int D, FluidLoad& water, std::vector<double>& heights,
                  std::vector<double>& velocities) {
  expect_object(c, {"velocity", "profile"});
  if (c.has("velocity") == c.has("profile")) c.fail("must give either 'velocity' or 'profile'");
  if (c.has("velocity")) {
    const Vec3 v = get_vector(c.child("velocity"), D);
    for (int i = 0; i < 3; ++i) water.current[i] = v[i];
    return;
  }
  const Node pn = c.child("profile");
  if (!pn.v.is_array() || pn.v.empty()) pn.fail("must be an array of {height, velocity} points" + pn.got());
  for (size_t i = 0; i < pn.v.size(); ++i) {
    const Node point = pn.at(i);
    if (!point.v.is_object()) point.fail("must be an object" + point.got());
    expect_object(point, {"height", "velocity"});
    const Node hn = point.required("height");
    heights.push_back(get_number(hn));
    if (i > 0 && !(heights[i] > heights[i - 1])) hn.fail("must be above the previous point's height");
    const Vec3 v = get_vector(point.required("velocity"), D);
    for (int k = 0; k < 3; ++k) velocities.push_back(v[k]);
  }
}

// A section's hydrodynamics into f (its diameter, drag and added mass coefficients; those not
// given are 0).
void read_hydrodynamics(const Node& n, FluidLoad& f) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  expect_object(n, {"diameter", "drag_normal", "drag_tangential", "added_mass_normal", "added_mass_tangential"});
  f.diameter = get_positive(n.required("diameter"));
  const auto coefficient = [&](const char* key) { return n.has(key) ? get_non_negative(n.child(key)) : 0.0; };
  f.drag_normal = coefficient("drag_normal");
  f.drag_tangential = coefficient("drag_tangential");
  f.added_mass_normal = coefficient("added_mass_normal");
  f.added_mass_tangential = coefficient("added_mass_tangential");
}

}  // namespace

void read_water(const Node& model, Model& m) {
  const int D = m.dimension;
  // The line bodies whose sections have hydrodynamics, in /model/bodies' order (the model's).
  std::vector<std::pair<int, Node>> in_water;
  if (model.has("bodies") && model.has("sections")) {
    const Node bodies = model.child("bodies"), sections = model.child("sections");
    for (size_t i = 0; i < bodies.v.size(); ++i) {
      const std::string section = bodies.v[i].at("section").get<std::string>();
      const Node sec = sections.child(section);
      if (sec.has("hydrodynamics")) in_water.emplace_back(static_cast<int>(i), sec.child("hydrodynamics"));
    }
  }
  if (!model.has("water")) {
    if (!in_water.empty()) in_water.front().second.fail("needs the water the line is in: /model/water is missing");
    return;
  }
  const Node w = model.child("water");
  if (!w.v.is_object()) w.fail("must be an object" + w.got());
  expect_object(w, {"density", "surface", "depth", "current", "waves", "ramp"});
  if (in_water.empty())
    w.fail("no line is in the water: give the sections of the lines in it 'hydrodynamics' (/model/sections/<name>)");
  FluidLoad water{};
  water.density = get_positive(w.required("density"));
  water.surface = get_number(w.required("surface"));
  water.depth = w.has("depth") ? get_positive(w.child("depth")) : 0.0;
  water.ramp = w.has("ramp") ? get_non_negative(w.child("ramp")) : 0.0;
  std::vector<double> heights, velocities;
  if (w.has("current")) read_current(w.child("current"), D, water, heights, velocities);
  std::vector<WaveComponent> waves;
  if (w.has("waves")) {
    const Node wn = w.child("waves");
    if (!w.has("depth")) w.required("depth");
    const double g = std::sqrt(m.gravity[0] * m.gravity[0] + m.gravity[1] * m.gravity[1] + m.gravity[2] * m.gravity[2]);
    if (!(g > 0.0)) wn.fail("waves need gravity: /model/gravity is missing or zero");
    waves = read_waves(wn, D, water.depth, g);
  }
  try {
    add_water_values(m, water, heights, velocities, waves);
  } catch (const ModelError& e) {
    w.fail(e.what());
  }
  for (const auto& [body, hn] : in_water) {
    FluidLoad f = water;
    read_hydrodynamics(hn, f);
    try {
      add_fluid_load(m, f, body);
    } catch (const ModelError& e) {
      hn.fail(e.what());
    }
  }
}

}  // namespace catenary
