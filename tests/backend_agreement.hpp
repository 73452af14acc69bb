#pragma once
// Checks another backend against the CPU backend on the same model: every operator at random
// states, and whole dynamic runs. Shared by the test of the CUDA backend's code run on the host
// (CI) and the [gpu] test of the same code on a device.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <random>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/kernels/cuda_backend.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/solve/linear_solver.hpp"
#include "test_helpers.hpp"

namespace catenary::testing {

inline double relative_difference(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& other) {
  const double scale = reference.cwiseAbs().maxCoeff();
  return (reference - other).cwiseAbs().maxCoeff() / (scale > 0.0 ? scale : 1.0);
}

// The same for sparse matrices, without a dense copy (models of many thousand unknowns).
inline double relative_difference(const Eigen::SparseMatrix<double>& reference, const Eigen::SparseMatrix<double>& other) {
  const Eigen::SparseMatrix<double> difference = reference - other;
  const double scale = reference.nonZeros() > 0 ? reference.coeffs().cwiseAbs().maxCoeff() : 0.0;
  const double largest = difference.nonZeros() > 0 ? difference.coeffs().cwiseAbs().maxCoeff() : 0.0;
  return largest / (scale > 0.0 ? scale : 1.0);
}

// The operators of `other` (a CUDA backend) against a CpuBackend at random states of m. Element
// forces and Jacobians agree to `element_tolerance` relative to their largest entry (1e-12 for
// models of a few metres; see check_operators_at_scale for long cables on a device).
inline void check_operators_agree(const Model& m, Backend& other, unsigned seed, double element_tolerance = 1e-12) {
  CpuBackend cpu = umfpack_backend(m);
  REQUIRE(cpu.linear_solver() == "UMFPACK");
  const int n = m.dof_count(), rows = m.constraint_count();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  auto random_vector = [&](int size, double amplitude) {
    Eigen::VectorXd x(size);
    for (int i = 0; i < size; ++i) x[i] = amplitude * U(rng);
    return x;
  };
  const Eigen::VectorXd q0 = initial_coordinates(m);
  const Eigen::VectorXd q = q0 + random_vector(n, 0.02), v = random_vector(n, 1.0);

  Eigen::VectorXd f_cpu, f_other;
  const double U_cpu = host_internal_force(cpu, q, v, f_cpu), U_other = host_internal_force(other, q, v, f_other);
  INFO("backend " << other.name());
  CHECK(relative_difference(f_cpu, f_other) < element_tolerance);
  CHECK(std::fabs(U_cpu - U_other) <= 1e-12 * std::fabs(U_cpu));

  const Eigen::VectorXd x = random_vector(n, 1.0);
  Eigen::VectorXd y_cpu, y_other;
  host_mass_product(cpu, x, y_cpu);
  host_mass_product(other, x, y_other);
  CHECK(relative_difference(y_cpu, y_other) < 1e-12);
  // The product scaled and added to another vector in the same pass (HHT's force history), on both
  // backends; the coordinates of no element get the added term alone.
  const Eigen::VectorXd z = random_vector(n, 1.0), affine = -0.7 * y_cpu + 0.4 * z;
  for (Backend* backend : {static_cast<Backend*>(&cpu), &other}) {
    Vector xb = backend->make_vector(n), zb = backend->make_vector(n), yb = backend->make_vector(n);
    backend->upload(x, xb);
    backend->upload(z, zb);
    backend->mass_product(xb, yb, -0.7, {0.4, &zb}, {});
    Eigen::VectorXd y;
    backend->download(yb, y);
    INFO("the affine product on " << backend->name());
    CHECK(relative_difference(affine, y) < 1e-12);
  }
  // With the configuration (MassAt): the water's added mass at q (at t = 0, as the passes below)
  // joins M where the model has water.
  Eigen::VectorXd at_q[2];
  int k = 0;
  for (Backend* backend : {static_cast<Backend*>(&cpu), &other}) {
    Vector xb = backend->make_vector(n), qb = backend->make_vector(n), yb = backend->make_vector(n);
    backend->upload(x, xb);
    backend->upload(q, qb);
    backend->mass_product(xb, yb, 1.0, {0.0, nullptr}, {&qb, 0.0});
    backend->download(yb, at_q[k++]);
  }
  CHECK(relative_difference(at_q[0], at_q[1]) < 1e-12);
  // A Newton residual's s f + m M(q) x from the element pass (ForceTerms), against the two apart.
  const double s = 2.5e-7, mass_scale = 0.3;
  const Eigen::VectorXd combined = s * f_cpu + mass_scale * at_q[0];
  CHECK(relative_difference(combined, forces_with_mass_term(other, q, v, x, s, mass_scale)) < element_tolerance);
  const Eigen::VectorXd from = 2.0 * combined.reverse();  // and subtracted from a vector (ForceTerms::from)
  CHECK(relative_difference(Eigen::VectorXd(from - combined),
                            forces_with_mass_term(other, q, v, x, s, mass_scale, nullptr, &from)) < element_tolerance);

  if (rows > 0) {
    const Eigen::VectorXd mu = random_vector(rows, 1.0);
    host_constraint_product(cpu, x, y_cpu);
    host_constraint_product(other, x, y_other);
    CHECK(relative_difference(y_cpu, y_other) < 1e-14);
    host_constraint_transpose_product(cpu, mu, y_cpu);
    host_constraint_transpose_product(other, mu, y_other);
    CHECK(relative_difference(y_cpu, y_other) < 1e-14);
    // y += a C^T mu on a vector that holds values elsewhere, against Eigen's product with C.
    const Eigen::VectorXd expected = x - 0.5 * (constraint_matrix(m).transpose() * mu);
    for (Backend* b : {static_cast<Backend*>(&cpu), &other}) {
      Vector vmu = b->make_vector(rows), vy = b->make_vector(n);
      b->upload(mu, vmu);
      b->upload(x, vy);
      b->add_constraint_transpose_product(-0.5, vmu, vy);
      Eigen::VectorXd got;
      b->download(vy, got);
      INFO("add_constraint_transpose_product on " << b->name());
      CHECK(relative_difference(expected, got) < 1e-15);
    }
  }

  // Each Jacobian part alone, then the combination an HHT step uses.
  const NewtonMatrixCoefficients parts[] = {{1.0, 0.0, 0.0, 1.0}, {0.0, 1.0, 0.0, 1.0}, {0.0, 0.0, 1.0, 1.0},
                                            {1.0, 2e-7, 3e-4, 1.0}};
  for (const NewtonMatrixCoefficients& c : parts) {
    INFO("coefficients mass " << c.mass << ", stiffness " << c.stiffness << ", damping " << c.damping);
    CHECK(relative_difference(combined, forces_with_mass_term(other, q, v, x, s, mass_scale, &c)) < element_tolerance);
    host_assemble_newton_matrix(cpu, q, v, c, f_cpu);
    host_assemble_newton_matrix(other, q, v, c, f_other);
    CHECK(relative_difference(cpu.matrix(), cuda::assembled_matrix(other)) < element_tolerance);
    CHECK(relative_difference(f_cpu, f_other) < element_tolerance);
    CHECK(std::fabs(cpu.newton_matrix_norm() - other.newton_matrix_norm()) <= 1e-12 * cpu.newton_matrix_norm());
  }
  // The multibody block's entries land in the same places, and its gathers and scatters agree.
  const MultibodyLayout block = multibody_layout(m);
  if (!block.entries.empty()) {
    const Eigen::VectorXd add = random_vector(static_cast<int>(block.entries.size()), 1.0);
    const std::vector<double> values(add.data(), add.data() + add.size());
    cpu.add_block_entries(values);
    other.add_block_entries(values);
    CHECK(relative_difference(cpu.matrix(), cuda::assembled_matrix(other)) < element_tolerance);
    std::vector<double> picked_cpu, picked_other;
    Vector x_cpu = cpu.make_vector(n), x_other = other.make_vector(n);
    cpu.upload(q, x_cpu);
    other.upload(q, x_other);
    cpu.gather(x_cpu, block.dofs, picked_cpu);
    other.gather(x_other, block.dofs, picked_other);
    CHECK(picked_cpu == picked_other);
    cpu.scatter_add(block.dofs, picked_cpu, x_cpu);
    other.scatter_add(block.dofs, picked_other, x_other);
    Eigen::VectorXd back_cpu, back_other;
    cpu.download(x_cpu, back_cpu);
    other.download(x_other, back_other);
    CHECK(back_cpu == back_other);
    CHECK(back_cpu[block.dofs[0]] == 2.0 * q[block.dofs[0]]);
  }
  // Several maxima in one reduction (vectors of different sizes, one with a NaN) against the
  // CPU backend's one at a time.
  {
    const Eigen::VectorXd a = random_vector(n, 3.0), b = random_vector(std::max(rows, 1), 2.0);
    Eigen::VectorXd c = random_vector(7, 1.0);
    c[3] = NAN;
    Vector va = other.make_vector(n), vb = other.make_vector(static_cast<int>(b.size())), vc = other.make_vector(7);
    other.upload(a, va);
    other.upload(b, vb);
    other.upload(c, vc);
    double maxima[3];
    other.max_abs_each({&va, &vb, &vc}, maxima);
    CHECK(maxima[0] == a.cwiseAbs().maxCoeff());
    CHECK(maxima[1] == b.cwiseAbs().maxCoeff());
    CHECK(std::isinf(maxima[2]));
  }
  // A Newton update in one pass (add_update) on both backends, against the same update in separate
  // operations: the CPU backend's axpby and weighted_norm, and Eigen. Entry 5 of dx is planted as
  // the worst; then a NaN in dx must make the norm infinite.
  {
    const double tol = 1e-6, a1 = 4e6, a2 = -3e3;
    Eigen::VectorXd dx = random_vector(n, 1e-4);
    dx[5] = 1e-2;
    const Eigen::VectorXd y1 = random_vector(n, 10.0), y2 = random_vector(n, 1.0);
    Vector dx_ref = cpu.make_vector(n), x_ref = cpu.make_vector(n);
    cpu.upload(dx, dx_ref);
    cpu.upload(q, x_ref);
    cpu.axpby(1.0, dx_ref, 1.0, x_ref);
    int worst_ref = -1;
    const double weighted_ref = cpu.weighted_norm(dx_ref, x_ref, tol, &worst_ref);
    REQUIRE(worst_ref == 5);
    // The norm of a scaled difference (weighted_difference_norm) without the difference written:
    // dx = 2.5 ((dx / 2.5 + y1) - y1), to the rounding of forming it.
    for (Backend* b : {static_cast<Backend*>(&cpu), &other}) {
      INFO("weighted_difference_norm on " << b->name());
      Vector va = b->make_vector(n), vb = b->make_vector(n), vx = b->make_vector(n);
      b->upload(Eigen::VectorXd(dx / 2.5 + y1), va);
      b->upload(y1, vb);
      b->upload(q + dx, vx);
      CHECK(b->weighted_difference_norm(2.5, va, vb, vx, tol) == Approx(weighted_ref).epsilon(1e-9));
    }
    for (Backend* b : {static_cast<Backend*>(&cpu), &other}) {
      INFO("add_update on " << b->name());
      Vector vdx = b->make_vector(n), vx = b->make_vector(n), vy1 = b->make_vector(n), vy2 = b->make_vector(n);
      b->upload(dx, vdx);
      b->upload(q, vx);
      b->upload(y1, vy1);
      b->upload(y2, vy2);
      const UpdateNorms u = b->add_update(vdx, vx, {{a1, &vy1}, {a2, &vy2}}, tol);
      CHECK(u.weighted == Approx(weighted_ref).epsilon(1e-15));
      CHECK(u.worst == 5);
      CHECK(u.max_abs == (q + dx).cwiseAbs().maxCoeff());
      Eigen::VectorXd x_out, y1_out, y2_out;
      b->download(vx, x_out);
      b->download(vy1, y1_out);
      b->download(vy2, y2_out);
      CHECK(x_out == q + dx);
      CHECK(relative_difference(y1 + a1 * dx, y1_out) < 1e-15);  // a device may fuse the multiply-add
      CHECK(relative_difference(y2 + a2 * dx, y2_out) < 1e-15);
      dx[2] = NAN;
      b->upload(dx, vdx);
      CHECK(std::isinf(b->add_update(vdx, vx, {}, tol).weighted));
      CHECK(std::isinf(b->add_update(vdx, vx, {}, tol).max_abs));
      dx[2] = 0.0;
    }
  }
  // Five combinations of three inputs in one pass, the last output overwriting an input, on both
  // backends against Eigen; and what combine refuses.
  {
    const Eigen::VectorXd x0 = random_vector(n, 1.0), x1 = random_vector(n, 2.0), x2 = random_vector(n, 3.0);
    for (Backend* b : {static_cast<Backend*>(&cpu), &other}) {
      INFO("combine on " << b->name());
      Vector v0 = b->make_vector(n), v1 = b->make_vector(n), v2 = b->make_vector(n);
      Vector out[4] = {b->make_vector(n), b->make_vector(n), b->make_vector(n), b->make_vector(n)};
      b->upload(x0, v0);
      b->upload(x1, v1);
      b->upload(x2, v2);
      b->combine(Combinations({&v0, &v1, &v2})
                     .into(out[0], {1.0, 0.0, 0.0})
                     .into(out[1], {0.5, -2.0, 0.25})
                     .into(out[2], {0.0, 0.0, 0.0})
                     .into(out[3], {1e3, 1.0, -1e-3})
                     .into(v1, {1.0, 1.0, 1.0}));
      const Eigen::VectorXd expected[5] = {x0, 0.5 * x0 - 2.0 * x1 + 0.25 * x2, Eigen::VectorXd::Zero(n),
                                           1e3 * x0 + x1 - 1e-3 * x2, x0 + x1 + x2};
      for (int j = 0; j < 5; ++j) {
        Eigen::VectorXd got;
        b->download(j < 4 ? out[j] : v1, got);
        CHECK(relative_difference(expected[j], got) < 1e-15);
      }
      Vector shorter = b->make_vector(n - 1);
      CHECK_THROWS_AS(b->combine(Combinations({&v0, &v1}).into(v2, {1.0, 1.0}).into(shorter, {1.0, 0.0})),
                      std::invalid_argument);
      // Past Combinations::kMaxInputs terms (BDF's order estimates take up to 7): further passes
      // carry the sum in y; y as a later term is refused.
      std::vector<Scaled> many;
      Eigen::VectorXd sum = Eigen::VectorXd::Zero(n);
      const Vector* inputs[3] = {&v0, &v1, &v2};
      const Eigen::VectorXd* values[3] = {&x0, &x1, &x2};
      for (int j = 0; j < 2 * Combinations::kMaxInputs + 1; ++j) {
        const double a = 1.0 + 0.5 * j;
        many.push_back({a, inputs[j % 3]});
        sum += a * *values[j % 3];
      }
      b->upload(x1, v1);
      b->combine(many, out[0]);
      Eigen::VectorXd got;
      b->download(out[0], got);
      CHECK(relative_difference(sum, got) < 1e-15);
      many.push_back({1.0, &out[0]});
      CHECK_THROWS_AS(b->combine(many, out[0]), std::invalid_argument);
    }
    Vector v = other.make_vector(n);
    CHECK_THROWS_AS(Combinations({&v}).into(v, {1.0, 2.0}), std::invalid_argument);
    Combinations five({&v});
    for (int j = 0; j < Combinations::kMaxOutputs; ++j) five.into(v, {1.0});
    CHECK_THROWS_AS(five.into(v, {1.0}), std::invalid_argument);
    CHECK_THROWS_AS(other.combine(Combinations()), std::invalid_argument);
  }
  // The last (regular) matrix: the other backend's solution of a random system is backward stable
  // for its own matrix and equals UMFPACK's solution of that matrix. (Not the CPU backend's
  // solution of the CPU's matrix: the two matrices differ by the rounding above, the device
  // contracting products into fused multiply-adds, and that difference times the condition number
  // reached 1.1e-7 on the 20,000-element crane on an H100, where both solvers are backward stable.)
  const Eigen::VectorXd rhs = random_vector(n + rows, 1.0);
  const Eigen::SparseMatrix<double> A_other = cuda::assembled_matrix(other);
  SparseDirectSolver umfpack;
  umfpack.analyze(A_other);
  umfpack.factorize(A_other);
  Eigen::VectorXd s_umfpack, s_other;
  umfpack.solve(rhs, s_umfpack);
  other.factorize();
  host_solve(other, rhs, s_other);
  CHECK(relative_difference(s_umfpack, s_other) < 1e-9);
  // (GMRES stops at its own residual tolerance: the comparison above is its check.)
  if (other.linear_solver() != "GMRES") CHECK(backward_error(A_other, s_other, rhs) < 1e-15);
}

// Largest difference of any coordinate over whole HHT runs on both backends, relative to the
// largest coordinate; also checks that both took the same steps. The other backend may run
// different settings (other_settings) that must reach the same solution.
inline double dynamic_run_difference(const Model& m, const AnalysisSettings& a, Backend& other,
                                     const AnalysisSettings* other_settings = nullptr) {
  const RunResult reference = run_model_umfpack(m, a);
  const RunResult result = run_model_on(other, m, other_settings ? *other_settings : a);
  REQUIRE(result.frames.size() == reference.frames.size());
  double worst = 0.0;
  for (size_t k = 0; k < reference.frames.size(); ++k) {
    REQUIRE(result.frames[k].time == Approx(reference.frames[k].time).epsilon(1e-12));
    worst = std::max(worst, relative_difference(reference.frames[k].q, result.frames[k].q));
  }
  return worst;
}

#ifdef CATENARY_WITH_CUDA
// True when a CUDA device can run the [gpu] tests; otherwise says why the test is skipped, or,
// with CATENARY_REQUIRE_GPU set (scripts/gpu_benchmarks.sh on a machine with a GPU), fails: there a
// missing driver or library must not read as a passing suite.
inline bool device_usable() {
  std::string why;
  if (cuda::device_available(why)) return true;
  const char* required = std::getenv("CATENARY_REQUIRE_GPU");
  if (required && *required && std::string(required) != "0") FAIL("[gpu] test needs a device: " << why);
  WARN("[gpu] test skipped: " << why);
  return false;
}
#endif

}  // namespace catenary::testing
