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

Vector& Backend::scratch() {
  if (!scratch_made_) scratch_ = make_vector(dof_count_);
  scratch_made_ = true;
  return scratch_;
}

double Backend::strain_energy_at(const Vector& q, const Vector& v) {
  internal_force(q, v, scratch());  // the strain energy does not depend on v
  return strain_energy();
}

double Backend::strain_energy_and_momentum(const Vector& q, const Vector& v, Eigen::VectorXd& momentum) {
  mass_product(v, scratch());
  download(scratch(), momentum);
  return strain_energy_at(q, v);
}

}  // namespace catenary
