#pragma once
// The rigid contacts' events in a dynamic run (multibody/rigid_contact.hpp), for the step control
// of time_stepper.cpp: the clearance-joint lecture's mode switches between free flight, contact
// and impact, detected by the sign change of a contact point's gap g across a step
// (g(t) g(t - h) < 0) and located by shortening the step (regula falsi on g, aiming half the
// tolerance past the switch) until |g| at its end is at most the event tolerance; then the
// classical impact model's velocity jump where a contact has one.
#include <vector>

#include <Eigen/Core>

#include "time_stepper.hpp"

namespace catenary {

class ContactEvents {
 public:
  ContactEvents(System& sys, double tolerance);
  // Whether the model has rigid contacts (else every call below is a no-op).
  bool active() const { return !point_contact_.empty(); }
  // The gaps of every contact point at the coordinates q (contacts in RigidContacts' order, their
  // points in order).
  std::vector<double> gaps(const Vector& q);

  // What a converged step from gaps g0 to g1 means: no switch, a switch located (accept the
  // step), or a switch to locate: retry with the step times `fraction`.
  struct Check {
    enum class Kind { none, located, shorten } kind = Kind::none;
    double fraction = 1.0;
    int switches = 0;  // points whose gap changed sign (located)
  };
  Check check(const std::vector<double>& g0, const std::vector<double>& g1) const;

  // After an accepted step (state at its end, g0 the gaps at its start): every point of an
  // impact-law contact that arrived at the surface in the step (g0 > 0, gap <= tolerance) faster
  // than its capture speed takes the velocity jump of the classical impact model,
  //   [M Phi_q^T H^T; Phi_q 0 0; H 0 0] [dv; P_lambda; P] = [0; 0; -(1 + e) H v-],
  // H the arriving points' gap gradients (g' = H v), and the state gets the consistent
  // accelerations of its new velocities. Each point's normal impulse P is added to its contact's
  // entry of `impulses`. Returns the number of points that took one.
  int apply_impacts(StepState& state, const std::vector<double>& g0, Eigen::VectorXd& impulses);

 private:
  System& sys_;
  double tolerance_;
  std::vector<int> point_contact_;  // the contact of each point
};

}  // namespace catenary
