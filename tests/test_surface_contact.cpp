// Contact of cables with planes and cylinders (elements/surface_contact.hpp) against independent
// references: central differences of the contact forces and of the contact energy, the forces of
// a uniformly pressed element by hand, a cable sliding on a plane against Coulomb's closed form, a
// rebound against the one-degree-of-freedom contact integrated apart, the capstan against
// Euler-Eytelwein, and a mooring line lying on a seabed against the elastic catenary with a
// seabed segment; the case reader, contacts.csv and the VTU point data.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/elements/surface_contact.hpp"
#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/line_touchdown.hpp"
#include "catenary/model/model_merge.hpp"
#include "cli_helpers.hpp"
#include "contact_models.hpp"
#include "test_helpers.hpp"
#include "vtu_reading.hpp"

using namespace catenary;

namespace {

// The element of the checks: 0.7 m, EA = 3e3 N, EI = 2 N m^2, rhoA = 1.5 kg/m, on surface 0.
ElementProperties touching_element() {
  ElementProperties p{0.7, 3.0e3, 2.0, 1.5, 0.0};
  p.contact = 0.0;
  return p;
}

// A horizontal element along x at height z0 (its reference: the same at z = 0).
template <int D>
void horizontal_element(double L, double z0, double* e) {
  for (int i = 0; i < 4 * D; ++i) e[i] = 0.0;
  e[0] = 0.1;
  e[D - 1] += z0;
  e[D] = 1.0;
  e[2 * D] = 0.1 + L;
  e[3 * D - 1] += z0;
  e[3 * D] = 1.0;
}

// The heights of the height grid of surface_of (x fastest; a planar model's profile: the first two).
const double kGridHeights[] = {0.15, -0.15, 0.1, 0.3};

// The contact part of an element's evaluation alone.
template <int D, int S = 4>
ElementEvaluation<D, S> contact_only(const ContactSurface& surface, const double* e_ref, const double* e,
                                     const double* ed, bool jacobian, JacobianWeights w = {}, int first = 0) {
  const ElementProperties p = touching_element();
  ElementEvaluation<D, S> out;
  out.first = first;
  out.force = Vec<S * D>::zero();
  out.jacobian = Mat<S * D, 4 * D>::zero();
  out.energy = 0.0;
  add_surface_contact<D, S, true>({&surface, 1, kGridHeights}, p, reference_quadrature<D>(p, e_ref), e, ed, jacobian,
                                  out, w);
  return out;
}

// The plane z = 0 (y = 0 in 2D); a cylinder of radius 1 m below the element, its axis tilted
// from y (in 2D a circle about (0.45, -1)); or a height grid of 5 m cells from (-2, -2) whose
// triangle under the element slopes along x and y (in 2D a profile sloping along x): the checked
// element's points lie 0.01 to 0.08 m in.
enum class Surface { plane, cylinder, grid };
const char* surface_name(Surface s) {
  return s == Surface::plane ? " on a plane" : s == Surface::cylinder ? " on a cylinder" : " on a height grid";
}

template <int D>
ContactSurface surface_of(const testing::PlaneLaw& law, Surface kind) {
  ContactSurface c = testing::horizontal_plane(D, 0.0, 0.05, law);
  if (kind == Surface::plane) return c;
  if (kind == Surface::grid) {
    c.kind = double(SurfaceKind::grid);
    c.grid_origin[0] = c.grid_origin[1] = -2.0;
    c.grid_spacing[0] = c.grid_spacing[1] = 5.0;
    c.grid_size[0] = 2.0;
    c.grid_size[1] = D == 3 ? 2.0 : 1.0;
    c.grid_offset = 0.0;
    return c;
  }
  c.kind = double(SurfaceKind::cylinder);
  c.surface_radius = 1.0;
  const double axis[3] = {0.2, 1.0, 0.1}, length = std::sqrt(1.05);
  for (int i = 0; i < 3; ++i) {
    c.direction[i] = axis[i] / length;
    c.point[i] = 0.0;
  }
  c.point[0] = 0.45;
  c.point[D - 1] = -1.0;
  return c;
}

template <int D>
void check_contact_derivatives(const testing::PlaneLaw& law, const char* title, Surface kind) {
  constexpr int n = 4 * D;
  const ContactSurface surface = surface_of<D>(law, kind);
  std::mt19937 rng(7 + D);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  double ref[n];
  horizontal_element<D>(0.7, 0.0, ref);
  for (int trial = 0; trial < 10; ++trial) {
    double e[n], ed[n];
    horizontal_element<D>(0.7, -0.02, e);  // into the surface: 0.07 m give or take 0.01 for the plane
    for (int i = 0; i < n; ++i) {
      e[i] += 0.005 * U(rng);
      ed[i] = U(rng);
    }
    for (int g = 0; g < GaussRule5::kPoints; ++g) {  // every point in contact, none at its edge
      const HermiteShape h = hermite_shape(GaussRule5::point(g), 0.7);
      const double delta = detail::surface_point<D>(surface, kGridHeights, detail::interpolate<D>(h.s, e)).delta;
      REQUIRE(delta > 0.005);
    }
    const ElementEvaluation<D> K = contact_only<D>(surface, ref, e, ed, true, {1.0, 0.0});
    const ElementEvaluation<D> Dm = contact_only<D>(surface, ref, e, ed, true, {0.0, 1.0});
    double k_error = 0.0, k_scale = 0.0, d_error = 0.0, d_scale = 0.0, g_error = 0.0, g_scale = 0.0;
    for (int j = 0; j < n; ++j) {
      const double h = 1e-7;
      for (bool velocity : {false, true}) {
        double plus[n], minus[n];
        const double* x = velocity ? ed : e;
        for (int i = 0; i < n; ++i) plus[i] = minus[i] = x[i];
        plus[j] += h;
        minus[j] -= h;
        const ElementEvaluation<D> fp = contact_only<D>(surface, ref, velocity ? e : plus, velocity ? plus : ed, false);
        const ElementEvaluation<D> fm = contact_only<D>(surface, ref, velocity ? e : minus, velocity ? minus : ed, false);
        for (int i = 0; i < n; ++i) {
          const double df = (fp.force[i] - fm.force[i]) / (2 * h);
          const Mat<n, n>& J = velocity ? Dm.jacobian : K.jacobian;
          (velocity ? d_error : k_error) = std::max(velocity ? d_error : k_error, std::fabs(df - J(i, j)));
          (velocity ? d_scale : k_scale) = std::max(velocity ? d_scale : k_scale, std::fabs(J(i, j)));
        }
        if (!velocity) {
          g_error = std::max(g_error, std::fabs((fp.energy - fm.energy) / (2 * h) - K.force[j]));
          g_scale = std::max(g_scale, std::fabs(K.force[j]));
        }
      }
    }
    INFO(title << surface_name(kind) << ", D = " << D << ", trial " << trial);
    CHECK(k_error < 1e-6 * k_scale);
    if (d_scale > 0.0) CHECK(d_error < 1e-6 * d_scale);
    // A law without velocity terms is conservative: its force is the energy's gradient.
    if (law.damping == 0.0 && law.mu_axial == 0.0 && law.mu_lateral == 0.0) CHECK(g_error < 1e-6 * g_scale);
    // The rows of one shape function alone (the CUDA row pass's) are the whole element's.
    const JacobianWeights w{0.8, 0.3};
    const ElementEvaluation<D> whole = contact_only<D>(surface, ref, e, ed, true, w);
    for (int k = 0; k < 4; ++k) {
      const ElementEvaluation<D, 1> rows = contact_only<D, 1>(surface, ref, e, ed, true, w, k);
      for (int i = 0; i < D; ++i) {
        CHECK(rows.force[i] == whole.force[k * D + i]);
        for (int j = 0; j < n; ++j) CHECK(rows.jacobian(i, j) == whole.jacobian(k * D + i, j));
      }
    }
  }
}

}  // namespace

