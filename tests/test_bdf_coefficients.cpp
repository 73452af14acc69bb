// BDF weights against exact polynomial calculus: the corrector weights differentiate, the
// predictor weights interpolate and their slopes differentiate every polynomial of degree <= k
// exactly, on uneven steps.
#include <catch2/catch.hpp>

#include <cmath>

#include "catenary/integrators/bdf_coefficients.hpp"

using namespace catenary;

namespace {

// p(t) = sum_i c_i t^i and its derivative.
double poly(const std::vector<double>& c, double t) {
  double s = 0.0;
  for (size_t i = c.size(); i-- > 0;) s = s * t + c[i];
  return s;
}
double poly_derivative(const std::vector<double>& c, double t) {
  double s = 0.0;
  for (size_t i = c.size(); i-- > 1;) s = s * t + i * c[i];
  return s;
}

}  // namespace

TEST_CASE("BDF weights are exact for polynomials up to their order on uneven steps", "[bdf]") {
  for (int k = 1; k <= 5; ++k) {
    // t_0 = t_{n+1} and a history with steps varying by up to a factor 3.
    std::vector<double> t = {1.0};
    const double steps[] = {0.1, 0.3, 0.15, 0.05, 0.2};
    for (int j = 0; j < k; ++j) t.push_back(t.back() - steps[j]);
    std::vector<double> c;
    for (int i = 0; i <= k; ++i) c.push_back(std::cos(1.0 + i));  // a degree-k polynomial
    INFO("order " << k);

    const std::vector<double> w = derivative_weights(t);
    double d = 0.0;
    for (int j = 0; j <= k; ++j) d += w[j] * poly(c, t[j]);
    CHECK(d == Approx(poly_derivative(c, t[0])).epsilon(1e-10));

    // Predictor: the polynomial through the k + 1 points extrapolated to a later time.
    const double x = t[0] + 0.12;
    const std::vector<double> p = interpolation_weights(t, x);
    double y = 0.0;
    for (int j = 0; j <= k; ++j) y += p[j] * poly(c, t[j]);
    CHECK(y == Approx(poly(c, x)).epsilon(1e-10));
    // Its slope there (the fixed-leading-coefficient form's predicted derivative).
    const std::vector<double> s = interpolation_derivative_weights(t, x);
    double dy = 0.0;
    for (int j = 0; j <= k; ++j) dy += s[j] * poly(c, t[j]);
    CHECK(dy == Approx(poly_derivative(c, x)).epsilon(1e-10));

    // Constant steps give the textbook BDF: order 2 is (3 y_{n+1} - 4 y_n + y_{n-1}) / (2 h).
    if (k == 2) {
      const std::vector<double> even = derivative_weights({0.0, -0.5, -1.0});
      CHECK(even[0] == Approx(1.5 / 0.5));
      CHECK(even[1] == Approx(-2.0 / 0.5));
      CHECK(even[2] == Approx(0.5 / 0.5));
    }
  }
}
