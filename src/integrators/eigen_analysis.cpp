// The linearized eigen analysis (integrators/eigen_analysis.hpp): the shift-and-invert operator
// of the first-order form over the backend's bordered solve, its eigenpairs by Spectra's
// implicitly restarted Arnoldi method (or, for small models, from the operator formed whole),
// and the modes taken from them.
#include "catenary/integrators/eigen_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <Eigen/Eigenvalues>
// GCC reports a use after free in Spectra's Hessenberg eigenvectors, inside Eigen's destructor of
// a vector freed once (-Wuse-after-free's false positive on an inlined aligned_free).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
#include <Spectra/GenEigsSolver.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"

namespace catenary {

namespace {

constexpr double kTwoPi = 6.283185307179586;
// State sizes (twice the coordinates) up to which the operator is formed whole, one application
// per column, and its eigenpairs computed densely: Arnoldi needs a subspace of a few times the
// modes asked for, which is most of so small a space.
constexpr int kDenseStateSize = 400;
// The largest velocity (m/s, rad/s) of the central difference that applies D (below). The
// damping forces of the elements and the force elements are linear in the velocities and the
// rigid bodies' velocity terms quadratic, which a central difference takes exactly at any size
// (a small one would only lose digits to cancellation); only forces of another form (the water's
// drag) see the step's size.
constexpr double kDampingVelocity = 1e-3;
// Eigenvalues of the operator below this fraction of the largest are the infinite eigenvalues of
// the constrained directions (round-off of zero), not modes.
constexpr double kInfiniteModeFraction = 1e-12;
constexpr int kArnoldiRestarts = 1000;
// The nearest mode's |s - sigma|^2 against ||Q|| / ||M|| (infinity norms, the scale of the
// eigenvalues' squares): measured on clamped and free beams (docs/validation.md, "Eigen
// analysis"), the nearest eigenvalue's relative error is about kErrorPerNearness over that
// ratio (3.4e-6 at 2.6e-13, 7e-4 at 1.0e-15), and a free body at its shift gives 1e-19 to 1e-21.
// Below kSingularFraction the matrix is taken as singular, below kInaccurateFraction (an error
// near 1e-6) the run warns.
constexpr double kErrorPerNearness = 1e-18, kSingularFraction = 1e-17, kInaccurateFraction = 1e-12;

// x to four significant digits, for messages.
std::string digits(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", x);
  return buffer;
}

// The operator (A - sigma B)^-1 B of the header on the state z = [x; y]: with
// r = -M (y + sigma x) - D x, it returns [u; x + sigma u], u solving the bordered system
// [K + sigma D + sigma^2 M, Phi_q^T; Phi_q, 0] [u; mu] = [r; 0]. Spectra's operator interface
// (Scalar, rows, cols, a const perform_op); the backend vectors are scratch.
class ShiftInvert {
 public:
  using Scalar = double;

  ShiftInvert(System& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, double shift)
      : sys_(sys), backend_(sys.backend()), n_(sys.dofs()), shift_(shift), damped_(sys.velocity_in_residual()),
        q_(backend_.make_vector(n_)), v_(backend_.make_vector(n_)), x_(backend_.make_vector(n_)),
        y_(backend_.make_vector(n_)), r_(backend_.make_vector(n_)), u_(backend_.make_vector(n_)),
        forces_plus_(backend_.make_vector(n_)), forces_minus_(backend_.make_vector(n_)),
        mu_(backend_.make_vector(sys.constraints())), no_mu_(backend_.make_vector(sys.constraints())),
        phi_(backend_.make_vector(sys.constraints())) {
    backend_.upload(q, q_);
    Vector lambda_b = backend_.make_vector(sys.constraints());
    backend_.upload(lambda, lambda_b);
    NewtonMatrixCoefficients mass_only;
    mass_only.mass = 1.0;
    sys_.newton_terms(q_, v_, 0.0, ForceTerms{1.0, 0.0, &q_, nullptr}, lambda_b, mass_only, r_, phi_);
    mass_norm_ = sys_.newton_matrix_norm();
    NewtonMatrixCoefficients c;
    c.stiffness = 1.0;
    c.damping = shift;
    c.mass = shift * shift;
    sys_.newton_terms(q_, v_, 0.0, ForceTerms{1.0, 0.0, &q_, nullptr}, lambda_b, c, r_, phi_);
    matrix_norm_ = sys_.newton_matrix_norm();
    damped_ = damped_ && applies_damping();
    try {
      backend_.factorize();
    } catch (const SimulationError& e) {
      throw SimulationError("eigen analysis: the linearized system is singular at the shift " + digits(shift) +
                            " 1/s (" + e.what() +
                            "): a free rigid-body motion or a mechanism has an eigenvalue there; give "
                            "/analysis/shift a value that is not one (for example -1)");
    }
  }