TEST_CASE("surface contact: forces, Jacobians and energy against central differences, plane, cylinder and grid",
          "[contact]") {
  const testing::PlaneLaw linear{1e4, 1.0, 300.0, 0.0, 0.0, 0.0, 0.1};
  const testing::PlaneLaw hertz{1e5, 1.5, 0.0, 0.0, 0.0, 0.0, 0.1};
  const testing::PlaneLaw general{1e5, 1.5, 2e3, 1.0, 0.0, 0.0, 0.1};
  const testing::PlaneLaw sliding{1e4, 1.0, 300.0, 0.0, 0.4, 0.9, 0.1};
  const testing::PlaneLaw sliding_hysteresis{1e5, 1.5, 2e3, 1.5, 0.6, 0.2, 0.05};
  for (const auto& [law, title] : {std::pair{linear, "linear spring-damper"}, std::pair{hertz, "Hertz"},
                                   std::pair{general, "K d^e + C d^m d'"},
                                   std::pair{sliding, "linear with axial and lateral friction"},
                                   std::pair{sliding_hysteresis, "hysteresis damping with friction"}}) {
    for (const Surface kind : {Surface::plane, Surface::cylinder, Surface::grid}) {
      check_contact_derivatives<3>(law, title, kind);
      check_contact_derivatives<2>(law, title, kind);
    }
  }
}

