// The gather-style assembly (SystemPattern + CpuBackend) against a direct dense assembly of the
// same element matrices: the maps the CUDA backend will reuse are checked here on the CPU.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/parallel_copy.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/reference_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::host_assemble_newton_matrix;
using catenary::testing::host_internal_force;
using catenary::testing::host_mass_product;
using catenary::testing::host_solve;

namespace {

Model two_cables() {
  Model m;
  m.dimension = 3;
  add_straight_line(m, "a", {0, 0, 0}, {1, 0, 0}, 4, {1e3, 2.0, 1.5, 0.01});
  add_arc(m, "b", {1, 1, 0}, 1.0, -M_PI / 2, 0.0, 3, {2e3, 1.0, 0.5, 0.0});
  finalize_model(m);
  add_fix(m, 0, {0, 1, 2}, "pin", "/c/0");
  add_node_joint(m, body_node(m, 0, -1), body_node(m, 1, 0), true, "rigid", "weld", "/c/1");
  return m;
}

}  // namespace

TEST_CASE("gather assembly equals direct assembly of element matrices", "[assembly]") {
  const Model m = two_cables();
  const int n = m.dof_count(), nc = m.constraint_count(), nl = 12;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> U(-1, 1);
  Eigen::VectorXd q(n), v(n), x(n);
  for (int i = 0; i < n; ++i) {
    q[i] = m.initial_positions[i] + 0.05 * U(rng);
    v[i] = U(rng);
    x[i] = U(rng);
  }
  NewtonMatrixCoefficients c;
  c.mass = 1.3;
  c.stiffness = 0.7;
  c.damping = 0.2;
  c.constraint = 1.1;

  // Direct dense assembly.
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n + nc, n + nc);
  Eigen::VectorXd f = Eigen::VectorXd::Zero(n);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd element_abs_rows = Eigen::VectorXd::Zero(n);  // sum over elements of |element row|
  for (int e = 0; e < m.elements.size(); ++e) {
    double qe[nl], ve[nl];
    for (int i = 0; i < nl; ++i) {
      qe[i] = q[element_global_dof(m, e, i)];
      ve[i] = v[element_global_dof(m, e, i)];
    }
    ElementEvaluation<3> out;
    evaluate_element<3>(m.elements.properties[e], &m.elements.reference[nl * e], qe, ve, true, out,
                        {c.stiffness, c.damping});
    for (int i = 0; i < nl; ++i) {
      const int gi = element_global_dof(m, e, i);
      f[gi] += out.force[i];
      for (int j = 0; j < nl; ++j) {
        const int gj = element_global_dof(m, e, j);
        const double mass = (i % 3 == j % 3) ? m.elements.scalar_mass[16 * e + (i / 3) * 4 + j / 3] : 0.0;
        M(gi, gj) += mass;
        A(gi, gj) += c.mass * mass + out.jacobian(i, j);
        element_abs_rows[gi] += std::fabs(c.mass * mass + out.jacobian(i, j));
      }
    }
  }
  for (int r = 0; r < nc; ++r)
    for (size_t k = 0; k < m.constraint_rows[r].dofs.size(); ++k) {
      A(n + r, m.constraint_rows[r].dofs[k]) += c.constraint * m.constraint_rows[r].coefficients[k];
      A(m.constraint_rows[r].dofs[k], n + r) += c.constraint * m.constraint_rows[r].coefficients[k];
    }

  CpuBackend backend(m);
  Eigen::VectorXd f_gather, y;
  host_assemble_newton_matrix(backend, q, v, c, f_gather);
  const Eigen::MatrixXd A_gather = Eigen::MatrixXd(backend.matrix());
  CHECK((A_gather - A).cwiseAbs().maxCoeff() <= 1e-13 * A.cwiseAbs().maxCoeff());
  CHECK((f_gather - f).cwiseAbs().maxCoeff() <= 1e-13 * f.cwiseAbs().maxCoeff());
  Eigen::VectorXd f_only;
  host_internal_force(backend, q, v, f_only);
  CHECK((f_only - f).cwiseAbs().maxCoeff() <= 1e-13 * f.cwiseAbs().maxCoeff());
  host_mass_product(backend, x, y);
  CHECK((y - M * x).cwiseAbs().maxCoeff() <= 1e-13 * (M * x).cwiseAbs().maxCoeff());
  // A Newton residual's s f + m M x from the element pass (ForceTerms), with and without the matrix.
  const double s = 2.5e-7, mass_scale = 0.3;
  const Eigen::VectorXd combined = s * f + mass_scale * (M * x);
  const NewtonMatrixCoefficients* passes[] = {nullptr, &c};  // forces pass, then with the matrix
  // And the residual from - (s f + m M x) that the gather subtracts from a given vector.
  const Eigen::VectorXd from = 2.0 * combined.reverse(), residual = from - combined;
  for (const NewtonMatrixCoefficients* matrix : passes) {
    const Eigen::VectorXd y_terms = testing::forces_with_mass_term(backend, q, v, x, s, mass_scale, matrix);
    CHECK((y_terms - combined).cwiseAbs().maxCoeff() <= 1e-13 * combined.cwiseAbs().maxCoeff());
    const Eigen::VectorXd y_residual = testing::forces_with_mass_term(backend, q, v, x, s, mass_scale, matrix, &from);
    CHECK((y_residual - residual).cwiseAbs().maxCoeff() <= 1e-13 * residual.cwiseAbs().maxCoeff());
  }
  CHECK(Eigen::MatrixXd(backend.matrix()).isApprox(A_gather, 0.0));  // the matrix as assembled above
  // The norm as the elements give it (Backend::newton_matrix_norm), never below the assembled
  // coordinate block's infinity norm; the two cables' shared-node rows cancel in part.
  const double assembled_norm = A.topLeftCorner(n, n).cwiseAbs().rowwise().sum().maxCoeff();
  CHECK(backend.newton_matrix_norm() == Approx(element_abs_rows.maxCoeff()).epsilon(1e-14));
  CHECK(backend.newton_matrix_norm() >= assembled_norm);
  CHECK(backend.newton_matrix_norm() <= 2.0 * assembled_norm);

  // The pattern is a valid CSC with sorted, unique rows, holding exactly the structural entries.
  const SystemPattern p = build_system_pattern(m);
  const Eigen::SparseMatrix<double>& assembled = backend.matrix();  // holds that structure
  REQUIRE(assembled.nonZeros() == p.nonzeros());
  CHECK(std::equal(p.col_ptr.begin(), p.col_ptr.end(), assembled.outerIndexPtr()));
  CHECK(std::equal(p.row_index.begin(), p.row_index.end(), assembled.innerIndexPtr()));
  int structural = 0;
  for (int col = 0; col < p.size; ++col) {
    for (int k = p.col_ptr[col]; k + 1 < p.col_ptr[col + 1]; ++k) CHECK(p.row_index[k] < p.row_index[k + 1]);
    for (int row = 0; row < p.size; ++row) structural += (A(row, col) != 0.0 || (row == col && row < n));
  }
  CHECK(p.nonzeros() >= structural);
  // A solve with the factorization reproduces a known solution.
  backend.factorize();
  Eigen::VectorXd z = Eigen::VectorXd::Random(n + nc), sol;
  host_solve(backend, A * z, sol);
  CHECK((sol - z).norm() <= 1e-9 * z.norm());
}