  Eigen::Index rows() const { return 2 * n_; }
  Eigen::Index cols() const { return 2 * n_; }
  // Whether D is not zero: the first-order form's spectrum is then not symmetric about the
  // imaginary axis.
  bool damped() const { return damped_; }
  // ||Q|| / ||M||, the scale of the eigenvalues' squares (infinity norms as the elements give them).
  double eigenvalue_scale() const { return matrix_norm_ / std::max(mass_norm_, 1e-300); }

  void perform_op(const double* in, double* out) const {
    const Eigen::Map<const Eigen::VectorXd> x(in, n_), y(in + n_, n_);
    backend_.upload(x, x_);
    backend_.upload(y, y_);
    backend_.axpby(shift_, x_, 1.0, y_);  // y + sigma x
    sys_.mass_product(q_, 0.0, y_, r_, -1.0);
    if (damped_) subtract_damping_product(x);
    backend_.solve(r_, no_mu_, u_, mu_);
    backend_.download(u_, u_host_);
    Eigen::Map<Eigen::VectorXd>(out, n_) = u_host_;
    Eigen::Map<Eigen::VectorXd>(out + n_, n_) = x + shift_ * u_host_;
  }

 private:
  // Whether D takes a coordinate vector of ones anywhere (the velocity terms of an undamped model,
  // the rigid bodies' quadratic ones, cancel exactly in the difference).
  bool applies_damping() {
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n_);
    backend_.upload(ones, x_);
    backend_.axpby(0.0, r_, 0.0, r_);
    subtract_damping_product(Eigen::Map<const Eigen::VectorXd>(ones.data(), n_));
    return backend_.max_abs(r_) > 0.0;
  }

  // r -= D x, D x = (f(q, e x) - f(q, -e x)) / 2e at velocities no larger than kDampingVelocity.
  void subtract_damping_product(const Eigen::Map<const Eigen::VectorXd>& x) const {
    const double largest = x.cwiseAbs().maxCoeff();
    if (!(largest > 0.0)) return;
    const double e = kDampingVelocity / largest;
    const NewtonMatrixCoefficients none;
    backend_.axpby(e, x_, 0.0, v_);
    sys_.newton_terms(q_, v_, 0.0, ForceTerms{1.0, 0.0, &q_, nullptr}, no_mu_, none, forces_plus_, phi_,
                      NewtonTermsForm{false});
    backend_.axpby(-e, x_, 0.0, v_);
    sys_.newton_terms(q_, v_, 0.0, ForceTerms{1.0, 0.0, &q_, nullptr}, no_mu_, none, forces_minus_, phi_,
                      NewtonTermsForm{false});
    backend_.combine({{-0.5 / e, &forces_plus_}, {0.5 / e, &forces_minus_}, {1.0, &r_}}, r_);
  }

  System& sys_;
  Backend& backend_;
  const int n_;
  const double shift_;
  bool damped_;
  double mass_norm_ = 0.0, matrix_norm_ = 0.0;
  mutable Vector q_, v_, x_, y_, r_, u_, forces_plus_, forces_minus_, mu_, no_mu_, phi_;
  mutable Eigen::VectorXd u_host_;
};

// The eigenpairs (nu, z) of the operator: all of them, or the `wanted` of largest |nu|.
void operator_eigenpairs(ShiftInvert& op, int wanted, Eigen::VectorXcd& nu, Eigen::MatrixXcd& z) {
  const int size = static_cast<int>(op.rows());
  if (size <= kDenseStateSize) {
    Eigen::MatrixXd whole(size, size);
    Eigen::VectorXd unit = Eigen::VectorXd::Zero(size);
    for (int j = 0; j < size; ++j) {
      unit[j] = 1.0;
      op.perform_op(unit.data(), whole.col(j).data());
      unit[j] = 0.0;
    }
    const Eigen::EigenSolver<Eigen::MatrixXd> dense(whole);
    if (dense.info() != Eigen::Success) throw SimulationError("eigen analysis: the dense eigensolver did not converge");
    nu = dense.eigenvalues();
    z = dense.eigenvectors();
    return;
  }
  const int nev = std::min(wanted, size - 3);
  const int ncv = std::min(size, std::max(2 * nev + 1, nev + 20));
  Spectra::GenEigsSolver<ShiftInvert> arnoldi(op, nev, ncv);
  arnoldi.init();
  const int converged = static_cast<int>(arnoldi.compute(Spectra::SortRule::LargestMagn, kArnoldiRestarts, 1e-10));
  // The eigenvalues that converged, of which the caller takes its modes: one that did not may be
  // the conjugate partner of the last, outside the nev asked for.
  if (arnoldi.info() != Spectra::CompInfo::Successful && converged < nev - 1)
    throw SimulationError("eigen analysis: the Arnoldi iteration found " + std::to_string(converged) + " of " +
                          std::to_string(nev) + " eigenvalues in " + std::to_string(kArnoldiRestarts) +
                          " restarts (ask for fewer modes, or move /analysis/shift nearer the frequencies wanted)");
  nu = arnoldi.eigenvalues();
  z = arnoldi.eigenvectors();
}

// The shape's scale: 1 at its largest position entry (of all entries where no position moves).
void normalize_shape(const Model& m, Eigen::VectorXcd& shape) {
  int largest = -1;
  for (int i = 0; i < shape.size(); ++i)
    if (!m.is_dimensionless(i) && (largest < 0 || std::abs(shape[i]) > std::abs(shape[largest]))) largest = i;
  if (largest < 0 || std::abs(shape[largest]) == 0.0) shape.cwiseAbs().maxCoeff(&largest);
  if (std::abs(shape[largest]) > 0.0) shape /= shape[largest];
}

}  // namespace

