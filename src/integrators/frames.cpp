#include "catenary/integrators/analyses.hpp"

namespace catenary {

void emit_frame(System& sys, double time, double step, int iterations, const Eigen::VectorXd& q,
                const Eigen::VectorXd& v, const Eigen::VectorXd& lambda, const FrameSink& sink) {
  BackendVectors& b = sys.backend();
  Vector qb = b.make_vector(sys.dofs()), vb = b.make_vector(sys.dofs());
  b.upload(q, qb);
  b.upload(v, vb);
  System::Energies E;
  sys.energies(qb, vb, q, v, E);
  emit_frame(time, step, iterations, q, v, lambda, E, sink);
}

void emit_frame(double time, double step, int iterations, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                const Eigen::VectorXd& lambda, const System::Energies& E, const FrameSink& sink,
                const Eigen::VectorXd* contact_impulses) {
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
  fr.contact_impulses = contact_impulses;
  sink(fr);
}

}  // namespace catenary
