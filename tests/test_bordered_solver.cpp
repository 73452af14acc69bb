// The bordered chain order (assembly/block_chain_ordering.hpp) and the bordered solver
// (kernels/bordered_solver.cu, the CUDA backend's code run on the host) against UMFPACK on the
// Newton matrices of models that are a chain except for a few unknowns: a cable hanging from a
// hinged rigid boom, planar beams joined by revolute joints between nodes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/model/reference_models.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

// Every entry of m's Newton matrix outside o's border lies in the block tridiagonal of o's
// chains (block_scatter throws for one that does not).
void check_entries_fit(const Model& m, const BlockChainOrdering& o) {
  CpuBackend umfpack = umfpack_backend(m);
  const Eigen::SparseMatrix<double>& A = umfpack.matrix();
  std::vector<int> position_of(o.original_of.size()), rows, cols;
  for (size_t p = 0; p < o.original_of.size(); ++p) position_of[o.original_of[p]] = static_cast<int>(p);
  for (int col = 0; col < A.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it) {
      const int row = position_of[it.row()], column = position_of[col];
      if (row < o.block_ptr.back() && column < o.block_ptr.back()) rows.push_back(row), cols.push_back(column);
    }
  CHECK_NOTHROW(block_scatter(BlockLayout(o.block_ptr), o.chain_ptr, rows, cols));
}

// The unknowns of block k of o.
std::vector<int> block_unknowns(const BlockChainOrdering& o, int k) {
  return std::vector<int>(o.original_of.begin() + o.block_ptr[k], o.original_of.begin() + o.block_ptr[k + 1]);
}

// Body b's 7 coordinates followed by the given rows (unknowns: dof_count + row).
std::vector<int> body_block(const Model& m, int b, const std::vector<int>& mechanism_rows) {
  std::vector<int> unknowns;
  for (int k = 0; k < 7; ++k) unknowns.push_back(m.rigid_offset() + 7 * b + k);
  for (int r : mechanism_rows) unknowns.push_back(m.dof_count() + m.linear_constraint_count() + r);
  return unknowns;
}

}  // namespace

