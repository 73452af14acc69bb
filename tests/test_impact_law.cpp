// ADAMS's IMPACT force law (multibody/impact_law.hpp) as a translational spring's law: the force
// against its form written out here, its derivatives against central finite differences, no force
// apart, the spring's generalized force against its potential, and a mass dropped on an IMPACT
// stop (energy and rebound height).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "catenary/model/case_loader.hpp"
#include "catenary/multibody/force_elements.hpp"
#include "catenary/multibody/impact_law.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

// IMPACT written out: max(0, k (x1 - x)^e - STEP(x, x1 - d, cmax, x1, 0) x') for x < x1, with STEP
// the cubic cmax (1 - 3 u^2 + 2 u^3), u = (x - x1 + d) / d, between x1 - d and x1.
double impact_reference(const ImpactLaw& law, double x1, double x, double rate) {
  if (x >= x1) return 0.0;
  const double u = std::min(1.0, std::max(0.0, (x - x1 + law.penetration) / law.penetration));
  const double damping = law.max_damping * (1.0 - 3.0 * u * u + 2.0 * u * u * u);
  return std::max(0.0, law.stiffness * std::pow(x1 - x, law.exponent) - damping * rate);
}

// A mass of 1 kg whose centre starts 0.1 m above where a vertical IMPACT stop (free length 0.5 m,
// from the ground point at the origin) begins to push, k = 1e5 N/m, e = 1, no damping; the trapezoidal
// rule (HHT with alpha = 0), which adds no numerical damping.
const char* kDropCase = R"({
  "name": "impact_drop",
  "model": {
    "dimension": 3,
    "gravity": [0, 0, -9.81],
    "rigid_bodies": [{"name": "mass", "mass": 1.0, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, 0.6]}],
    "springs": [{"name": "stop", "body_i": "ground", "body_j": "mass", "point_i": [0, 0, 0], "point_j": [0, 0, 0.6],
                 "free_length": 0.5,
                 "impact": {"stiffness": 1e5, "exponent": 1, "max_damping": 0, "penetration": 0.001}}]
  },
  "analysis": {"type": "dynamic", "end_time": 0.35, "step": 1e-4, "alpha": 0}
})";

}  // namespace

TEST_CASE("IMPACT: force against its written-out form, derivatives against finite differences", "[force-elements]") {
  const double x1 = 0.5;
  for (double exponent : {1.0, 1.5, 2.3}) {
    const ImpactLaw law{2e4, exponent, 30.0, 0.01};
    // Inside the damping's ramp (x1 - d < x < x1) and beyond it, approaching and separating slowly.
    for (double x : {0.499, 0.495, 0.4915, 0.48, 0.45})
      for (double rate : {-0.8, -0.1, 0.0, 0.001}) {
        INFO("e = " << exponent << ", x = " << x << ", x' = " << rate);
        const ImpactForce f = impact_force(law, x1, x, rate);
        const double reference = impact_reference(law, x1, x, rate);
        REQUIRE(reference > 0.0);
        CHECK(f.value == Approx(reference).epsilon(1e-13));
        const double hx = 1e-7, hv = 1e-6;
        const double fd_x = (impact_reference(law, x1, x + hx, rate) - impact_reference(law, x1, x - hx, rate)) / (2 * hx);
        const double fd_v = (impact_reference(law, x1, x, rate + hv) - impact_reference(law, x1, x, rate - hv)) / (2 * hv);
        CHECK(f.d_length == Approx(fd_x).epsilon(1e-6).margin(1e-6));
        CHECK(f.d_rate == Approx(fd_v).epsilon(1e-6).margin(1e-6));
      }
  }
}

TEST_CASE("IMPACT: no force apart or while separating faster than the spring pushes, and none at contact",
          "[force-elements]") {
  const ImpactLaw law{1e5, 1.5, 100.0, 0.002};
  for (double x : {0.5, 0.51, 2.0})
    for (double rate : {-3.0, 0.0, 3.0}) {
      const ImpactForce f = impact_force(law, 0.5, x, rate);
      CHECK(f.value == 0.0);
      CHECK(f.d_length == 0.0);
      CHECK(f.d_rate == 0.0);
    }
  // 1e-3 m in: k delta^e = 3.16 N, the damping 50 N s/m at half its ramp: x' = 1 m/s would pull.
  CHECK(impact_force(law, 0.5, 0.499, 1.0).value == 0.0);
  CHECK(impact_force(law, 0.5, 0.499, 0.01).value > 0.0);
  // The force and its damping both rise from 0 as contact begins.
  CHECK(impact_force(law, 0.5, 0.5 - 1e-12, -1.0).value < 1e-9);
  CHECK(impact_energy(law, 0.5, 0.5) == 0.0);
  CHECK(impact_energy(law, 0.5, 0.49) == Approx(1e5 * std::pow(0.01, 2.5) / 2.5));
}

