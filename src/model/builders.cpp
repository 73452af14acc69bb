#include "catenary/model/builders.hpp"

#include <cmath>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/element_records.hpp"

namespace catenary {

namespace {

// s x + y
Vec3 axpy(double s, const Vec3& x, const Vec3& y) { return vec_add(vec_scale(s, x), y); }

Vec3 planar(const Model& m, Vec3 a) {
  if (m.dimension == 2) a[2] = 0.0;
  return a;
}

void check_properties(const LineProperties& p) {
  if (!(p.EA > 0.0)) throw ModelError("axial stiffness EA must be positive");
  if (!(p.EI > 0.0)) throw ModelError("bending stiffness EI must be positive");
  if (!(p.rhoA > 0.0)) throw ModelError("mass per length must be positive");
  if (!(p.eta >= 0.0)) throw ModelError("damping must be zero or positive");
}

int append_node(Model& m, const Vec3& r, const Vec3& slope, const Vec3& r_ref, const Vec3& slope_ref) {
  const int D = m.dimension;
  for (int i = 0; i < D; ++i) m.initial_positions.push_back(r[i]);
  for (int i = 0; i < D; ++i) m.initial_positions.push_back(slope[i]);
  for (int i = 0; i < D; ++i) m.reference_coordinates.push_back(r_ref[i]);
  for (int i = 0; i < D; ++i) m.reference_coordinates.push_back(slope_ref[i]);
  for (int i = 0; i < 2 * D; ++i) m.initial_velocities.push_back(0.0);
  return m.node_count++;
}

void append_element(Model& m, int a, int b, double length, const LineProperties& p) {
  if (!(length > 1e-12)) throw ModelError("element length must be positive (zero-length element)");
  const int D = m.dimension, n = 2 * D;
  m.elements.node_a.push_back(a);
  m.elements.node_b.push_back(b);
  m.elements.properties.push_back(ElementProperties{length, p.EA, p.EI, p.rhoA, p.eta, double(p.strain_law)});
  for (int i = 0; i < n; ++i) m.elements.reference.push_back(m.reference_coordinates[a * n + i]);
  for (int i = 0; i < n; ++i) m.elements.reference.push_back(m.reference_coordinates[b * n + i]);
}

Body& begin_body(Model& m, const std::string& name, int elements) {
  if (elements < 1) throw ModelError("a line needs at least one element");
  if (find_body(m, name) >= 0) throw ModelError("body name '" + name + "' is used twice");
  m.body_index.emplace(name, static_cast<int>(m.bodies.size()));
  m.finalized = false;
  Body b;
  b.name = name;
  b.element_type = m.dimension == 3 ? "cable3d" : "beam2d";
  b.first_node = m.node_count;
  b.first_element = m.elements.size();
  m.bodies.push_back(b);
  return m.bodies.back();
}

// The body's element constants, so that its mass and first moment (line_mass,
// line_first_moment) serve the next builder call; the model-wide rest is finalize_model's.
void end_body(Model& m) {
  Body& b = m.bodies.back();
  b.node_count = m.node_count - b.first_node;
  b.element_count = m.elements.size() - b.first_element;
  compute_element_constants(m, b.first_element);
}

int add_constraint_group(Model& m, const std::string& type, const std::string& name,
                         const std::string& json_path) {
  ConstraintGroup g;
  g.type = type;
  g.name = name;
  g.json_path = json_path;
  g.first_row = m.linear_constraint_count();
  m.constraint_groups.push_back(g);
  return static_cast<int>(m.constraint_groups.size()) - 1;
}

void add_row(Model& m, ConstraintRow row, const std::string& label) {
  m.constraint_rows.push_back(std::move(row));
  ConstraintGroup& g = m.constraint_groups.back();
  g.row_count++;
  g.row_labels.push_back(label);
}

std::string coordinate_label(int D, int k) {
  static const char* axes = "xyz";
  return k < D ? std::string(1, axes[k]) : std::string("slope_") + axes[k - D];
}

// The row q[dof] = offset (+ motion, set by the caller).
ConstraintRow coordinate_row(int dof, double offset) {
  ConstraintRow row;
  row.dofs.push_back(dof);
  row.coefficients.push_back(1.0);
  row.offset = offset;
  return row;
}

void check_node(const Model& m, int node) {
  if (node < 0 || node >= m.node_count)
    throw ModelError("node index " + std::to_string(node) + " is out of range (model has " +
                     std::to_string(m.node_count) + " nodes)");
}

}  // namespace

void compute_element_constants(Model& m, int first) {
  const int D = m.dimension, ne = m.elements.size();
  ElementBlock& el = m.elements;
  el.scalar_mass.resize(16 * size_t(ne), 0.0);
  el.shape_integrals.resize(4 * size_t(ne), 0.0);
  el.quadrature.resize(ne);
  // Each element's reference quadrature and mass alone: 1,000,000 elements took 120 ms of a
  // cable's 680 ms build on one thread.
#pragma omp parallel for schedule(static) if (ne - first > 4096)
  for (int e = first; e < ne; ++e) {
    const double* ref = &el.reference[4 * D * e];
    el.quadrature[e] = D == 3 ? reference_quadrature<3>(el.properties[e], ref)
                              : reference_quadrature<2>(el.properties[e], ref);
    const Mat<4, 4> M = element_scalar_mass(el.properties[e], el.quadrature[e]);
    const Vec<4> s = element_shape_integrals(el.properties[e], el.quadrature[e]);
    for (int k = 0; k < 4; ++k) {
      el.shape_integrals[4 * e + k] = s[k];
      for (int l = 0; l < 4; ++l) el.scalar_mass[16 * e + 4 * k + l] = M(k, l);
    }
  }
}

void finalize_model(Model& m) {
  const int D = m.dimension;
  ElementBlock& el = m.elements;
  compute_element_constants(m, static_cast<int>(el.quadrature.size()));  // elements added by hand
  share_close_element_records(el);
  // Model size: the diagonal of the box around the nodes and rigid bodies, or the mean body length.
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  auto include = [&](const double* x, int dims) {
    for (int i = 0; i < dims; ++i) {
      lo[i] = std::min(lo[i], x[i]);
      hi[i] = std::max(hi[i], x[i]);
    }
  };
  for (int n = 0; n < m.node_count; ++n) include(&m.initial_positions[2 * D * n], D);
  for (const RigidBody& b : m.mechanism.bodies) include(&b.position[0], 3);
  double diag2 = 0.0;
  if (m.node_count > 0 || !m.mechanism.bodies.empty())
    for (int i = 0; i < 3; ++i)
      if (hi[i] >= lo[i]) diag2 += (hi[i] - lo[i]) * (hi[i] - lo[i]);
  double total_length = 0.0;
  for (const auto& p : el.properties) total_length += p.length;
  m.characteristic_length = std::max(std::sqrt(diag2), total_length / std::max(1, (int)m.bodies.size()));
  if (!(m.characteristic_length > 0.0)) m.characteristic_length = 1.0;
  for (CableShapeContact& c : m.mechanism.cable_contacts)
    for (CableShapeSpan& s : c.spans) {
      s.length = el.properties[s.element].length;
      for (int g = 0; g < GaussRule5::kPoints; ++g) s.weight[g] = el.quadrature[s.element].bending_w[g];
    }
  settle_contact_nodes(m.mechanism);
  m.finalized = true;
}

int find_body(const Model& m, const std::string& name) {
  if (m.body_index.size() == m.bodies.size()) {
    const auto at = m.body_index.find(name);
    return at == m.body_index.end() ? -1 : at->second;
  }
  for (size_t i = 0; i < m.bodies.size(); ++i)  // bodies added by hand, without the index
    if (m.bodies[i].name == name) return static_cast<int>(i);
  return -1;
}

int body_node(const Model& m, int body, int index) {
  const Body& b = m.bodies.at(body);
  const int local = index >= 0 ? index : b.node_count + index;
  if (local < 0 || local >= b.node_count)
    throw ModelError("node " + std::to_string(index) + " is out of range for body '" + b.name +
                     "' with " + std::to_string(b.node_count) + " nodes");
  return b.first_node + local;
}

int add_straight_line(Model& m, const std::string& name, const Vec3& start_in, const Vec3& end_in,
                      int elements, const LineProperties& props, double length,
                      const Vec3& sag_direction) {
  check_properties(props);
  const Vec3 start = planar(m, start_in), end = planar(m, end_in);
  const Vec3 chord = vec_sub(end, start);
  const double c = vec_norm(chord);
  if (!(c > 1e-12)) throw ModelError("start and end points coincide: the line has zero length");
  if (length == 0.0) length = c;
  if (length < c * (1.0 - 1e-12))
    throw ModelError("length " + std::to_string(length) + " is shorter than the distance " +
                     std::to_string(c) + " between start and end");
  begin_body(m, name, elements);
  const Vec3 d = {chord[0] / c, chord[1] / c, chord[2] / c};
  const double L = length / elements;
  const bool slack = length > c * (1.0 + 1e-12);
  // A slack cable starts as the catenary of its length through start and end, sagging along the
  // part of sag_direction across the chord: 2 a sinh(c / (2 a)) = length, and at the arc length u a
  // from the lowest point, (a asinh(u), a (cosh(c / (2 a)) - sqrt(1 + u^2))) along (chord, sag).
  // Static equilibrium then starts beside its solution (a 160-element cable with EI = 0.01 N m^2
  // converges in 7 iterations from it and did not from a circular arc; docs/performance.md, "Slack
  // cables in statics").
  double a = 0.0, z = 0.0;  // the catenary's parameter and c / (2 a)
  Vec3 sag = {0.0, 0.0, 0.0};
  if (slack) {
    Vec3 s = planar(m, sag_direction);
    s = axpy(-dot(s, d), d, s);
    const double ns = vec_norm(s);
    if (!(ns > 1e-12)) throw ModelError("sag direction is parallel to the line");
    sag = {s[0] / ns, s[1] / ns, s[2] / ns};
    // sinh(z) / z = length / c, increasing in z: bisection (z = 700 allows length / c up to 1e301).
    double lo = 0.0, hi = 700.0;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (std::sinh(mid) / mid < length / c ? lo : hi) = mid;
    }
    z = 0.5 * (lo + hi);
    a = c / (2.0 * z);
  }
  for (int i = 0; i <= elements; ++i) {
    const double s = i * L;
    const Vec3 r_ref = axpy(s, d, start);
    Vec3 r = r_ref, slope = d;
    if (slack) {
      const double u = (s - 0.5 * length) / a, root = std::sqrt(1.0 + u * u);
      // cosh(z) - sqrt(1 + u^2) as two differences from 1, without cancellation near taut.
      const double depth = a * (2.0 * std::sinh(0.5 * z) * std::sinh(0.5 * z) - u * u / (root + 1.0));
      r = axpy(depth, sag, axpy(a * std::asinh(u), d, axpy(0.5, chord, start)));
      slope = axpy(-u / root, sag, axpy(1.0 / root, d, Vec3{0, 0, 0}));
    }
    append_node(m, r, slope, r_ref, d);
  }
  const Body& b = m.bodies.back();
  for (int i = 0; i < elements; ++i) append_element(m, b.first_node + i, b.first_node + i + 1, L, props);
  end_body(m);
  return static_cast<int>(m.bodies.size()) - 1;
}

