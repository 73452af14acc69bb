#include "catenary/io/vtu_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/elements/hermite_shape.hpp"
#include "catenary/model/contact_report.hpp"
#include "catenary/model/line_tension.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "inertia_box.hpp"
#include "output_file.hpp"
#include "shape_mesh.hpp"
#include "vtu_format.hpp"

namespace catenary {

namespace {

// Interpolates the four D-blocks of e with the weights w (shape values or derivatives).
void interpolate(const double w[4], const double* e, int D, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) out[i] += w[k] * e[k * D + i];
}

// Points with their data, and cells: a poly-line per cable; per rigid body three lines (its
// body-frame axes from the centre of mass) and its shapes' faces, or its inertia box's.
struct Samples {
  std::vector<double> points, velocities;                    // 3 per point
  std::vector<double> strains, curvatures, tensions, radii;  // 1 per point
  std::vector<double> contact_forces;  // 3 per point, for models with contact surfaces
  std::vector<std::int32_t> connectivity, offsets, cell_bodies;  // cell_bodies: body_id per cell
  std::vector<std::uint8_t> types;                               // VTK cell types
  template <class Ids>
  void add_cell(const Ids& point_ids, std::uint8_t type, int body) {
    connectivity.insert(connectivity.end(), std::begin(point_ids), std::end(point_ids));
    offsets.push_back(static_cast<std::int32_t>(connectivity.size()));
    types.push_back(type);
    cell_bodies.push_back(body);
  }
  // A rigid body's point: no strain, curvature, tension, radius or contact force.
  void add_rigid_point(const Vec<3>& point, const Vec<3>& velocity, bool contacts) {
    points.insert(points.end(), point.v, point.v + 3);
    velocities.insert(velocities.end(), velocity.v, velocity.v + 3);
    for (std::vector<double>* scalar : {&strains, &curvatures, &tensions, &radii}) scalar->push_back(0.0);
    if (contacts) contact_forces.insert(contact_forces.end(), 3, 0.0);
  }
  int point_count() const { return static_cast<int>(strains.size()); }
};

// The element's own strain law's bending curvature at a point (gradient_deficient_math.hpp),
// |r' x r''| A^-h c^1/2 with |r' x r''|^2 = A B - C^2, from r' = a, r'' = b and the reference
// slope |r0'|; 0 where either slope vanishes.
double curvature_at(const ElementProperties& p, const double a[3], const double b[3], double reference_slope) {
  double A = 0.0, B = 0.0, C = 0.0;
  for (int i = 0; i < 3; ++i) A += a[i] * a[i], B += b[i] * b[i], C += a[i] * b[i];
  if (!(A > 0.0) || !(reference_slope > 0.0)) return 0.0;
  return std::sqrt(std::max(A * B - C * C, 0.0)) * detail::curvature_measure(reissner_law(p), A, 1.0 / reference_slope).Q;
}

// Half the outer diameter of element e: its hydrodynamic section's where it is in the water, else
// its body's section's.
double element_radius(const ElementBlock& el, int e, const Body& body) {
  const int fluid = static_cast<int>(el.properties[e].fluid);
  return 0.5 * (fluid >= 0 ? el.fluid_loads[fluid].diameter : body.diameter);
}

constexpr int kVtkLine = 3, kVtkPolyLine = 4, kVtkTriangle = 5, kVtkQuad = 9;

Samples sample_centrelines(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                           int samples) {
  const int D = m.dimension, n = 2 * D;
  const ElementBlock& el = m.elements;
  const bool contacts = !el.contact_surfaces.empty();
  Samples out;
  std::vector<double> eq(4 * D), ev(4 * D);
  for (size_t body = 0; body < m.bodies.size(); ++body) {
    const Body& b = m.bodies[body];
    const int first_point = out.point_count();
    for (int e = b.first_element; e < b.first_element + b.element_count; ++e) {
      const int a = el.node_a[e], c = el.node_b[e];
      for (int i = 0; i < n; ++i) {
        eq[i] = q[a * n + i];
        eq[n + i] = q[c * n + i];
        ev[i] = v[a * n + i];
        ev[n + i] = v[c * n + i];
      }
      const double* ref = &el.reference[4 * D * e];
      const double radius = element_radius(el, e, b);
      const bool last = e == b.first_element + b.element_count - 1;
      const int count = last ? samples + 1 : samples;
      for (int j = 0; j < count; ++j) {
        const double xi = j == samples ? 1.0 : static_cast<double>(j) / samples;
        const HermiteShape h = hermite_shape(xi, el.properties[e].length);
        double r[3], rv[3], t[3], t0[3], bend[3];
        interpolate(h.s, eq.data(), D, r);
        interpolate(h.s, ev.data(), D, rv);
        interpolate(h.sx, eq.data(), D, t);
        interpolate(h.sxx, eq.data(), D, bend);
        interpolate(h.sx, ref, D, t0);
        double tt = 0.0, t0t0 = 0.0;
        for (int i = 0; i < 3; ++i) {
          tt += t[i] * t[i];
          t0t0 += t0[i] * t0[i];
        }
        out.points.insert(out.points.end(), r, r + 3);
        out.velocities.insert(out.velocities.end(), rv, rv + 3);
        // The element's own strain law's axial strain (gradient_deficient_math.hpp).
        const bool reissner = reissner_law(el.properties[e]);
        out.strains.push_back(!(t0t0 > 0.0) ? 0.0 : reissner ? std::sqrt(tt / t0t0) - 1.0 : (tt - t0t0) / (2.0 * t0t0));
        out.curvatures.push_back(curvature_at(el.properties[e], t, bend, std::sqrt(t0t0)));
        out.tensions.push_back(element_tension(m, e, xi, q, v));
        out.radii.push_back(radius);
        if (contacts) {
          const Vec<3> force = contact_force_at(m, e, r, t, rv);
          out.contact_forces.insert(out.contact_forces.end(), force.v, force.v + 3);
        }
      }
    }
    std::vector<int> line(out.point_count() - first_point);
    for (size_t k = 0; k < line.size(); ++k) line[k] = first_point + static_cast<int>(k);
    out.add_cell(line, kVtkPolyLine, static_cast<int>(body));
  }
  return out;
}

// Each rigid body as its three body axes of length `axis_length` from the centre of mass and its
// contact shapes' surfaces (shape_mesh.hpp), or where it has none its inertia box's
// (inertia_box.hpp), with the velocities of those points (r' + omega x (x - r)).
void add_rigid_bodies(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double axis_length,
                      Samples& out) {
  const bool contacts = !m.elements.contact_surfaces.empty();
  const int first_body = static_cast<int>(m.bodies.size());
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b) {
    const int body_id = first_body + static_cast<int>(b);
    const int o = m.rigid_offset() + 7 * static_cast<int>(b);
    const rigid::BodyState s = rigid::body_state(q.data() + o, v.data() + o);
    const Vec<3> omega = rigid::angular_velocity(s.p, s.pd);
    const int centre = out.point_count();
    for (int k = -1; k < 3; ++k) {
      Vec<3> arm = Vec<3>::zero();
      if (k >= 0) {
        Vec<3> axis = Vec<3>::zero();
        axis[k] = axis_length;
        arm = rigid::rotate(rigid::normalized(s.p), axis);
      }
      out.add_rigid_point(vec_add(s.r, arm), vec_add(s.rd, cross3(omega, arm)), contacts);
    }
    for (int k = 1; k <= 3; ++k) out.add_cell(std::vector<int>{centre, centre + k}, kVtkLine, body_id);

    SurfaceMesh mesh;
    for (const RigidShape& shape : m.mechanism.contacts.shapes)
      if (shape.body == static_cast<int>(b)) add_shape_surface(shape, s, mesh);
    if (mesh.point_count() == 0)
      add_shape_surface(inertia_box(m.mechanism.bodies[b], static_cast<int>(b), axis_length), s, mesh);
    const int first_point = out.point_count();
    for (int k = 0; k < mesh.point_count(); ++k) out.add_rigid_point(mesh.points[k], mesh.velocities[k], contacts);
    int begin = 0;
    std::vector<int> face;
    for (int end : mesh.face_ends) {
      face.clear();
      for (int k = begin; k < end; ++k) face.push_back(first_point + mesh.connectivity[k]);
      out.add_cell(face, face.size() == 3 ? kVtkTriangle : kVtkQuad, body_id);
      begin = end;
    }
  }
}

}  // namespace