TEST_CASE("plane contact: a uniformly pressed element's reaction, energy and friction by hand", "[contact]") {
  // Every point of a horizontal element delta into the plane: the position rows' z components sum
  // to -k delta L (the shape functions of the two positions sum to 1), the energy is k delta^2 L / 2,
  // and a uniform slide at u along x (y) meets -mu_a (mu_l) k delta L u / sqrt(u^2 + u_s^2).
  const double L = 0.7, k = 1e4, delta = 0.03, mu_a = 0.4, mu_l = 0.9, us = 0.1, u = 0.5;
  const ContactSurface plane = testing::horizontal_plane(3, 0.0, 0.05, {k, 1.0, 0.0, 0.0, mu_a, mu_l, us});
  double ref[12], e[12];
  horizontal_element<3>(L, 0.0, ref);
  horizontal_element<3>(L, 0.05 - delta, e);
  const double phi = u / std::sqrt(u * u + us * us);
  for (int axis : {0, 1}) {
    double ed[12] = {};
    ed[axis] = ed[6 + axis] = u;
    const ElementEvaluation<3> out = contact_only<3>(plane, ref, e, ed, false);
    INFO("sliding along " << (axis == 0 ? "x (axial)" : "y (lateral)"));
    CHECK(out.force[2] + out.force[8] == Approx(-k * delta * L).epsilon(1e-12));
    CHECK(out.energy == Approx(0.5 * k * delta * delta * L).epsilon(1e-12));
    CHECK(out.force[axis] + out.force[6 + axis] == Approx((axis == 0 ? mu_a : mu_l) * k * delta * L * phi).epsilon(1e-12));
    CHECK(std::fabs(out.force[1 - axis] + out.force[7 - axis]) < 1e-12 * k * delta * L);
  }
}

TEST_CASE("a cable sliding on a plane decelerates at mu g, axially and laterally", "[contact][dynamics]") {
  // A free 2 m cable resting on the plane (in equilibrium: its penetration carries its weight)
  // launched at 2 m/s along itself or across: Coulomb's law gives u(t) = u0 - mu g t while it
  // slides, the axial coefficient along the cable and the lateral one across it.
  const double g = 9.81, u0 = 2.0, T = 0.3;
  for (const auto& [axis, mu] : {std::pair{0, 0.3}, std::pair{1, 0.5}}) {
    const testing::PlaneLaw law{1e6, 1.0, 0.0, 0.0, 0.3, 0.5, 1e-3};
    Model m = testing::cable_on_plane(3, 10, law, {axis == 0 ? u0 : 0.0, axis == 1 ? u0 : 0.0, 0.0});
    const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(1e-3, T, 0.0), T);
    const Eigen::VectorXd& v = r.frames.back().v;
    double mean = 0.0;
    for (int node = 0; node < m.node_count; ++node) mean += v[6 * node + axis] / m.node_count;
    const double closed_form = u0 - mu * g * T;
    std::printf("sliding cable, %s: u(%.1f s) = %.9f m/s, Coulomb %.9f m/s\n", axis == 0 ? "axial" : "lateral", T,
                mean, closed_form);
    INFO((axis == 0 ? "axial" : "lateral"));
    CHECK(mean == Approx(closed_form).epsilon(1e-5));
  }
}

