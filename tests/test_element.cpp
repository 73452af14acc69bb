// Element-level checks of the shared ANCF element math against independent references, under
// both strain laws: the closed-form mass matrix, the energies of uniform stretch and the point
// densities from their definitions, central finite differences of the internal force, and rigid
// body motion of an unstressed element.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>

#include "catenary/elements/gradient_deficient_math.hpp"

using namespace catenary;

namespace {

template <int D>
void straight_reference(double L, double* e) {
  // node A at the origin, node B at L along a fixed unit direction, unit slopes
  const double dir[3] = {0.6, 0.8, 0.0};
  const double d3[3] = {2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0};
  const double* u = D == 2 ? dir : d3;
  for (int i = 0; i < D; ++i) {
    e[i] = 0.1 * (i + 1);
    e[D + i] = u[i];
    e[2 * D + i] = e[i] + L * u[i];
    e[3 * D + i] = u[i];
  }
}

// The element of the Jacobian checks: 0.7 m, EA = 3e3 N, EI = 2 N m^2, rhoA = 1.5 kg/m.
ElementProperties checked_element(double eta, StrainLaw law) { return {0.7, 3.0e3, 2.0, 1.5, eta, double(law)}; }

const char* law_name(StrainLaw law) { return law == StrainLaw::reissner ? "Reissner" : "Green-Lagrange"; }

// Central differences (step h) of the element force and energy with respect to coordinate j of
// the positions (wrt_velocity = false) or of the velocities.
template <int D>
void central_difference(const ElementProperties& p, const double* ref, const double* e, const double* ed, int j,
                        bool wrt_velocity, Vec<4 * D>& dforce, double& denergy) {
  constexpr int n = 4 * D;
  const double h = 1e-6;
  double plus[n], minus[n];
  const double* x = wrt_velocity ? ed : e;
  for (int i = 0; i < n; ++i) plus[i] = minus[i] = x[i];
  plus[j] += h;
  minus[j] -= h;
  ElementEvaluation<D> fp, fm;
  evaluate_element<D>(p, ref, wrt_velocity ? e : plus, wrt_velocity ? plus : ed, false, fp);
  evaluate_element<D>(p, ref, wrt_velocity ? e : minus, wrt_velocity ? minus : ed, false, fm);
  for (int i = 0; i < n; ++i) dforce[i] = (fp.force[i] - fm.force[i]) / (2 * h);
  denergy = (fp.energy - fm.energy) / (2 * h);
}

template <int D>
void check_jacobian(bool curved, double eta, StrainLaw law) {
  constexpr int n = 4 * D;
  std::mt19937 rng(42 + D + (curved ? 7 : 0));
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const ElementProperties p = checked_element(eta, law);
  double ref[n];
  straight_reference<D>(p.length, ref);
  if (curved)
    for (int i = 0; i < n; ++i) ref[i] += 0.05 * U(rng);
  for (int trial = 0; trial < 20; ++trial) {
    double e[n], ed[n];
    for (int i = 0; i < n; ++i) {
      e[i] = ref[i] + 0.2 * U(rng);
      ed[i] = U(rng);
    }
    ElementEvaluation<D> base, damping;  // K, and D alone
    evaluate_element<D>(p, ref, e, ed, true, base);
    evaluate_element<D>(p, ref, e, ed, true, damping, JacobianWeights{0.0, 1.0});
    double max_err = 0.0, max_K = 0.0, max_derr = 0.0, max_D = 0.0, gerr = 0.0, gmax = 0.0;
    for (int j = 0; j < n; ++j) {
      Vec<n> df;
      double dU;
      // The stiffness is the derivative of the elastic force and the force the gradient of the
      // energy; the damping force's position derivative is not part of K, so these are checked
      // with eta = 0.
      central_difference<D>(p, ref, e, ed, j, false, df, dU);
      for (int i = 0; i < n; ++i) {
        max_err = std::max(max_err, std::fabs(df[i] - base.jacobian(i, j)));
        max_K = std::max(max_K, std::fabs(base.jacobian(i, j)));
      }
      gerr = std::max(gerr, std::fabs(dU - base.force[j]));
      gmax = std::max(gmax, std::fabs(base.force[j]));
      // The damping matrix is the exact derivative of the force with respect to velocities.
      central_difference<D>(p, ref, e, ed, j, true, df, dU);
      for (int i = 0; i < n; ++i) {
        max_derr = std::max(max_derr, std::fabs(df[i] - damping.jacobian(i, j)));
        max_D = std::max(max_D, std::fabs(damping.jacobian(i, j)));
      }
    }
    INFO(law_name(law) << " law, D = " << D << " curved = " << curved << " trial " << trial);
    if (eta == 0.0) {
      CHECK(max_err / max_K < 1e-6);
      CHECK(gerr / gmax < 1e-6);
    } else {
      CHECK(max_derr / max_D < 1e-6);
    }
  }
}

template <int D>
void check_rigid_motion(bool curved, StrainLaw law) {
  constexpr int n = 4 * D;
  const ElementProperties p{0.5, 1e6, 3.0, 1.0, 0.0, double(law)};
  double ref[n];
  straight_reference<D>(p.length, ref);
  if (curved) {  // a curved stress-free shape: rotate the end slopes by +-0.3 rad in the plane
    const double c = std::cos(0.3), s = std::sin(0.3);
    const double ax = ref[D], ay = ref[D + 1];
    ref[D] = c * ax - s * ay;
    ref[D + 1] = s * ax + c * ay;
    const double bx = ref[3 * D], by = ref[3 * D + 1];
    ref[3 * D] = c * bx + s * by;
    ref[3 * D + 1] = -s * bx + c * by;
  }
  // Rotation: 2D by 1.1 rad; 3D about axis (1,2,2)/3 by 1.1 rad (Rodrigues), plus translation.
  double R[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double th = 1.1, c = std::cos(th), s = std::sin(th);
  if (D == 2) {
    R[0][0] = c; R[0][1] = -s; R[1][0] = s; R[1][1] = c;
  } else {
    const double k[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
    const double K[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double K2 = 0.0;
        for (int l = 0; l < 3; ++l) K2 += K[i][l] * K[l][j];
        R[i][j] = (i == j ? 1.0 : 0.0) + s * K[i][j] + (1 - c) * K2;
      }
  }
  const double shift[3] = {3.0, -2.0, 0.5};
  double e[n], ed[n];
  for (int blk = 0; blk < 4; ++blk)
    for (int i = 0; i < D; ++i) {
      double x = 0.0;
      for (int j = 0; j < D; ++j) x += R[i][j] * ref[blk * D + j];
      e[blk * D + i] = x + ((blk % 2 == 0) ? shift[i] : 0.0);
    }
  for (int i = 0; i < n; ++i) ed[i] = 0.0;
  ElementEvaluation<D> out;
  evaluate_element<D>(p, ref, e, ed, false, out);
  INFO(law_name(law) << " law");
  // Scale of a force from a 1 % strain or a curvature of 1/L, for a relative bound.
  const double scale = 0.01 * p.EA + p.EI / (p.length * p.length);
  for (int i = 0; i < n; ++i) CHECK(std::fabs(out.force[i]) < 1e-9 * scale);
  CHECK(std::fabs(out.energy) < 1e-12 * scale * p.length);
}

}  // namespace

TEST_CASE("element mass matrix equals the closed form", "[element]") {
  // Shabana's planar beam: rho A l times [13/35, 11l/210, 9/70, -13l/420; ..., l^2/105, 13l/420,
  // -l^2/140; ..., 13/35, -11l/210; ..., l^2/105] (the RANCF paper's matrix).
  const double L = 0.8, rhoA = 2.5;
  const double M[4][4] = {{13.0 / 35, 11 * L / 210, 9.0 / 70, -13 * L / 420},
                          {11 * L / 210, L * L / 105, 13 * L / 420, -L * L / 140},
                          {9.0 / 70, 13 * L / 420, 13.0 / 35, -11 * L / 210},
                          {-13 * L / 420, -L * L / 140, -11 * L / 210, L * L / 105}};
  const ElementProperties p{L, 1.0, 1.0, rhoA, 0.0};
  double ref2[8], ref3[12];
  straight_reference<2>(L, ref2);
  straight_reference<3>(L, ref3);
  const Mat<4, 4> M2 = element_scalar_mass(p, reference_quadrature<2>(p, ref2)),
                  M3 = element_scalar_mass(p, reference_quadrature<3>(p, ref3));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(M2(i, j) == Approx(rhoA * L * M[i][j]).epsilon(1e-13));
      CHECK(M3(i, j) == Approx(rhoA * L * M[i][j]).epsilon(1e-13));
    }
  // Gravity weights: m g [1/2, l/12, 1/2, -l/12] per component.
  const Vec<4> s = element_shape_integrals(p, reference_quadrature<2>(p, ref2));
  CHECK(s[0] == Approx(L / 2).epsilon(1e-13));
  CHECK(s[1] == Approx(L * L / 12).epsilon(1e-13));
  CHECK(s[2] == Approx(L / 2).epsilon(1e-13));
  CHECK(s[3] == Approx(-L * L / 12).epsilon(1e-13));
}

TEST_CASE("analytic element Jacobian matches finite differences", "[element]") {
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    SECTION(std::string("planar beam, straight reference, ") + law_name(law)) { check_jacobian<2>(false, 0.0, law); }
    SECTION(std::string("planar beam, curved reference, ") + law_name(law)) { check_jacobian<2>(true, 0.0, law); }
    SECTION(std::string("spatial cable, straight reference, ") + law_name(law)) { check_jacobian<3>(false, 0.0, law); }
    SECTION(std::string("spatial cable, curved reference, ") + law_name(law)) { check_jacobian<3>(true, 0.0, law); }
    SECTION(std::string("damping matrix, planar, ") + law_name(law)) { check_jacobian<2>(true, 0.01, law); }
    SECTION(std::string("damping matrix, spatial, ") + law_name(law)) { check_jacobian<3>(true, 0.01, law); }
  }
}

