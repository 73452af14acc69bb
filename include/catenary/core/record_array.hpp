#pragma once
// Per-element records of doubles (an element's properties, its reference quadrature, its 4 x 4
// scalar mass) read through strides, so that the element math reads them the same way from
// either of two layouts:
//   element-major: record e's fields together (base[e * F + f]), as Model holds them and the CPU
//                  reads them, one element after another;
//   field-major:   field f of all elements together (base[f * count + e]), as the CUDA backend
//                  holds them. A warp's threads take consecutive elements, so each field is one
//                  coalesced load of 256 bytes. Element-major, the 32 lanes of a load touch up to
//                  32 cache lines (a 128-byte quadrature record each), and the L1 serves a load
//                  one line at a time.
#include <cstring>
#include <type_traits>
#include <vector>

#include "catenary/core/host_device.hpp"

namespace catenary {

// Value f at first[f * stride].
struct StridedValues {
  const double* first;
  long stride;
  CATENARY_HD double operator[](long f) const { return first[f * stride]; }
};

// Value f at first[f * stride], to be written.
struct StridedSlots {
  double* first;
  long stride;
  CATENARY_HD double& operator[](long f) const { return first[f * stride]; }
};

// Record e's field f at base[e * record_stride + f * field_stride]; with record_of, element e's
// record is record_of[e] (records shared between elements, model/element_records.hpp).
struct RecordArray {
  const double* base = nullptr;
  long record_stride = 0, field_stride = 0;
  const int* record_of = nullptr;

  CATENARY_HD StridedValues operator[](long e) const {
    const long r = record_of ? record_of[e] : e;
    return {base + r * record_stride, field_stride};
  }
};

// Records of `fields` doubles each, stored one record after another.
inline RecordArray element_major(const double* base, int fields) { return {base, fields, 1}; }
// Records stored field by field, `count` of them; element e's is record_of[e] where given.
inline RecordArray field_major(const double* base, long count, const int* record_of = nullptr) {
  return {base, 1, count, record_of};
}

// The field-major copy of `count` element-major records of `fields` doubles.
inline std::vector<double> to_field_major(const double* records, long count, int fields) {
  std::vector<double> out(static_cast<size_t>(count) * fields);
  for (long e = 0; e < count; ++e)
    for (int f = 0; f < fields; ++f) out[static_cast<size_t>(f) * count + e] = records[e * fields + f];
  return out;
}

// Records of doubles as their values, element-major.
template <class Record>
std::vector<double> element_major_values(const std::vector<Record>& records) {
  static_assert(std::is_trivially_copyable<Record>::value && sizeof(Record) % sizeof(double) == 0,
                "a record of doubles");
  std::vector<double> values(records.size() * (sizeof(Record) / sizeof(double)));
  if (!records.empty()) memcpy(values.data(), records.data(), values.size() * sizeof(double));
  return values;
}

// The field-major copy of a vector of records of doubles.
template <class Record>
std::vector<double> to_field_major(const std::vector<Record>& records) {
  return to_field_major(element_major_values(records).data(), static_cast<long>(records.size()),
                        sizeof(Record) / sizeof(double));
}

}  // namespace catenary
