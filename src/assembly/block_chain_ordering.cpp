#include "catenary/assembly/block_chain_ordering.hpp"

#include <algorithm>
#include <cstdlib>

#include "catenary/model/multibody_layout.hpp"

namespace catenary {

namespace {

std::optional<BlockChainOrdering> refuse(std::string* why, const std::string& reason) {
  if (why) *why = reason;
  return std::nullopt;
}

// The first node whose block (its coordinates and rows_of_node[n]) exceeds kMaxChainBlock unknowns,
// as a reason; empty if none.
std::string oversized_node_block(const Model& m, const std::vector<std::vector<int>>& rows_of_node) {
  for (int n = 0; n < m.node_count; ++n)
    if (m.coordinates_per_node() + static_cast<int>(rows_of_node[n].size()) > kMaxChainBlock)
      return "node " + std::to_string(n) + " carries " + std::to_string(rows_of_node[n].size()) +
             " constraint rows, more than a block of " + std::to_string(kMaxChainBlock) + " unknowns holds";
  return {};
}

// Appends node n's block to o: its coordinates, then the unknowns rows_of_node[n].
void add_node_block(const Model& m, int n, const std::vector<int>& rows, BlockChainOrdering& o) {
  for (int k = 0; k < m.coordinates_per_node(); ++k) o.original_of.push_back(n * m.coordinates_per_node() + k);
  o.original_of.insert(o.original_of.end(), rows.begin(), rows.end());
  o.block_ptr.push_back(static_cast<int>(o.original_of.size()));
}

// The first element that joins nodes which are not consecutive, as a reason; empty if none.
std::string nonconsecutive_element(const Model& m) {
  for (int e = 0; e < m.elements.size(); ++e)
    if (std::abs(m.elements.node_b[e] - m.elements.node_a[e]) != 1)
      return "element " + std::to_string(e) + " joins nodes " + std::to_string(m.elements.node_a[e]) + " and " +
             std::to_string(m.elements.node_b[e]) + ", which are not consecutive";
  return {};
}

// joined[n]: an element joins node n to node n + 1 (otherwise node n + 1 starts a new chain).
std::vector<char> joined_to_next(const Model& m) {
  std::vector<char> joined(m.node_count, 0);
  for (int e = 0; e < m.elements.size(); ++e) joined[std::min(m.elements.node_a[e], m.elements.node_b[e])] = 1;
  return joined;
}

// What each mechanism row and each rigid body reaches (bodies, nodes; no repeats), from the
// mechanism's Newton-matrix entries (multibody_layout).
struct MechanismReach {
  std::vector<std::vector<int>> row_bodies, row_nodes, body_nodes;
  std::vector<char> body_coupled;  // to another body, or through a row over several bodies or nodes
  bool reaches_first_node_only() const {
    for (const auto* nodes : {&row_nodes, &body_nodes})
      for (const std::vector<int>& n : *nodes)
        if (n.size() > 1 || (n.size() == 1 && n[0] != 0)) return false;
    return true;
  }
};

MechanismReach mechanism_reach(const Model& m, const std::vector<std::pair<int, int>>& mechanism_entries) {
  const int per_node = m.coordinates_per_node(), node_dofs = m.node_dof_count(), dofs = m.dof_count();
  const int bodies = static_cast<int>(m.mechanism.bodies.size()), rows = m.mechanism.row_count();
  const int first_row = dofs + m.linear_constraint_count();
  MechanismReach reach;
  reach.row_bodies.resize(rows);
  reach.row_nodes.resize(rows);
  reach.body_nodes.resize(bodies);
  reach.body_coupled.assign(bodies, 0);
  const auto body_of = [&](int d) { return d >= node_dofs && d < dofs ? (d - node_dofs) / 7 : -1; };
  const auto add = [](std::vector<int>& set, int v) {
    if (std::find(set.begin(), set.end(), v) == set.end()) set.push_back(v);
  };
  for (auto [row, col] : mechanism_entries) {
    if (col >= first_row) std::swap(row, col);
    if (row >= first_row) {  // a mechanism row's term on a coordinate
      if (col >= dofs) continue;
      if (body_of(col) >= 0)
        add(reach.row_bodies[row - first_row], body_of(col));
      else
        add(reach.row_nodes[row - first_row], col / per_node);
    } else if (row < dofs && col < dofs) {  // a force term between coordinates
      const int a = body_of(row), b = body_of(col);
      if (a >= 0 && b >= 0 && a != b) reach.body_coupled[a] = reach.body_coupled[b] = 1;
      if (a >= 0 && b < 0) add(reach.body_nodes[a], col / per_node);
      if (b >= 0 && a < 0) add(reach.body_nodes[b], row / per_node);
    }
  }
  for (int r = 0; r < rows; ++r)
    if (reach.row_bodies[r].size() != 1 || reach.row_nodes[r].size() > 1)
      for (int b : reach.row_bodies[r]) reach.body_coupled[b] = 1;
    else if (reach.row_nodes[r].size() == 1)
      add(reach.body_nodes[reach.row_bodies[r][0]], reach.row_nodes[r][0]);
  return reach;
}

// Where the mechanism goes in the chain order. With in_chains, a body whose terms reach no other
// body and at most one cable node, the first or last of its chain, joins that chain as a block of
// its own at that end: its 7 coordinates and the rows on it alone (joints to the ground, its
// normalization); the rows between it and the node (the attachment) join the node's block. A body
// on no cable is a chain of its own block. The rest (all of it without in_chains) is the border.
struct RigidPlacement {
  std::vector<std::vector<int>> own_rows;      // per body, if in a block: its block's rows (unknowns)
  std::vector<std::vector<int>> rows_of_node;  // per node: attachment rows (unknowns) in its block
  std::vector<int> before_chain, after_chain;  // per chain: the body at its first / last end, or -1
  std::vector<int> alone, border_bodies, border_rows;
};

// Unknowns are matrix positions: coordinate d is d, constraint row r is dof_count + r.
RigidPlacement place_rigid_bodies(const Model& m, const MechanismReach& reach, const std::vector<int>& chain_first,
                                  bool in_chains) {
  const int bodies = static_cast<int>(m.mechanism.bodies.size()), rows = m.mechanism.row_count();
  const int first_row = m.dof_count() + m.linear_constraint_count(), chains = static_cast<int>(chain_first.size()) - 1;
  const auto& row_bodies = reach.row_bodies;
  const auto& row_nodes = reach.row_nodes;
  RigidPlacement out;
  out.own_rows.resize(bodies);
  out.rows_of_node.resize(m.node_count);
  out.before_chain.assign(chains, -1);
  out.after_chain.assign(chains, -1);
  std::vector<int> chain_of_node(m.node_count);
  for (int c = 0; c < chains; ++c)
    std::fill(chain_of_node.begin() + chain_first[c], chain_of_node.begin() + chain_first[c + 1], c);
  std::vector<int> own_row_count(bodies, 0);
  for (int r = 0; r < rows; ++r)
    if (row_bodies[r].size() == 1 && row_nodes[r].empty()) ++own_row_count[row_bodies[r][0]];
  std::vector<char> in_block(bodies, 0);
  for (int b = 0; b < bodies && in_chains; ++b) {
    const std::vector<int>& nodes = reach.body_nodes[b];
    if (reach.body_coupled[b] || nodes.size() > 1 || 7 + own_row_count[b] > kMaxChainBlock) continue;
    if (nodes.empty()) {
      out.alone.push_back(b);
    } else {
      const int n = nodes[0], c = chain_of_node[n];
      if (n == chain_first[c] && out.before_chain[c] < 0)
        out.before_chain[c] = b;
      else if (n == chain_first[c + 1] - 1 && out.after_chain[c] < 0)
        out.after_chain[c] = b;
      else
        continue;
    }
    in_block[b] = 1;
  }
  for (int r = 0; r < rows; ++r) {
    const bool blocked = row_bodies[r].size() == 1 && in_block[row_bodies[r][0]];
    if (!blocked)
      out.border_rows.push_back(first_row + r);
    else if (row_nodes[r].empty())
      out.own_rows[row_bodies[r][0]].push_back(first_row + r);
    else
      out.rows_of_node[row_nodes[r][0]].push_back(first_row + r);
  }
  for (int b = 0; b < bodies; ++b)
    if (!in_block[b]) out.border_bodies.push_back(b);
  return out;
}

}  // namespace

std::optional<BlockChainOrdering> node_block_ordering(const Model& m, std::string* why) {
  if (!m.mechanism.empty()) return refuse(why, "the model has rigid bodies");
  if (m.node_count == 0) return refuse(why, "the model has no nodes");
  const int per_node = m.coordinates_per_node();
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse(why, "constraint row " + std::to_string(r) + " has no coordinates");
    rows_of_node[*std::min_element(d.begin(), d.end()) / per_node].push_back(m.dof_count() + r);
  }
  if (const std::string oversized = oversized_node_block(m, rows_of_node); !oversized.empty())
    return refuse(why, oversized);
  BlockChainOrdering o;
  o.block_ptr.push_back(0);
  for (int n = 0; n < m.node_count; ++n) add_node_block(m, n, rows_of_node[n], o);
  return o;
}