namespace {

// The cable's fall onto the plane as one degree of freedom: every point of a straight horizontal
// cable meets the plane at once, so the penetration delta of all of them obeys
// delta'' = g - F(delta, delta') / rhoA (F = K delta^e (1 + alpha delta'), never negative). Its
// velocity (up) at time T from delta = 0, delta' = v_in, by classical Runge-Kutta at 1e-7 s, and
// its speed where it left the plane.
struct OnePointRebound {
  double velocity_at_end, separation_speed;
};
OnePointRebound one_point_rebound(double K, double e, double alpha, double rhoA, double g, double v_in, double T) {
  const auto acceleration = [&](double d, double dd) {
    const double F = d > 0.0 ? std::max(0.0, K * std::pow(d, e) * (1.0 + alpha * dd)) : 0.0;
    return g - F / rhoA;
  };
  const double h = 1e-7;
  double d = 0.0, dd = v_in, separation = 0.0;
  for (long step = 0; step < std::lround(T / h); ++step) {
    const double before = d;
    const double k1d = dd, k1v = acceleration(d, dd);
    const double k2d = dd + 0.5 * h * k1v, k2v = acceleration(d + 0.5 * h * k1d, k2d);
    const double k3d = dd + 0.5 * h * k2v, k3v = acceleration(d + 0.5 * h * k2d, k3d);
    const double k4d = dd + h * k3v, k4v = acceleration(d + h * k3d, k4d);
    d += h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
    dd += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    if (before > 0.0 && d <= 0.0) separation = -dd;
  }
  return {-dd, separation};
}

}  // namespace

TEST_CASE("a cable dropped flat on a plane rebounds as the one-point contact law integrated apart", "[contact][dynamics]") {
  // Hertz (K = 1e7, e = 1.5) conserves energy: the rebound speed is the impact speed. The
  // hysteresis laws at c_r = 0.9 lose what their formulas say to within their own accuracy
  // (derived for c_r near 1: at 0.9 the one-point integration gives Hunt-Crossley 0.905 and
  // Lankarani-Nikravesh 0.909).
  const double K = 1e7, e = 1.5, rhoA = 1.5, g = 9.81, v_in = 1.0, cr = 0.9, T = 0.01;
  const double hunt_crossley = 3.0 * (1.0 - cr) / (2.0 * v_in), lankarani = 3.0 * (1.0 - cr * cr) / (4.0 * v_in);
  for (const auto& [alpha, title] : {std::pair{0.0, "Hertz"}, std::pair{hunt_crossley, "Hunt-Crossley"},
                                     std::pair{lankarani, "Lankarani-Nikravesh"}}) {
    const Model m = testing::cable_on_plane(3, 8, {K, e, alpha * K, e, 0.0, 0.0, 1.0}, {0.0, 0.0, -v_in}, false);
    const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(1e-5, T, 0.0), T);
    double up = 0.0;
    for (int node = 0; node < m.node_count; ++node) up += r.frames.back().v[6 * node + 2] / m.node_count;
    const OnePointRebound reference = one_point_rebound(K, e, alpha, rhoA, g, v_in, T);
    const double restitution = reference.separation_speed / v_in;
    std::printf("%s: velocity at %.2f s %.7f m/s, one-point integration %.7f m/s; its restitution %.4f\n", title,
                T, up, reference.velocity_at_end, restitution);
    INFO(title);
    REQUIRE(reference.separation_speed > 0.0);  // it left the plane before T
    CHECK(up == Approx(reference.velocity_at_end).epsilon(1e-4));
    CHECK(restitution == Approx(alpha == 0.0 ? 1.0 : cr).margin(alpha == 0.0 ? 1e-5 : 1.5e-2));
  }
}

namespace {

// The axial force EA (|r'| - 1) at a node (the Reissner law's).
double node_tension(const Eigen::VectorXd& q, int node) { return 1e6 * (q.segment<3>(6 * node + 3).norm() - 1.0); }

}  // namespace

