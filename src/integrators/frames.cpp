#include "catenary/integrators/analyses.hpp"

namespace catenary {

void emit_frame(System& sys, double time, double step, int iterations, const Eigen::VectorXd& q,
                const Eigen::VectorXd& v, const Eigen::VectorXd& lambda, const FrameSink& sink) {
  const System::Energies E = sys.energies(q, v);
  Frame fr;
  fr.time = time;
  fr.step = step;
  fr.newton_iterations = iterations;
  fr.q = &q;
  fr.v = &v;
  fr.lambda = &lambda;
  fr.kinetic_energy = E.kinetic;
  fr.gravitational_energy = E.gravitational;
  fr.elastic_energy = E.elastic;
  fr.mass_times_v = &E.mass_times_v;
  sink(fr);
}

}  // namespace catenary
