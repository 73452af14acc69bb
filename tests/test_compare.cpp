// The comparison of two results.csv files (catenary compare's judgement) on small files written
// here, and [gpu]: `catenary compare` of every shipped case, CPU against CUDA.
#include <catch2/catch.hpp>
#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catenary/io/result_comparison.hpp"
#ifdef CATENARY_WITH_CUDA
#include "backend_agreement.hpp"
#endif

using namespace catenary;

namespace {

namespace fs = std::filesystem;

// The header quotes a name with a comma and one with a doubled quote, as the output writer does.
const std::string kHeader =
    "time,step,newton_iterations,\"cable.end, tip.x\",\"say \"\"hi\"\".y\",reaction.pin.x\n";
const std::string kRows =
    "0,0,0,1.5,0,-2\n"
    "0.5,0.5,3,2,1,-4\n"
    "1,0.5,2,2.5,1,-3\n";

fs::path write_csv(const std::string& name, const std::string& content) {
  // One directory per process: ctest runs the test cases in parallel processes.
  const fs::path dir = fs::temp_directory_path() / ("catenary_compare_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << content;
  return p;
}

ComparisonReport compare(const std::string& reference, const std::string& other,
                         const ComparisonTolerance& tol = {}) {
  return compare_result_files(write_csv("reference.csv", reference).string(),
                              write_csv("other.csv", other).string(), tol);
}

const ColumnComparison& column(const ComparisonReport& r, const std::string& name) {
  const auto it = std::find_if(r.columns.begin(), r.columns.end(),
                               [&](const ColumnComparison& c) { return c.name == name; });
  INFO("column " << name);
  REQUIRE(it != r.columns.end());
  return *it;
}

std::string all_problems(const ComparisonReport& r) {
  std::string text;
  for (const std::string& p : r.problems) text += p + "\n";
  return text;
}

}  // namespace

TEST_CASE("CSV lines split with RFC 4180 quoting", "[compare]") {
  const std::vector<std::string> f = split_csv_line("a,\"b, c\",\"d \"\"e\"\"\",,f");
  REQUIRE(f.size() == 5);
  CHECK(f[0] == "a");
  CHECK(f[1] == "b, c");
  CHECK(f[2] == "d \"e\"");
  CHECK(f[3].empty());
  CHECK(f[4] == "f");
}

TEST_CASE("identical results files pass with zero differences", "[compare]") {
  const ComparisonReport r = compare(kHeader + kRows, kHeader + kRows);
  INFO(all_problems(r));
  CHECK(r.pass());
  CHECK(r.problems.empty());
  CHECK(r.rows == 3);
  REQUIRE(r.columns.size() == 6);
  CHECK(r.columns[3].name == "cable.end, tip.x");
  CHECK(r.columns[4].name == "say \"hi\".y");
  for (const ColumnComparison& c : r.columns) {
    CHECK(c.max_abs_diff == 0.0);
    CHECK(c.max_rel_diff == 0.0);
    CHECK(c.pass);
  }
  CHECK(column(r, "step").informational);
  CHECK(column(r, "newton_iterations").informational);
  CHECK_FALSE(column(r, "time").informational);
}

TEST_CASE("a perturbed column reports the planted difference and is judged by the tolerance", "[compare]") {
  // 2.5 + 2^-20 is exact in binary, so the difference is exactly 2^-20; the column's largest
  // reference magnitude is 2.5.
  const double planted = std::ldexp(1.0, -20);
  std::string other = kRows;
  other.replace(other.rfind("2.5"), 3, "2.50000095367431640625");
  REQUIRE(std::stod("2.50000095367431640625") - 2.5 == planted);

  SECTION("above the default tolerance it fails") {
    const ComparisonReport r = compare(kHeader + kRows, kHeader + other);
    const ColumnComparison& c = column(r, "cable.end, tip.x");
    CHECK(c.max_abs_diff == planted);
    CHECK(c.max_rel_diff == Approx(planted / 2.5).epsilon(1e-15));
    CHECK(c.reference_scale == 2.5);
    CHECK(c.worst_row == 2);
    CHECK_FALSE(c.pass);
    CHECK_FALSE(r.pass());
    CHECK(r.problems.empty());  // the files match in shape; only the values differ
    CHECK(column(r, "reaction.pin.x").pass);
  }
  SECTION("below a looser relative tolerance it passes") {
    ComparisonTolerance tol;
    tol.rtol = 1e-6;  // planted / 2.5 = 3.8e-7
    const ComparisonReport r = compare(kHeader + kRows, kHeader + other, tol);
    CHECK(column(r, "cable.end, tip.x").pass);
    CHECK(r.pass());
  }
  SECTION("below a looser absolute tolerance it passes, whatever rtol") {
    ComparisonTolerance tol;
    tol.rtol = 0.0;
    tol.atol = 1e-6;  // planted = 9.5e-7
    CHECK(compare(kHeader + kRows, kHeader + other, tol).pass());
  }
}

TEST_CASE("the relative difference is taken against the reference column's largest magnitude", "[compare]") {
  std::string other = kRows;
  other.replace(other.find("-3"), 2, "-3.5");  // reaction.pin.x: largest |reference| is 4
  const ComparisonReport r = compare(kHeader + kRows, kHeader + other);
  const ColumnComparison& c = column(r, "reaction.pin.x");
  CHECK(c.max_abs_diff == 0.5);
  CHECK(c.max_rel_diff == 0.125);
  CHECK_FALSE(r.pass());
}

TEST_CASE("step size and Newton iteration columns are reported but never fail", "[compare]") {
  const std::string other =
      "0,0,0,1.5,0,-2\n"
      "0.5,0.25,5,2,1,-4\n"
      "1,0.75,2,2.5,1,-3\n";
  const ComparisonReport r = compare(kHeader + kRows, kHeader + other);
  INFO(all_problems(r));
  CHECK(r.pass());
  CHECK(column(r, "newton_iterations").max_abs_diff == 2.0);
  CHECK(column(r, "newton_iterations").pass);
  CHECK(column(r, "step").max_abs_diff == 0.25);
}

TEST_CASE("files that do not match in shape fail with a message", "[compare]") {
  SECTION("different row counts") {
    const ComparisonReport r = compare(kHeader + kRows, kHeader + "0,0,0,1.5,0,-2\n0.5,0.5,3,2,1,-4\n");
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains("row counts differ") && Catch::Contains("3 data rows"));
    CHECK(r.rows == 2);  // the common rows are still compared
  }
  SECTION("a renamed column") {
    std::string header = kHeader;
    header.replace(header.find("reaction.pin.x"), 14, "reaction.pin.y");
    const ComparisonReport r = compare(kHeader + kRows, header + kRows);
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains("headers differ") && Catch::Contains("reaction.pin.y"));
  }
  SECTION("a missing column") {
    const ComparisonReport r = compare(kHeader + kRows, "time,step\n0,0\n0.5,0.5\n1,0.5\n");
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains("headers differ"));
  }
  SECTION("rows at different times") {
    std::string other = kRows;
    other.replace(other.find("0.5,0.5,3"), 3, "0.6");
    const ComparisonReport r = compare(kHeader + kRows, kHeader + other);
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains("different times") && Catch::Contains("data row 2"));
  }
  SECTION("a file that cannot be read") {
    const ComparisonReport r = compare_result_files(write_csv("reference.csv", kHeader + kRows).string(),
                                                    "/nonexistent/results.csv", {});
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains("cannot read /nonexistent/results.csv"));
  }
  SECTION("a value that is not a number") {
    const ComparisonReport r = compare(kHeader + kRows, kHeader + "0,0,0,1.5,0,x\n");
    CHECK_FALSE(r.pass());
    REQUIRE(r.problems.size() == 1);
    CHECK_THAT(r.problems[0], Catch::Contains(":2: column 'reaction.pin.x': not a number"));
  }
}

