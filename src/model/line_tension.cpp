// Tension along lines (see include/catenary/model/line_tension.hpp).
#include "catenary/model/line_tension.hpp"

#include "catenary/elements/axial_tension.hpp"

namespace catenary {
namespace {

// The tension where the element's axial energy reads it, at AxialRule's three points, and the
// quadratic through those values at xi. The reduced rule leaves the strain pattern that vanishes
// at its three points (the cubic Legendre polynomial's) without axial stiffness, and contact
// forces at the bending points excite it: read at any other point the strain swings about the
// true tension (by ten times it on a rope leaving a sheave). The quadratic is the strain field
// the energy integrates exactly (3-point Gauss integrates its square exactly).
template <int D>
double tension_at(const Model& m, int e, double xi, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const ElementBlock& el = m.elements;
  double qe[4 * D], ve[4 * D];
  for (int i = 0; i < 4 * D; ++i) {
    qe[i] = q[element_global_dof(m, e, i)];
    ve[i] = v[element_global_dof(m, e, i)];
  }
  double value = 0.0;
  for (int g = 0; g < AxialRule::kPoints; ++g) {
    const HermiteShape h = hermite_shape(AxialRule::point(g), el.properties[e].length);
    double lagrange = 1.0;
    for (int k = 0; k < AxialRule::kPoints; ++k)
      if (k != g) lagrange *= (xi - AxialRule::point(k)) / (AxialRule::point(g) - AxialRule::point(k));
    value += lagrange * axial_tension<D>(el.properties[e], detail::interpolate<D>(h.sx, qe),
                                         detail::interpolate<D>(h.sx, ve),
                                         detail::interpolate<D>(h.sx, &el.reference[4 * D * e]));
  }
  return value;
}

}  // namespace

double element_tension(const Model& m, int e, double xi, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  return m.dimension == 3 ? tension_at<3>(m, e, xi, q, v) : tension_at<2>(m, e, xi, q, v);
}

NodeOnElement element_on_node(const Model& m, int node) {
  NodeOnElement out;
  for (int e = 0; e < m.elements.size(); ++e) {
    if (m.elements.node_b[e] == node) out.ending = e;
    if (m.elements.node_a[e] == node) out.starting = e;
  }
  return out;
}

double node_tension(const Model& m, const NodeOnElement& at, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  double sum = 0.0;
  int count = 0;
  if (at.ending >= 0) sum += element_tension(m, at.ending, 1.0, q, v), ++count;
  if (at.starting >= 0) sum += element_tension(m, at.starting, 0.0, q, v), ++count;
  return count > 0 ? sum / count : 0.0;
}

std::vector<LineTension> largest_line_tensions(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  std::vector<LineTension> out;
  for (const Body& b : m.bodies) {
    LineTension largest;
    largest.value = -1e300;
    const int last = b.first_element + b.element_count - 1;
    for (int e = b.first_element; e <= last + 1 && b.element_count > 0; ++e) {
      // Node a of element e, and the line's last node after its last element.
      NodeOnElement at;
      if (e > b.first_element) at.ending = e - 1;
      if (e <= last) at.starting = e;
      const double T = node_tension(m, at, q, v);
      const int node = e <= last ? m.elements.node_a[e] : m.elements.node_b[last];
      if (T > largest.value) largest = {T, node - b.first_node};
    }
    if (b.element_count == 0) largest.value = 0.0;
    out.push_back(largest);
  }
  return out;
}

}  // namespace catenary
