#include "catenary/assembly/backend.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace catenary {

void Combinations::add_input(const Vector* v) {
  if (inputs == kMaxInputs) throw std::invalid_argument("combine: at most " + std::to_string(kMaxInputs) + " inputs");
  x[inputs++] = v;
}

void Combinations::check_some_input() const {
  if (inputs == 0) throw std::invalid_argument("combine: no inputs");
}

Combinations::Combinations(std::initializer_list<const Vector*> in) {
  for (const Vector* v : in) add_input(v);
  check_some_input();
}

Combinations::Combinations(const Scaled* first, const Scaled* last, Vector& out) {
  for (const Scaled* t = first; t != last; ++t) {
    add_input(t->x);
    a[0][inputs - 1] = t->a;
  }
  check_some_input();
  y[outputs++] = &out;
}

void BackendVectors::combine(const std::vector<Scaled>& terms, Vector& y) {
  const size_t count = terms.size(), first = std::min<size_t>(count, Combinations::kMaxInputs);
  combine(Combinations(terms.data(), terms.data() + first, y));
  for (size_t done = first; done < count;) {
    std::vector<Scaled> pass = {{1.0, &y}};
    for (; done < count && pass.size() < Combinations::kMaxInputs; ++done) {
      if (terms[done].x == &y)
        throw std::invalid_argument("combine: the output is an input past the first " +
                                    std::to_string(Combinations::kMaxInputs) + " terms");
      pass.push_back(terms[done]);
    }
    combine(Combinations(pass.data(), pass.data() + pass.size(), y));
  }
}

Combinations& Combinations::into(Vector& out, std::initializer_list<double> coefficients) {
  if (outputs == kMaxOutputs)
    throw std::invalid_argument("combine: at most " + std::to_string(kMaxOutputs) + " outputs");
  if (static_cast<int>(coefficients.size()) != inputs)
    throw std::invalid_argument("combine: " + std::to_string(coefficients.size()) + " coefficients for " +
                                std::to_string(inputs) + " inputs");
  std::copy(coefficients.begin(), coefficients.end(), a[outputs]);
  y[outputs++] = &out;
  return *this;
}

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

double Backend::strain_energy_at(const Vector& q, const Vector& v) {
  internal_force(q, v, scratch().c);  // the strain energy does not depend on v
  return strain_energy();
}

double Backend::strain_energy_and_momentum(const Vector& q, const Vector& v, Eigen::VectorXd& momentum) {
  Scratch& s = scratch();
  mass_product(v, s.c);
  download(s.c, momentum);
  return strain_energy_at(q, v);
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
  upload(Eigen::VectorXd::Zero(dof_count_), s.c);
  add_constraint_transpose_product(1.0, s.r, s.c);
  download(s.c, y);
}

}  // namespace catenary