TEST_CASE("the capstan: a cable sliding over a cylinder, T2 / T1 = exp(mu theta)", "[contact][dynamics]") {
  // Sliding at 0.7 s at 0.75 m/s (75 u_s: the regularized friction is Coulomb's to 1e-4), the
  // tensions of the two legs satisfy Euler-Eytelwein's T2 / T1 = exp(mu theta) over the wrap theta
  // = pi: 2.566 at mu = 0.3; without friction, T2 = T1.
  for (const double mu : {0.0, 0.3}) {
    const Model m = testing::capstan(mu);
    const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(1e-3, 0.7, -0.3), 0.7);
    const Eigen::VectorXd& q = r.frames.back().q;
    const double T1 = node_tension(q, 0), T2 = node_tension(q, m.node_count - 1);
    std::printf("capstan, mu = %.1f: T1 = %.3f N, T2 = %.3f N, T2 / T1 = %.5f, exp(mu pi) = %.5f\n", mu, T1, T2,
                T2 / T1, std::exp(mu * M_PI));
    INFO("mu = " << mu);
    CHECK(T1 == Approx(100.0).epsilon(1e-2));
    CHECK(T2 / T1 == Approx(std::exp(mu * M_PI)).epsilon(1e-2));
  }
}

TEST_CASE("seabed_mooring_line.json: touchdown and fairlead tension of the elastic catenary with a seabed segment",
          "[contact][statics][cases]") {
  const nlohmann::json document =
      nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/seabed_mooring_line.json"));
  // EA = 5e8 N (the case: strains of 1e-4) and 5e6 N (strains of 1 %, the seabed part stretched by H / EA), EI = 500 N m^2 both.
  for (const double E : {5e10, 5e8}) {
    nlohmann::json c = document;
    c["model"]["materials"]["chain"]["youngs_modulus"] = E;
    c["model"]["sections"]["link"]["inertia"] = 500.0 / E;
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_seabed_line.json";
    std::ofstream(file) << c.dump();
    const Case loaded = load_case(file.string());
    const double L = 130.0, w = 100.0 * 9.81, EA = E * 0.01;
    const testing::SeabedCatenary closed_form = testing::seabed_catenary(L, w, EA, 100.0, 50.0);
    const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis);
    const testing::SeabedLineState state = testing::seabed_line_state(loaded.model, r.frames.back().q, EA);
    std::printf("seabed line EA %.0e N: touchdown %.4f m (closed form %.4f), fairlead tension %.2f N (%.2f)\n", EA,
                state.touchdown, closed_form.grounded_length, state.fairlead_tension, closed_form.fairlead_tension);
    INFO("EA " << EA);
    REQUIRE_FALSE(state.folded);
    CHECK(state.touchdown == Approx(closed_form.grounded_length).epsilon(5e-3));
    CHECK(state.fairlead_tension == Approx(closed_form.fairlead_tension).epsilon(5e-3));
    // line_touchdown (results.csv's LINE.touchdown): the end of contact searched from the fairlead,
    // bisected; the sampled centreline's last point on the plane lies within its 1 mm samples.
    const Touchdown td = line_touchdown(loaded.model, loaded.model.bodies[0], r.frames.back().q);
    REQUIRE(td.found);
    CHECK(td.arc_length == Approx(closed_form.grounded_length).epsilon(5e-3));
    CHECK(std::abs(td.arc_length - state.touchdown) < 2e-3);
    CHECK(std::abs(td.position.z()) < 1e-6);
  }
}