int add_arc(Model& m, const std::string& name, const Vec3& centre, double radius, double a0,
            double a1, int elements, const LineProperties& props, const Vec3& u_in, const Vec3& v_in) {
  check_properties(props);
  if (!(radius > 0.0)) throw ModelError("arc radius must be positive");
  if (!(std::fabs(a1 - a0) > 1e-12)) throw ModelError("arc start and end angles coincide");
  const Vec3 u = planar(m, u_in), v = planar(m, v_in);
  if (std::fabs(vec_norm(u) - 1.0) > 1e-9 || std::fabs(vec_norm(v) - 1.0) > 1e-9 || std::fabs(dot(u, v)) > 1e-9)
    throw ModelError("arc plane vectors u and v must be orthonormal");
  begin_body(m, name, elements);
  const double sign = a1 > a0 ? 1.0 : -1.0;
  for (int i = 0; i <= elements; ++i) {
    const double a = a0 + (a1 - a0) * i / elements;
    const Vec3 r = axpy(radius * std::sin(a), v, axpy(radius * std::cos(a), u, centre));
    const Vec3 t = axpy(sign * std::cos(a), v, axpy(-sign * std::sin(a), u, Vec3{0, 0, 0}));
    append_node(m, planar(m, r), planar(m, t), planar(m, r), planar(m, t));
  }
  const double L = radius * std::fabs(a1 - a0) / elements;
  const Body& b = m.bodies.back();
  for (int i = 0; i < elements; ++i) append_element(m, b.first_node + i, b.first_node + i + 1, L, props);
  end_body(m);
  return static_cast<int>(m.bodies.size()) - 1;
}

