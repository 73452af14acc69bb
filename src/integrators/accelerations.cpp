#include "accelerations.hpp"

#include <Eigen/Core>

namespace catenary {

namespace {

NewtonMatrixCoefficients mass_only() {
  NewtonMatrixCoefficients c;
  c.mass = 1.0;
  return c;
}

}  // namespace

AccelerationSolve::AccelerationSolve(System& sys, double alpha, double beta)
    : sys_(sys), alpha_(alpha), beta_(beta), zero_mu_(sys.backend().make_vector(sys.constraints())),
      loads_(sys.backend().make_vector(sys.dofs())), forces_(sys.backend().make_vector(sys.dofs())),
      rows_(sys.backend().make_vector(sys.constraints())), rhs_(sys.backend().make_vector(sys.constraints())) {
  if (alpha_ > 0.0 || beta_ > 0.0) {
    b_ = sys.backend().make_vector(sys.constraints());
    phi_ = sys.backend().make_vector(sys.constraints());
    phi_rate_ = sys.backend().make_vector(sys.constraints());
  }
}

void AccelerationSolve::solve(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda) {
  // The matrix and g - f in one pass.
  sys_.external_force(t, loads_);
  sys_.newton_terms(q, v, t, ForceTerms{1.0, 0.0, &q, &loads_}, zero_mu_, mass_only(), forces_, rows_,
                    NewtonTermsForm{true});
  sys_.backend().factorize();
  solve_rows(q, v, t, a, lambda);
}

void AccelerationSolve::solve_factorized(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda) {
  sys_.external_force(t, loads_);
  sys_.newton_terms(q, v, t, ForceTerms{1.0, 0.0, &q, &loads_}, zero_mu_, mass_only(), forces_, rows_,
                    NewtonTermsForm{false});
  solve_rows(q, v, t, a, lambda);
}

void AccelerationSolve::solve_rows(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda) {
  Backend& backend = sys_.backend();
  sys_.constraint_acceleration_rhs(q, v, t, rhs_);
  if (alpha_ > 0.0 || beta_ > 0.0) {
    Eigen::VectorXd b;
    sys_.constraint_rhs(t, b);
    backend.upload(b, b_);
    sys_.constraint_residual(q, v, b_, t, false, phi_);
    sys_.constraint_rhs(t, b, 1);
    backend.upload(b, b_);
    sys_.constraint_residual(q, v, b_, t, true, phi_rate_);
    backend.combine({{1.0, &rhs_}, {-2.0 * alpha_, &phi_rate_}, {-beta_ * beta_, &phi_}}, rhs_);
  }
  backend.solve(forces_, rhs_, a, lambda);
}

}  // namespace catenary
