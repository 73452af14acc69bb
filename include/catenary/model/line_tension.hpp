#pragma once
// The tension along a model's lines at a state (q, v), from each element's strain law
// (elements/axial_tension.hpp) as its axial energy reads it, at the reduced rule's three points
// (line_tension.cpp says why): at a point of an element, at a node (the mean of the elements on
// either side), and each line's largest.
#include <vector>

#include <Eigen/Core>

#include "catenary/model/model.hpp"

namespace catenary {

// The tension at xi in [0, 1] along element e (N).
double element_tension(const Model& m, int e, double xi, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// The elements that end and start at node n (-1 where none).
struct NodeOnElement {
  int ending = -1, starting = -1;
};
NodeOnElement element_on_node(const Model& m, int node);

// The tension at node n (0 for a node on no element).
double node_tension(const Model& m, const NodeOnElement& at, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// Each line body's largest node tension at (q, v) and the node (the body's own numbering, 0 its
// first node).
struct LineTension {
  double value = 0.0;
  int node = 0;
};
std::vector<LineTension> largest_line_tensions(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

}  // namespace catenary
