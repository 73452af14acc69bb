#include "catenary/integrators/analyses.hpp"

namespace catenary {

namespace {

constexpr int kNewmarkVectors = 18;  // two step states, the Newton work vectors, the integrator's own
constexpr int bdf_vectors(int max_order) { return 26 + 2 * max_order; }  // and the history
static_assert(bdf_vectors(5) == kMostBackendVectors, "kMostBackendVectors is BDF's count at its highest order, 5");

}  // namespace

int backend_vector_count(const AnalysisSettings& a) {
  if (a.type == AnalysisSettings::Type::Dynamic && a.dynamics.integrator == DynamicSettings::Integrator::BDF)
    return bdf_vectors(a.dynamics.max_order);
  return kNewmarkVectors;
}

bool reuses_factorizations(const AnalysisSettings& a) {
  return a.type == AnalysisSettings::Type::Dynamic && a.dynamics.newton == DynamicSettings::Newton::Modified;
}

}  // namespace catenary