int add_node_line(Model& m, const std::string& name, const std::vector<Vec3>& positions,
                  const std::vector<Vec3>& slopes, const LineProperties& props) {
  check_properties(props);
  if (positions.size() < 2) throw ModelError("a node line needs at least two nodes");
  if (slopes.size() != positions.size())
    throw ModelError("a node line needs one slope per node");
  begin_body(m, name, static_cast<int>(positions.size()) - 1);
  for (size_t i = 0; i < positions.size(); ++i) {
    const Vec3 r = planar(m, positions[i]), t = planar(m, slopes[i]);
    if (!(vec_norm(t) > 1e-12)) throw ModelError("slope of node " + std::to_string(i) + " is zero");
    append_node(m, r, t, r, t);
  }
  const Body& b = m.bodies.back();
  const int D = m.dimension;
  for (size_t i = 0; i + 1 < positions.size(); ++i) {
    const double chord = vec_norm(vec_sub(planar(m, positions[i + 1]), planar(m, positions[i])));
    if (!(chord > 1e-12)) throw ModelError("nodes " + std::to_string(i) + " and " + std::to_string(i + 1) + " coincide (zero-length element)");
    // The Hermite curve depends on L through the slopes; iterate L = arc length of the curve.
    double e[12];
    const int a = b.first_node + (int)i, bn = a + 1;
    for (int k = 0; k < 2 * D; ++k) e[k] = m.reference_coordinates[a * 2 * D + k];
    for (int k = 0; k < 2 * D; ++k) e[2 * D + k] = m.reference_coordinates[bn * 2 * D + k];
    double L = chord;
    for (int it = 0; it < 50; ++it) {
      double arc = 0.0;
      for (int g = 0; g < GaussRule5::kPoints; ++g) {
        const HermiteShape h = hermite_shape(GaussRule5::point(g), L);
        double t2 = 0.0;
        for (int j = 0; j < D; ++j) {
          double x = 0.0;
          for (int k = 0; k < 4; ++k) x += h.sx[k] * e[k * D + j];
          t2 += x * x;
        }
        arc += GaussRule5::weight(g) * L * std::sqrt(t2);
      }
      if (std::fabs(arc - L) < 1e-14 * L) break;
      L = arc;
    }
    append_element(m, a, bn, L, props);
  }
  end_body(m);
  return static_cast<int>(m.bodies.size()) - 1;
}