TEST_CASE("a spring with an IMPACT law: compression F = -IMPACT, and its generalized force is minus the gradient "
          "of its potential",
          "[force-elements]") {
  Tsda e;
  e.name = "stop";
  e.body_i = kGround, e.body_j = 0;
  e.point_i = vec3(0.1, -0.2, 0.0), e.point_j = vec3(0.02, 0.01, -0.03);
  e.free_length = 1.0;
  e.has_impact = true;
  e.impact = {5e3, 1.7, 0.0, 0.01};
  // Body 0 at r = (0.3, 0.4, 0.5), turned: |P_j - P_i| ~ 0.73 < free length.
  Eigen::VectorXd q(7), v = Eigen::VectorXd::Zero(7);
  const Vec<4> p = rigid::from_axis_angle(vec3(1, 2, 3), 0.7);
  q << 0.3, 0.4, 0.5, p[0], p[1], p[2], p[3];
  const TsdaState s = tsda_state(e, q.data(), v.data(), 0.0);
  REQUIRE(s.length < 1.0);
  CHECK(s.force == Approx(-impact_reference(e.impact, 1.0, s.length, 0.0)));
  ForceElements fe;
  fe.tsda.push_back(e);
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(7);
  add_force_element_forces(fe, q.data(), v.data(), 0.0, Q.data());
  const auto energy = [&](const Eigen::VectorXd& at) {
    Eigen::VectorXd unused = Eigen::VectorXd::Zero(7);
    return add_force_element_forces(fe, at.data(), v.data(), 0.0, unused.data());
  };
  for (int k = 0; k < 7; ++k) {
    Eigen::VectorXd a = q, b = q;
    a[k] += 1e-6, b[k] -= 1e-6;
    CHECK(Q[k] == Approx(-(energy(a) - energy(b)) / 2e-6).epsilon(1e-6).margin(1e-6));
  }
}

TEST_CASE("a mass dropped on an undamped IMPACT stop keeps its energy and rebounds to its drop height",
          "[force-elements][multibody]") {
  struct Drop {
    double lowest, apex, drift;
  };
  const auto drop_with_step = [](const std::string& step) {
    std::string text = kDropCase;
    text.replace(text.find("1e-4"), 4, step);
    const Case c = load_cases_from_text(text, "impact_drop.json").at(0).c;
    REQUIRE(c.model.mechanism.forces.tsda.at(0).has_impact);
    const RunResult r = run_model(c.model, c.analysis);
    REQUIRE(r.summary.status != "failed");
    const int z = c.model.rigid_offset() + 2;
    Drop d{1.0, 0.0, 0.0};
    bool bounced = false;
    for (const StoredFrame& f : r.frames) {
      d.lowest = std::min(d.lowest, f.q[z]);
      bounced = bounced || f.v[z] > 0.0;
      if (bounced) d.apex = std::max(d.apex, f.q[z]);
      d.drift = std::max(d.drift, std::fabs(f.total() - r.frames.front().total()));
    }
    return d;
  };
  const double drop = 0.1, mgh = 9.81 * drop;
  const Drop coarse = drop_with_step("1e-4"), fine = drop_with_step("5e-5");
  // The stop pushed: 1 kg from 0.1 m on 1e5 N/m sinks 4.5 mm (1/2 k d^2 = m g (0.1 + d)).
  const double sink = (9.81 + std::sqrt(9.81 * 9.81 + 2e5 * 9.81 * drop)) / 1e5;
  CHECK(0.5 - coarse.lowest == Approx(sink).epsilon(1e-3));
  INFO("energy drift " << coarse.drift << " J (h = 1e-4 s), " << fine.drift << " J (h = 5e-5 s) of m g h = " << mgh
                       << " J; apex " << coarse.apex - 0.6 << " m, " << fine.apex - 0.6 << " m off the drop height");
  // The trapezoidal rule keeps a linear spring's energy; what it loses or gains comes from the two
  // steps that cross the kink of the law at contact, and falls with h, by how much depending on
  // where in those steps contact begins and ends. Measured: drift 1.3e-4 J and 5.3e-5 J, the apex
  // 1.1e-5 m above and 1.6e-6 m below the drop height at h = 1e-4 s and 5e-5 s.
  CHECK(coarse.drift < 2e-4 * mgh);
  CHECK(fine.drift < coarse.drift / 2.0);
  CHECK(std::fabs(coarse.apex - 0.6) < 2e-5);
  CHECK(std::fabs(fine.apex - 0.6) < std::fabs(coarse.apex - 0.6) / 3.0);
}
