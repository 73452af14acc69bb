#pragma once
// Variable-step BDF weights from the time points themselves (Lagrange interpolation), so
// the step may change every step without rescaling a history array.
//   derivative_weights: y'(t0) ~ sum_j w_j y(t_j) for the polynomial through (t_0 .. t_k);
//                       the corrector of BDF order k at t_0 = t_{n+1}.
//   interpolation_weights: y(t) ~ sum_j w_j y(t_j) for the polynomial through (t_0 .. t_k); with
//                       t beyond the points, the predictor (extrapolation) of order k.
#include <cstddef>
#include <vector>

namespace catenary {

// w[j] = l_j'(t[0]) for the Lagrange basis l_j over the points t[0..k] (distinct).
inline std::vector<double> derivative_weights(const std::vector<double>& t) {
  const size_t k = t.size();
  std::vector<double> w(k, 0.0);
  for (size_t m = 1; m < k; ++m) w[0] += 1.0 / (t[0] - t[m]);
  for (size_t j = 1; j < k; ++j) {
    double p = 1.0 / (t[j] - t[0]);
    for (size_t m = 1; m < k; ++m)
      if (m != j) p *= (t[0] - t[m]) / (t[j] - t[m]);
    w[j] = p;
  }
  return w;
}

// w[j] = l_j(x) for the Lagrange basis over the points t[0..k] (distinct).
inline std::vector<double> interpolation_weights(const std::vector<double>& t, double x) {
  const size_t k = t.size();
  std::vector<double> w(k, 1.0);
  for (size_t j = 0; j < k; ++j)
    for (size_t m = 0; m < k; ++m)
      if (m != j) w[j] *= (x - t[m]) / (t[j] - t[m]);
  return w;
}

}  // namespace catenary
