// The water's kinematics and loads on one element: the dispersion relation against Hunt's
// approximation, a sea state's variance against its spectrum's, Airy kinematics against their
// closed forms and each other (gradients, time derivatives, continuity), buoyancy on a partly
// submerged element against hand integration of the shape functions, and the Jacobian of all
// the loads against finite differences.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "catenary/elements/fluid_load.hpp"
#include "catenary/model/waves.hpp"

using namespace catenary;

namespace {

constexpr double kG = 9.81;

// Hunt's (1979) Pade approximation of the dispersion relation: (k h)^2 = y^2 + y / (1 + sum d_n
// y^n), y = w^2 h / g: within 5e-4 of the root over all depths (4e-4 near k h = 1.4).
double hunt_wavenumber(double w, double h) {
  const double y = w * w * h / kG;
  const double d[6] = {0.6666666666, 0.3555555555, 0.1608465608, 0.0632098765, 0.0217540484, 0.0065407983};
  double sum = 1.0, power = 1.0;
  for (double dn : d) sum += dn * (power *= y);
  return std::sqrt(y * y + y / sum) / h;
}

// Water with one regular wave (amplitude a, period T, depth h) and, optionally, a current profile.
struct Water {
  FluidLoad f{};
  std::vector<double> values;
  Water(double a, double T, double h, double heading = 0.0) {
    f.density = 1025.0;
    f.surface = 0.0;
    f.depth = h;
    f.wave_offset = 0.0;
    f.wave_count = 1.0;
    f.wave_reach = a;
    const WaveComponent c = regular_wave_component({2.0 * a, T, heading, 0.3}, h, kG);
    const double* v = reinterpret_cast<const double*>(&c);
    values.assign(v, v + kWaveValues);
  }
  void add_profile(const std::vector<double>& heights, const std::vector<double>& velocities) {
    f.profile_offset = static_cast<double>(values.size());
    f.profile_count = static_cast<double>(heights.size());
    values.insert(values.end(), heights.begin(), heights.end());
    values.insert(values.end(), velocities.begin(), velocities.end());
  }
};

Vec<3> point(double x, double y, double z) { return vec3(x, y, z); }

}  // namespace

TEST_CASE("the wavenumber solves the dispersion relation at every depth", "[water]") {
  for (double T : {3.0, 8.0, 15.0})
    for (double h : {2.0, 20.0, 320.0, 5000.0}) {
      const double w = 2.0 * M_PI / T, k = dispersion_wavenumber(w, h, kG);
      CHECK(kG * k * std::tanh(k * h) == Approx(w * w).epsilon(1e-14));
      CHECK(k == Approx(hunt_wavenumber(w, h)).epsilon(5e-4));
    }
  // The limits: deep water k = w^2 / g, shallow water k = w / sqrt(g h).
  CHECK(dispersion_wavenumber(1.0, 1e4, kG) == Approx(1.0 / kG).epsilon(1e-14));
  CHECK(dispersion_wavenumber(0.01, 1.0, kG) == Approx(0.01 / std::sqrt(kG)).epsilon(1e-5));
}

TEST_CASE("a sea state's components hold its spectrum's variance", "[water]") {
  // m0 = integral of S = Hs^2 / 16: exactly for Pierson-Moskowitz (gamma = 1), to the JONSWAP
  // form's normalization (about 1 %) otherwise; the range [0.5, 5] wp leaves out 0.2 %.
  for (double gamma : {1.0, 3.3}) {
    WaveSpectrum s;
    s.significant_height = 6.0;
    s.peak_period = 10.0;
    s.gamma = gamma;
    s.components = 400;
    s.seed = 7;
    s.min_frequency = 0.5 * 2.0 * M_PI / s.peak_period;
    s.max_frequency = 5.0 * 2.0 * M_PI / s.peak_period;
    const std::vector<WaveComponent> c = spectrum_components(s, 320.0, kG);
    REQUIRE(c.size() == 400);
    double m0 = 0.0;
    for (const WaveComponent& w : c) m0 += 0.5 * w.amplitude * w.amplitude;
    std::printf("sea state, gamma %.1f: Hs of the components %.5f m (6 m asked)\n", gamma, 4.0 * std::sqrt(m0));
    CHECK(4.0 * std::sqrt(m0) == Approx(6.0).epsilon(gamma == 1.0 ? 5e-3 : 1.5e-2));
    // The same seed gives the same sea; another, another.
    const std::vector<WaveComponent> again = spectrum_components(s, 320.0, kG);
    CHECK(again[17].phase == c[17].phase);
    s.seed = 8;
    CHECK(spectrum_components(s, 320.0, kG)[17].phase != c[17].phase);
  }
  // Pierson-Moskowitz at its peak: 5/16 Hs^2 / wp e^(-5/4).
  const double wp = 2.0 * M_PI / 10.0;
  CHECK(jonswap_density(wp, 6.0, 10.0, 1.0) == Approx(5.0 / 16.0 * 36.0 / wp * std::exp(-1.25)).epsilon(1e-14));
}

