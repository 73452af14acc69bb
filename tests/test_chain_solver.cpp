// The CPU backend's block chain elimination (solve/chain_solver.hpp; its default for chain
// models) against UMFPACK: the same Newton matrices solved by both, and whole HHT runs.
#include <omp.h>

#include <catch2/catch.hpp>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/model/reference_models.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/held_rows.hpp"
#include "catenary/solve/interleaved_chain_elimination.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

double relative_difference(const Eigen::VectorXd& reference, const Eigen::VectorXd& other) {
  return (reference - other).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

// The largest relative difference of a frame's `field` (q or v) between two runs.
double largest_difference(const RunResult& reference, const RunResult& result, Eigen::VectorXd StoredFrame::*field) {
  REQUIRE(result.frames.size() == reference.frames.size());
  double worst = 0.0;
  for (size_t k = 0; k < reference.frames.size(); ++k)
    if ((reference.frames[k].*field).cwiseAbs().maxCoeff() > 0.0)  // the initial velocities are zero
      worst = std::max(worst, relative_difference(reference.frames[k].*field, result.frames[k].*field));
  return worst;
}

// Both backends assemble the Newton matrix at the same random state (the same code, so the same
// matrix) and solve the same random right-hand side; returns the relative difference.
double solve_difference(const Model& m, unsigned seed, const BackendOptions& options = {}) {
  CpuBackend umfpack = umfpack_backend(m), chains(m, LinearSolverChoice::ChainElimination, options);
  REQUIRE(umfpack.linear_solver() == "UMFPACK");
  REQUIRE(chains.linear_solver() == "block chain elimination");
  const Eigen::VectorXd rhs = assemble_at_random_state(umfpack, m, seed);
  assemble_at_random_state(chains, m, seed);
  Eigen::VectorXd x_umfpack, x_chains;
  umfpack.factorize();
  chains.factorize();
  host_solve(umfpack, rhs, x_umfpack);
  host_solve(chains, rhs, x_chains);
  return relative_difference(x_umfpack, x_chains);
}

// A chain solver of `order` (with or without a border) planned for `threads` threads against
// UMFPACK on the Newton matrix of m at a random state: checks the solver's description (its parts,
// its border) and backward error; returns the relative difference.
double chain_solver_difference(const Model& m, const BlockChainOrdering& order, int threads,
                               const std::string& description, unsigned seed) {
  CpuBackend umfpack = umfpack_backend(m);
  const Eigen::VectorXd rhs = assemble_at_random_state(umfpack, m, seed);
  Eigen::VectorXd x_umfpack, x_chains;
  umfpack.factorize();
  host_solve(umfpack, rhs, x_umfpack);
  ChainSolver chains(order, umfpack.matrix(), threads);
  CHECK(chains.description() == description);
  chains.factorize(umfpack.matrix());
  chains.solve(rhs, x_chains);
  CHECK(backward_error(umfpack.matrix(), x_chains, rhs) < 1e-15);
  const double difference = relative_difference(x_umfpack, x_chains);
  INFO("relative difference to UMFPACK: " << difference);
  return difference;
}

// The chains of m cut for `threads` threads into `parts` parts solve as UMFPACK does.
void check_cut_solve(const Model& m, int threads, int parts, unsigned seed) {
  const std::string description =
      parts == 1 ? "block chain elimination" : "block chain elimination (" + std::to_string(parts) + " parts)";
  CHECK(chain_solver_difference(m, *block_chain_ordering(m), threads, description, seed) < 1e-9);
}

// The chains of m with the border of its bordered order solve as UMFPACK does.
void check_bordered_solve(const Model& m, int threads, const std::string& description, unsigned seed) {
  CHECK(chain_solver_difference(m, *bordered_chain_ordering(m), threads, description, seed) < 1e-9);
}

// m with the position of each of `nodes` pinned: three held rows (solve/held_rows.hpp), which
// leave the blocks.
Model with_pinned_nodes(Model m, const std::vector<int>& nodes) {
  for (int node : nodes) add_fix(m, node, {0, 1, 2}, "pin " + std::to_string(node), "/test");
  finalize_model(m);
  return m;
}

// m with the sum of the slope's components at each of `nodes` held at its value: a row over three
// coordinates of one node, which stays in the node's block (7 wide among 6-wide ones).
Model with_tied_coordinates(Model m, const std::vector<int>& nodes) {
  const int per_node = m.coordinates_per_node();
  for (int node : nodes) {
    ConstraintRow row;
    for (int k = 3; k < 6; ++k) {
      row.dofs.push_back(node * per_node + k);
      row.coefficients.push_back(1.0);
      row.offset += m.initial_positions[node * per_node + k];
    }
    m.constraint_groups.push_back(
        {"tie " + std::to_string(node), "tie", "/test", m.linear_constraint_count(), 1, {"sum"}});
    m.constraint_rows.push_back(row);
  }
  finalize_model(m);
  return m;
}

// The matrix's entries as (row, column) positions in the order o.
void entry_positions(const Eigen::SparseMatrix<double>& A, const BlockChainOrdering& o, std::vector<int>& rows,
                     std::vector<int>& cols) {
  std::vector<int> position_of(o.original_of.size());
  for (size_t p = 0; p < o.original_of.size(); ++p) position_of[o.original_of[p]] = static_cast<int>(p);
  rows.clear();
  cols.clear();
  for (int col = 0; col < A.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it) {
      rows.push_back(position_of[it.row()]);
      cols.push_back(position_of[col]);
    }
}

}  // namespace

