#pragma once
// Variable-step BDF weights from the time points themselves (Lagrange interpolation), so
// the step may change every step without rescaling a history array.
//   interpolation_derivative_weights: y'(x) ~ sum_j w_j y(t_j) for the polynomial through
//                       (t_0 .. t_k); derivative_weights, at x = t_0 = t_{n+1}, the corrector of
//                       BDF order k.
//   interpolation_weights: y(t) ~ sum_j w_j y(t_j) for the polynomial through (t_0 .. t_k); with
//                       t beyond the points, the predictor (extrapolation) of order k.
#include <cstddef>
#include <vector>

namespace catenary {

// w[j] = l_j'(x) for the Lagrange basis l_j over the points t[0..k] (distinct): the derivative at
// x of the polynomial through them, x a point or not (a predictor's slope at the new time).
inline std::vector<double> interpolation_derivative_weights(const std::vector<double>& t, double x) {
  const size_t k = t.size();
  std::vector<double> w(k, 0.0);
  for (size_t j = 0; j < k; ++j)
    for (size_t m = 0; m < k; ++m) {
      if (m == j) continue;
      double p = 1.0 / (t[j] - t[m]);
      for (size_t i = 0; i < k; ++i)
        if (i != j && i != m) p *= (x - t[i]) / (t[j] - t[i]);
      w[j] += p;
    }
  return w;
}

// The corrector of BDF order k at t[0] = t_{n+1}: the derivative there.
inline std::vector<double> derivative_weights(const std::vector<double>& t) {
  return interpolation_derivative_weights(t, t[0]);
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
