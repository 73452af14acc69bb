#pragma once
// Big host arrays zeroed by the OpenMP threads that later use them.
//
// A page of a new array is faulted in (zeroed by the kernel and, on a multi-socket node, placed
// on the faulting thread's memory) at its first write. std::vector's value-initialization makes
// that write on the constructing thread: one core zeroes every page, and on a two-socket node
// every page lands on one socket. The CPU backend's element and assembly loops share their arrays
// out by OpenMP's static schedule; zeroing with the same schedule first makes each thread fault in
// the pages it will use. (The static schedule gives the same iterations to the same threads in two
// loops of equal trip count and thread count: OpenMP 4.5, 2.7.1.)
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "catenary/core/parallel_walks.hpp"

namespace catenary {

// std::allocator whose resize leaves new elements default-initialized (no write for
// arithmetic types), so the first write is zero_in_parallel's.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using FirstTouchVector = std::vector<T, DefaultInitAllocator<T>>;

// Zeroes data[0 .. pieces * piece_size) in pieces of piece_size entries, the pieces shared out
// by the static schedule of a loop over `pieces` iterations (e.g. elements, piece_size the
// entries of one element's local matrix). Small arrays, whose pages do not matter, take one thread.
template <class T>
void zero_in_parallel(T* data, std::ptrdiff_t pieces, std::ptrdiff_t piece_size = 1) {
#pragma omp parallel for schedule(static) if (pieces * piece_size >= kParallelEntries)
  for (std::ptrdiff_t p = 0; p < pieces; ++p) std::fill(data + p * piece_size, data + (p + 1) * piece_size, T{});
}

// v with pieces * piece_size zeroes, written as zero_in_parallel writes them.
template <class T>
void assign_zeros_in_parallel(FirstTouchVector<T>& v, std::ptrdiff_t pieces, std::ptrdiff_t piece_size = 1) {
  FirstTouchVector<T>().swap(v);  // a fresh allocation: pages not yet touched
  v.resize(static_cast<size_t>(pieces * piece_size));
  zero_in_parallel(v.data(), pieces, piece_size);
}

}  // namespace catenary
