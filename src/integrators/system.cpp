#include "catenary/integrators/system.hpp"

#include <cmath>
#include <string>

namespace catenary {

System::System(const Model& m, Backend& backend)
    : model_(m),
      backend_(backend),
      loads_(build_load_patterns(m)),
      coordinate_scales_(coordinate_scales(m)),
      gravity_(gravity_vector(m)) {}

void System::external_force(double t, Eigen::VectorXd& g) const {
  const std::vector<double> s = loads_.scales_at(t);
  g.setZero(dofs());
  for (size_t k = 0; k < s.size(); ++k) g += s[k] * loads_.vectors[k];
}

void System::constraint_rhs(double t, Eigen::VectorXd& b) const {
  b.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    b[r] = row.offset + (row.has_motion ? row.motion.value(t) : 0.0);
  }
}

void System::constraint_residual(const Eigen::VectorXd& q, double t, Eigen::VectorXd& phi) {
  Eigen::VectorXd b;
  constraint_rhs(t, b);
  constraint_product(q, phi);
  phi -= b;
}

void System::constraint_velocity_rhs(double t, Eigen::VectorXd& bdot) const {
  bdot.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    bdot[r] = row.has_motion ? row.motion.first_derivative(t) : 0.0;
  }
}

void System::constraint_acceleration_rhs(double t, Eigen::VectorXd& bddot) const {
  bddot.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    bddot[r] = row.has_motion ? row.motion.second_derivative(t) : 0.0;
  }
}

double System::weighted_norm(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol,
                             int* worst_dof) const {
  double worst = 0.0;
  for (int i = 0; i < dofs(); ++i) {
    const double value = weighted_entry(dx[i], x[i], coordinate_scales_[i], tol);
    if (value > worst) {
      worst = value;
      if (worst_dof) *worst_dof = i;
    }
  }
  return worst;
}

double System::residual_floor(double matrix_norm, double q_max_abs) const {
  constexpr double kRoundoffFactor = 64.0 * 2.220446049250313e-16;
  return kRoundoffFactor * matrix_norm * (model_.characteristic_length + q_max_abs);
}

std::string System::describe_dof(int dof) const {
  const int n = model_.coordinates_per_node(), node = dof / n, k = dof % n;
  static const char* axes = "xyz";
  const std::string coord = k < model_.dimension ? std::string(1, axes[k])
                                                 : std::string("slope_") + axes[k - model_.dimension];
  for (const Body& b : model_.bodies)
    if (node >= b.first_node && node < b.first_node + b.node_count)
      return "body '" + b.name + "' node " + std::to_string(node - b.first_node) + ", coordinate " + coord;
  return "node " + std::to_string(node) + ", coordinate " + coord;
}

System::Energies System::energies(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Energies E;
  Eigen::VectorXd Mv, f, g;
  backend_.mass_product(v, Mv);
  E.kinetic = 0.5 * v.dot(Mv);
  E.gravitational = -q.dot(gravity_);
  Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs());
  E.elastic = backend_.internal_force(q, zero, f);
  return E;
}

}  // namespace catenary