TEST_CASE("Bordered chain order: rigid bodies, rows over several nodes and the mechanism's rows form the border",
          "[assembly]") {
  SECTION("a cable on a hinged boom: the boom's 7 coordinates and every mechanism row") {
    const Model m = cable_hanging_from_boom(6);
    std::string why;
    CHECK_FALSE(block_chain_ordering(m, &why));
    CHECK(why == "the model has rigid bodies");
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(m, &why);
    REQUIRE(o);
    const int dofs = m.dof_count(), border = 7 + m.mechanism.row_count();
    REQUIRE(o->border_size() == border);
    CHECK(o->original_of.size() == static_cast<size_t>(dofs + m.constraint_count()));
    std::vector<int> expected;
    for (int d = m.node_dof_count(); d < dofs; ++d) expected.push_back(d);
    for (int r = m.linear_constraint_count(); r < m.constraint_count(); ++r) expected.push_back(dofs + r);
    CHECK(std::vector<int>(o->original_of.end() - border, o->original_of.end()) == expected);
    CHECK(o->block_ptr.size() == static_cast<size_t>(m.node_count + 1));
    CHECK(o->chain_ptr == std::vector<int>{0, m.node_count});
  }
  SECTION("planar beams joined between nodes: the joints' rows, and no others") {
    const Model m = rancf_pendulum(21e6);
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(m);
    REQUIRE(o);
    const int per_node = m.coordinates_per_node(), dofs = m.dof_count();
    int rows_over_nodes = 0;
    for (const ConstraintRow& row : m.constraint_rows)
      for (int dof : row.dofs)
        if (dof / per_node != row.dofs.front() / per_node) {
          ++rows_over_nodes;
          break;
        }
    CHECK(rows_over_nodes > 0);
    CHECK(o->border_size() == rows_over_nodes);
    for (int p = 0; p < o->block_ptr.back(); ++p)
      if (o->original_of[p] >= dofs) {  // a row kept in a block lies on that block's node
        const ConstraintRow& row = m.constraint_rows[o->original_of[p] - dofs];
        for (int dof : row.dofs) CHECK(dof / per_node == row.dofs.front() / per_node);
      }
  }
  SECTION("a border larger than kMaxBorder is refused with its size") {
    std::string why;
    CHECK(bordered_chain_ordering(cable_on_boom_with_bars(4, 3, true), &why));
    const Model m = cable_on_boom_with_bars(4, 10, true);  // bodies tied to each other: no body stands alone
    CHECK_FALSE(bordered_chain_ordering(m, &why));
    CHECK(why == "rigid bodies and rows over several nodes make a border of " +
                     std::to_string(7 * 11 + m.mechanism.row_count()) + " unknowns, more than 64");
  }
  SECTION("a sweep of cranes: each boom a block before its cable's first node, no border") {
    const int copies = 5, elements = 6;
    const Model m = crane_batch(copies, elements);
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(m);
    REQUIRE(o);
    CHECK(o->border_size() == 0);
    CHECK(o->rigid_blocks == copies);
    CHECK(o->needs_mass_term());
    REQUIRE(o->chain_ptr.size() == copies + 1);
    // merge_models numbers the copies' rows by kind: hinges (5 each), hooks (3), normalizations.
    for (int c = 0; c < copies; ++c) {
      INFO("copy " << c);
      const int first = o->chain_ptr[c], first_node = c * (elements + 1);
      REQUIRE(o->chain_ptr[c + 1] - first == elements + 2);
      // Boom c's coordinates, its hinge's 5 rows and its normalization; the node takes the hook's 3.
      CHECK(block_unknowns(*o, first) ==
            body_block(m, c, {5 * c, 5 * c + 1, 5 * c + 2, 5 * c + 3, 5 * c + 4, 8 * copies + c}));
      std::vector<int> node_block;
      for (int k = 0; k < 6; ++k) node_block.push_back(6 * first_node + k);
      for (int k = 0; k < 3; ++k)
        node_block.push_back(m.dof_count() + m.linear_constraint_count() + 5 * copies + 3 * c + k);
      CHECK(block_unknowns(*o, first + 1) == node_block);
    }
    check_entries_fit(m, *o);
  }
  SECTION("a payload on a cable's last node: a block after the chain") {
    const Model m = cable_with_payload(5);
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(m);
    REQUIRE(o);
    CHECK(o->border_size() == 0);
    CHECK(o->chain_ptr == std::vector<int>{0, m.node_count + 1});
    CHECK(block_unknowns(*o, m.node_count) == body_block(m, 0, {3}));  // its normalization; the hook is the node's
    CHECK(o->block_ptr[m.node_count] - o->block_ptr[m.node_count - 1] == 6 + 3);
    check_entries_fit(m, *o);
  }
  SECTION(
      "a border over kMaxBorder of bodies that stand alone: bars as chains of their own, the boom before the cable") {
    const Model m = cable_on_boom_with_bars(4, 10);
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(m);
    REQUIRE(o);
    CHECK(o->border_size() == 0);
    CHECK(o->rigid_blocks == 11);
    REQUIRE(o->chain_ptr.size() == 12);
    for (int c = 1; c < 11; ++c) CHECK(o->chain_ptr[c + 1] - o->chain_ptr[c] == 1);
    check_entries_fit(m, *o);
  }
  SECTION("a border the first node alone meets stays a border (one pass per solve, none per factorization)") {
    const std::optional<BlockChainOrdering> o = bordered_chain_ordering(cable_on_boom_with_bars(4, 3));
    REQUIRE(o);
    CHECK(o->rigid_blocks == 0);
    CHECK(o->border_size() == 4 * 7 + cable_on_boom_with_bars(4, 3).mechanism.row_count());
  }
}

#ifdef CATENARY_WITH_CUDA
#include "backend_agreement.hpp"

