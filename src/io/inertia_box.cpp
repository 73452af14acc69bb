#include "inertia_box.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace catenary {

RigidShape inertia_box(const RigidBody& rigid_body, int body, double fallback_edge) {
  Eigen::Matrix3d J;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) J(i, j) = rigid_body.inertia(i, j);
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(J);
  Eigen::Matrix3d axes = principal.eigenvectors();
  if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);
  const Eigen::Vector3d I = principal.eigenvalues();

  RigidShape box;
  box.name = "inertia box";
  box.body = body;
  box.kind = ShapeKind::box;
  box.frame.s = Vec<3>::zero();
  for (int i = 0; i < 3; ++i) {
    box.frame.f[i] = axes(i, 0);
    box.frame.g[i] = axes(i, 1);
    box.frame.h[i] = axes(i, 2);
  }
  double squares[3];
  for (int k = 0; k < 3; ++k) squares[k] = 6.0 * (I.sum() - 2.0 * I[k]) / rigid_body.mass;
  const double longest = std::sqrt(std::max({squares[0], squares[1], squares[2]}));
  if (!(longest > 0.0 && std::isfinite(longest))) {
    box.size = vec3(fallback_edge, fallback_edge, fallback_edge);
    return box;
  }
  for (int k = 0; k < 3; ++k)
    box.size[k] = std::max(std::sqrt(std::max(squares[k], 0.0)), kInertiaBoxThinEdge * longest);
  return box;
}

}  // namespace catenary