TEST_CASE("CPU chain elimination solves the Newton matrix as UMFPACK does", "[chain-solver]") {
  SECTION("spatial cable, pinned end (one 9-wide block)") { CHECK(solve_difference(damped_cable(7), 1) < 1e-9); }
  SECTION("a long spatial cable: one chain of 301 blocks") { CHECK(solve_difference(damped_cable(300), 2) < 1e-9); }
  SECTION("planar clamped cantilever (an 8-wide block)") { CHECK(solve_difference(swinging_cantilever(), 3) < 1e-9); }
  SECTION("a sweep's batch of 40 cables of different stiffness: 40 chains") {
    CHECK(solve_difference(stiffness_sweep_batch(40, 5), 4) < 1e-9);
  }
  SECTION("a sweep's batch of 250 cables: 1,500 blocks, over the threshold for threads") {
    CHECK(solve_difference(stiffness_sweep_batch(250, 5), 5) < 1e-9);
  }
}

TEST_CASE("Held rows: a pinned node's three rows leave the blocks, a row over several coordinates stays",
          "[chain-solver]") {
  const Model m = with_tied_coordinates(with_pinned_nodes(damped_cable(6), {3}), {5});
  const BlockChainOrdering o = *block_chain_ordering(m);
  std::vector<int> rows, cols;
  entry_positions(umfpack_backend(m).matrix(), o, rows, cols);
  const HeldRows held = find_held_rows(o.block_ptr, rows, cols);
  // The pendulum's pin (node 0) and node 3's: six rows, each holding its own coordinate.
  REQUIRE(held.size() == 6);
  const int rows_start = m.dof_count();
  for (int h = 0; h < held.size(); ++h) {
    const ConstraintRow& row = m.constraint_rows[o.original_of[held.row[h]] - rows_start];
    REQUIRE(row.dofs.size() == 1);
    CHECK(o.original_of[held.coordinate[h]] == row.dofs[0]);
    // Row j's entries: A(j, r) first, then its element entries (two elements' 6 x 6 couplings at
    // node 3, one at node 0: 18 or 12 columns).
    CHECK(cols[held.entry_slot[held.entry_ptr[h]]] == held.row[h]);
    CHECK(held.entry_ptr[h + 1] - held.entry_ptr[h] == 1 + (row.dofs[0] < 6 ? 12 : 18));
  }
  const BlockLayout layout(o.block_ptr, held);
  CHECK(layout.size[0] == 6);
  CHECK(layout.size[3] == 6);
  CHECK(layout.size[5] == 7);  // the tie's row stays
  CHECK(layout.B == 7);
  CHECK(BlockLayout(o.block_ptr).B == 9);
  for (int h = 0; h < held.size(); ++h) {  // equation r in row j's place; x_r solved afterwards
    CHECK(layout.equation_index[held.row[h]] == layout.vector_index[held.coordinate[h]]);
    CHECK(layout.equation_index[held.coordinate[h]] == -1);
    CHECK(layout.vector_index[held.row[h]] == -1);
  }
}