TEST_CASE("unstressed element has no force under rigid motion", "[element]") {
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    SECTION(std::string("planar, straight, ") + law_name(law)) { check_rigid_motion<2>(false, law); }
    SECTION(std::string("planar, curved, ") + law_name(law)) { check_rigid_motion<2>(true, law); }
    SECTION(std::string("spatial, straight, ") + law_name(law)) { check_rigid_motion<3>(false, law); }
    SECTION(std::string("spatial, curved, ") + law_name(law)) { check_rigid_motion<3>(true, law); }
  }
}

// A straight element stretched uniformly by lambda (slopes and span scaled by lambda) has the
// energy 1/2 EA eps^2 L of its law's strain, eps = lambda - 1 (Reissner, Hooke's law on the
// engineering strain: tension EA (lambda - 1)) or (lambda^2 - 1) / 2 (Green-Lagrange), and no
// bending energy. Both integrands are constant: the quadrature is exact.
template <int D>
void check_uniform_stretch(StrainLaw law) {
  constexpr int n = 4 * D;
  const ElementProperties p = checked_element(0.0, law);
  double ref[n], e[n], ed[n] = {};
  straight_reference<D>(p.length, ref);
  for (const double lambda : {0.7, 1.01, 1.3, 2.5}) {
    for (int i = 0; i < n; ++i) e[i] = ref[i] * lambda;
    ElementEvaluation<D> out;
    evaluate_element<D>(p, ref, e, ed, false, out);
    const double eps = law == StrainLaw::reissner ? lambda - 1.0 : 0.5 * (lambda * lambda - 1.0);
    INFO(law_name(law) << " law, D = " << D << ", lambda = " << lambda);
    CHECK(out.energy == Approx(0.5 * p.EA * eps * eps * p.length).epsilon(1e-12));
  }
}

