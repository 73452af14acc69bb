#pragma once
// Variable-step Adams weights from the time points themselves: the integral over one step
// [a, b] of the polynomial that interpolates y' at the points t_j is sum_j w_j y'(t_j), with
// w_j the integral of the Lagrange basis polynomial l_j. The predictor (Adams-Bashforth) takes
// the points t_n, ..., t_{n-k+1} and the corrector (Adams-Moulton) t_{n+1}, t_n, ..., t_{n-k+2},
// both of order k (src/integrators/abam.cpp). Each formula's local error is
// y^(k+1) / k! times the integral of prod_j (s - t_j) over the step (`error`), from which the
// corrector's error follows from the predictor-corrector difference (Milne's device).
#include <vector>

namespace catenary {

// The most points, and so the highest order, that adams_weights integrates exactly: its 3-point
// Gauss-Legendre rule is exact for polynomials of degree 5, the degree of prod_j (s - t_j) for
// 5 points.
constexpr int kMostAdamsPoints = 5;

struct AdamsWeights {
  std::vector<double> w;  // w[j]: the integral of l_j over [a, b]
  double error = 0.0;     // the integral of prod_j (s - t_j) over [a, b]
};

// The weights for the distinct points t (1 to kMostAdamsPoints of them) over [a, b].
AdamsWeights adams_weights(const std::vector<double>& t, double a, double b);

}  // namespace catenary