void add_fix(Model& m, int node, const std::vector<int>& coordinates, const std::string& name,
             const std::string& json_path) {
  check_node(m, node);
  if (coordinates.empty()) throw ModelError("a fix constraint needs at least one coordinate");
  add_constraint_group(m, "fix", name, json_path);
  const int n = m.coordinates_per_node();
  for (int k : coordinates) {
    if (k < 0 || k >= n) throw ModelError("coordinate index " + std::to_string(k) + " is out of range");
    add_row(m, coordinate_row(node * n + k, m.initial_positions[node * n + k]), coordinate_label(m.dimension, k));
  }
}

void add_spherical_to_ground(Model& m, int node, const Vec3& point, const std::string& name,
                             const std::string& json_path) {
  check_node(m, node);
  add_constraint_group(m, "spherical", name, json_path);
  const int n = m.coordinates_per_node();
  for (int k = 0; k < m.dimension; ++k) {
    add_row(m, coordinate_row(node * n + k, point[k]), coordinate_label(m.dimension, k));
  }
}

void add_node_joint(Model& m, int a, int b, bool equal_slopes, const std::string& type,
                    const std::string& name, const std::string& json_path) {
  check_node(m, a);
  check_node(m, b);
  if (a == b) throw ModelError("a joint needs two different nodes");
  add_constraint_group(m, type, name, json_path);
  const int n = m.coordinates_per_node();
  const int count = equal_slopes ? n : m.dimension;
  for (int k = 0; k < count; ++k) {
    ConstraintRow row;
    row.dofs.push_back(a * n + k);
    row.dofs.push_back(b * n + k);
    row.coefficients.push_back(1.0);
    row.coefficients.push_back(-1.0);
    add_row(m, row, coordinate_label(m.dimension, k));
  }
}