// The threaded walks over the entries (src/solve/held_rows.cpp, src/solve/block_scatter.cpp)
// against one thread: the same held rows with their entries in the same order, the same
// destinations, the same uncovered slots in the same order, the same interleaved slots.
TEST_CASE("The analysis's threads find the held rows and place the entries as one thread does", "[chain-solver]") {
  // Over the passes' threshold for threads (65,536 entries), with held rows (pins) and ties at the
  // start, middle and end of the batch, whose 7-wide blocks leave slots no entry covers.
  const Model m = with_tied_coordinates(with_pinned_nodes(stiffness_sweep_batch(150, 5), {3, 20}), {11, 451, 895});
  const BlockChainOrdering o = *block_chain_ordering(m);
  std::vector<int> rows, cols;
  entry_positions(umfpack_backend(m).matrix(), o, rows, cols);
  REQUIRE(rows.size() > 65536);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const HeldRows held = find_held_rows(o.block_ptr, rows, cols);
  const BlockLayout layout(o.block_ptr, held);
  const BlockScatter one = block_scatter(layout, o.chain_ptr, rows, cols);
  omp_set_num_threads(3);  // more threads than this machine's cores: each takes its own run
  const HeldRows held_three = find_held_rows(o.block_ptr, rows, cols);
  const BlockScatter three = block_scatter(layout, o.chain_ptr, rows, cols);
  std::vector<int> interleaved = one.destination;
  const int chains = static_cast<int>(o.chain_ptr.size()) - 1;
  const InterleavedChains at{chains, layout.blocks / chains};
  move_to_interleaved(at, 36, static_cast<long>(layout.slots()), interleaved);
  omp_set_num_threads(threads);
  // Each cable's pin and the two extra pins: three rows each.
  REQUIRE(held.size() == 3 * (150 + 2));
  CHECK(held_three.row == held.row);
  CHECK(held_three.coordinate == held.coordinate);
  CHECK(held_three.entry_ptr == held.entry_ptr);
  CHECK(held_three.entry_slot == held.entry_slot);
  CHECK(held_three.entry_column == held.entry_column);
  REQUIRE_FALSE(one.uncovered.empty());
  CHECK(three.destination == one.destination);
  CHECK(three.uncovered == one.uncovered);
  const long per_array = static_cast<long>(layout.slots());
  long moved = 0;
  for (size_t s = 0; s < interleaved.size(); ++s) {
    const int d = one.destination[s];
    const long expected = d < 0 ? -1 : d / per_array * per_array + at.from_contiguous(d % per_array, 36);
    moved += interleaved[s] == expected;
  }
  CHECK(moved == static_cast<long>(interleaved.size()));
}

// A column whose two entries fall in different threads' runs has two entries, not one in each:
// counted as one, row 1 (its one entry at column 0, in its own block) would be taken for a held
// row, with (0, 1) as its coupling.
TEST_CASE("Held rows: entries of one column in two threads' runs count together", "[chain-solver]") {
  const int positions = 100002;  // diagonal fillers put the entries over the threads' threshold
  std::vector<int> block_ptr;
  for (int p = 0; p <= positions; p += 6) block_ptr.push_back(p);
  std::vector<int> rows{0, 0, 1}, cols{1, 0, 0};
  for (int p = 3; p < positions; ++p) rows.push_back(p), cols.push_back(p);
  rows.push_back(2), cols.push_back(1);  // column 1's second entry, at the far end
  const int threads = omp_get_max_threads();
  for (int t : {1, 3}) {
    omp_set_num_threads(t);
    CHECK(find_held_rows(block_ptr, rows, cols).size() == 0);
    // Without the far entry, row 1 is held: its coordinate 0, its coupling (0, 1).
    std::vector<int> near_rows(rows.begin(), rows.end() - 1), near_cols(cols.begin(), cols.end() - 1);
    const HeldRows held = find_held_rows(block_ptr, near_rows, near_cols);
    REQUIRE(held.size() == 1);
    CHECK(held.row[0] == 1);
    CHECK(held.coordinate[0] == 0);
    CHECK(held.entry_slot[held.entry_ptr[0]] == 0);
  }
  omp_set_num_threads(threads);
}