TEST_CASE("line_touchdown from the line's first node: the seabed line laid from its fairlead", "[contact][statics]") {
  // The same line with its nodes numbered from the fairlead: the touchdown lies L - (the grounded
  // length) from the first node, found walking from the fairlead (the end farther off the seabed;
  // the anchor sits on it at zero penetration).
  nlohmann::json c =
      nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/seabed_mooring_line.json"));
  c["model"]["bodies"][0]["start"] = {100, 0, 50};
  c["model"]["bodies"][0]["end"] = {0, 0, 0};
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_seabed_line_reversed.json";
  std::ofstream(file) << c.dump();
  const Case loaded = load_case(file.string());
  const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis);
  const testing::SeabedCatenary closed_form = testing::seabed_catenary(130.0, 100.0 * 9.81, 5e8, 100.0, 50.0);
  const Touchdown td = line_touchdown(loaded.model, loaded.model.bodies[0], r.frames.back().q);
  std::printf("seabed line from its fairlead: touchdown %.4f m from the first node (closed form %.4f)\n", td.arc_length,
              130.0 - closed_form.grounded_length);
  REQUIRE(td.found);
  CHECK(td.arc_length == Approx(130.0 - closed_form.grounded_length).epsilon(5e-3));
  CHECK(td.position.x() == Approx(closed_form.grounded_length).epsilon(5e-3));
  // Lifted off the seabed, or sunk into it at both ends, the line has no touchdown.
  for (const double shift : {10.0, -100.0}) {
    Eigen::VectorXd q = r.frames.back().q;
    for (int node = 0; node < loaded.model.node_count; ++node) q[6 * node + 2] += shift;
    INFO("shifted by " << shift << " m");
    CHECK_FALSE(line_touchdown(loaded.model, loaded.model.bodies[0], q).found);
  }
}

TEST_CASE("contacts.csv: the seabed's normal force carries the grounded line's weight", "[contact][output][cli]") {
  // Frictionless, the seabed carries the weight of the line's grounded part, w (L - V / w) by the
  // closed form (the anchor, where the line lies flat, carries no vertical force).
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "catenary_seabed_contacts";
  std::filesystem::remove_all(out);
  const std::string cases = std::string(CATENARY_SOURCE_DIR) + "/cases/";
  REQUIRE(testing::run_catenary("run " + cases + "seabed_mooring_line.json --out " + out.string(), out.string() + ".log") == 0);
  const std::string table = testing::slurp(out / "contacts.csv");
  const std::string header = table.substr(0, table.find('\n'));
  CHECK(header == "time,seabed.points,seabed.normal_force,seabed.friction_force,seabed.penetration");
  const std::string last = table.substr(table.rfind('\n', table.size() - 2) + 1);
  double time, points, normal, friction, penetration;
  REQUIRE(std::sscanf(last.c_str(), "%lf,%lf,%lf,%lf,%lf", &time, &points, &normal, &friction, &penetration) == 5);
  const double w = 100.0 * 9.81;
  const testing::SeabedCatenary closed_form = testing::seabed_catenary(130.0, w, 5e8, 100.0, 50.0);
  std::printf("contacts.csv: seabed normal force %.2f N, grounded weight by the closed form %.2f N\n", normal,
              w * closed_form.grounded_length);
  CHECK(normal == Approx(w * closed_form.grounded_length).epsilon(5e-3));
  CHECK(friction == 0.0);
  CHECK(points > 0.0);
  // The deepest point: at least the lying part's w / K (the law's), more where the touchdown's
  // bending concentrates the reaction (1.8e-4 m), and small beside the 50 m depth.
  CHECK(penetration >= 0.99 * w / 1e7);
  CHECK(penetration < 1e-3);
  const nlohmann::json summary = nlohmann::json::parse(testing::slurp(out / "summary.json"));
  CHECK(summary["output_files"]["contacts"] == "contacts.csv");

  // results.csv's touchdown columns (output.touchdowns): the grounded length from the anchor, at
  // the plane; summary.json's range over the load steps holds the last.
  const std::string results = testing::slurp(out / "results.csv");
  std::vector<std::string> names, values;
  std::istringstream header_fields(results.substr(0, results.find('\n')));
  std::istringstream last_fields(results.substr(results.rfind('\n', results.size() - 2) + 1));
  for (std::string f; std::getline(header_fields, f, ',');) names.push_back(f);
  for (std::string f; std::getline(last_fields, f, ',');) values.push_back(f);
  const auto column = std::find(names.begin(), names.end(), "line.touchdown");
  REQUIRE(column != names.end());
  REQUIRE(column + 3 < names.end());
  CHECK(*(column + 3) == "line.touchdown.z");
  const size_t at = static_cast<size_t>(column - names.begin());
  const double touchdown = std::stod(values.at(at));
  CHECK(touchdown == Approx(closed_form.grounded_length).epsilon(5e-3));
  CHECK(std::stod(values.at(at + 1)) == Approx(touchdown).epsilon(1e-3));  // x: the grounded part lies along x
  CHECK(std::abs(std::stod(values.at(at + 3))) < 1e-6);
  CHECK(summary["touchdowns"]["line"]["smallest"].get<double>() <= touchdown);
  CHECK(summary["touchdowns"]["line"]["largest"].get<double>() >= touchdown);
}

