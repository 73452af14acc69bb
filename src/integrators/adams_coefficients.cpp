#include "catenary/integrators/adams_coefficients.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace catenary {

AdamsWeights adams_weights(const std::vector<double>& t, double a, double b) {
  const size_t k = t.size();
  if (k < 1 || k > static_cast<size_t>(kMostAdamsPoints))
    throw std::invalid_argument("adams_weights takes 1 to " + std::to_string(kMostAdamsPoints) + " points (got " +
                                std::to_string(k) + ")");
  // 3-point Gauss-Legendre on [a, b]: nodes mid +- half sqrt(3/5), weights 5/9, 8/9, 5/9 of half.
  const double mid = 0.5 * (a + b), half = 0.5 * (b - a), r = std::sqrt(0.6);
  const double nodes[3] = {mid - half * r, mid, mid + half * r};
  const double weights[3] = {half * 5.0 / 9.0, half * 8.0 / 9.0, half * 5.0 / 9.0};
  AdamsWeights out;
  out.w.assign(k, 0.0);
  for (int g = 0; g < 3; ++g) {
    const double s = nodes[g];
    double product = 1.0;
    for (size_t i = 0; i < k; ++i) product *= s - t[i];
    out.error += weights[g] * product;
    for (size_t j = 0; j < k; ++j) {
      double l = 1.0;
      for (size_t i = 0; i < k; ++i)
        if (i != j) l *= (s - t[i]) / (t[j] - t[i]);
      out.w[j] += weights[g] * l;
    }
  }
  return out;
}

}  // namespace catenary
