// What the shipped cases' descriptions say, checked against the cases: the hanging rod's sag and
// the flexible cable's it is compared with (Irvine's elastic catenary, a closed form), the
// cantilever's load and F L^2 / EI, and the sizes the other descriptions state.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "cli_helpers.hpp"
#include "test_helpers.hpp"

namespace {

using namespace catenary;

nlohmann::json shipped(const std::string& name) {
  return nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/" + name));
}

Case load(const nlohmann::json& document, const std::string& name) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("catenary_shipped_" + name + ".json");
  std::ofstream(file) << document.dump();
  return load_case(file.string());
}

std::string description(const nlohmann::json& c) { return c["description"].get<std::string>(); }

// The midspan sag of an elastic catenary between supports at equal height (Irvine, Cable
// Structures, 1981, 2.2): span S, unstretched length L, weight w a unit unstretched length, EA.
// The horizontal tension H solves S = H L / EA + (2 H / w) asinh(w L / (2 H)) (bisection); then
// sag = w L^2 / (8 EA) + (H / w) (sqrt(1 + (w L / (2 H))^2) - 1).
double irvine_sag(double S, double L, double w, double EA) {
  const auto span = [&](double H) { return H * L / EA + 2.0 * H / w * std::asinh(w * L / (2.0 * H)); };
  double lo = 1e-6, hi = 1e9;  // span(H) rises with H
  for (int k = 0; k < 200; ++k) {
    const double mid = std::sqrt(lo * hi);
    (span(mid) < S ? lo : hi) = mid;
  }
  const double H = std::sqrt(lo * hi), V = 0.5 * w * L;
  return w * L * L / (8.0 * EA) + H / w * (std::sqrt(1.0 + (V / H) * (V / H)) - 1.0);
}

// The midspan node's depth below the supports after the case's static analysis.
double midspan_sag(const Case& c) {
  const testing::RunResult r = testing::run_model(c.model, c.analysis);
  const int mid = c.output.nodes.at(0).node;
  return -r.frames.back().q[6 * mid + 2];
}

}  // namespace

TEST_CASE("hanging_cable.json: the rod's sag, and the flexible cable's against Irvine's catenary", "[cases][statics]") {
  const nlohmann::json document = shipped("hanging_cable.json");
  REQUIRE(description(document).find("sag 2.934 m") != std::string::npos);
  REQUIRE(description(document).find("sags 2.9235 m") != std::string::npos);
  REQUIRE(description(document).find("EI = 49 N m^2") != std::string::npos);
  const Case rod = load(document, "hanging_rod");
  REQUIRE(rod.model.elements.properties.front().EI == Approx(49.09).epsilon(1e-3));
  const double rod_sag = midspan_sag(rod);
  std::printf("hanging_cable.json: the rod's sag %.6f m\n", rod_sag);
  CHECK(rod_sag == Approx(2.934).margin(5e-4));

  // The flexible cable of the description is Irvine's; the same wire without bending stiffness
  // (I = 1e-18 m^4: EI = 1e-7 N m^2) meets that closed form to the 40 elements' discretization.
  const double area = M_PI * 0.005 * 0.005, w = 7800.0 * area * 9.81;
  const double closed_form = irvine_sag(10.0, 12.0, w, 1e11 * area);
  CHECK(closed_form == Approx(2.9235).margin(5e-5));
  nlohmann::json flexible = document;
  flexible["model"]["sections"]["wire"] = {{"shape", "general"}, {"area", area}, {"inertia", 1e-18}};
  const double flexible_sag = midspan_sag(load(flexible, "hanging_flexible"));
  std::printf("hanging_cable.json without bending stiffness: sag %.7f m, Irvine %.7f m, relative %.1e\n",
              flexible_sag, closed_form, std::fabs(flexible_sag / closed_form - 1.0));
  CHECK(flexible_sag == Approx(closed_form).epsilon(1e-6));
}