void add_prescribed_motion(Model& m, int node, const std::vector<int>& components,
                           const std::vector<TimeFunction>& displacement, const std::string& name,
                           const std::string& json_path) {
  check_node(m, node);
  if (components.empty() || components.size() != displacement.size())
    throw ModelError("prescribed motion needs one time function per component");
  add_constraint_group(m, "prescribed", name, json_path);
  const int n = m.coordinates_per_node();
  for (size_t i = 0; i < components.size(); ++i) {
    const int k = components[i];
    if (k < 0 || k >= m.dimension) throw ModelError("prescribed component out of range");
    ConstraintRow row = coordinate_row(node * n + k, m.initial_positions[node * n + k]);
    row.has_motion = true;
    row.motion = displacement[i];
    add_row(m, row, coordinate_label(m.dimension, k));
  }
}

double line_mass(const Model& m, int body) {
  const Body& b = m.bodies.at(body);
  double mass = 0.0;
  for (int e = b.first_element; e < b.first_element + b.element_count; ++e) {
    const double* s = &m.elements.shape_integrals[4 * e];
    mass += m.elements.properties[e].rhoA * (s[0] + s[2]);  // the two position shapes sum to 1
  }
  return mass;
}

Vec3 line_first_moment(const Model& m, int body, const std::vector<double>& field) {
  const Body& b = m.bodies.at(body);
  const int D = m.dimension, n = 2 * D;
  Vec3 moment = {0.0, 0.0, 0.0};
  for (int e = b.first_element; e < b.first_element + b.element_count; ++e) {
    const double* s = &m.elements.shape_integrals[4 * e];
    const double rhoA = m.elements.properties[e].rhoA;
    // e = [r_A, r'_A, r_B, r'_B]: shape k multiplies block k
    for (int k = 0; k < 4; ++k) {
      const int node = k < 2 ? m.elements.node_a[e] : m.elements.node_b[e];
      for (int i = 0; i < D; ++i) moment[i] += rhoA * s[k] * field[node * n + (k % 2) * D + i];
    }
  }
  return moment;
}

void set_rigid_velocity(Model& m, int body, const Vec3& velocity, const Vec3& angular_velocity) {
  const int D = m.dimension, n = 2 * D;
  const Vec3 w = D == 2 ? Vec3{0.0, 0.0, angular_velocity[2]} : angular_velocity;
  const double mass = line_mass(m, body);
  const Vec3 moment = line_first_moment(m, body, m.initial_positions);
  const Vec3 centre = {moment[0] / mass, moment[1] / mass, moment[2] / mass};
  const Body& b = m.bodies.at(body);
  for (int node = b.first_node; node < b.first_node + b.node_count; ++node) {
    Vec3 r = {0.0, 0.0, 0.0}, slope = {0.0, 0.0, 0.0};
    for (int i = 0; i < D; ++i) r[i] = m.initial_positions[node * n + i] - centre[i];
    for (int i = 0; i < D; ++i) slope[i] = m.initial_positions[node * n + D + i];
    const Vec3 turn = cross3(w, r), slope_rate = cross3(w, slope);
    for (int i = 0; i < D; ++i) m.initial_velocities[node * n + i] = velocity[i] + turn[i];
    for (int i = 0; i < D; ++i) m.initial_velocities[node * n + D + i] = slope_rate[i];
  }
}

void add_point_force(Model& m, int node, const Vec3& force, const TimeFunction& scale) {
  check_node(m, node);
  for (int k = 0; k < m.dimension; ++k) {
    if (force[k] == 0.0) continue;
    PointLoad p;
    p.dof = node * m.coordinates_per_node() + k;
    p.value = force[k];
    p.scale = scale;
    m.point_loads.push_back(p);
  }
}

void add_distributed_load(Model& m, int body, const Vec3& f, const TimeFunction& scale) {
  const Body& b = m.bodies.at(body);
  DistributedLoad d;
  d.first_element = b.first_element;
  d.element_count = b.element_count;
  for (int k = 0; k < 3; ++k) d.force[k] = k < m.dimension ? f[k] : 0.0;
  d.scale = scale;
  m.distributed_loads.push_back(d);
}