TEST_CASE("Airy kinematics follow the closed forms, with consistent gradients and rates", "[water]") {
  const double a = 1e-4, T = 7.0, h = 30.0;  // small: the stretching moves z by a few 1e-6
  Water water(a, T, h, 0.4);
  const WaveComponent& c = *reinterpret_cast<const WaveComponent*>(water.values.data());
  const double k = c.wavenumber, w = c.frequency;
  for (const Vec<3>& r : {point(1.0, 2.0, -3.0), point(-7.0, 0.5, -25.0), point(12.0, -4.0, -0.5)}) {
    const double t = 1.3;
    const FluidPoint<3> p = fluid_kinematics<3>(water.f, water.values.data(), r, t);
    REQUIRE(p.wet);
    const double theta = k * (std::cos(0.4) * r[0] + std::sin(0.4) * r[1]) - w * t + 0.3;
    const double eta = a * std::cos(theta);
    const double zs = (r[2] - eta) * h / (h + eta);
    const double C = std::cosh(k * (zs + h)) / std::sinh(k * h), S = std::sinh(k * (zs + h)) / std::sinh(k * h);
    CHECK(p.elevation == Approx(eta).epsilon(1e-13));
    CHECK(p.velocity[0] == Approx(a * w * C * std::cos(theta) * std::cos(0.4)).epsilon(1e-12));
    CHECK(p.velocity[1] == Approx(a * w * C * std::cos(theta) * std::sin(0.4)).epsilon(1e-12));
    CHECK(p.velocity[2] == Approx(a * w * S * std::sin(theta)).epsilon(1e-12));
    CHECK(p.acceleration[2] == Approx(-a * w * w * S * std::cos(theta)).epsilon(1e-12));
    // Gradients against central differences; the acceleration against the velocity's rate.
    const double dx = 1e-4, dt = 1e-4;
    for (int j = 0; j < 3; ++j) {
      Vec<3> rp = r, rm = r;
      rp[j] += dx;
      rm[j] -= dx;
      const FluidPoint<3> pp = fluid_kinematics<3>(water.f, water.values.data(), rp, t);
      const FluidPoint<3> pm = fluid_kinematics<3>(water.f, water.values.data(), rm, t);
      for (int i = 0; i < 3; ++i) {
        const double scale = a * w * k;
        CHECK(p.velocity_gradient(i, j) == Approx((pp.velocity[i] - pm.velocity[i]) / (2 * dx)).margin(1e-7 * scale));
        CHECK(p.acceleration_gradient(i, j) ==
              Approx((pp.acceleration[i] - pm.acceleration[i]) / (2 * dx)).margin(1e-7 * scale * w));
      }
    }
    const FluidPoint<3> later = fluid_kinematics<3>(water.f, water.values.data(), r, t + dt);
    const FluidPoint<3> earlier = fluid_kinematics<3>(water.f, water.values.data(), r, t - dt);
    for (int i = 0; i < 3; ++i)
      CHECK(p.acceleration[i] == Approx((later.velocity[i] - earlier.velocity[i]) / (2 * dt)).margin(1e-4 * a * w * w));
    // Continuity: the flow is divergence-free.
    CHECK(std::fabs(p.velocity_gradient(0, 0) + p.velocity_gradient(1, 1) + p.velocity_gradient(2, 2)) <
          1e-4 * a * w * k);
  }
  // Above the crest the point is dry; the ramp starts the waves from still water.
  CHECK_FALSE(fluid_kinematics<3>(water.f, water.values.data(), point(0.0, 0.0, 2 * a), 1.0).wet);
  water.f.ramp = 10.0;
  CHECK(fluid_kinematics<3>(water.f, water.values.data(), point(0.0, 0.0, -1.0), 0.0).velocity[2] == 0.0);
  const double half = fluid_kinematics<3>(water.f, water.values.data(), point(0.0, 0.0, -1.0), 5.0).elevation;
  water.f.ramp = 0.0;
  CHECK(half == Approx(0.5 * fluid_kinematics<3>(water.f, water.values.data(), point(0.0, 0.0, -1.0), 5.0).elevation));
}