TEST_CASE("a body-name column (rigid_bodies.csv) is compared as text", "[compare]") {
  const std::string header = "time,body,x\n", rows = "0,boom,0.5\n0,hook,1\n";
  SECTION("same names, values within tolerance: pass, and the name column is not a numeric column") {
    const ComparisonReport r = compare(header + rows, header + "0,boom,0.5\n0,hook,1.0000000001\n");
    CHECK(r.pass());
    CHECK(r.columns.size() == 2);
    CHECK(column(r, "x").max_abs_diff == Approx(1e-10).margin(1e-15));
  }
  SECTION("rows about different bodies: a problem naming the row") {
    const ComparisonReport r = compare(header + rows, header + "0,hook,0.5\n0,boom,1\n");
    CHECK_FALSE(r.pass());
    CHECK_THAT(all_problems(r), Catch::Contains("data row 1 names 'boom' in the reference, 'hook'"));
  }
}

TEST_CASE("catenary compare passes for every shipped case (CPU against CUDA)", "[gpu]") {
#ifdef CATENARY_WITH_CUDA
  if (!testing::device_usable()) return;
  const fs::path out = fs::temp_directory_path() / "catenary_gpu_compare";
  fs::remove_all(out);
  fs::create_directories(out);
  for (const auto& entry : fs::directory_iterator(fs::path(CATENARY_SOURCE_DIR) / "cases")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    const fs::path log = out / (name + ".log");
    // The five flexible links of rancf_pendulum_flexible swing for 4,000 steps, and round-off
    // differences (the device contracts products into fused multiply-adds; the CPU build does
    // not) grow along the trajectory: on an H100 the largest is 6.3e-8 of a joint
    // reaction's range, the other quantities below 1e-8. The HHT-run tests hold the backends to
    // 1e-9 on shorter runs of the same kinds of model.
    // The clearance pin's located collisions carry the backends' round-off into the rattle that
    // follows (1.3e-5 of the pin's force in the CUDA host build, [cuda-host] compare test).
    // The coupled spar held still: its motion's reactions are round-off ([cuda-host] compare test).
    const std::string rtol = name == "rancf_pendulum_flexible"  ? " --rtol 1e-6"
                             : name == "slider_crank_clearance" ? " --rtol 1e-4"
                             : name == "oc3_coupled_platform"   ? " --atol 1e-2"
                                                                : "";
    const std::string cmd = std::string(CATENARY_BINARY) + " compare " + entry.path().string() + rtol + " --out " +
                            (out / name).string() + " > " + log.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    std::stringstream text;
    text << std::ifstream(log).rdbuf();
    INFO(name << ":\n" << text.str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
#else
  WARN("[gpu] test skipped: this build has no CUDA backend (configure with CATENARY_CUDA=ON)");
#endif
}

TEST_CASE("a contact's friction force is judged against its normal force", "[compare]") {
  // A line at rest: its friction 2e-4 N of a 1 N normal force, differing by 2e-10 N in the other
  // file, within 1e-8 of the normal force though 1e-6 of the friction itself.
  const std::string header = "time,ground.points,ground.normal_force,ground.friction_force,ground.penetration\n";
  const std::string reference = header + "0,5,1,2e-4,1e-3\n";
  const ComparisonReport r = compare(reference, header + "0,5,1,2.000002e-4,1e-3\n", ComparisonTolerance{1e-8, 0.0});
  const ColumnComparison& friction = column(r, "ground.friction_force");
  CHECK(friction.reference_scale == 1.0);
  CHECK(friction.pass);
  // A difference that matters beside the normal force still fails.
  const ComparisonReport bad = compare(reference, header + "0,5,1,0.2,1e-3\n", ComparisonTolerance{1e-8, 0.0});
  CHECK_FALSE(column(bad, "ground.friction_force").pass);
}

TEST_CASE("the total energy is judged against its largest term", "[compare]") {
  // A conservative run: kinetic and gravitational energy of 10 J cancel to a total near 0, where
  // a round-off difference of 1e-12 J is large relative to the total's own 1e-9 J.
  const std::string header = "time,kinetic_energy,gravitational_energy,total_energy\n";
  const std::string reference = header + "0,0,0,0\n0.1,10,-10,1e-9\n";
  const std::string other = header + "0,0,0,0\n0.1,10,-10,1.001e-9\n";
  const ComparisonReport r = compare(reference, other, ComparisonTolerance{1e-8, 0.0});
  const ColumnComparison& total = column(r, "total_energy");
  CHECK(total.reference_scale == 10.0);
  CHECK(total.max_rel_diff == Approx(1e-13).epsilon(1e-3));
  CHECK(total.pass);
  // A real difference in the total still fails.
  const ComparisonReport bad = compare(reference, header + "0,0,0,0\n0.1,10,-10,1e-6\n", ComparisonTolerance{1e-8, 0.0});
  CHECK_FALSE(column(bad, "total_energy").pass);
}

TEST_CASE("an eigenvalue's parts are judged against its size, the damping ratio against 1", "[compare]") {
  // An undamped mode (modes.csv): its real part and damping ratio are round-off of |s| = 8150 1/s,
  // 4e-8 and 5e-12 apart, far above their own magnitudes but 5e-12 of the eigenvalue.
  const std::string header =
      "mode,natural_frequency_hz,damped_frequency_hz,damping_ratio,eigenvalue_real,eigenvalue_imag\n";
  const std::string reference = header + "1,1297.19,1297.19,-6e-12,5e-8,8150.4\n";
  const ComparisonReport r =
      compare(reference, header + "1,1297.19,1297.19,-1.1e-12,1e-8,8150.4\n", ComparisonTolerance{1e-8, 1e-12});
  CHECK(column(r, "eigenvalue_real").reference_scale == 8150.4);
  CHECK(column(r, "eigenvalue_real").pass);
  CHECK(column(r, "damping_ratio").reference_scale == 1.0);
  CHECK(column(r, "damping_ratio").pass);
  CHECK(r.pass());
  // A damped mode's real part that differs beyond round-off still fails.
  const ComparisonReport bad =
      compare(reference, header + "1,1297.19,1297.19,0.01,-81.5,8150.4\n", ComparisonTolerance{1e-8, 1e-12});
  CHECK_FALSE(column(bad, "eigenvalue_real").pass);
  CHECK_FALSE(column(bad, "damping_ratio").pass);
}