namespace {

// The Newton matrix of m at a random state (seeded; assemble_at_random_state) in the bordered
// order as CSR, a random right-hand side and UMFPACK's solution.
struct BorderedSystem {
  BlockChainOrdering order;
  Eigen::SparseMatrix<double, Eigen::RowMajor> A;  // bordered order
  Eigen::VectorXd rhs, reference;                  // bordered order; reference: UMFPACK's solution
};

// m's Newton matrix on the Green-Lagrange law (on_green_lagrange_law) at a random state, its
// block order, and UMFPACK's solution of a random right-hand side.
BorderedSystem bordered_system(const Model& model, unsigned seed) {
  const Model m = on_green_lagrange_law(model);
  CpuBackend umfpack = umfpack_backend(m);
  const Eigen::VectorXd rhs = assemble_at_random_state(umfpack, m, seed);
  Eigen::VectorXd x;
  umfpack.factorize();
  host_solve(umfpack, rhs, x);
  BorderedSystem s{*bordered_chain_ordering(m), {}, {}, {}};
  const int size = static_cast<int>(rhs.size());
  Eigen::PermutationMatrix<Eigen::Dynamic> to_position(size);  // original unknown -> position
  for (int p = 0; p < size; ++p) to_position.indices()[s.order.original_of[p]] = p;
  s.A = (to_position * umfpack.matrix() * to_position.transpose());
  s.A.makeCompressed();
  s.rhs = to_position * rhs;
  s.reference = to_position * x;
  return s;
}

std::unique_ptr<CsrSolver> bordered_solver(const BlockChainOrdering& order, BlockMethod method) {
  auto blocks = make_block_tridiagonal_solver(order.block_ptr, order.chain_ptr, method, false, kBorderRightHandSides);
  return order.border_size() > 0 ? make_bordered_solver(std::move(blocks), order.border_size(), false)
                                 : std::move(blocks);
}

// stiffness_sweep_batch's cables pinned at their last node instead of their first: block 0, a free
// end, has no held rows (solve/held_rows.hpp), whose unknowns need the next block's solution.
Model batch_pinned_at_last_nodes(int copies, int elements) {
  std::vector<Model> models;
  for (int k = 0; k < copies; ++k) {
    Model m = damped_cable(elements, 1.0 + 0.1 * k);
    m.constraint_rows.clear();
    m.constraint_groups.clear();
    add_fix(m, m.node_count - 1, {0, 1, 2}, "pin", "/test");
    finalize_model(m);
    models.push_back(std::move(m));
  }
  return batch_of(models);
}

}  // namespace

TEST_CASE("Bordered solver: Newton matrices with rigid bodies and joints between nodes, against UMFPACK",
          "[cuda-host]") {
  struct Case {
    const char* name;
    Model model;
  };
  const Case cases[] = {
      {"a 6-element cable on a hinged boom", cable_hanging_from_boom(6)},
      {"a 300-element cable on a hinged boom", cable_hanging_from_boom(300)},
      {"a cable on a boom with three more hinged bars", cable_on_boom_with_bars(40, 3)},
      {"planar beams joined between nodes", rancf_pendulum(21e6)},
      {"a sweep of five cranes: each boom a block of its cable's chain", crane_batch(5, 30)},
      {"a payload on a cable's last node: a block after the chain", cable_with_payload(30)},
      {"ten bars hinged alone, each a chain of its own block", cable_on_boom_with_bars(20, 10)},
      {"two cranes whose hooks are joined: rigid blocks and a border", cranes_joined_at_the_hook(12)}};
  // One random state per case, both methods on its matrix. The draws' conditioning varies: the
  // crane sweep's state of seed 50 put both methods 5e-9 from UMFPACK (backward errors below 1e-17).
  unsigned seed = 40;
  for (const Case& c : cases) {
    const BorderedSystem s = bordered_system(c.model, ++seed);
    for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
      INFO(c.name << (method == BlockMethod::CyclicReduction ? ", cyclic reduction" : ", chain elimination"));
      auto solver = bordered_solver(s.order, method);
      const int size = static_cast<int>(s.A.rows());
      solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
      std::vector<double> values(s.A.valuePtr(), s.A.valuePtr() + s.A.nonZeros());
      solver->factorize(values.data());
      Eigen::VectorXd x(size);
      solver->solve(s.rhs.data(), x.data());
      const double difference = relative_difference(s.reference, x);
      INFO("relative difference to UMFPACK: " << difference);
      // Backward stable as UMFPACK is (both about 1e-17 and below here); the difference above is
      // the 300-element cable's conditioning.
      CHECK(backward_error(s.A, x, s.rhs) < 1e-15);
      CHECK(difference < 1e-9);
      // The factorization outlives the values it came from: the integrator may assemble a matrix
      // it never factorizes and solve with the last factorization.
      for (double& value : values) value *= 1.7;
      Eigen::VectorXd again(size);
      solver->solve(s.rhs.data(), again.data());
      CHECK(again == x);
    }
  }
}