// The bending density at random points (a = r', b = r'') against its definition written out
// directly: 1/2 EI (kappa - kappa0)^2 less the constant 1/2 EI kappa0^2, kappa = |a x b| / (|a|^2
// |r0'|) (Reissner) or |a x b| / |a|^3 (Green-Lagrange), with |r0'| = 1.3 here.
void check_bending_density(StrainLaw law) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const double EI = 2.0, slope0 = 1.3;
  const bool reissner = law == StrainLaw::reissner;
  for (int trial = 0; trial < 10; ++trial) {
    const double a[3] = {1.0 + 0.3 * U(rng), 0.3 * U(rng), 0.3 * U(rng)}, b[3] = {U(rng), U(rng), U(rng)};
    const double A = a[0] * a[0] + a[1] * a[1] + a[2] * a[2], B = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    const double C = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const double cross[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    const double norm = std::sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
    const double kappa = reissner ? norm / (A * slope0) : norm / (A * std::sqrt(A));
    const detail::CurvatureMeasure m = detail::curvature_measure(reissner, A, 1.0 / slope0);
    for (const double kappa0 : {0.0, 0.4}) {
      const double expected = 0.5 * EI * (kappa - kappa0) * (kappa - kappa0) - 0.5 * EI * kappa0 * kappa0;
      INFO(law_name(law) << " law, trial " << trial << ", kappa0 = " << kappa0);
      CHECK(detail::bending_density(EI, A, B, C, kappa0, m, false).value == Approx(expected).epsilon(1e-13));
    }
  }
}

