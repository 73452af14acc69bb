// A line's touchdown (see include/catenary/model/line_touchdown.hpp).
#include "catenary/model/line_touchdown.hpp"

#include <vector>

namespace catenary {
namespace {

// Samples an element between its nodes for a sign change of the penetration, then bisection on the
// bracketing interval to a relative 1e-12 of the element: a line can leave a surface anywhere
// along an element, and the penetration of a grounded stretch is small (w / K on a seabed), so the
// end of contact is the change of sign, not a sampled point.
constexpr int kSamples = 16;
constexpr int kBisections = 40;

template <int D>
struct ElementCentreline {
  double qe[4 * D];
  double length;
  Vec<D> at(double xi) const {
    const HermiteShape h = hermite_shape(xi, length);
    return detail::interpolate<D>(h.s, qe);
  }
};

template <int D>
ElementCentreline<D> centreline(const Model& m, int e, const Eigen::VectorXd& q) {
  ElementCentreline<D> c;
  for (int i = 0; i < 4 * D; ++i) c.qe[i] = q[element_global_dof(m, e, i)];
  c.length = m.elements.properties[e].length;
  return c;
}

// The penetration of element e's surface at xi (negative: apart; -1 for an element without one).
template <int D>
double penetration(const Model& m, int e, const ElementCentreline<D>& c, double xi) {
  const double surface = m.elements.properties[e].contact;
  if (!(surface >= 0.0)) return -1.0;
  const ContactSurface& s = m.elements.contact_surfaces[static_cast<int>(surface)];
  return detail::surface_point<D>(s, m.elements.contact_heights.data(), c.at(xi)).delta;
}

template <int D>
Touchdown touchdown(const Model& m, const Body& b, const Eigen::VectorXd& q) {
  Touchdown t;
  if (b.element_count == 0) return t;
  const int first = b.first_element, last = first + b.element_count - 1;
  const double first_depth = penetration<D>(m, first, centreline<D>(m, first, q), 0.0);
  const double last_depth = penetration<D>(m, last, centreline<D>(m, last, q), 1.0);
  if (first_depth > 0.0 && last_depth > 0.0) return t;
  // Walk from the end farther off the surface towards the other (an anchor may sit on the surface
  // itself, at zero penetration): the first sample in contact closes the bracket.
  const int step = last_depth > first_depth ? 1 : -1;
  std::vector<double> starts(b.element_count);  // each element's arc length from the first node
  double arc = 0.0;
  for (int k = 0; k < b.element_count; ++k) starts[k] = arc, arc += m.elements.properties[first + k].length;
  for (int k = step > 0 ? 0 : b.element_count - 1; k >= 0 && k < b.element_count; k += step) {
    const int e = first + k;
    const ElementCentreline<D> c = centreline<D>(m, e, q);
    double off = step > 0 ? 0.0 : 1.0;  // the last sample found off the surface
    for (int j = 1; j <= kSamples; ++j) {
      const double xi = step > 0 ? double(j) / kSamples : 1.0 - double(j) / kSamples;
      if (!(penetration<D>(m, e, c, xi) > 0.0)) {
        off = xi;
        continue;
      }
      double on = xi;
      for (int i = 0; i < kBisections; ++i) {
        const double mid = 0.5 * (off + on);
        (penetration<D>(m, e, c, mid) > 0.0 ? on : off) = mid;
      }
      t.found = true;
      t.arc_length = starts[k] + on * c.length;
      const Vec<D> r = c.at(on);
      for (int i = 0; i < D; ++i) t.position[i] = r[i];
      return t;
    }
  }
  return t;
}

}  // namespace

bool line_has_contact(const Model& m, const Body& b) {
  for (int e = b.first_element; e < b.first_element + b.element_count; ++e)
    if (m.elements.properties[e].contact >= 0.0) return true;
  return false;
}

Touchdown line_touchdown(const Model& m, const Body& b, const Eigen::VectorXd& q) {
  return m.dimension == 3 ? touchdown<3>(m, b, q) : touchdown<2>(m, b, q);
}

}  // namespace catenary
