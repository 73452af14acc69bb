#include "shape_mesh.hpp"

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Puts one shape's points into the ground frame and its faces into the mesh.
class Placement {
 public:
  Placement(const RigidShape& shape, const rigid::BodyState& body, SurfaceMesh& out)
      : frame_(shape.frame),
        body_(body),
        out_(out),
        p_(rigid::normalized(body.p)),
        omega_(rigid::angular_velocity(body.p, body.pd)),
        // A left-handed frame (f x g = -h) mirrors the shape: its faces' points are taken in the
        // reverse order so that their normals still point outward.
        mirrored_(dot(cross3(shape.frame.f, shape.frame.g), shape.frame.h) < 0.0) {}

  // Adds the point at (x, y, z) along the shape's f, g, h from its centre; returns its index.
  int point(double x, double y, double z) {
    Vec<3> local = frame_.s;
    for (int i = 0; i < 3; ++i) local[i] += x * frame_.f[i] + y * frame_.g[i] + z * frame_.h[i];
    const Vec<3> arm = rigid::rotate(p_, local);
    out_.points.push_back(vec_add(body_.r, arm));
    out_.velocities.push_back(vec_add(body_.rd, cross3(omega_, arm)));
    return out_.point_count() - 1;
  }

  // Adds a face whose points run counter-clockwise seen from outside in the shape's frame.
  void face(std::initializer_list<int> ids) {
    if (mirrored_)
      out_.connectivity.insert(out_.connectivity.end(), std::rbegin(ids), std::rend(ids));
    else
      out_.connectivity.insert(out_.connectivity.end(), ids.begin(), ids.end());
    out_.face_ends.push_back(static_cast<int>(out_.connectivity.size()));
  }

 private:
  const rigid::Marker& frame_;
  const rigid::BodyState& body_;
  SurfaceMesh& out_;
  Vec<4> p_;
  Vec<3> omega_;
  bool mirrored_;
};

// The surface of revolution about h of the profile (rho, z), listed from the top pole to the
// bottom pole: its first and last entries are the poles (on the axis), the others rings.
void add_revolution(Placement& at, const std::vector<std::pair<double, double>>& profile, int segments) {
  const int n = static_cast<int>(profile.size());
  std::vector<int> first(n);  // each profile entry's first point
  for (int k = 0; k < n; ++k) {
    const double rho = profile[k].first, z = profile[k].second;
    if (k == 0 || k == n - 1) {
      first[k] = at.point(0.0, 0.0, z);
      continue;
    }
    for (int j = 0; j < segments; ++j) {
      const double phi = 2.0 * kPi * j / segments;
      const int id = at.point(rho * std::cos(phi), rho * std::sin(phi), z);
      if (j == 0) first[k] = id;
    }
  }
  const auto ring = [&](int k, int j) { return first[k] + j % segments; };
  // Down the profile, then on in phi (counter-clockwise about h): the normal points away from h.
  for (int k = 0; k + 1 < n; ++k)
    for (int j = 0; j < segments; ++j) {
      if (k == 0)
        at.face({first[0], ring(1, j), ring(1, j + 1)});
      else if (k + 1 == n - 1)
        at.face({ring(k, j), first[n - 1], ring(k, j + 1)});
      else
        at.face({ring(k, j), ring(k + 1, j), ring(k + 1, j + 1), ring(k, j + 1)});
    }
}

// Appends the profile of the sphere of radius R centred at z = c, at the angles pi i / rings from
// its top pole for i = from_step ... to_step.
void add_arc(std::vector<std::pair<double, double>>& profile, double R, double c, int from_step, int to_step,
             int rings) {
  for (int i = from_step; i <= to_step; ++i) {
    const double theta = kPi * i / rings;
    // The poles exactly on the axis (sin(pi) is not 0 in floating point).
    const double rho = i == 0 || i == rings ? 0.0 : R * std::sin(theta);
    profile.emplace_back(rho, c + R * std::cos(theta));
  }
}

}  // namespace

void add_shape_surface(const RigidShape& shape, const rigid::BodyState& body, SurfaceMesh& out, int segments,
                       int rings) {
  if (segments < 3 || rings < 2 || rings % 2 != 0)
    throw std::invalid_argument("add_shape_surface: needs at least 3 segments and an even number of rings >= 2, got " +
                                std::to_string(segments) + " and " + std::to_string(rings));
  Placement at(shape, body, out);
  const double R = shape.radius, half = 0.5 * shape.length;
  std::vector<std::pair<double, double>> profile;
  switch (shape.kind) {
    case ShapeKind::sphere:
      add_arc(profile, R, 0.0, 0, rings, rings);
      add_revolution(at, profile, segments);
      break;
    case ShapeKind::capsule:
      // The equator twice: the upper hemisphere's at z = +L/2, the lower one's at -L/2.
      add_arc(profile, R, half, 0, rings / 2, rings);
      add_arc(profile, R, -half, rings / 2, rings, rings);
      add_revolution(at, profile, segments);
      break;
    case ShapeKind::cylinder:
      profile = {{0.0, half}, {R, half}, {R, -half}, {0.0, -half}};
      add_revolution(at, profile, segments);
      break;
    case ShapeKind::box: {
      // Corner c at (+-a/2, +-b/2, +-c/2), bit 0 of c the sign along f, bit 1 along g, bit 2 along h.
      int corner[8];
      for (int c = 0; c < 8; ++c)
        corner[c] = at.point((c & 1 ? 0.5 : -0.5) * shape.size[0], (c & 2 ? 0.5 : -0.5) * shape.size[1],
                             (c & 4 ? 0.5 : -0.5) * shape.size[2]);
      // The faces -f, +f, -g, +g, -h, +h.
      static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                      {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
      for (const auto& f : faces) at.face({corner[f[0]], corner[f[1]], corner[f[2]], corner[f[3]]});
      break;
    }
  }
}

}  // namespace catenary