TEST_CASE("each strain law's energy is its definition: uniform stretch and the bending density", "[element]") {
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    check_uniform_stretch<2>(law);
    check_uniform_stretch<3>(law);
    check_bending_density(law);
  }
}

// The CUDA kernel evaluates one shape function's rows per thread, with the Newton matrix's
// weights folded into one Jacobian: both must equal the whole element's K and D (checked above
// against finite differences) combined.
template <int D>
void check_rows_and_weights(StrainLaw law) {
  constexpr int n = 4 * D;
  std::mt19937 rng(3 + D);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const ElementProperties p = checked_element(0.02, law);
  double ref[n], e[n], ed[n];
  straight_reference<D>(p.length, ref);
  for (int i = 0; i < n; ++i) ref[i] += 0.05 * U(rng);  // curved reference
  for (int i = 0; i < n; ++i) e[i] = ref[i] + 0.2 * U(rng), ed[i] = U(rng);
  const JacobianWeights w{0.7, 130.0};
  ElementEvaluation<D> K, Dm, whole;
  evaluate_element<D>(p, ref, e, ed, true, K, JacobianWeights{1.0, 0.0});
  evaluate_element<D>(p, ref, e, ed, true, Dm, JacobianWeights{0.0, 1.0});
  evaluate_element<D>(p, ref, e, ed, true, whole, w);
  double scale = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) scale = std::max(scale, std::fabs(whole.jacobian(i, j)));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      CHECK(std::fabs(whole.jacobian(i, j) - (w.stiffness * K.jacobian(i, j) + w.damping * Dm.jacobian(i, j))) <
            1e-13 * scale);
  for (int shape = 0; shape < 4; ++shape) {
    ElementEvaluation<D, 1> rows;
    evaluate_element<D>(p, ref, e, ed, true, rows, w, shape);
    CHECK(rows.energy == Approx(whole.energy).epsilon(1e-14));
    for (int r = 0; r < D; ++r) {
      CHECK(rows.force[r] == Approx(whole.force[shape * D + r]).epsilon(1e-13));
      for (int j = 0; j < n; ++j)
        CHECK(std::fabs(rows.jacobian(r, j) - whole.jacobian(shape * D + r, j)) < 1e-13 * scale);
    }
  }
}