TEST_CASE("a current profile is linear between its points and constant beyond", "[water]") {
  Water water(1e-9, 10.0, 100.0);
  water.f.wave_count = 0.0;
  water.add_profile({-100.0, -20.0, 0.0}, {0.1, 0.0, 0.0, 0.5, 0.2, 0.0, 1.0, 0.2, 0.0});
  const auto at = [&](double z) { return fluid_kinematics<3>(water.f, water.values.data(), point(0, 0, z), 0.0); };
  CHECK(at(-60.0).velocity[0] == Approx(0.3));
  CHECK(at(-60.0).velocity[1] == Approx(0.1));
  CHECK(at(-60.0).velocity_gradient(0, 2) == Approx(0.4 / 80.0));
  CHECK(at(-10.0).velocity[0] == Approx(0.75));
  CHECK(at(-150.0).velocity[0] == Approx(0.1));
  CHECK(at(-150.0).velocity_gradient(0, 2) == 0.0);
}

TEST_CASE("buoyancy on a partly submerged element is the wet part's, by hand integration", "[water]") {
  // A straight element from (0, 0, -1) to (2, 0, 1) (unit slopes, so |r0'| = 1): the still
  // surface z = 0 cuts it at xi = 1/2, and the wet half carries f_b = rho_w A g upwards. The
  // Hermite shape functions' integrals over [0, 1/2]: 13/32, 11 L/192, 3/32, -5 L/192.
  const double L = 2.0 * std::sqrt(2.0), s = 1.0 / std::sqrt(2.0);
  const ElementProperties p{L, 1e6, 1.0, 1.0, 0.0, 0.0, -1.0, 0.0};
  const double e[12] = {0, 0, -1, s, 0, s, 2, 0, 1, s, 0, s}, ed[12] = {};
  FluidLoad f{};
  f.diameter = 0.2;
  f.density = 1000.0;
  const FluidLoadList list{&f, 1, nullptr, 0.0, {0.0, 0.0, -kG}};
  ElementEvaluation<3> out;
  out.force = Vec<12>::zero();
  out.jacobian = Mat<12, 12>::zero();
  add_fluid_load<3, 4, true>(list, p, reference_quadrature<3>(p, e), e, ed, false, out);
  const double b = 1000.0 * kG * M_PI * 0.01;
  const double integral[4] = {13.0 / 32.0, 11.0 * L / 192.0, 3.0 / 32.0, -5.0 * L / 192.0};
  for (int k = 0; k < 4; ++k) {
    CHECK(out.force[3 * k + 2] == Approx(-b * L * integral[k]).epsilon(1e-12));
    CHECK(out.force[3 * k] == 0.0);
  }
}

