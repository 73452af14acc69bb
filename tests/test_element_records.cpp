// Element records shared between elements of equal values (model/element_records.hpp), and the
// CUDA backend's passes reading them so (its code run on the host).
#include <catch2/catch.hpp>
#include <cstring>

#include "catenary/model/element_records.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif
#include "catenary/model/reference_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

// Whether element e's shared record holds its own values, bit for bit.
bool holds_own_values(const SharedElementRecords& s, const ElementBlock& el, int e) {
  const int r = s.record_of[e];
  return std::memcmp(&s.properties[r], &el.properties[e], sizeof(ElementProperties)) == 0 &&
         std::memcmp(&s.quadrature[r], &el.quadrature[e], sizeof(ReferenceQuadrature)) == 0 &&
         std::memcmp(&s.scalar_mass[16 * r], &el.scalar_mass[16 * e], 16 * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("Shared element records: one a uniform cable, one a copy of a stiffness sweep, each element's own values, and close records snapped",
          "[element-records]") {
  const Model cable = falling_cable_pendulum(50), sweep = stiffness_sweep_batch(8, 5);
  const SharedElementRecords one = shared_element_records(cable.elements), eight = shared_element_records(sweep.elements);
  CHECK(one.count() == 1);
  CHECK(eight.count() == 8);
  for (int e = 0; e < sweep.elements.size(); ++e) {
    INFO("element " << e);
    CHECK(eight.record_of[e] == e / 5);  // numbered by their first element: copy by copy
    CHECK(holds_own_values(eight, sweep.elements, e));
  }
  for (int e = 0; e < cable.elements.size(); ++e) CHECK(holds_own_values(one, cable.elements, e));
  // A last element 1 % longer has a record of its own.
  Model longer = falling_cable_pendulum(6);
  longer.elements.properties.back().length *= 1.01;
  const SharedElementRecords two = shared_element_records(longer.elements);
  CHECK(two.count() == 2);
  CHECK(two.record_of == std::vector<int>{0, 0, 0, 0, 0, 1});
  // finalize_model's snap (share_close_element_records): a record a rounding away from an earlier
  // one takes that one's values, shape integrals included; one 1e-9 away keeps its own.
  ElementBlock close = falling_cable_pendulum(6).elements;
  REQUIRE(shared_element_records(close).count() == 1);
  close.quadrature[3].axial_g0[0] *= 1.0 + 4e-16;
  close.scalar_mass[16 * 3 + 5] *= 1.0 - 4e-16;
  close.shape_integrals[4 * 3] *= 1.0 + 1e-12;
  close.quadrature[4].axial_w[1] *= 1.0 + 1e-9;
  const ElementBlock before = close;
  share_close_element_records(close);
  const SharedElementRecords snapped = shared_element_records(close);
  CHECK(snapped.record_of == std::vector<int>{0, 0, 0, 0, 1, 0});
  CHECK(std::memcmp(&close.quadrature[3], &before.quadrature[0], sizeof(ReferenceQuadrature)) == 0);
  CHECK(close.scalar_mass[16 * 3 + 5] == before.scalar_mass[5]);
  CHECK(close.shape_integrals[4 * 3] == before.shape_integrals[0]);
  CHECK(close.quadrature[4].axial_w[1] == before.quadrature[4].axial_w[1]);
  // Shared where they are at most a quarter of the elements, unless the options say no.
  CHECK(reads_shared_records(1, 4));
  CHECK(reads_shared_records(250, 1000));
  CHECK_FALSE(reads_shared_records(251, 1000));
  CHECK_FALSE(reads_shared_records(1, 1000, false));
}

TEST_CASE("CUDA backend code run on the host: passes over shared records equal those over one record an element",
          "[cuda-host]") {
#ifdef CATENARY_WITH_CUDA
  // A stiffness sweep of 40 damped copies (40 records for 200 elements) and a uniform undamped
  // cable (one record): the forces with their mass term, the Newton matrix (the undamped one by
  // the Jacobian block pass, the damped one by the row pass) and the mass product, bit for bit;
  // the element bytes counted fall by the records no longer read.
  const Model sweep = stiffness_sweep_batch(40, 5), cable = falling_cable_pendulum(64);
  for (const Model* m : {&sweep, &cable}) {
    const int n = m->dof_count();
    const Eigen::VectorXd q = initial_coordinates(*m) + 1e-3 * Eigen::VectorXd::Random(n),
                          v = 0.1 * Eigen::VectorXd::Random(n), x = Eigen::VectorXd::Random(n);
    const NewtonMatrixCoefficients c{1.0, 2.5e-7, 5e-4, 1.0};
    struct Outputs {
      Eigen::VectorXd forces, assembled_forces, mass_product;
      Eigen::SparseMatrix<double> matrix;
      double element_bytes;
    };
    const auto outputs = [&](bool share) {
      BackendOptions options;
      options.share_element_records = share;
      auto backend = cuda::make_cuda_backend_on_host(*m, cuda::LinearSolver::Auto, false, options);
      Outputs o;
      o.forces = forces_with_mass_term(*backend, q, v, x, 2.5e-7, 0.3);
      o.assembled_forces = forces_with_mass_term(*backend, q, v, x, 2.5e-7, 0.3, &c);
      o.matrix = cuda::assembled_matrix(*backend);
      host_mass_product(*backend, x, o.mass_product);
      o.element_bytes = backend->timings().element_bytes;
      return o;
    };
    const Outputs shared = outputs(true), own = outputs(false);
    INFO(m->elements.size() << " elements");
    CHECK(shared.forces == own.forces);
    CHECK(shared.assembled_forces == own.assembled_forces);
    CHECK(Eigen::MatrixXd(shared.matrix) == Eigen::MatrixXd(own.matrix));
    CHECK(shared.mass_product == own.mass_product);
    CHECK(shared.element_bytes < own.element_bytes);
  }
#else
  WARN("[cuda-host] test skipped: this build has no CUDA backend (configure with CATENARY_CUDA=ON)");
#endif
}