TEST_CASE("one shape function's rows and the weighted Jacobian equal the whole element's", "[element]") {
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    SECTION(std::string("planar, ") + law_name(law)) { check_rows_and_weights<2>(law); }
    SECTION(std::string("spatial, ") + law_name(law)) { check_rows_and_weights<3>(law); }
  }
}

// Largest |kappa0| the element math takes at the bending points of reference ref.
template <int D>
double largest_reference_curvature(const ElementProperties& p, const double* ref) {
  const ReferenceQuadrature quadrature = reference_quadrature<D>(p, ref);
  double largest = 0.0;
  for (double kappa0 : quadrature.kappa0) largest = std::max(largest, std::fabs(kappa0));
  return largest;
}

// A straight reference's round-off is not a curvature: the kappa0 term (kappa0 |kappa| in 3D,
// singular where the cable is straight) must stay out for straight lines wherever they lie, and
// come in for a real curvature however small. Checked on kappa0 itself and on its consequence:
// the Jacobian of a straight, stretched cable is the same 10 km from the origin as at it
// (translation invariance), which a round-off kappa0 over s^3 ~ 1e-33 would break.
template <int D>
void check_round_off_is_not_curvature(StrainLaw law) {
  constexpr int n = 4 * D;
  std::mt19937 rng(11 + D);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const ElementProperties p = checked_element(0.0, law);
  double straight[n], stretched[n], far[n], slightly_curved[n], curved[n];
  straight_reference<D>(p.length, straight);
  const auto is_position = [](int i) { return i < D || (i >= 2 * D && i < 3 * D); };
  for (int i = 0; i < n; ++i) {
    stretched[i] = straight[i] * (i >= 3 * D ? 1.6 : 1.0);  // slopes of unequal length on one line
    far[i] = straight[i] + (is_position(i) ? 1e4 * (i % D + 1) : 0.0);  // shifted far
    slightly_curved[i] = straight[i];
    curved[i] = straight[i] + 0.05 * U(rng);
  }
  slightly_curved[3 * D + 1] += 1e-6;  // end slope turned by 1e-6 rad: curvature of order 1e-5 / m
  CHECK(largest_reference_curvature<D>(p, straight) == 0.0);
  CHECK(largest_reference_curvature<D>(p, stretched) == 0.0);
  CHECK(largest_reference_curvature<D>(p, far) == 0.0);
  CHECK(largest_reference_curvature<D>(p, slightly_curved) > 1e-7);
  CHECK(largest_reference_curvature<D>(p, curved) > 1e-2);

  double near_state[n], far_state[n], ed[n];
  for (int i = 0; i < n; ++i) {
    near_state[i] = straight[i] * 1.01;  // stretched 1 %, still straight
    far_state[i] = near_state[i] + (far[i] - straight[i]);
    ed[i] = 0.0;
  }
  ElementEvaluation<D> at_origin, far_away;
  evaluate_element<D>(p, straight, near_state, ed, true, at_origin);
  evaluate_element<D>(p, far, far_state, ed, true, far_away);
  double scale = 0.0, difference = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      scale = std::max(scale, std::fabs(at_origin.jacobian(i, j)));
      difference = std::max(difference, std::fabs(far_away.jacobian(i, j) - at_origin.jacobian(i, j)));
    }
  CHECK(difference < 1e-6 * scale);
}

TEST_CASE("a straight reference's round-off is not a curvature", "[element]") {
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    SECTION(std::string("planar, ") + law_name(law)) { check_round_off_is_not_curvature<2>(law); }
    SECTION(std::string("spatial, ") + law_name(law)) { check_round_off_is_not_curvature<3>(law); }
  }
}