TEST_CASE("a cylinder contact as a case gives it: its axis normalized, its radii, the law's K, e, C and m",
          "[contact][loader]") {
  nlohmann::json c =
      nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/seabed_mooring_line.json"));
  c["model"]["contacts"][0] = {{"name", "sheave"}, {"type", "cylinder"}, {"bodies", {"line"}},
                               {"point", {1, 2, 3}}, {"axis", {0, 3, 4}}, {"cylinder_radius", 0.3},
                               {"radius", 0.01},
                               {"law", {{"type", "lankarani_nikravesh"}, {"stiffness", 1e8}, {"restitution", 0.8},
                                        {"impact_velocity", 2.0}}}};
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_sheave.json";
  std::ofstream(file) << c.dump();
  const Case loaded = load_case(file.string());
  REQUIRE(loaded.model.elements.contact_surfaces.size() == 1);
  const ContactSurface& s = loaded.model.elements.contact_surfaces[0];
  CHECK(s.kind == double(SurfaceKind::cylinder));
  CHECK(s.direction[1] == Approx(0.6).epsilon(1e-15));
  CHECK(s.direction[2] == Approx(0.8).epsilon(1e-15));
  CHECK(s.point[2] == 3.0);
  CHECK(s.surface_radius == 0.3);
  CHECK(s.radius == 0.01);
  CHECK(s.law.exponent == 1.5);
  CHECK(s.law.damping_exponent == 1.5);
  CHECK(s.law.damping == Approx(1e8 * 3.0 * (1.0 - 0.64) / (4.0 * 2.0)).epsilon(1e-15));  // alpha K
  CHECK(loaded.model.elements.contact_names[0] == "sheave");
  for (const ElementProperties& p : loaded.model.elements.properties) CHECK(p.contact == 0.0);
}

TEST_CASE("VTU frames carry the contact force per length: a resting cable's weight", "[contact][output]") {
  // The cable of cable_on_plane rests at the penetration that carries its weight, so every sampled
  // point's contact force is rhoA g = 1.5 x 9.81 N/m up, and nothing along the plane.
  const Model m = testing::cable_on_plane(3, 10, {1e6, 1.0, 0.0, 0.0, 0.3, 0.5, 0.01}, {0.0, 0.0, 0.0});
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_contact_force.vtu";
  Eigen::VectorXd q(m.dof_count()), v = Eigen::VectorXd::Zero(m.dof_count());
  for (int i = 0; i < m.dof_count(); ++i) q[i] = m.initial_positions[i];
  write_vtu(file.string(), m, q, v, 4);
  const std::vector<double> forces = testing::vtu_array(testing::slurp(file), "contact_force");
  REQUIRE(forces.size() == 3 * (10 * 4 + 1));
  for (int point = 0; point < 10 * 4 + 1; ++point) {
    const double* f = &forces[3 * point];
    INFO("point " << point);
    CHECK(f[2] == Approx(1.5 * 9.81).epsilon(1e-12));
    CHECK(f[0] == 0.0);
    CHECK(f[1] == 0.0);
  }
}