TEST_CASE("Block-tridiagonal solver: several right-hand sides in one pass equal one at a time", "[cuda-host]") {
  const BorderedSystem s = bordered_system(damped_cable(60), 9);
  const int size = static_cast<int>(s.A.rows()), count = 3;
  Eigen::MatrixXd rhs(size, count);
  for (int k = 0; k < count; ++k) rhs.col(k) = s.rhs * (k + 1) + Eigen::VectorXd::LinSpaced(size, 0.0, k);
  for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
    auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false, 2);
    solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
    solver->factorize(s.A.valuePtr());
    Eigen::MatrixXd together(size, count), one(size, count);
    solver->solve_many(rhs.data(), together.data(), count, size);  // more than planned: the room grows
    for (int k = 0; k < count; ++k) solver->solve(rhs.col(k).data(), one.col(k).data());
    CHECK(together == one);
    CHECK(relative_difference(s.reference, one.col(0)) < 1e-9);
  }
}

TEST_CASE("Block-tridiagonal solver: a batch of chains of different lengths, against UMFPACK", "[cuda-host]") {
  // Cables of 1 to 100 elements (chains of 2 to 101 blocks, each led by its pinned node's 9 x 9
  // block): cyclic reduction stops after ceil(log2(101)) = 7 levels with one block or none left
  // of each chain, not after the 9 levels of one chain of all 413 blocks.
  std::vector<Model> cables;
  for (int elements : {100, 1, 2, 7, 64, 63, 31, 100, 3, 32})
    cables.push_back(damped_cable(elements, 1.0 + 0.01 * elements));
  const BorderedSystem s = bordered_system(batch_of(cables), 5);
  REQUIRE(s.order.border_size() == 0);
  REQUIRE(s.order.chain_ptr.size() == cables.size() + 1);
  CHECK(cyclic_reduction_levels(s.order.chain_ptr) == 7);
  const int size = static_cast<int>(s.A.rows());
  for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
    INFO((method == BlockMethod::CyclicReduction ? "cyclic reduction" : "chain elimination"));
    auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false);
    solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
    solver->factorize(s.A.valuePtr());
    Eigen::VectorXd x(size);
    solver->solve(s.rhs.data(), x.data());
    CHECK(backward_error(s.A, x, s.rhs) < 1e-15);
    CHECK(relative_difference(s.reference, x) < 1e-9);
  }
}

TEST_CASE("Block-tridiagonal solver: right-hand sides in the first block, that block's solution alone", "[cuda-host]") {
  // Both methods eliminate block 0 last, so its solution for right-hand sides with entries there
  // alone is its factorized block's solve: the same numbers as the whole solve's.
  const BorderedSystem s = bordered_system(batch_pinned_at_last_nodes(3, 40), 12);
  const int size = static_cast<int>(s.A.rows()), lead = s.order.block_ptr[1], count = 3;
  REQUIRE(lead == 6);  // the free end's coordinates
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(size, count);
  rhs.topRows(lead) = Eigen::MatrixXd::Random(lead, count);
  for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
    auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false);
    solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
    solver->factorize(s.A.valuePtr());
    CHECK(solver->leading_block_solved_last() == lead);
    Eigen::MatrixXd whole(size, count), leading = Eigen::MatrixXd::Zero(size, count);
    solver->solve_many(rhs.data(), whole.data(), count, size);
    solver->solve_leading_block_many(rhs.data(), leading.data(), count, size);
    CHECK(leading.topRows(lead) == whole.topRows(lead));
    CHECK(backward_error(s.A, whole.col(0), rhs.col(0)) < 1e-15);
    // Pinned at the first node, block 0's held rows leave it: no leading block then.
    const BorderedSystem pinned = bordered_system(stiffness_sweep_batch(3, 40), 12);
    auto first_pinned = make_block_tridiagonal_solver(pinned.order.block_ptr, pinned.order.chain_ptr, method, false);
    first_pinned->analyze(static_cast<int>(pinned.A.rows()), static_cast<int>(pinned.A.nonZeros()),
                          pinned.A.outerIndexPtr(), pinned.A.innerIndexPtr());
    CHECK(first_pinned->leading_block_solved_last() == 0);
  }
}

