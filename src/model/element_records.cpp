// Element records shared between elements of equal values (model/element_records.hpp).
#include "catenary/model/element_records.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "catenary/core/environment.hpp"

namespace catenary {

namespace {

constexpr size_t kMassValues = 16, kShapeIntegrals = 4;
constexpr size_t kRecordBytes = sizeof(ElementProperties) + sizeof(ReferenceQuadrature) + kMassValues * sizeof(double);

// Element e's record as bytes: properties, quadrature, scalar mass.
std::string record_bytes(const ElementBlock& el, int e) {
  std::string bytes(kRecordBytes, '\0');
  char* at = bytes.data();
  std::memcpy(at, &el.properties[e], sizeof(ElementProperties));
  std::memcpy(at + sizeof(ElementProperties), &el.quadrature[e], sizeof(ReferenceQuadrature));
  std::memcpy(at + sizeof(ElementProperties) + sizeof(ReferenceQuadrature), &el.scalar_mass[kMassValues * size_t(e)],
              kMassValues * sizeof(double));
  return bytes;
}

// v to the nearest multiple of 2^-kRecordSnapBits of its binary magnitude (frexp: v = m 2^x with
// 0.5 <= |m| < 1, so the grid is 2^(x - 1 - kRecordSnapBits)); +-0, infinities and NaN as they are.
double snapped(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v;
  int exponent = 0;
  std::frexp(v, &exponent);
  const double grid = std::ldexp(1.0, exponent - 1 - kRecordSnapBits);
  return std::nearbyint(v / grid) * grid;
}

}  // namespace

void share_close_element_records(ElementBlock& el) {
  std::unordered_map<std::string, int> first_of;
  for (int e = 0; e < el.size(); ++e) {
    std::string key = record_bytes(el, e);
    for (size_t i = 0; i < kRecordBytes; i += sizeof(double)) {
      double v;
      std::memcpy(&v, key.data() + i, sizeof v);
      v = snapped(v);
      std::memcpy(key.data() + i, &v, sizeof v);
    }
    const auto [at, added] = first_of.emplace(std::move(key), e);
    if (added) continue;
    const int r = at->second;
    el.properties[e] = el.properties[r];
    el.quadrature[e] = el.quadrature[r];
    std::copy_n(&el.scalar_mass[kMassValues * r], kMassValues, &el.scalar_mass[kMassValues * e]);
    std::copy_n(&el.shape_integrals[kShapeIntegrals * r], kShapeIntegrals, &el.shape_integrals[kShapeIntegrals * e]);
  }
}

SharedElementRecords shared_element_records(const ElementBlock& el) {
  SharedElementRecords out;
  out.record_of.resize(el.size());
  std::unordered_map<std::string, int> number_of;
  for (int e = 0; e < el.size(); ++e) {
    const auto [at, added] = number_of.emplace(record_bytes(el, e), out.count());
    out.record_of[e] = at->second;
    if (!added) continue;
    out.properties.push_back(el.properties[e]);
    out.quadrature.push_back(el.quadrature[e]);
    out.scalar_mass.insert(out.scalar_mass.end(), &el.scalar_mass[kMassValues * size_t(e)],
                           &el.scalar_mass[kMassValues * size_t(e) + kMassValues]);
  }
  return out;
}

bool reads_shared_records(int records, int elements) {
  return 4L * records <= elements && !switched_off("CATENARY_SHARED_RECORDS");
}

}  // namespace catenary