std::optional<BlockChainOrdering> bordered_chain_ordering(const Model& m, std::string* why) {
  if (m.node_count == 0) return refuse(why, "the model has no nodes");
  if (const std::string element = nonconsecutive_element(m); !element.empty()) return refuse(why, element);
  const int per_node = m.coordinates_per_node(), node_dofs = m.node_dof_count(), dofs = m.dof_count();
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  std::vector<int> rows_over_nodes;
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse(why, "constraint row " + std::to_string(r) + " has no coordinates");
    const int node = d.front() / per_node;
    const bool one_node =
        std::all_of(d.begin(), d.end(), [&](int dof) { return dof < node_dofs && dof / per_node == node; });
    if (one_node)
      rows_of_node[node].push_back(dofs + r);
    else
      rows_over_nodes.push_back(dofs + r);
  }
  const std::vector<char> joined = joined_to_next(m);
  std::vector<int> chain_first{0};  // first node of each chain, then node_count
  for (int n = 0; n + 1 < m.node_count; ++n)
    if (!joined[n]) chain_first.push_back(n + 1);
  chain_first.push_back(m.node_count);
  const int chains = static_cast<int>(chain_first.size()) - 1;

  std::vector<std::pair<int, int>> mechanism_entries;
  if (!m.mechanism.empty()) mechanism_entries = multibody_layout(m).entries;
  // A border that reaches no node but the first costs the block solvers no pass per factorization
  // and one per solve (CsrSolver::solve_correcting_leading_block), cheaper than widening every
  // block to a body's (a crane's cable, CPU, 16,384 elements: 8.9 against 12.2 ms a factorization).
  // Elsewhere (a sweep of cranes, a payload on a cable's end) each pass of a border costs a solve.
  const MechanismReach reach = mechanism_reach(m, mechanism_entries);
  const size_t whole_border = m.mechanism.body_coordinate_count() + m.mechanism.row_count() + rows_over_nodes.size();
  const bool in_chains = !(rows_over_nodes.empty() && reach.reaches_first_node_only() && whole_border <= kMaxBorder);
  const RigidPlacement rigid = place_rigid_bodies(m, reach, chain_first, in_chains);
  for (int n = 0; n < m.node_count; ++n)
    rows_of_node[n].insert(rows_of_node[n].end(), rigid.rows_of_node[n].begin(), rigid.rows_of_node[n].end());
  if (const std::string oversized = oversized_node_block(m, rows_of_node); !oversized.empty())
    return refuse(why, oversized);

  BlockChainOrdering o;
  o.block_ptr.push_back(0);
  o.chain_ptr.push_back(0);
  const auto add_body_block = [&](int b) {
    for (int k = 0; k < 7; ++k) o.original_of.push_back(node_dofs + 7 * b + k);
    o.original_of.insert(o.original_of.end(), rigid.own_rows[b].begin(), rigid.own_rows[b].end());
    o.block_ptr.push_back(static_cast<int>(o.original_of.size()));
    ++o.rigid_blocks;
  };
  for (int c = 0; c < chains; ++c) {
    if (rigid.before_chain[c] >= 0) add_body_block(rigid.before_chain[c]);
    for (int n = chain_first[c]; n < chain_first[c + 1]; ++n) add_node_block(m, n, rows_of_node[n], o);
    if (rigid.after_chain[c] >= 0) add_body_block(rigid.after_chain[c]);
    o.chain_ptr.push_back(static_cast<int>(o.block_ptr.size()) - 1);
  }
  for (int b : rigid.alone) {
    add_body_block(b);
    o.chain_ptr.push_back(static_cast<int>(o.block_ptr.size()) - 1);
  }

  std::vector<int> border;
  for (int b : rigid.border_bodies)
    for (int k = 0; k < 7; ++k) border.push_back(node_dofs + 7 * b + k);
  border.insert(border.end(), rows_over_nodes.begin(), rows_over_nodes.end());
  border.insert(border.end(), rigid.border_rows.begin(), rigid.border_rows.end());
  if (static_cast<int>(border.size()) > kMaxBorder)
    return refuse(why, "rigid bodies and rows over several nodes make a border of " + std::to_string(border.size()) +
                           " unknowns, more than " + std::to_string(kMaxBorder));
  // The mechanism's terms between cable nodes (a spring between two attached nodes) must stay
  // inside the block tridiagonal.
  for (const auto& [row, col] : mechanism_entries) {
    if (row >= node_dofs || col >= node_dofs) continue;
    const int a = std::min(row, col) / per_node, b = std::max(row, col) / per_node;
    if (b - a > 1 || (b == a + 1 && !joined[a]))
      return refuse(why, "the mechanism couples nodes " + std::to_string(a) + " and " + std::to_string(b) +
                             ", which are not neighbours in one chain");
  }
  o.original_of.insert(o.original_of.end(), border.begin(), border.end());
  return o;
}

std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why) {
  if (!m.mechanism.empty()) return refuse(why, "the model has rigid bodies");
  const int per_node = m.coordinates_per_node();
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs)
      if (dof / per_node != m.constraint_rows[r].dofs.front() / per_node)
        return refuse(why, "constraint row " + std::to_string(r) + " couples two nodes");
  return bordered_chain_ordering(m, why);  // no border left to put
}

}  // namespace catenary