ModeFrequencies mode_frequencies(std::complex<double> s) {
  ModeFrequencies f;
  const double w = std::abs(s);
  f.natural_hz = w / kTwoPi;
  f.damped_hz = std::fabs(s.imag()) / kTwoPi;
  f.damping_ratio = w > 0.0 ? -s.real() / w : 0.0;
  return f;
}

std::vector<LinearMode> linear_modes(System& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, int count,
                                     double shift, std::vector<std::string>& warnings) {
  ShiftInvert op(sys, q, lambda, shift);
  Eigen::VectorXcd nu;
  Eigen::MatrixXcd z;
  // A mode of a conjugate pair is two eigenvalues of the operator.
  operator_eigenpairs(op, 2 * count, nu, z);
  // 1 / nu = s - sigma, so Im s > 0 where Im nu < 0: of a conjugate pair the one with Im s > 0.
  // Undamped, the spectrum is symmetric about the imaginary axis too (s and -s), and of a real
  // pair +-a (an unstable mode, or a free body's motion near 0) the one with Re s >= 0 stands for
  // it; damped, each real eigenvalue is a mode of its own.
  std::vector<int> order;
  const double largest = nu.size() > 0 ? nu.cwiseAbs().maxCoeff() : 0.0;
  for (int k = 0; k < nu.size(); ++k) {
    if (!(std::abs(nu[k]) > kInfiniteModeFraction * largest)) continue;
    const std::complex<double> s = shift + 1.0 / nu[k];
    if (s.imag() > 0.0 || (s.imag() == 0.0 && (op.damped() || s.real() >= 0.0))) order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(nu[a]) > std::abs(nu[b]); });
  if (!order.empty()) {
    const double nearness = std::norm(1.0 / nu[order.front()]) / op.eigenvalue_scale();
    const std::string at = "the mode nearest the shift " + digits(shift) + " 1/s is " +
                           digits(std::abs(1.0 / nu[order.front()])) + " 1/s from it, ";
    if (nearness < kSingularFraction)
      throw SimulationError("eigen analysis: the linearized system is singular at the shift (" + at +
                            "within round-off of the matrix's scale): a free rigid-body motion or a mechanism "
                            "has an eigenvalue there; give /analysis/shift a value that is not one (for example -1)");
    if (nearness < kInaccurateFraction)
      warnings.push_back(at + "near the round-off of the matrix's scale (" + digits(nearness) +
                         " of it): the nearest modes' eigenvalues may be off by about " +
                         digits(kErrorPerNearness / nearness) + " relative (elements much shorter than their section do this; a coarser mesh helps)");
  }
  std::vector<LinearMode> modes;
  const int n = sys.dofs();
  for (int k : order) {
    if (static_cast<int>(modes.size()) == count) break;
    LinearMode mode;
    mode.eigenvalue = shift + 1.0 / nu[k];
    mode.shape = z.col(k).head(n);
    normalize_shape(sys.model(), mode.shape);
    modes.push_back(std::move(mode));
  }
  return modes;
}

void run_eigen(System& sys, const EigenSettings& s, const FrameSink& sink, RunSummary& summary, LinearModes& out,
               const Interruption* interruption) {
  if (s.static_equilibrium) {
    run_static(
        sys, s.statics,
        [&](const Frame& f) {
          sink(f);
          out.q = *f.q;
          out.lambda = *f.lambda;
        },
        summary, interruption);
  } else {
    const ConsistentState st = consistent_initial_state(sys, 0.0);
    const Eigen::VectorXd at_rest = Eigen::VectorXd::Zero(sys.dofs());
    emit_frame(sys, 0.0, 0.0, 0, st.q, at_rest, st.lambda, sink);
    out.q = st.q;
    out.lambda = st.lambda;
  }
  summary.analysis = "eigen";
  out.modes = linear_modes(sys, out.q, out.lambda, s.modes, s.shift, summary.warnings);
  summary.eigenvalues.clear();
  for (const LinearMode& mode : out.modes) summary.eigenvalues.push_back(mode.eigenvalue);
  if (static_cast<int>(out.modes.size()) < s.modes)
    summary.warnings.push_back("the model has " + std::to_string(out.modes.size()) + " modes; " +
                               std::to_string(s.modes) + " were asked for");
}

}  // namespace catenary