TEST_CASE("a height grid whose nodes lie on one plane touches as that plane does, in every triangle",
          "[contact]") {
  const testing::PlaneLaw law{1e5, 1.5, 2e3, 1.5, 0.6, 0.2, 0.05};
  // The plane z = 0.02 x - 0.03 y + 0.01 as a grid of 0.3 m cells, and as a plane.
  const double a = 0.02, b = -0.03, c = 0.01;
  ContactSurface grid = testing::horizontal_plane(3, 0.0, 0.05, law);
  grid.kind = double(SurfaceKind::grid);
  grid.grid_origin[0] = grid.grid_origin[1] = -0.5;
  grid.grid_spacing[0] = grid.grid_spacing[1] = 0.3;
  grid.grid_size[0] = 6;
  grid.grid_size[1] = 5;
  grid.grid_offset = 0.0;
  std::vector<double> heights;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 6; ++i) heights.push_back(a * (-0.5 + 0.3 * i) + b * (-0.5 + 0.3 * j) + c);
  ContactSurface plane = testing::horizontal_plane(3, 0.0, 0.05, law);
  const double norm = std::sqrt(a * a + b * b + 1.0);
  plane.direction[0] = -a / norm;
  plane.direction[1] = -b / norm;
  plane.direction[2] = 1.0 / norm;
  plane.point[2] = c;
  const ElementProperties p = touching_element();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  double ref[12];
  horizontal_element<3>(0.7, 0.0, ref);
  double worst = 0.0, scale = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    double e[12], ed[12];
    horizontal_element<3>(0.7, -0.02, e);
    for (int i = 0; i < 12; ++i) {
      e[i] += (i % 6 < 3 ? 0.2 : 0.05) * U(rng);  // the element wanders over several cells
      ed[i] = U(rng);
    }
    ElementEvaluation<3> on_grid{}, on_plane{};
    add_surface_contact<3, 4, true>({&grid, 1, heights.data()}, p, reference_quadrature<3>(p, ref), e, ed, true, on_grid);
    add_surface_contact<3, 4, true>({&plane, 1}, p, reference_quadrature<3>(p, ref), e, ed, true, on_plane);
    for (int i = 0; i < 12; ++i) {
      worst = std::max(worst, std::fabs(on_grid.force[i] - on_plane.force[i]));
      scale = std::max(scale, std::fabs(on_plane.force[i]));
      for (int j = 0; j < 12; ++j) worst = std::max(worst, 1e-3 * std::fabs(on_grid.jacobian(i, j) - on_plane.jacobian(i, j)));
    }
  }
  REQUIRE(scale > 0.0);
  CHECK(worst < 1e-9 * scale);
}

TEST_CASE("a height grid as a case gives it: origin, spacing and heights row by row, and sweeps share equal grids",
          "[contact][loader]") {
  nlohmann::json c =
      nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/seabed_mooring_line.json"));
  const auto load = [](const nlohmann::json& j, const char* name) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / name;
    std::ofstream(file) << j.dump();
    return load_case(file.string());
  };
  c["model"]["contacts"][0] = {{"name", "bathymetry"}, {"type", "grid"}, {"bodies", {"line"}},
                               {"origin", {-10, -5}}, {"spacing", {20, 10}},
                               {"heights", {{0.0, -1.0, -2.0}, {0.5, -0.5, -1.5}}},
                               {"law", {{"type", "linear"}, {"stiffness", 1e5}}}};
  const Case loaded = load(c, "catenary_grid.json");
  const ElementBlock& el = loaded.model.elements;
  REQUIRE(el.contact_surfaces.size() == 1);
  const ContactSurface& s = el.contact_surfaces[0];
  CHECK(s.kind == double(SurfaceKind::grid));
  CHECK(s.grid_size[0] == 3);
  CHECK(s.grid_size[1] == 2);
  CHECK(s.grid_origin[1] == -5);
  CHECK(s.grid_spacing[0] == 20);
  CHECK(el.contact_heights == std::vector<double>{0.0, -1.0, -2.0, 0.5, -0.5, -1.5});
  // Two copies with the grid, one with other heights: two grids in the batch, each copy's elements
  // on its own heights.
  nlohmann::json other = c;
  other["model"]["contacts"][0]["heights"][1][2] = -1.0;
  const Case changed = load(other, "catenary_grid_changed.json");
  std::vector<CopyRange> ranges;
  const Model batch = merge_models({&loaded.model, &loaded.model, &changed.model}, ranges);
  REQUIRE(batch.elements.contact_surfaces.size() == 2);
  CHECK(batch.elements.contact_heights.size() == 12);
  const ContactSurface& second = batch.elements.contact_surfaces[1];
  CHECK(batch.elements.contact_heights[static_cast<int>(second.grid_offset) + 5] == -1.0);
}