TEST_CASE("the water's loads have their analytic Jacobian", "[water]") {
  // A curved element through a wave's surface, in a sheared current, moving: buoyancy with
  // moving cuts, drag and fluid inertia, against central differences of the rows.
  Water water(0.3, 6.0, 40.0, 0.2);
  water.add_profile({-40.0, 0.0}, {0.2, -0.1, 0.0, 0.9, 0.3, 0.05});
  water.f.diameter = 0.15;
  water.f.drag_normal = 1.2;
  water.f.drag_tangential = 0.4;
  water.f.added_mass_normal = 1.0;
  water.f.added_mass_tangential = 0.3;
  const FluidLoadList list{&water.f, 1, water.values.data(), 2.1, {0.0, 0.0, -kG}};
  const double L = 3.0;
  const ElementProperties p{L, 1e6, 1.0, 1.0, 0.0, 0.0, -1.0, 0.0};
  const double ref[12] = {0, 0, 0, 1, 0, 0, L, 0, 0, 1, 0, 0};
  const double e[12] = {0.1, 0.2, -1.1, 0.8, 0.1, 0.55, 2.9, 0.4, 0.7, 0.9, -0.1, 0.3};
  const double ed[12] = {0.3, -0.2, 0.1, 0.05, 0.02, -0.1, -0.4, 0.1, 0.3, 0.0, 0.1, 0.05};
  const ReferenceQuadrature rq = reference_quadrature<3>(p, ref);
  const auto rows = [&](const double* x, const double* xd, bool jacobian, JacobianWeights weights) {
    ElementEvaluation<3> out;
    out.force = Vec<12>::zero();
    out.jacobian = Mat<12, 12>::zero();
    add_fluid_load<3, 4, true>(list, p, rq, x, xd, jacobian, out, weights);
    return out;
  };
  const ElementEvaluation<3> stiffness = rows(e, ed, true, {1.0, 0.0}), damping = rows(e, ed, true, {0.0, 1.0});
  double largest = 0.0;
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 12; ++j) largest = std::max(largest, std::fabs(stiffness.jacobian(i, j)));
  REQUIRE(largest > 0.0);
  const double h = 1e-6;
  for (int j = 0; j < 12; ++j) {
    double ep[12], em[12], vp[12], vm[12];
    for (int i = 0; i < 12; ++i) ep[i] = em[i] = e[i], vp[i] = vm[i] = ed[i];
    ep[j] += h;
    em[j] -= h;
    vp[j] += h;
    vm[j] -= h;
    const ElementEvaluation<3> fp = rows(ep, ed, false, {}), fm = rows(em, ed, false, {});
    const ElementEvaluation<3> gp = rows(e, vp, false, {}), gm = rows(e, vm, false, {});
    for (int i = 0; i < 12; ++i) {
      CHECK(stiffness.jacobian(i, j) == Approx((fp.force[i] - fm.force[i]) / (2 * h)).margin(1e-6 * largest));
      CHECK(damping.jacobian(i, j) == Approx((gp.force[i] - gm.force[i]) / (2 * h)).margin(1e-6 * largest));
    }
  }
  // The added mass in a pass's mass term: rows M_a(e) w, whose Jacobian (w held) is c_m M_a +
  // mass_scale d(M_a w)/de; M_a against the rows of unit vectors w, d(M_a w)/de against
  // differences of the rows.
  const double w[12] = {0.5, -0.2, 1.0, 0.1, 0.3, -0.4, -0.7, 0.2, 0.6, 0.05, -0.1, 0.2};
  const auto mass_rows = [&](const double* x, const double* wx, JacobianWeights weights, double c_m, double scale,
                             Vec<12>& rows) {
    ElementEvaluation<3> out;
    out.force = Vec<12>::zero();
    out.jacobian = Mat<12, 12>::zero();
    rows = Vec<12>::zero();
    add_fluid_load<3, 4, true>(list, p, rq, x, ed, true, out, weights, {wx, scale, c_m, rows.v});
    return out;
  };
  Vec<12> mass;
  const ElementEvaluation<3> inertia = mass_rows(e, nullptr, {0.0, 0.0}, 1.0, 0.0, mass);
  const ElementEvaluation<3> turning = mass_rows(e, w, {0.0, 0.0}, 0.0, 1.0, mass);
  double product[12] = {};
  add_added_mass_product<3>(list, p, rq, e, w, product);
  for (int i = 0; i < 12; ++i) CHECK(product[i] == Approx(mass[i]).epsilon(1e-14));
  double mass_largest = 0.0;
  for (int j = 0; j < 12; ++j) {
    double unit[12] = {}, column[12] = {};
    unit[j] = 1.0;
    add_added_mass_product<3>(list, p, rq, e, unit, column);
    for (int i = 0; i < 12; ++i) {
      CHECK(inertia.jacobian(i, j) == Approx(column[i]).margin(1e-12));
      mass_largest = std::max(mass_largest, std::fabs(column[i]));
    }
  }
  REQUIRE(mass_largest > 0.0);
  for (int j = 0; j < 12; ++j) {
    double ep[12], em[12];
    for (int i = 0; i < 12; ++i) ep[i] = em[i] = e[i];
    ep[j] += h;
    em[j] -= h;
    Vec<12> up, down;
    mass_rows(ep, w, {}, 0.0, 0.0, up);
    mass_rows(em, w, {}, 0.0, 0.0, down);
    for (int i = 0; i < 12; ++i)
      CHECK(turning.jacobian(i, j) == Approx((up[i] - down[i]) / (2 * h)).margin(1e-6 * mass_largest));
  }
}