TEST_CASE("CPU chain elimination with held rows and wider blocks solves as UMFPACK does", "[chain-solver]") {
  SECTION("pinned nodes and ties along a cable") {
    CHECK(solve_difference(with_tied_coordinates(with_pinned_nodes(damped_cable(40), {7, 20, 40}), {0, 8, 31}), 21) <
          1e-9);
  }
  SECTION("a tie on the pinned node: its block 7 wide once its held rows leave") {
    CHECK(solve_difference(with_tied_coordinates(damped_cable(12), {0}), 22) < 1e-9);
  }
}

TEST_CASE("CPU chain elimination with the held rows kept in: the pinned rows in a 9-wide block, as UMFPACK",
          "[chain-solver]") {
  const Model m = with_pinned_nodes(damped_cable(40), {20});
  const BlockChainOrdering o = *block_chain_ordering(m);
  const Eigen::SparseMatrix<double> pattern = umfpack_backend(m).matrix();
  CHECK(ChainSolver(o, pattern, 1).layout().B == 6);
  BackendOptions held_rows_kept;
  held_rows_kept.block_solver.take_out_held_rows = false;
  const int kept_width = ChainSolver(o, pattern, 1, held_rows_kept.block_solver).layout().B;
  const double difference = solve_difference(m, 23, held_rows_kept);
  CHECK(kept_width == 9);
  CHECK(difference < 1e-9);
}

TEST_CASE("CPU chain elimination: HHT runs equal UMFPACK's", "[chain-solver][dynamics]") {
  const Model m = falling_cable_pendulum(10);
  const AnalysisSettings a = dynamic_settings(2e-3, 0.3, -0.1);
  const RunResult reference = run_model_umfpack(m, a);
  CpuBackend chains(m, LinearSolverChoice::ChainElimination);
  const RunResult result = run_model_on(chains, m, a);
  const double worst = largest_difference(reference, result, &StoredFrame::q);
  INFO("largest relative coordinate difference: " << worst);
  CHECK(worst < 1e-9);
}

TEST_CASE("CPU solver choice: chain elimination by default for chains, UMFPACK otherwise and when named",
          "[chain-solver][backend]") {
  const Model beams = rancf_pendulum(21e6);  // joints between nodes: a chain with a border
  CHECK(CpuBackend(beams).linear_solver() == "block chain elimination with a border of 8 unknowns");
  const Model bars = cable_on_boom_with_bars(4, 10, true);  // 11 rigid bodies tied: a border over kMaxBorder
  CHECK_THROWS_WITH(CpuBackend(bars, LinearSolverChoice::ChainElimination),
                    Catch::Contains("block chain elimination needs node blocks") && Catch::Contains("more than 64"));
  CHECK(CpuBackend(bars).linear_solver() == "UMFPACK");
  const Model cable = falling_cable_pendulum(4);
  CHECK(CpuBackend(cable).linear_solver() == "block chain elimination");
  CHECK(CpuBackend(stiffness_sweep_batch(3, 4)).linear_solver() == "block chain elimination");
  CHECK(umfpack_backend(cable).linear_solver() == "UMFPACK");
  const SelectedBackend chosen = make_backend(BackendChoice::Cpu, cable, LinearSolverChoice::ChainElimination);
  CHECK(chosen.notice.empty());
  CHECK(chosen.backend->linear_solver() == "block chain elimination");
  const SelectedBackend other = make_backend(BackendChoice::Cpu, cable, LinearSolverChoice::Krylov);
  CHECK(other.backend->linear_solver() == "UMFPACK");
}