void write_vtu(const std::string& path, const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
               int samples_per_element, VtuEncoding encoding) {
  if (samples_per_element < 1)
    throw std::invalid_argument("write_vtu: samples per element must be at least 1, got " +
                                std::to_string(samples_per_element));
  if (q.size() != m.dof_count() || v.size() != m.dof_count())
    throw std::invalid_argument("write_vtu: coordinate vectors have " + std::to_string(q.size()) +
                                " and " + std::to_string(v.size()) + " entries, the model has " +
                                std::to_string(m.dof_count()) + " coordinates");
  Samples s = sample_centrelines(m, q, v, samples_per_element);
  add_rigid_bodies(m, q, v, 0.1 * m.characteristic_length, s);

  VtuPiece piece;
  piece.point_count = s.point_count();
  piece.cell_count = static_cast<int>(s.types.size());
  piece.point_data = {vtu_array("velocity", 3, s.velocities), vtu_array("axial_strain", 1, s.strains),
                      vtu_array("curvature", 1, s.curvatures), vtu_array("tension", 1, s.tensions),
                      vtu_array("radius", 1, s.radii)};
  if (!s.contact_forces.empty()) piece.point_data.push_back(vtu_array("contact_force", 3, s.contact_forces));
  // body_id: cables 0, 1, ... in model order, then the rigid bodies (axes and faces alike).
  piece.cell_data = {vtu_array("body_id", s.cell_bodies)};
  piece.points = vtu_array("points", 3, s.points);
  piece.connectivity = vtu_array("connectivity", s.connectivity);
  piece.offsets = vtu_array("offsets", s.offsets);
  piece.types = vtu_array("types", s.types);
  // Written under a temporary name and renamed: a frame file that results.pvd lists is whole.
  write_atomically(path, [&](OutputFile& f) { write_vtu_piece(f, piece, encoding); });
}

}  // namespace catenary
