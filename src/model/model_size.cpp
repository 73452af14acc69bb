#include "catenary/model/model_size.hpp"

#include <vector>

namespace catenary {

namespace {

template <class T>
std::size_t bytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

std::size_t model_array_bytes(const Model& m) {
  const ElementBlock& e = m.elements;
  std::size_t total = bytes(m.reference_coordinates) + bytes(m.initial_positions) + bytes(m.initial_velocities) +
                      bytes(m.node_length_scale) + bytes(e.node_a) + bytes(e.node_b) + bytes(e.properties) +
                      bytes(e.reference) + bytes(e.scalar_mass) + bytes(e.shape_integrals) + bytes(e.quadrature);
  for (const ConstraintRow& row : m.constraint_rows) total += sizeof row + bytes(row.dofs) + bytes(row.coefficients);
  return total;
}

}  // namespace catenary
