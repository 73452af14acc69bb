#include "catenary/solve/block_chain.hpp"

namespace catenary {

std::string chain_order_details(int rigid_blocks, int border) {
  const std::string rigid = rigid_blocks == 1  ? "1 rigid body in the chains"
                            : rigid_blocks > 1 ? std::to_string(rigid_blocks) + " rigid bodies in the chains"
                                               : "";
  const std::string bordered = border > 0 ? "a border of " + std::to_string(border) + " unknowns" : "";
  if (rigid.empty() && bordered.empty()) return "";
  return " with " + rigid + (rigid.empty() || bordered.empty() ? "" : " and ") + bordered;
}

}  // namespace catenary