TEST_CASE("slack cables from EA = 1e3 to 1e10 N and EI = 1e-6 to 1e2 N m^2 reach equilibrium from the catenary",
          "[cases][statics]") {
  // 12 m of 1 kg/m between supports 10 m apart. With EI = 0.01 N m^2 and 160 elements Newton did not
  // converge from the circular arc the cable used to start from; from the catenary every member of
  // the family converges, and the flexible ones meet Irvine's sag (docs/validation.md), whose
  // tension is Hooke's law on the engineering strain: the Reissner law's, at strains up to 17 %
  // (EA = 1e3 N).
  const nlohmann::json document = shipped("hanging_cable.json");
  const auto family_member = [&](double EA, double EI, const char* law) {
    nlohmann::json c = document;
    c["model"]["materials"]["rope"] = {{"youngs_modulus", EA}, {"density", 1.0}, {"strain_law", law}};
    c["model"]["sections"]["wire"] = {{"shape", "general"}, {"area", 1.0}, {"inertia", EI / EA}};
    c["model"]["bodies"][0]["elements"] = 160;
    c["output"]["nodes"][0]["index"] = 80;
    return load(c, "slack_family");
  };
  for (const double EA : {1e3, 1e5, 1e8, 1e10})
    for (const double EI : {1e-6, 1e-2, 1e2}) {
      INFO("EA " << EA << " N, EI " << EI << " N m^2");
      const double sag = midspan_sag(family_member(EA, EI, "reissner"));
      const double closed_form = irvine_sag(10.0, 12.0, 9.81, EA);
      std::printf("slack cable EA %.0e N, EI %.0e N m^2: sag %.9f m, Irvine %.9f m, relative %.2e\n", EA, EI, sag,
                  closed_form, std::fabs(sag / closed_form - 1.0));
      // The bending stiffness changes the sag by 6e-7 to 2e-6 at EI = 1e-2 and 4e-3 to 1.3e-2 at
      // 1e2 (most for the softest cable, whose sag is deepest); at EI = 1e-6 only the 160
      // elements' discretization is left (9e-10).
      const double bound = EI > 1.0 ? 2e-2 : EI > 1e-3 ? 3e-6 : 2e-9;
      CHECK(sag == Approx(closed_form).epsilon(bound));
    }
  // The Green-Lagrange law's tension EA eps_G lambda is not Hooke's: at EA = 1e3 N it departs from
  // Irvine's sag by 9e-3, far beyond the discretization.
  const double green = midspan_sag(family_member(1e3, 1e-6, "green_lagrange"));
  const double departure = std::fabs(green / irvine_sag(10.0, 12.0, 9.81, 1e3) - 1.0);
  std::printf("slack cable EA 1e+03 N, EI 1e-06 N m^2, Green-Lagrange law: relative departure from Irvine %.2e\n",
              departure);
  CHECK(departure > 1e-3);
}

TEST_CASE("cantilever_static.json: a 4 kN tip load on a 1 m steel rod, F L^2 / EI = 2.43", "[cases]") {
  const nlohmann::json document = shipped("cantilever_static.json");
  REQUIRE(description(document).find("4 kN") != std::string::npos);
  REQUIRE(description(document).find("F L^2 / EI = 2.43") != std::string::npos);
  const Case c = load(document, "cantilever");
  const double F = std::fabs(document["model"]["loads"][0]["force"][2].get<double>());
  const double L = document["model"]["bodies"][0]["end"][0].get<double>();
  CHECK(F == 4000.0);
  CHECK(L == 1.0);
  CHECK(F * L * L / c.model.elements.properties.front().EI == Approx(2.43).margin(0.005));
}

TEST_CASE("the sizes the other shipped cases state", "[cases]") {
  const nlohmann::json fall = shipped("falling_cable_pendulum.json");
  CHECK(description(fall).find("A 1 m cable pinned at one end") == 0);
  CHECK(fall["model"]["bodies"][0]["end"] == nlohmann::json::array({1, 0, 0}));
  CHECK(fall["analysis"]["alpha"] == -0.2);
  for (const char* name : {"rancf_pendulum_flexible.json", "rancf_pendulum_rigid.json"}) {
    const Case c = load(shipped(name), "rancf");
    REQUIRE(c.model.bodies.size() == 5);
    for (const Body& b : c.model.bodies) {
      CHECK(b.element_count == 5);
      double length = 0.0;
      for (int e = b.first_element; e < b.first_element + b.element_count; ++e)
        length += c.model.elements.properties[e].length;
      CHECK(length == Approx(5.0));
    }
  }
  // Slider-crank: crank 0.2 m and rod 0.6 m at 30 degrees, one revolution a second through 0 at t = 0.
  const nlohmann::json crank = shipped("slider_crank_kinematic.json");
  const nlohmann::json& joints = crank["model"]["joints"];
  const double px = joints[1]["point"][0], py = joints[1]["point"][1], wx = joints[2]["point"][0];
  CHECK(std::hypot(px, py) == Approx(0.2));
  CHECK(std::atan2(py, px) == Approx(M_PI / 6));
  CHECK(std::hypot(wx - px, py) == Approx(0.6));
  const nlohmann::json& ramp = crank["model"]["drivers"][0]["rotation"];
  const double rate = (ramp["to"].get<double>() - ramp["from"].get<double>()) /
                      (ramp["t1"].get<double>() - ramp["t0"].get<double>());
  CHECK(rate == Approx(2 * M_PI));
  CHECK(ramp["from"].get<double>() - rate * ramp["t0"].get<double>() == Approx(0.0).margin(1e-12));
}
