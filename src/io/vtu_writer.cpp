#include "catenary/io/vtu_writer.hpp"

#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "catenary/elements/hermite_shape.hpp"
#include "catenary/model/contact_report.hpp"
#include "catenary/model/line_tension.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "output_file.hpp"
#include "shape_mesh.hpp"
#include "text_output.hpp"

namespace catenary {

namespace {

// Interpolates the four D-blocks of e with the weights w (shape values or derivatives).
void interpolate(const double w[4], const double* e, int D, double out[3]) {
  out[0] = out[1] = out[2] = 0.0;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) out[i] += w[k] * e[k * D + i];
}

// Points with their data, and cells: a poly-line per cable; per rigid body three lines (its
// body-frame axes from the centre of mass) and its shapes' faces.
struct Samples {
  std::vector<double> points, velocities, strains, tensions;  // 3, 3, 1, 1 per point
  std::vector<double> contact_forces;               // 3 per point, for models with contact surfaces
  std::vector<int> connectivity, offsets, types;    // VTK cells
  std::vector<int> cell_bodies;                     // body_id per cell: cables, then rigid bodies
  template <class Ids>
  void add_cell(const Ids& point_ids, int type, int body) {
    connectivity.insert(connectivity.end(), std::begin(point_ids), std::end(point_ids));
    offsets.push_back(static_cast<int>(connectivity.size()));
    types.push_back(type);
    cell_bodies.push_back(body);
  }
  int point_count() const { return static_cast<int>(strains.size()); }
};

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
      const bool last = e == b.first_element + b.element_count - 1;
      const int count = last ? samples + 1 : samples;
      for (int j = 0; j < count; ++j) {
        const double xi = j == samples ? 1.0 : static_cast<double>(j) / samples;
        const HermiteShape h = hermite_shape(xi, el.properties[e].length);
        double r[3], rv[3], t[3], t0[3];
        interpolate(h.s, eq.data(), D, r);
        interpolate(h.s, ev.data(), D, rv);
        interpolate(h.sx, eq.data(), D, t);
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
        out.tensions.push_back(element_tension(m, e, xi, q, v));
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
// contact shapes' surfaces (shape_mesh.hpp), with the velocities of those points
// (r' + omega x (x - r)), and 0 for the cables' axial strain and contact force.
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
      const Vec<3> point = vec_add(s.r, arm), velocity = vec_add(s.rd, cross3(omega, arm));
      for (int i = 0; i < 3; ++i) out.points.push_back(point[i]), out.velocities.push_back(velocity[i]);
      out.strains.push_back(0.0);
      out.tensions.push_back(0.0);
      if (contacts) out.contact_forces.insert(out.contact_forces.end(), 3, 0.0);
    }
    for (int k = 1; k <= 3; ++k) out.add_cell(std::vector<int>{centre, centre + k}, kVtkLine, body_id);

    SurfaceMesh mesh;
    for (const RigidShape& shape : m.mechanism.contacts.shapes)
      if (shape.body == static_cast<int>(b)) add_shape_surface(shape, s, mesh);
    const int first_point = out.point_count();
    for (int k = 0; k < mesh.point_count(); ++k) {
      out.points.insert(out.points.end(), mesh.points[k].v, mesh.points[k].v + 3);
      out.velocities.insert(out.velocities.end(), mesh.velocities[k].v, mesh.velocities[k].v + 3);
      out.strains.push_back(0.0);
      out.tensions.push_back(0.0);
      if (contacts) out.contact_forces.insert(out.contact_forces.end(), 3, 0.0);
    }
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

void write_array(OutputFile& f, const char* type, const char* name, int components,
                 const std::vector<double>& values) {
  f.add(std::string("        <DataArray type=\"") + type + "\" Name=\"" + name + "\" NumberOfComponents=\"" +
        std::to_string(components) + "\" format=\"ascii\">\n");
  std::string line;
  for (size_t i = 0; i < values.size(); i += components) {
    line = "         ";
    for (int k = 0; k < components; ++k) line += ' ' + number(values[i + k]);
    line += '\n';
    f.add(line);
  }
  f.add("        </DataArray>\n");
}

// The opening line of an integer array, whose values follow a line a cell.
std::string int_array(const char* type, const char* name) {
  return std::string("        <DataArray type=\"") + type + "\" Name=\"" + name + "\" format=\"ascii\">\n";
}

}  // namespace

void write_vtu(const std::string& path, const Model& m, const Eigen::VectorXd& q,
               const Eigen::VectorXd& v, int samples_per_element) {
  if (samples_per_element < 1)
    throw std::invalid_argument("write_vtu: samples per element must be at least 1, got " +
                                std::to_string(samples_per_element));
  if (q.size() != m.dof_count() || v.size() != m.dof_count())
    throw std::invalid_argument("write_vtu: coordinate vectors have " + std::to_string(q.size()) +
                                " and " + std::to_string(v.size()) + " entries, the model has " +
                                std::to_string(m.dof_count()) + " coordinates");
  Samples s = sample_centrelines(m, q, v, samples_per_element);
  add_rigid_bodies(m, q, v, 0.1 * m.characteristic_length, s);
  const int points = s.point_count(), cells = static_cast<int>(s.types.size());

  // Written under a temporary name and renamed: a frame file that results.pvd lists is whole.
  write_atomically(path, [&](OutputFile& f) {
    f.add("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <UnstructuredGrid>\n"
          "    <Piece NumberOfPoints=\"" + std::to_string(points) + "\" NumberOfCells=\"" + std::to_string(cells) +
          "\">\n"
          "      <PointData Vectors=\"velocity\" Scalars=\"axial_strain\">\n");
    write_array(f, "Float64", "velocity", 3, s.velocities);
    write_array(f, "Float64", "axial_strain", 1, s.strains);
    write_array(f, "Float64", "tension", 1, s.tensions);
    if (!s.contact_forces.empty()) write_array(f, "Float64", "contact_force", 3, s.contact_forces);
    // body_id: cables 0, 1, ... in model order, then the rigid bodies (axes and shapes alike).
    f.add("      </PointData>\n"
          "      <CellData Scalars=\"body_id\">\n" + int_array("Int32", "body_id"));
    for (int body : s.cell_bodies) f.add("          " + std::to_string(body) + '\n');
    f.add("        </DataArray>\n"
          "      </CellData>\n"
          "      <Points>\n");
    write_array(f, "Float64", "points", 3, s.points);
    f.add("      </Points>\n"
          "      <Cells>\n" + int_array("Int32", "connectivity"));
    int begin = 0;
    for (int end : s.offsets) {
      std::string line = "         ";
      for (int k = begin; k < end; ++k) line += ' ' + std::to_string(s.connectivity[k]);
      f.add(line + '\n');
      begin = end;
    }
    f.add("        </DataArray>\n" + int_array("Int32", "offsets"));
    for (int end : s.offsets) f.add("          " + std::to_string(end) + '\n');
    f.add("        </DataArray>\n" + int_array("UInt8", "types"));
    for (int type : s.types) f.add("          " + std::to_string(type) + '\n');
    f.add("        </DataArray>\n"
          "      </Cells>\n"
          "    </Piece>\n"
          "  </UnstructuredGrid>\n"
          "</VTKFile>\n");
  });
}

}  // namespace catenary