void add_contact_surface(Model& m, const std::string& name, ContactSurface surface, const std::vector<int>& bodies,
                         const std::vector<double>& heights) {
  const double number = static_cast<double>(m.elements.contact_surfaces.size());
  if (surface.kind == double(SurfaceKind::grid)) {
    const double nx = surface.grid_size[0], ny = m.dimension == 3 ? surface.grid_size[1] : 1.0;
    if (!(nx >= 2.0) || !(ny >= (m.dimension == 3 ? 2.0 : 1.0)))
      throw ModelError("contact '" + name + "': a height grid needs at least 2 nodes along each of its axes");
    if (static_cast<double>(heights.size()) != nx * ny)
      throw ModelError("contact '" + name + "': the height grid has " + std::to_string(heights.size()) +
                       " heights for " + std::to_string(static_cast<long>(nx * ny)) + " nodes");
    if (!(surface.grid_spacing[0] > 0.0) || (m.dimension == 3 && !(surface.grid_spacing[1] > 0.0)))
      throw ModelError("contact '" + name + "': the height grid's spacing must be positive");
    surface.grid_size[1] = ny;
    surface.grid_offset = static_cast<double>(m.elements.contact_heights.size());
    m.elements.contact_heights.insert(m.elements.contact_heights.end(), heights.begin(), heights.end());
  }
  m.elements.contact_surfaces.push_back(surface);
  m.elements.contact_names.push_back(name);
  for (int body : bodies) {
    const Body& b = m.bodies.at(body);
    for (int e = b.first_element; e < b.first_element + b.element_count; ++e) m.elements.properties[e].contact = number;
  }
  m.finalized = false;
}

void add_water_values(Model& m, FluidLoad& water, const std::vector<double>& profile_heights,
                      const std::vector<double>& profile_velocities, const std::vector<WaveComponent>& waves) {
  if (!(water.density > 0.0)) throw ModelError("the water's density must be positive");
  if (!waves.empty() && !(water.depth > 0.0)) throw ModelError("waves need a positive water depth");
  if (profile_velocities.size() != 3 * profile_heights.size())
    throw ModelError("a current profile needs 3 velocity components at each of its heights");
  for (size_t i = 1; i < profile_heights.size(); ++i)
    if (!(profile_heights[i] > profile_heights[i - 1]))
      throw ModelError("a current profile's heights must increase strictly");
  std::vector<double>& values = m.elements.fluid_values;
  water.profile_offset = static_cast<double>(values.size());
  water.profile_count = static_cast<double>(profile_heights.size());
  values.insert(values.end(), profile_heights.begin(), profile_heights.end());
  values.insert(values.end(), profile_velocities.begin(), profile_velocities.end());
  water.wave_offset = static_cast<double>(values.size());
  water.wave_count = static_cast<double>(waves.size());
  water.wave_reach = 0.0;
  for (const WaveComponent& c : waves) {
    water.wave_reach += std::fabs(c.amplitude);
    const double* v = reinterpret_cast<const double*>(&c);
    values.insert(values.end(), v, v + kWaveValues);
  }
}

void add_fluid_load(Model& m, const FluidLoad& f, int body) {
  const Body& b = m.bodies.at(body);
  if (!(f.diameter > 0.0)) throw ModelError("body '" + b.name + "': the hydrodynamic diameter must be positive");
  if (!(f.drag_normal >= 0.0) || !(f.drag_tangential >= 0.0) || !(f.added_mass_normal >= 0.0) ||
      !(f.added_mass_tangential >= 0.0))
    throw ModelError("body '" + b.name + "': drag and added mass coefficients must not be negative");
  const double number = static_cast<double>(m.elements.fluid_loads.size());
  m.elements.fluid_loads.push_back(f);
  m.elements.fluid_names.push_back(b.name);
  for (int e = b.first_element; e < b.first_element + b.element_count; ++e) m.elements.properties[e].fluid = number;
  m.finalized = false;
}

void add_cable_shape_contact(Model& m, CableShapeContact c, const std::vector<int>& bodies) {
  if (m.dimension != 3) throw ModelError("contact '" + c.name + "': rigid bodies need a 3D model");
  if (c.body < 0 || c.body >= static_cast<int>(m.mechanism.bodies.size()))
    throw ModelError("contact '" + c.name + "': rigid body " + std::to_string(c.body) + " is not in the model");
  for (int shape : c.shapes)
    if (shape < 0 || shape >= static_cast<int>(m.mechanism.contacts.shapes.size()) ||
        m.mechanism.contacts.shapes[shape].body != c.body)
      throw ModelError("contact '" + c.name + "': shape " + std::to_string(shape) + " is not a shape of rigid body '" +
                       m.mechanism.bodies[c.body].name + "'");
  for (int body : bodies) {
    const Body& b = m.bodies.at(body);
    for (int e = b.first_element; e < b.first_element + b.element_count; ++e)
      c.spans.push_back({e, m.elements.node_a[e], m.elements.node_b[e]});
  }
  m.mechanism.cable_contacts.push_back(std::move(c));
  m.finalized = false;
}

}  // namespace catenary
