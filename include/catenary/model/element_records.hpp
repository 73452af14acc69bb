#pragma once
// The element records an element pass reads (properties, reference quadrature, 4 x 4 scalar
// mass: 44 doubles, 352 bytes an element), shared between the elements that hold the same ones.
// A cable of one section has a few records for all its elements (3 for the 100-element falling
// cable, 2,348 for 1,000,000 elements: a value on a rounding boundary splits a record), a sweep of
// identical cables the same few, one over a material parameter about one a copy: a pass then
// reads a 4-byte record number an element and the few records from the cache, where one record
// an element is more than half of a forces pass's bytes (352 of about 600 an element with the
// mass term).
//
// Elements of one section are equal only to the rounding of their node positions: the reference
// quadrature comes from e_ref, whose differences along a cable round differently at each node
// (g0 = 0.99999999999999956 at one element of the 10 m falling cable, 1.0000000000000004 at the
// next). finalize_model therefore gives every element whose record is the same to 2^-40 of each
// value (9e-13: 20 to 1,000 times that rounding on a 10 m cable) the record of the first
// such element (share_close_element_records), for every backend alike; the backends then find
// the shared records bit for bit (shared_element_records).
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

// Relative closeness of two records' values that finalize_model takes for the same record.
constexpr int kRecordSnapBits = 40;

// Each element whose record (properties, reference quadrature, scalar mass, and with them its
// shape integrals) rounds to the same as an earlier element's, each value to the nearest multiple
// (ties away from zero) of 2^-kRecordSnapBits of its binary magnitude, takes that earlier
// element's record. Values a
// rounding apart across a power of two (0.99999999999999956 and 1.0000000000000004) round alike.
void share_close_element_records(ElementBlock& elements);

struct SharedElementRecords {
  std::vector<int> record_of;  // per element, its record's number
  // The distinct records, element-major in the model's layouts (record r at r * fields).
  std::vector<ElementProperties> properties;
  std::vector<ReferenceQuadrature> quadrature;
  std::vector<double> scalar_mass;  // 16 a record
  int count() const { return static_cast<int>(properties.size()); }
};

// The distinct records of the model's elements, numbered in the order of their first element
// (equal: bit for bit, so that a shared record gives each element exactly its own numbers).
SharedElementRecords shared_element_records(const ElementBlock& elements);

// Whether a backend reads the records shared: where they are at most a quarter of the elements
// (the record numbers cost 4 bytes an element) and sharing is allowed (BackendOptions).
bool reads_shared_records(int records, int elements, bool allowed = true);

}  // namespace catenary
