#include "catenary/integrators/analyses.hpp"

namespace catenary {

int backend_vector_count(const AnalysisSettings& a) {
  constexpr int kNewmarkVectors = 18;  // two step states, the Newton work vectors, the integrator's own
  if (a.type == AnalysisSettings::Type::Dynamic && a.dynamics.integrator == DynamicSettings::Integrator::BDF)
    return 26 + 2 * a.dynamics.max_order;
  return kNewmarkVectors;
}

bool reuses_factorizations(const AnalysisSettings& a) {
  return a.type == AnalysisSettings::Type::Dynamic && a.dynamics.newton == DynamicSettings::Newton::Modified;
}

}  // namespace catenary