TEST_CASE("Load pattern count: constant loads join the first pattern, each time-varying load has its own",
          "[assembly][loads]") {
  Model m = falling_cable_pendulum(4);
  TimeFunction ramp;
  ramp.kind = TimeFunction::Kind::LinearRamp;
  ramp.v1 = ramp.t1 = 1.0;
  m.point_loads.push_back({5, 2.0, TimeFunction::constant(3.0)});
  m.point_loads.push_back({7, 1.0, ramp});
  DistributedLoad d;
  d.element_count = 2;
  d.force[2] = 1.0;
  d.scale = ramp;
  m.distributed_loads.push_back(d);
  CHECK(load_pattern_count(m) == 3);
  CHECK(load_pattern_count(m) == build_load_patterns(m).vectors.size());
}

namespace {

// Three cables whose first elements all end at cable a's first node (the node of b and c that they
// left holds no element): a node three elements share, and one none does.
Model star_of_cables() {
  Model m;
  m.dimension = 3;
  const LineProperties props{1e3, 2.0, 1.5, 0.01};
  add_straight_line(m, "a", {0, 0, 0}, {1, 0, 0}, 2, props);
  const int b = add_straight_line(m, "b", {0, 0, 0}, {0, 1, 0}, 2, props);
  const int c = add_straight_line(m, "c", {0, 0, 0}, {0, 0, 1}, 3, props);
  finalize_model(m);
  m.elements.node_a[m.bodies[b].first_element] = 0;
  m.elements.node_a[m.bodies[c].first_element] = 0;
  return m;
}

}  // namespace

TEST_CASE("the mass product node by node equals the assembled consistent mass", "[assembly]") {
  const std::pair<const char*, Model> models[] = {{"a node of three elements, a node of none", star_of_cables()},
                                                  {"planar beams with rigid bodies", rancf_pendulum(21e6)},
                                                  {"a cable on a rigid boom", crane_falling_cable(5)}};
  for (const auto& [name, m] : models) {
    INFO(name);
    const int n = m.dof_count(), D = m.dimension;
    // M from the elements' scalar masses, M_e = scalar_mass (x) I_D; rigid bodies' rows stay 0
    // (System adds their mass).
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
    for (int e = 0; e < m.elements.size(); ++e)
      for (int i = 0; i < 4 * D; ++i)
        for (int j = 0; j < 4 * D; ++j)
          if (i % D == j % D)
            M(element_global_dof(m, e, i), element_global_dof(m, e, j)) +=
                m.elements.scalar_mass[16 * e + (i / D) * 4 + j / D];
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> U(-1, 1);
    Eigen::VectorXd x(n), y;
    for (int i = 0; i < n; ++i) x[i] = U(rng);
    CpuBackend backend(m);
    host_mass_product(backend, x, y);
    const Eigen::VectorXd expected = M * x;
    CHECK((y - expected).cwiseAbs().maxCoeff() <= 1e-14 * expected.cwiseAbs().maxCoeff());
    CHECK(y.tail(n - m.node_dof_count()).isZero(0.0));
  }
}

