// Element records shared between elements of equal values (model/element_records.hpp).
#include "catenary/model/element_records.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>


namespace catenary {

namespace {

constexpr size_t kMassValues = 16, kShapeIntegrals = 4;
constexpr size_t kRecordValues = (sizeof(ElementProperties) + sizeof(ReferenceQuadrature)) / sizeof(double) + kMassValues;

// Element e's record as the bits of its values (properties, quadrature, scalar mass): a key
// without a heap allocation, equal where the values are equal bit for bit.
struct RecordKey {
  std::array<std::uint64_t, kRecordValues> bits;
  bool operator==(const RecordKey& o) const { return bits == o.bits; }
};
struct RecordKeyHash {
  size_t operator()(const RecordKey& k) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the values' words
    for (std::uint64_t word : k.bits) h = (h ^ word) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

RecordKey record_key(const ElementBlock& el, int e) {
  RecordKey key;
  char* at = reinterpret_cast<char*>(key.bits.data());
  std::memcpy(at, &el.properties[e], sizeof(ElementProperties));
  std::memcpy(at + sizeof(ElementProperties), &el.quadrature[e], sizeof(ReferenceQuadrature));
  std::memcpy(at + sizeof(ElementProperties) + sizeof(ReferenceQuadrature), &el.scalar_mass[kMassValues * size_t(e)],
              kMassValues * sizeof(double));
  return key;
}

// The double of these bits to the nearest multiple (ties away from zero) of 2^-kRecordSnapBits of
// its binary magnitude: its 52-bit fraction rounded to kRecordSnapBits bits, a carry going on into
// the exponent (0.99999999999999956 becomes 1). +-0, infinities and NaN as they are. On the bits:
// frexp, ldexp and a division for each of 37,000,000 values took 0.4 s at 1,000,000 elements.
std::uint64_t snapped(std::uint64_t bits) {
  constexpr int kDropped = 52 - kRecordSnapBits;
  constexpr std::uint64_t kSign = 1ull << 63, kInfinity = 0x7ffull << 52;
  const std::uint64_t magnitude = bits & ~kSign;
  if (magnitude == 0 || magnitude >= kInfinity) return bits;
  const std::uint64_t rounded = (magnitude + (1ull << (kDropped - 1))) & ~((1ull << kDropped) - 1);
  return (bits & kSign) | rounded;
}

}  // namespace

void share_close_element_records(ElementBlock& el) {
  std::unordered_map<RecordKey, int, RecordKeyHash> first_of;
  for (int e = 0; e < el.size(); ++e) {
    RecordKey key = record_key(el, e);
    for (std::uint64_t& word : key.bits) word = snapped(word);
    const auto [at, added] = first_of.emplace(key, e);
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
  std::unordered_map<RecordKey, int, RecordKeyHash> number_of;
  for (int e = 0; e < el.size(); ++e) {
    const auto [at, added] = number_of.emplace(record_key(el, e), out.count());
    out.record_of[e] = at->second;
    if (!added) continue;
    out.properties.push_back(el.properties[e]);
    out.quadrature.push_back(el.quadrature[e]);
    out.scalar_mass.insert(out.scalar_mass.end(), &el.scalar_mass[kMassValues * size_t(e)],
                           &el.scalar_mass[kMassValues * size_t(e) + kMassValues]);
  }
  return out;
}

bool reads_shared_records(int records, int elements, bool allowed) {
  return allowed && 4L * records <= elements;
}

}  // namespace catenary
