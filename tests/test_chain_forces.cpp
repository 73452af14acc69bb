// The forces pass that sums the residual over chains of nodes itself (kernels/chain_forces_pass.cuh,
// the CUDA backend's code run on the host) against the plain pass and its gather.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "../kernels/chain_forces_pass.cuh"
#include "catenary/kernels/cuda_backend.hpp"
#include "catenary/model/reference_models.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"
#include "threaded_blocks.hpp"

using namespace catenary;
using namespace catenary::testing;

TEST_CASE("Elements along chains of nodes: cables, batches and a crane's cable are, and a branch or a reversed element is not",
          "[chain-forces]") {
  const auto along = [](const Model& m) {
    return cuda::elements_along_node_chains(m.elements.node_a, m.elements.node_b, m.node_count);
  };
  CHECK(along(falling_cable_pendulum(7)));
  CHECK(along(stiffness_sweep_batch(3, 4)));
  CHECK(along(crane_falling_cable(5)));
  CHECK(along(rancf_pendulum(21e6)) == true);
  // Node 2 of a 4-element cable also the start of a fifth element: three elements meet there.
  Model branch = falling_cable_pendulum(4);
  branch.elements.node_a.push_back(2);
  branch.elements.node_b.push_back(0);
  CHECK_FALSE(along(branch));
  // The same cable with its elements numbered backwards: node b of e + 1 is node a of e.
  Model reversed = falling_cable_pendulum(4);
  std::reverse(reversed.elements.node_a.begin(), reversed.elements.node_a.end());
  std::reverse(reversed.elements.node_b.begin(), reversed.elements.node_b.end());
  CHECK_FALSE(along(reversed));
}

TEST_CASE("CUDA backend code run on the host: residuals summed in the forces pass equal the gather's bit for bit",
          "[cuda-host]") {
  // Chains across the 256-element thread blocks: one 600-element cable (two seams inside it), a
  // batch of 7 damped 100-element cables (seams anywhere in a copy, copies' ends inside blocks),
  // and a crane (the boom's rigid-body coordinates belong to no element: from alone). Against
  // the plain forces pass and the gather (BackendOptions::chain_forces_pass off): the residual with the mass
  // term, and the energies.
  const Model cable = falling_cable_pendulum(600), batch = stiffness_sweep_batch(7, 100), crane = crane_falling_cable(300);
  for (const Model* m : {&cable, &batch, &crane}) {
    const int n = m->dof_count();
    const Eigen::VectorXd q = initial_coordinates(*m) + 1e-3 * Eigen::VectorXd::Random(n),
                          v = 0.1 * Eigen::VectorXd::Random(n), x = Eigen::VectorXd::Random(n),
                          from = Eigen::VectorXd::Random(n);
    const auto residual = [&](bool chain_forces_pass, double& energy) {
      BackendOptions options;
      options.chain_forces_pass = chain_forces_pass;
      auto backend = cuda::make_cuda_backend_on_host(*m, cuda::LinearSolver::Auto, false, options);
      const Eigen::VectorXd r = forces_with_mass_term(*backend, q, v, x, 2.5e-7, 0.3, nullptr, &from);
      energy = backend->strain_energy();
      return r;
    };
    double energy = 0.0, plain_energy = 0.0;
    const Eigen::VectorXd summed = residual(true, energy), plain = residual(false, plain_energy);
    INFO(m->elements.size() << " elements, " << n << " coordinates");
    CHECK(summed == plain);
    CHECK(energy == plain_energy);
  }
}

TEST_CASE("The chain forces pass with a host thread for each of its threads equals its one-thread run",
          "[chain-forces]") {
  // Phase 2 reads the rows the block's other threads wrote in phase 1 (the element before's): a
  // barrier missing between them shows as a difference here (threaded_blocks.hpp). A 600-element
  // cable: three thread blocks, two seams.
  const Model m = falling_cable_pendulum(600);
  const ElementBlock& el = m.elements;
  const int ne = el.size(), n = m.dof_count();
  const std::vector<double> properties = to_field_major(el.properties), quadrature = to_field_major(el.quadrature),
                            scalar_mass = to_field_major(el.scalar_mass.data(), ne, 16);
  const Eigen::VectorXd q = initial_coordinates(m) + 1e-3 * Eigen::VectorXd::Random(n),
                        w = Eigen::VectorXd::Random(n), from = Eigen::VectorXd::Random(n);
  using Chain = cuda::ChainForcesPass<3, false>;
  const int blocks = Chain::blocks(ne);
  REQUIRE(blocks == 3);
  struct Outputs {
    std::vector<double> r, energy;
  };
  const auto run = [&](bool threaded) {
    Outputs o{std::vector<double>(n, NAN), std::vector<double>(ne, NAN)};
    std::vector<double> carry_first(blocks * Chain::kNodeDofs, NAN), carry_last(blocks * Chain::kNodeDofs, NAN);
    const Chain::Pass pass{field_major(properties.data(), ne), field_major(quadrature.data(), ne),
                           field_major(scalar_mass.data(), ne), el.node_a.data(), el.node_b.data(), q.data(),
                           nullptr, w.data(), 2.5e-7, 0.3, NewtonMatrixCoefficients{}, nullptr, nullptr, nullptr,
                           o.energy.data(), {ne}};
    const Chain chain{pass, ne, from.data(), o.r.data(), carry_first.data(), carry_last.data()};
    run_blocks_on_host(chain, blocks, threaded);
    const cuda::ChainForceSeams seams{el.node_a.data(), el.node_b.data(), Chain::kNodeDofs, Chain::kThreads,
                                      from.data(), o.r.data(), carry_first.data(), carry_last.data()};
    for (int g = 1; g < blocks; ++g) seams(g);
    return o;
  };
  const Outputs one = run(false), each = run(true);
  CHECK(std::none_of(one.r.begin(), one.r.end(), [](double x) { return std::isnan(x); }));
  CHECK(each.r == one.r);
  CHECK(each.energy == one.energy);
}