TEST_CASE("CPU chain elimination with a border (rigid bodies, joints between nodes) solves as UMFPACK does",
          "[chain-solver]") {
  SECTION("a 6-element cable on a hinged boom: a border of 16") {
    check_bordered_solve(cable_hanging_from_boom(6), 1, "block chain elimination with a border of 16 unknowns", 21);
  }
  SECTION("a cable on a boom with three more hinged bars: a border of 55") {
    check_bordered_solve(cable_on_boom_with_bars(40, 3), 1, "block chain elimination with a border of 55 unknowns", 22);
  }
  SECTION("planar beams joined between nodes: the joints' rows") {
    check_bordered_solve(rancf_pendulum(21e6), 1, "block chain elimination with a border of 8 unknowns", 23);
  }
  SECTION("a 1,500-element cable on a boom, cut for three threads") {
    check_bordered_solve(cable_hanging_from_boom(1500), 3,
                         "block chain elimination (3 parts) with a border of 16 unknowns", 24);
  }
  SECTION("a sweep of five cranes: each boom a block of its cable's chain, no border") {
    check_bordered_solve(crane_batch(5, 30), 1, "block chain elimination with 5 rigid bodies in the chains", 26);
  }
  SECTION("a sweep of 300 cranes, threads over the chains") {
    check_bordered_solve(crane_batch(300, 5), 2, "block chain elimination with 300 rigid bodies in the chains", 27);
  }
  SECTION("a payload on a 1,500-element cable's last node, the chain cut for three threads") {
    check_bordered_solve(cable_with_payload(1500), 3,
                         "block chain elimination (3 parts) with 1 rigid body in the chains", 28);
  }
  SECTION("ten bars hinged alone: chains of their own block") {
    check_bordered_solve(cable_on_boom_with_bars(20, 10), 1,
                         "block chain elimination with 11 rigid bodies in the chains", 29);
  }
  SECTION("two cranes whose hooks are joined: rigid blocks and a border") {
    check_bordered_solve(cranes_joined_at_the_hook(12), 1,
                         "block chain elimination with 2 rigid bodies in the chains and a border of 3 unknowns", 30);
  }
}

TEST_CASE("CPU chain elimination with a border: a singular Schur complement is reported as the border's",
          "[chain-solver]") {
  // A mechanism row with no entries: the border alone is singular, the blocks are not.
  const Model m = cable_hanging_from_boom(8);
  CpuBackend umfpack = umfpack_backend(m);
  assemble_at_random_state(umfpack, m, 25);
  Eigen::SparseMatrix<double> A = umfpack.matrix();
  const int last_row = m.dof_count() + m.constraint_count() - 1;
  for (int col = 0; col < A.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it)
      if (it.row() == last_row) it.valueRef() = 0.0;
  ChainSolver chains(*bordered_chain_ordering(m), A, 1);
  CHECK_THROWS_WITH(chains.factorize(A),
                    Catch::Contains("Schur complement of the 16 border unknowns") && Catch::Contains("is singular"));
}

TEST_CASE("CPU chain elimination with a border: HHT runs of the cable hung from a crane equal UMFPACK's",
          "[chain-solver][dynamics]") {
  const Model m = crane_falling_cable(40);
  const AnalysisSettings a = dynamic_settings(1e-3, 0.1, -0.2);
  const RunResult reference = run_model_umfpack(m, a);
  CpuBackend chains(m);
  REQUIRE(chains.linear_solver() == "block chain elimination with a border of 16 unknowns");
  const RunResult result = run_model_on(chains, m, a);
  const double worst = largest_difference(reference, result, &StoredFrame::q);
  INFO("largest relative coordinate difference: " << worst);
  CHECK(worst < 1e-9);
}

