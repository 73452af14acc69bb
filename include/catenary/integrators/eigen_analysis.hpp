#pragma once
// The linearized eigen analysis: the modes of the constrained, damped system about an
// equilibrium. Linearized there, the equations of motion are
//   M x'' + D x' + K x + Phi_q^T mu = 0,   Phi_q x = 0,
// with K = d(f - g + Phi_q^T lambda)/dq and D = df/dq' at the equilibrium (q, lambda), at rest.
// Its modes x = Re(phi e^(s t)) are the eigenpairs of the first-order form
//   [0 I; -K -D] z = s [I 0; 0 M] z,  z = [x; s x],
// found nearest a real shift sigma by shift-and-invert: the operator (A - sigma B)^-1 B has the
// eigenvalues 1 / (s - sigma), and one application is one solve with the bordered matrix
//   [K + sigma D + sigma^2 M, Phi_q^T; Phi_q, 0]
// which the backend assembles as a Newton matrix and factorizes once, so the constraints are
// eliminated by the solve itself (docs/theory.md, "Linearized eigen analysis").
#include <complex>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catenary/core/interruption.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/integrators/system.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// One mode: its eigenvalue s (1/s; s = -zeta w + i w sqrt(1 - zeta^2) for an underdamped mode)
// and its shape phi over the model's coordinates, scaled so that its largest position entry is 1
// (real).
struct LinearMode {
  std::complex<double> eigenvalue;
  Eigen::VectorXcd shape;
};

// The frequencies of an eigenvalue s: natural |s| / 2 pi, damped |Im s| / 2 pi (Hz), and the
// damping ratio -Re s / |s| (1 for a real negative s, a mode that does not oscillate).
struct ModeFrequencies {
  double natural_hz = 0.0, damped_hz = 0.0, damping_ratio = 0.0;
};
ModeFrequencies mode_frequencies(std::complex<double> eigenvalue);

// The equilibrium an eigen analysis linearized about, and its modes (lowest |s - shift| first;
// of a conjugate pair the one with Im s > 0).
struct LinearModes {
  Eigen::VectorXd q, lambda;
  std::vector<LinearMode> modes;
};

// The `count` modes nearest the shift of the system linearized about (q, lambda) at rest at t = 0;
// a warning where the nearest lie so close to the shift that round-off takes their digits.
// Throws SimulationError where the bordered matrix is singular at the shift (a free rigid-body
// motion or a mechanism at shift 0) or the Arnoldi iteration does not converge.
std::vector<LinearMode> linear_modes(System& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda,
                                     int count, double shift, std::vector<std::string>& warnings);

// The eigen analysis of a case: the static equilibrium (run_static's load steps and frames) or
// the given state made consistent (one frame), then its modes into `out`; their eigenvalues also
// into summary.eigenvalues.
void run_eigen(System& sys, const EigenSettings& s, const FrameSink& sink, RunSummary& summary, LinearModes& out,
               const Interruption* interruption = nullptr);

}  // namespace catenary