namespace {

// A factorization of s.A by `method`, then x = A^-1 s.rhs by solve() and by two Newton-update solves
// (CsrSolver::solve_newton_update) in a row.
struct BlockSolves {
  Eigen::VectorXd exact, first_update, second_update;
  std::string note;
};

BlockSolves block_solves(const BorderedSystem& s, BlockMethod method, bool float_factors) {
  const int size = static_cast<int>(s.A.rows());
  BlockSolverOptions options;
  options.float_factors = float_factors;
  auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false, 1, false, options);
  solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
  solver->factorize(s.A.valuePtr());
  BlockSolves x{Eigen::VectorXd(size), Eigen::VectorXd(size), Eigen::VectorXd(size), solver->layout_note()};
  solver->solve_newton_update(s.rhs.data(), x.first_update.data());
  solver->solve_newton_update(s.rhs.data(), x.second_update.data());
  solver->solve(s.rhs.data(), x.exact.data());
  return x;
}

}  // namespace

TEST_CASE("Block-tridiagonal solver: a singular block is named, by either method, interleaved or not", "[cuda-host]") {
  // Block k's rows zeroed, couplings included: its Schur complement onto it is zero whatever the
  // blocks eliminated before left, so the factorization must stop there and name it. 40 chains of
  // 6 blocks (interleaved for chain elimination: each thread block factorizes 32 of them), and
  // the same cables of two lengths (chain elimination in the contiguous layout).
  const Model sweep = stiffness_sweep_batch(40, 5), ragged = batch_of({damped_cable(5), damped_cable(7), damped_cable(5)});
  struct Case {
    const Model* model;
    int k;  // the block: a cable's inner node (not a pinned end's, whose held rows leave it)
  };
  for (const Case& c : {Case{&sweep, 17 * 6 + 3}, Case{&ragged, 9}})
    for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
      BorderedSystem s = bordered_system(*c.model, 3);
      const int k = c.k;
      for (int row = s.order.block_ptr[k]; row < s.order.block_ptr[k + 1]; ++row)
        for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(s.A, row); it; ++it) it.valueRef() = 0.0;
      auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false);
      solver->analyze(static_cast<int>(s.A.rows()), static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(),
                      s.A.innerIndexPtr());
      INFO((method == BlockMethod::CyclicReduction ? "cyclic reduction" : "chain elimination") << solver->layout_note());
      CHECK_THROWS_WITH(solver->factorize(s.A.valuePtr()), Catch::Contains("block " + std::to_string(k) + " is singular"));
    }
}

