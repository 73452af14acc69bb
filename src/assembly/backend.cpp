#include "catenary/assembly/backend.hpp"

namespace catenary {

// Backend vectors the host conveniences copy through, made on first use.
struct Backend::Scratch {
  Vector a, b, c;  // coordinate-sized
  Vector r, s;     // constraint-sized
};

Backend::Scratch& Backend::scratch() {
  if (!scratch_) {
    scratch_ = std::make_shared<Scratch>();
    scratch_->a = make_vector(dof_count_);
    scratch_->b = make_vector(dof_count_);
    scratch_->c = make_vector(dof_count_);
    scratch_->r = make_vector(constraint_count_);
    scratch_->s = make_vector(constraint_count_);
  }
  return *scratch_;
}

double Backend::internal_force(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& f) {
  Scratch& s = scratch();
  upload(q, s.a);
  upload(v, s.b);
  internal_force(s.a, s.b, s.c);
  download(s.c, f);
  return strain_energy();
}

void Backend::mass_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  Scratch& s = scratch();
  upload(x, s.a);
  mass_product(s.a, s.c);
  download(s.c, y);
}

void Backend::assemble_newton_matrix(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                     const NewtonMatrixCoefficients& c, Eigen::VectorXd& f) {
  Scratch& s = scratch();
  upload(q, s.a);
  upload(v, s.b);
  assemble_newton_matrix(s.a, s.b, c, s.c);
  download(s.c, f);
}

void Backend::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  Scratch& s = scratch();
  const int n = dof_count_, m = constraint_count_;
  upload(rhs.head(n), s.a);
  upload(rhs.tail(m), s.r);
  solve(s.a, s.r, s.c, s.s);
  Eigen::VectorXd top, bottom;
  download(s.c, top);
  download(s.s, bottom);
  x.resize(n + m);
  x << top, bottom;
}

void Backend::constraint_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  Scratch& s = scratch();
  upload(x, s.a);
  constraint_product(s.a, s.r);
  download(s.r, y);
}

void Backend::constraint_transpose_product(const Eigen::VectorXd& mu, Eigen::VectorXd& y) {
  Scratch& s = scratch();
  upload(mu, s.r);
  constraint_transpose_product(s.r, s.c);
  download(s.c, y);
}

}  // namespace catenary