TEST_CASE("element records read through either layout are the model's own", "[assembly]") {
  // The CUDA backend reads the element records field-major (core/record_array.hpp), the CPU
  // element-major: both must give each element its own properties, quadrature and scalar mass.
  const Model m = two_cables();
  const ElementBlock& el = m.elements;
  const long ne = el.size();
  const std::vector<double> properties = to_field_major(el.properties), quadrature = to_field_major(el.quadrature),
                            scalar_mass = to_field_major(el.scalar_mass.data(), ne, 16);
  const std::vector<double> properties_by_element = element_major_values(el.properties);
  const RecordArray by_field[2] = {field_major(properties.data(), ne), field_major(quadrature.data(), ne)};
  const RecordArray by_element = element_major(properties_by_element.data(), sizeof(ElementProperties) / sizeof(double));
  for (long e = 0; e < ne; ++e) {
    for (const ElementProperties& p :
         {element_properties_from(by_field[0][e]), element_properties_from(by_element[e])}) {
      CHECK(p.length == el.properties[e].length);
      CHECK(p.EA == el.properties[e].EA);
      CHECK(p.EI == el.properties[e].EI);
      CHECK(p.rhoA == el.properties[e].rhoA);
      CHECK(p.eta == el.properties[e].eta);
      CHECK(p.strain_law == el.properties[e].strain_law);
      CHECK(p.contact == el.properties[e].contact);
      CHECK(p.fluid == el.properties[e].fluid);
    }
    const ReferenceQuadratureValues<StridedValues> r(by_field[1][e]);
    for (int g = 0; g < AxialRule::kPoints; ++g) {
      CHECK(r.axial_g0[g] == el.quadrature[e].axial_g0[g]);
      CHECK(r.axial_w[g] == el.quadrature[e].axial_w[g]);
    }
    for (int g = 0; g < GaussRule5::kPoints; ++g) {
      CHECK(r.bending_w[g] == el.quadrature[e].bending_w[g]);
      CHECK(r.kappa0[g] == el.quadrature[e].kappa0[g]);
      CHECK(r.bending_inverse_slope[g] == el.quadrature[e].bending_inverse_slope[g]);
    }
    const StridedValues M = field_major(scalar_mass.data(), ne)[e];
    for (int f = 0; f < 16; ++f) CHECK(M[f] == el.scalar_mass[16 * e + f]);
  }
}

TEST_CASE("copy_in_parallel copies every entry, whatever the count against its pieces and threshold", "[assembly]") {
  // Below the parallel threshold, exactly pieces of 2^14, and ragged counts over several threads.
  for (const int n : {0, 1, 1 << 14, (1 << 16) - 1, 1 << 16, 3 * (1 << 16) + 17, 1000003}) {
    INFO("entries " << n);
    const Eigen::VectorXd from = Eigen::VectorXd::Random(n);
    Eigen::VectorXd to = Eigen::VectorXd::Constant(n + 1, -7.0);  // the entry past the end stays
    copy_in_parallel(from.data(), to.data(), static_cast<size_t>(n));
    CHECK((to.head(n).array() == from.array()).all());
    CHECK(to[n] == -7.0);
  }
}

TEST_CASE("strain_energy_at: the energies alone equal the forces pass's, element by element", "[assembly]") {
  // Curved references (the 2D signed-curvature term included), damping, and enough elements for
  // the threads; at a perturbed state with velocities.
  for (const int dimension : {2, 3}) {
    INFO("dimension " << dimension);
    Model m;
    m.dimension = dimension;
    add_arc(m, "arc", {0, 0, 0}, 2.0, 0.0, M_PI / 2, 500, {1e5, 50.0, 3.0, 0.2});
    finalize_model(m);
    CpuBackend backend(m);
    const int n = m.dof_count();
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> small(-0.01, 0.01);
    Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(m.initial_positions.data(), n), v(n), other;
    for (int i = 0; i < n; ++i) q[i] += small(rng), v[i] = 100.0 * small(rng);
    other = q * 1.01;
    Vector qb = backend.make_vector(n), vb = backend.make_vector(n), ob = backend.make_vector(n),
           f = backend.make_vector(n);
    backend.upload(q, qb);
    backend.upload(v, vb);
    backend.upload(other, ob);
    backend.internal_force(qb, vb, f);
    const double forces_energy = backend.strain_energy();
    std::vector<double> forces_elements, alone_elements;
    backend.element_energies(forces_elements);
    backend.internal_force(ob, vb, f);  // another state last: what follows is strain_energy_at's own
    REQUIRE(backend.strain_energy() != forces_energy);
    const double alone = backend.strain_energy_at(qb, vb);
    backend.element_energies(alone_elements);
    CHECK(forces_energy > 0.0);
    CHECK(alone == forces_energy);
    CHECK(backend.strain_energy() == alone);
    CHECK(alone_elements == forces_elements);
  }
}
