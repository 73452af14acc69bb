#pragma once
// The order in which the Newton matrix of a chain model is block-tridiagonal: node by node, each
// node's 2D coordinates followed by the constraint rows that touch only that node, so that
// block k couples only with blocks k - 1 and k + 1 (the element between consecutive nodes).
// Cables and beams built by the builders number their nodes along the chain, several cables one
// after the other (a sweep's copies too: their blocks simply do not couple), which makes this the
// natural order for a block cyclic reduction (kernels/block_tridiagonal_solver.cu).
//
// A rigid body hung on one end of a chain (a crane's boom holding a cable, a payload on a tether's
// end) is a block of that chain: its coordinates and its rows to the ground, the attachment's rows
// joining the node's block. So each copy of a sweep of cranes is one chain, and the copies do not
// couple. A bordered order puts the few unknowns that still break the chains after the blocks:
// bodies coupled to other bodies or to inner nodes, constraint rows over several nodes (joints
// between beams, node hinges) and the mechanism's rows among them. The matrix is then
// block-tridiagonal with a border, [T B; C E], which kernels/bordered_solver.cu solves by the
// border's Schur complement over the block solver of T.
#include <optional>
#include <string>
#include <vector>

#include "catenary/model/model.hpp"
#include "catenary/solve/block_chain.hpp"

namespace catenary {

// The ordering, or none with the reason in why: an element between nodes that are not
// consecutive, a constraint row over several nodes, a block over kMaxChainBlock unknowns, or
// rigid bodies.
std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why = nullptr);

// The chain order, rigid bodies at chain ends among the blocks, with a border of at most kMaxBorder
// unknowns (other rigid bodies' coordinates, rows over several nodes, the mechanism's rows), or none with the reason in
// why: an element between nodes that are not consecutive, a block over kMaxChainBlock unknowns, a larger border, or a
// mechanism's term between the coordinates of nodes that are not neighbours in one chain.
std::optional<BlockChainOrdering> bordered_chain_ordering(const Model& m, std::string* why = nullptr);

// The same node blocks for any model without rigid bodies, a row over several nodes joining
// the block of its lowest node: the blocks of a block-Jacobi preconditioner (the matrix is then
// block-sparse rather than block-tridiagonal).
std::optional<BlockChainOrdering> node_block_ordering(const Model& m, std::string* why = nullptr);

}  // namespace catenary