TEST_CASE("Block-tridiagonal solver: Newton updates from float factors (or, without them, double)",
          "[cuda-host]") {
  // The first solve after a factorization reads the double factors (full Newton then never makes
  // the copy), later Newton updates the float copy, with float padded vectors: each factor and
  // vector entry is held to a relative 6e-8, so the solution moves by about that times the
  // blocks' condition (here 5e-7 to 2.2e-6; with double vectors 5e-7 to 2.2e-6 too). It must differ from the exact
  // solve's (the copy is read) and stay within 1e-5 of UMFPACK's. Cyclic reduction and chain
  // elimination in the interleaved layout (one chain of 6 x 6 blocks) keep a copy, elimination
  // in the contiguous layout (chains of several lengths) does not. solve() stays exact, and with
  // the float factors off every solve is the exact one.
  std::vector<Model> cables;
  for (int elements : {100, 1, 2, 7, 64, 63, 31, 3, 32}) cables.push_back(damped_cable(elements, 1.0 + 0.01 * elements));
  struct Case {
    BorderedSystem s;
    bool interleaved;
  };
  const Case one_chain{bordered_system(damped_cable(60), 9), true}, batch{bordered_system(batch_of(cables), 5), false};
  for (const Case& c : {one_chain, batch})
    for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
      const bool copy = method == BlockMethod::CyclicReduction || c.interleaved;
      const std::string layout =
          method == BlockMethod::ChainElimination && c.interleaved ? " (interleaved chains)" : "";
      INFO((method == BlockMethod::CyclicReduction ? "cyclic reduction" : "chain elimination") << layout);
      const BlockSolves x = block_solves(c.s, method, true), plain = block_solves(c.s, method, false);
      CHECK(plain.second_update == plain.exact);
      CHECK(plain.note == layout + (copy ? " (double factors)" : ""));
      CHECK(x.note == layout);
      CHECK(x.exact == plain.exact);
      CHECK(x.first_update == plain.exact);
      if (!copy) {
        CHECK(x.second_update == plain.exact);
        continue;
      }
      CHECK(x.second_update != plain.exact);
      const double error = relative_difference(c.s.reference, x.second_update);
      INFO("from float factors: relative difference from UMFPACK " << error << ", from double "
                                                                   << relative_difference(c.s.reference, plain.exact));
      CHECK(error < 1e-5);
    }
}

TEST_CASE("Block-tridiagonal solver: a caller's order in two vectors (take_outer_order) solves as its own order",
          "[cuda-host]") {
  // The solver's unknown p is entry outer[p] of [top; bottom]: solve_outer must give, bit for bit,
  // the solution of solve() in the solver's order moved to the outer order, exact or as a Newton
  // update (from the float copy where kept), held rows included (every cable here is pinned).
  // 40 chains of 6 x 6 blocks (interleaved for chain elimination), and cables of several lengths
  // (the contiguous layout).
  const Model sweep = stiffness_sweep_batch(40, 5), ragged = batch_of({damped_cable(5), damped_cable(9), damped_cable(2)});
  for (const Model* model : {&sweep, &ragged})
    for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
      const BorderedSystem s = bordered_system(*model, 7);
      const int size = static_cast<int>(s.A.rows()), split = size - 2 * static_cast<int>(model->constraint_count());
      std::vector<int> outer(size);
      std::iota(outer.begin(), outer.end(), 0);
      std::shuffle(outer.begin(), outer.end(), std::mt19937(11));
      auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false);
      solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
      INFO((method == BlockMethod::CyclicReduction ? "cyclic reduction" : "chain elimination") << solver->layout_note());
      std::vector<int> twice = outer;
      twice[1] = twice[0];
      CHECK_THROWS_WITH(solver->take_outer_order(twice, split), Catch::Contains("not a permutation"));
      REQUIRE(solver->take_outer_order(outer, split));
      solver->factorize(s.A.valuePtr());
      Eigen::VectorXd in_outer(size);
      for (int p = 0; p < size; ++p) in_outer[outer[p]] = s.rhs[p];
      const Eigen::VectorXd top = in_outer.head(split), bottom = in_outer.tail(size - split);
      // Exact solves, then Newton updates (from the float copy where the solver keeps one: any
      // solve but the first after a factorization).
      for (bool newton_update : {false, false, true, true, true}) {
        Eigen::VectorXd expected(size), x_top = Eigen::VectorXd::Constant(split, NAN),
                                        x_bottom = Eigen::VectorXd::Constant(size - split, NAN);
        solver->solve_outer(top.data(), bottom.data(), x_top.data(), x_bottom.data(), newton_update);
        Eigen::VectorXd x(size);
        newton_update ? solver->solve_newton_update(s.rhs.data(), x.data()) : solver->solve(s.rhs.data(), x.data());
        for (int p = 0; p < size; ++p) expected[outer[p]] = x[p];
        INFO((newton_update ? "a Newton update" : "exact"));
        CHECK(x_top == expected.head(split));
        CHECK(x_bottom == expected.tail(size - split));
        CHECK(relative_difference(s.reference, x) < (newton_update ? 1e-5 : 1e-9));
      }
    }
}

