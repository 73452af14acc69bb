#include "catenary/integrators/analyses.hpp"

namespace catenary {

namespace {

constexpr int kNewmarkVectors = 18;  // two step states, the Newton work vectors, the integrator's own
// and the history; the fixed coefficient form's re-gridding, one more at order 5 (bdf.cpp).
constexpr int bdf_vectors(int max_order, bool fixed) {
  return 26 + 2 * max_order + (fixed && max_order == 5 ? 1 : 0);
}
// The Newmark count, an earlier stage's state (q, v, a, history and its multipliers), the error
// estimate's work vector, and V and A of each earlier stage.
constexpr int sdirk_vectors(int stages) { return kNewmarkVectors + 5 + 2 * (stages - 1); }
// Modified Newton keeps the point its factorization was formed at (a checkpoint records it).
constexpr int kKeptPointVectors = 4;
static_assert(bdf_vectors(5, true) + kKeptPointVectors == kMostBackendVectors,
              "kMostBackendVectors is BDF's count at its highest order, 5, with fixed coefficients, by modified Newton");
static_assert(sdirk_vectors(3) <= bdf_vectors(5, false), "SDIRK holds fewer vectors than BDF at order 5");
// Two step states, the acceleration solve's vectors (g, g - f; the multipliers, rows and
// right-hand side; b, Phi and Phi' for Baumgarte), the error estimate's work vector, and V and A
// of the kept stages (explicit_rk.cpp): rk4 keeps 3, dopri5 5.
constexpr int explicit_vectors(int kept_stages) { return 10 + 8 + 1 + 2 * kept_stages; }
static_assert(explicit_vectors(5) <= bdf_vectors(5, false), "dopri5 holds fewer vectors than BDF at order 5");
// ABAM (abam.cpp): dopri5's count (its start, sharing its solve) and v and a of each history point.
constexpr int abam_vectors(int order) { return explicit_vectors(5) + 2 * order; }
static_assert(abam_vectors(5) <= bdf_vectors(5, false) + kKeptPointVectors, "ABAM at order 5 holds at most BDF's most");

}  // namespace

int backend_vector_count(const AnalysisSettings& a) {
  if (a.type != AnalysisSettings::Type::Dynamic) return kNewmarkVectors;
  const int kept = a.dynamics.newton == DynamicSettings::Newton::Modified ? kKeptPointVectors : 0;
  if (a.dynamics.integrator == DynamicSettings::Integrator::BDF)
    return bdf_vectors(a.dynamics.max_order,
                       a.dynamics.bdf_coefficients == DynamicSettings::BdfCoefficients::Fixed) +
           kept;
  if (a.dynamics.integrator == DynamicSettings::Integrator::SDIRK) return sdirk_vectors(a.dynamics.stages) + kept;
  if (a.dynamics.integrator == DynamicSettings::Integrator::RK4) return explicit_vectors(3);
  if (a.dynamics.integrator == DynamicSettings::Integrator::DOPRI5) return explicit_vectors(5);
  if (a.dynamics.integrator == DynamicSettings::Integrator::ABAM) return abam_vectors(a.dynamics.abam_order);
  return kNewmarkVectors + kept;
}

bool reuses_factorizations(const AnalysisSettings& a) {
  return a.type == AnalysisSettings::Type::Dynamic && a.dynamics.newton == DynamicSettings::Newton::Modified;
}

}  // namespace catenary
