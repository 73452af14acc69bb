// The signed distance from a point to a rigid shape (see include/catenary/multibody/shape_distance.hpp).
#include "catenary/multibody/shape_distance.hpp"

#include <algorithm>
#include <cmath>

namespace catenary {
namespace {

// Distance from the sphere of radius a about c; at the centre itself, along the shape's h axis.
ShapeDistance from_centre(const Vec<3>& d, double a, const Vec<3>& fallback) {
  const double rho = vec_norm(d);
  if (!(rho > 0.0)) return {-a, fallback};
  return {rho - a, vec_scale(1.0 / rho, d)};
}

double sign_of(double x) { return x < 0.0 ? -1.0 : 1.0; }

// A cylinder of radius a and length L about the axis h through the origin (d from its centre):
// the side, an end face, or (outside both) the rim circle between them.
ShapeDistance cylinder_distance(const Vec<3>& d, const Vec<3>& f, const Vec<3>& h, double a, double L) {
  const double z = dot(h, d);
  const Vec<3> radial = vec_sub(d, vec_scale(z, h));
  const double rho = vec_norm(radial);
  const Vec<3> out = rho > 0.0 ? vec_scale(1.0 / rho, radial) : f;
  const Vec<3> end = vec_scale(sign_of(z), h);
  const double dr = rho - a, dz = std::fabs(z) - 0.5 * L;
  if (dr > 0.0 && dz > 0.0) {
    const double distance = std::hypot(dr, dz);
    return {distance, vec_add(vec_scale(dr / distance, out), vec_scale(dz / distance, end))};
  }
  if (dr > dz) return {dr, out};
  return {dz, end};
}

// A box of edge lengths size along f, g, h (d from its centre).
ShapeDistance box_distance(const Vec<3>& d, const Vec<3>* const* axes, const Vec<3>& size) {
  double y[3], excess[3];
  for (int k = 0; k < 3; ++k) {
    y[k] = dot(*axes[k], d);
    excess[k] = std::fabs(y[k]) - 0.5 * size[k];
  }
  const int deepest = static_cast<int>(std::max_element(excess, excess + 3) - excess);
  ShapeDistance out;
  if (excess[deepest] <= 0.0) {  // inside: the nearest face
    out.distance = excess[deepest];
    out.normal = vec_scale(sign_of(y[deepest]), *axes[deepest]);
    return out;
  }
  double squared = 0.0;
  for (int k = 0; k < 3; ++k)
    if (excess[k] > 0.0) squared += excess[k] * excess[k];
  out.distance = std::sqrt(squared);
  for (int k = 0; k < 3; ++k)
    if (excess[k] > 0.0) out.normal = vec_add(out.normal, vec_scale(sign_of(y[k]) * excess[k] / out.distance, *axes[k]));
  return out;
}

}  // namespace

ShapeDistance shape_distance(const RigidShape& s, const Vec<3>& x) {
  const Vec<3> d = vec_sub(x, s.frame.s);
  switch (s.kind) {
    case ShapeKind::sphere: return from_centre(d, s.radius, s.frame.h);
    case ShapeKind::capsule: {
      const double along = std::clamp(dot(s.frame.h, d), -0.5 * s.length, 0.5 * s.length);
      return from_centre(vec_sub(d, vec_scale(along, s.frame.h)), s.radius, s.frame.f);
    }
    case ShapeKind::cylinder: return cylinder_distance(d, s.frame.f, s.frame.h, s.radius, s.length);
    case ShapeKind::box: {
      const Vec<3>* axes[3] = {&s.frame.f, &s.frame.g, &s.frame.h};
      return box_distance(d, axes, s.size);
    }
  }
  return {};
}

}  // namespace catenary