TEST_CASE("Float factors: HHT runs by cyclic reduction and chain elimination equal the double factors' to the Newton tolerance",
          "[cuda-host][dynamics]") {
  // Modified Newton solves from the float copy after the first solve of each factorization; the
  // iteration corrects the copy's error like any other error of its matrix, so the runs must reach
  // the same states to the tolerance, in the same iterations (as rounding the CPU chain solver's
  // factors to float did in every benchmark run). Full Newton solves once a factorization: its run
  // never reads the copy and is the double run, bit for bit.
  constexpr double kTolerance = 1e-10;
  const Model m = falling_cable_pendulum(40);  // one chain of 6 x 6 blocks: elimination interleaves it
  for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
    for (DynamicSettings::Newton newton : {DynamicSettings::Newton::Full, DynamicSettings::Newton::Modified}) {
      const bool full = newton == DynamicSettings::Newton::Full;
      AnalysisSettings a = dynamic_settings(1e-3, 0.05, -0.2);
      a.dynamics.newton = newton;
      REQUIRE(a.dynamics.newton_tolerance == kTolerance);
      const auto run = [&](bool float_factors) {
        BackendOptions options;
        options.block_solver.float_factors = float_factors;
        auto backend = cuda::make_cuda_backend_on_host(m, solver, false, options);
        return run_model_on(*backend, m, a);
      };
      const RunResult result = run(true), reference = run(false);
      REQUIRE(result.frames.size() == reference.frames.size());
      CpuBackend backend(m);
      const System sys(m, backend);
      double worst = 0.0;  // weighted: 1 = the tolerance
      size_t moved = 0;    // frames whose coordinates differ
      for (size_t k = 1; k < result.frames.size(); ++k) {
        worst = std::max(worst, sys.weighted_norm(result.frames[k].q - reference.frames[k].q, reference.frames[k].q,
                                                  kTolerance, nullptr));
        moved += result.frames[k].q != reference.frames[k].q;
      }
      INFO((solver == cuda::LinearSolver::BlockTridiagonal ? "cyclic reduction, " : "chain elimination, ")
           << (full ? "full" : "modified") << " Newton: " << moved << " frames moved, largest weighted difference "
           << worst << ", iterations " << result.summary.newton_iterations << " against "
           << reference.summary.newton_iterations);
      CHECK(result.frames.front().q == reference.frames.front().q);  // the initial state's solves are exact
      CHECK(moved == (full ? 0 : result.frames.size() - 1));
      CHECK(worst <= 1.0);
      CHECK(result.summary.newton_iterations == reference.summary.newton_iterations);
    }
  }
}

TEST_CASE("Block-tridiagonal solver: a correction of the first block's right-hand side between the sweeps",
          "[cuda-host]") {
  // correct(x_0, delta) gets block 0's solution for rhs, x_0 = (A^-1 rhs)_0, and with delta = K x_0
  // the solve gives x = A^-1 (rhs - P K x_0), P block 0's unknowns (the bordered solver's x_b
  // between the sweeps). Three chains, so that the other chains' first blocks (left members of
  // cyclic reduction, whole chains of the elimination) take no correction.
  const BorderedSystem s = bordered_system(batch_pinned_at_last_nodes(3, 40), 14);
  const int size = static_cast<int>(s.A.rows()), lead = s.order.block_ptr[1];
  const Eigen::MatrixXd K = Eigen::MatrixXd::Random(lead, lead);
  const Eigen::VectorXd x_lead_expected = s.reference.head(lead);
  Eigen::VectorXd corrected_rhs = s.rhs;
  corrected_rhs.head(lead) -= K * x_lead_expected;
  for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
    INFO((method == BlockMethod::CyclicReduction ? "cyclic reduction" : "chain elimination"));
    auto solver = make_block_tridiagonal_solver(s.order.block_ptr, s.order.chain_ptr, method, false);
    solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
    solver->factorize(s.A.valuePtr());
    int calls = 0;
    Eigen::VectorXd x(size), x_lead(lead);
    solver->solve_correcting_leading_block(s.rhs.data(), x.data(), [&](const double* y, double* delta) {
      ++calls;
      x_lead = Eigen::Map<const Eigen::VectorXd>(y, lead);
      Eigen::Map<Eigen::VectorXd>(delta, lead) = K * x_lead;
    });
    CHECK(calls == 1);
    CHECK(relative_difference(x_lead_expected, x_lead) < 1e-9);
    CHECK(backward_error(s.A, x, corrected_rhs) < 1e-15);
    CHECK(relative_difference(s.reference, x) > 1e-3);  // the correction changed the solution
  }
}