TEST_CASE(
    "CPU chain elimination with rigid bodies in the chains: HHT runs of a sweep of cranes and of a payload "
    "equal UMFPACK's",
    "[chain-solver][dynamics]") {
  const AnalysisSettings a = dynamic_settings(1e-3, 0.1, -0.2);
  for (const Model& m : {crane_batch(4, 10), cable_with_payload(12)}) {
    const RunResult reference = run_model_umfpack(m, a);
    CpuBackend chains(m);
    INFO(chains.linear_solver());
    CHECK_THAT(chains.linear_solver(), Catch::Contains("in the chains"));
    const RunResult result = run_model_on(chains, m, a);
    const double worst = largest_difference(reference, result, &StoredFrame::q);
    INFO("largest relative coordinate difference: " << worst);
    CHECK(worst < 1e-9);
  }
}

TEST_CASE("CPU chain elimination cut into parts for threads solves as UMFPACK does", "[chain-solver]") {
  const Model cable = damped_cable(1500);  // 1,501 blocks: at most five parts of 256 blocks
  SECTION("two threads: head and tail, eliminated towards each other") { check_cut_solve(cable, 2, 2, 11); }
  SECTION("three threads: an interior part between two separators") { check_cut_solve(cable, 3, 3, 12); }
  SECTION("sixteen threads: five parts (three interior), none under 256 blocks") {
    check_cut_solve(cable, 16, 5, 13);
  }
  SECTION("held rows (pinned nodes) and 7-wide blocks (ties) at every separator and inside every part") {
    const std::vector<int> separators =
        ChainSolver(*block_chain_ordering(cable), umfpack_backend(cable).matrix(), 5).partition().separators();
    REQUIRE(separators.size() == 4);
    std::vector<int> pinned = separators;
    for (int s : separators) pinned.push_back(s - 1), pinned.push_back(s + 1), pinned.push_back(s - 100);
    pinned.push_back(1400);
    check_cut_solve(with_pinned_nodes(cable, pinned), 5, 5, 14);
    check_cut_solve(with_tied_coordinates(cable, pinned), 5, 5, 18);
  }
  SECTION("three chains, seven threads: two parts each") { check_cut_solve(stiffness_sweep_batch(3, 600), 7, 6, 15); }
  SECTION("one thread: no cuts") { check_cut_solve(cable, 1, 1, 16); }
}

TEST_CASE("CPU chain elimination cut for three threads: HHT runs equal UMFPACK's", "[chain-solver][dynamics]") {
  const Model m = damped_cable(1100);  // over the thousand blocks below which the solver plans one thread
  const AnalysisSettings a = dynamic_settings(1e-3, 0.02, -0.1);
  const RunResult reference = run_model_umfpack(m, a);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(3);
  CpuBackend chains(m, LinearSolverChoice::ChainElimination);
  const RunResult result = run_model_on(chains, m, a);
  omp_set_num_threads(threads);
  REQUIRE(chains.linear_solver() == "block chain elimination (3 parts)");
  // Velocities: the coordinates' differences would drown in the cable's 110 m positions.
  const double worst = largest_difference(reference, result, &StoredFrame::v);
  INFO("largest relative velocity difference: " << worst);
  CHECK(worst < 1e-9);
}

TEST_CASE("CPU chain elimination cut into parts reports a singular block where it is", "[chain-solver]") {
  const Model cable = damped_cable(1500);
  CpuBackend umfpack = umfpack_backend(cable);
  assemble_at_random_state(umfpack, cable, 17);
  const BlockChainOrdering order = *block_chain_ordering(cable);
  ChainSolver cut(order, umfpack.matrix(), 3);
  const std::vector<int>& separators = cut.partition().separators();
  REQUIRE(separators.size() == 2);
  // A zero column (a coordinate of the block's node) in the head, the interior part, the tail and
  // at a separator, whose Schur complement is then singular.
  for (int block : {100, separators[0] + 10, separators[1] + 10, separators[1]}) {
    INFO("block " << block);
    Eigen::SparseMatrix<double> A = umfpack.matrix();
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, order.original_of[order.block_ptr[block] + 1]); it; ++it)
      it.valueRef() = 0.0;
    CHECK_THROWS_WITH(cut.factorize(A), Catch::Contains("block " + std::to_string(block) + " is singular"));
  }
}