TEST_CASE("Bordered solver: a singular Schur complement is reported as the border's", "[cuda-host]") {
  // A mechanism row with no entries: the border alone is singular, the blocks are not.
  const BorderedSystem s = bordered_system(cable_hanging_from_boom(8), 7);
  const int size = static_cast<int>(s.A.rows()), zero_row = size - 1;
  std::vector<double> values(s.A.valuePtr(), s.A.valuePtr() + s.A.nonZeros());
  for (int k = s.A.outerIndexPtr()[zero_row]; k < s.A.outerIndexPtr()[zero_row + 1]; ++k) values[k] = 0.0;
  auto solver = bordered_solver(s.order, BlockMethod::ChainElimination);
  solver->analyze(size, static_cast<int>(s.A.nonZeros()), s.A.outerIndexPtr(), s.A.innerIndexPtr());
  CHECK_THROWS_WITH(solver->factorize(values.data()),
                    Catch::Contains("Schur complement of the " + std::to_string(s.order.border_size()) +
                                    " border unknowns") &&
                        Catch::Contains("is singular"));
}

TEST_CASE("Bordered solver: the benchmark's cable hung from a crane's boom runs as on the CPU backend",
          "[cuda-host]") {
  const Model m = crane_falling_cable(40);
  // Block 0 is the cable's first node alone (its attachment rows are the border's): no held rows
  // there, so the border's solves keep to block 0 (leading_block_solved_last).
  CHECK(bordered_chain_ordering(m)->block_ptr[1] == 6);
  auto backend = cuda::make_cuda_backend_on_host(m, cuda::LinearSolver::Auto);
  CHECK(backend->linear_solver() == "block cyclic reduction with a border of 16 unknowns");
  const double d = dynamic_run_difference(m, dynamic_settings(1e-3, 0.1, -0.2), *backend);
  INFO("largest relative coordinate difference to UMFPACK's run: " << d);
  CHECK(d < 1e-9);
}
#endif

#ifdef CATENARY_WITH_CUDA
namespace {

// The cable hangs from the boom by border rows only: without the mass term its blocks alone are
// singular, and the Schur complement over them fails (Newton diverges at load 0.3 unless the
// general solver takes these matrices); a boom among the blocks is free to turn about its hinge
// without it. The equilibrium against UMFPACK's, both block methods, for one sprung boom (a
// border) and a sweep of three (the booms in the chains).
void check_bordered_statics(std::unique_ptr<Backend> (*make)(const Model&, cuda::LinearSolver)) {
  const Model one = sprung_boom_with_cable(8, 300.0);
  std::vector<CopyRange> ranges;
  const std::pair<Model, std::string> models[] = {
      {one, "with a border of 16 unknowns"},
      {merge_models({&one, &one, &one}, ranges), "with 3 rigid bodies in the chains"}};
  for (const auto& [m, solver_suffix] : models) {
    const RunResult reference = run_model_umfpack(m, static_settings(4));
    for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
      auto backend = make(m, solver);
      INFO(backend->linear_solver());
      CHECK_THAT(backend->linear_solver(), Catch::EndsWith(solver_suffix));
      const RunResult result = run_model_on(*backend, m, static_settings(4));
      const double d = relative_difference(reference.frames.back().q, result.frames.back().q);
      INFO("relative difference of the equilibria: " << d);
      CHECK(d < 1e-9);
    }
  }
}

}  // namespace

TEST_CASE("Bordered solver: statics (no mass term, the cable free in the blocks) takes the general solver",
          "[cuda-host]") {
  check_bordered_statics(&cuda::make_cuda_backend_on_host);
}

TEST_CASE("Bordered solver on the device: statics takes the general solver (sparse QR)", "[gpu]") {
  if (!testing::device_usable()) return;
  check_bordered_statics(&cuda::make_cuda_backend);
}
#endif
