#pragma once
// Vectors between the device and ordinary host memory through page-locked (pinned) buffers.
//
// A copy to or from pageable host memory goes through the driver's own small pinned buffer one
// piece after another: 3.5 ms for a 48 MB vector (6,000,000 doubles, the 1,000,000-element cable's)
// on an H200's host, against 0.88 ms into pinned memory (PCIe 5 x16; scripts/transfer_benchmark.cu;
// docs/performance.md, Output frames). Here the device copies pieces into two pinned buffers of our
// own at the link's rate, and the host threads copy each piece on to (or from) its destination
// while the next one travels: 1.6 ms. An output frame downloads four such vectors. Every call waits
// for its copies: the host's vector is complete on return, as with thrust::copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "catenary/core/parallel_copy.hpp"
#include "memory_space.cuh"

namespace catenary::cuda {

class PinnedStaging {
 public:
  PinnedStaging() = default;
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;
  ~PinnedStaging() {
    for (int b = 0; b < 2; ++b) {
      if (buffer_[b]) cudaFreeHost(buffer_[b]);
      if (done_[b]) cudaEventDestroy(done_[b]);
    }
  }

  void to_host(const double* device, double* host, size_t count) {
    if (count == 0) return;
    reserve(count);
    const size_t pieces = (count + capacity_ - 1) / capacity_;
    const auto fetch = [&](size_t k) {
      check_cuda(cudaMemcpyAsync(buffer_[k % 2], device + k * capacity_, piece_size(k, count) * sizeof(double),
                                 cudaMemcpyDeviceToHost, 0),
                 "copying a vector to the host");
      check_cuda(cudaEventRecord(done_[k % 2], 0), "recording a copy's end");
    };
    fetch(0);
    for (size_t k = 0; k < pieces; ++k) {
      if (k + 1 < pieces) fetch(k + 1);  // into the other buffer, whose piece the host has copied on
      check_cuda(cudaEventSynchronize(done_[k % 2]), "copying a vector to the host");
      copy_in_parallel(buffer_[k % 2], host + k * capacity_, piece_size(k, count));
    }
  }

  void to_device(const double* host, double* device, size_t count) {
    if (count == 0) return;
    reserve(count);
    const size_t pieces = (count + capacity_ - 1) / capacity_;
    for (size_t k = 0; k < pieces; ++k) {
      // The buffer's previous piece (k - 2) must have left before it is overwritten.
      if (k >= 2) check_cuda(cudaEventSynchronize(done_[k % 2]), "copying a vector to the device");
      copy_in_parallel(host + k * capacity_, buffer_[k % 2], piece_size(k, count));
      check_cuda(cudaMemcpyAsync(device + k * capacity_, buffer_[k % 2], piece_size(k, count) * sizeof(double),
                                 cudaMemcpyHostToDevice, 0),
                 "copying a vector to the device");
      check_cuda(cudaEventRecord(done_[k % 2], 0), "recording a copy's end");
    }
    check_cuda(cudaEventSynchronize(done_[(pieces - 1) % 2]), "copying a vector to the device");
  }

 private:
  // 8 MB a buffer: large enough for the link's full rate, small enough that the host's copy of one
  // piece overlaps the next piece's transfer.
  static constexpr size_t kPieceEntries = size_t{1} << 20;

  size_t piece_size(size_t k, size_t count) const { return std::min(capacity_, count - k * capacity_); }

  // Buffers of min(count, kPieceEntries) entries, grown as larger vectors come.
  void reserve(size_t count) {
    const size_t wanted = std::min(count, kPieceEntries);
    if (wanted <= capacity_) return;
    capacity_ = 0;  // until both buffers are made
    for (int b = 0; b < 2; ++b) {
      if (buffer_[b]) check_cuda(cudaFreeHost(buffer_[b]), "freeing a pinned buffer");
      buffer_[b] = nullptr;
      check_cuda(cudaMallocHost(reinterpret_cast<void**>(&buffer_[b]), wanted * sizeof(double)),
                 "allocating a pinned buffer");
      if (!done_[b]) check_cuda(cudaEventCreateWithFlags(&done_[b], cudaEventDisableTiming), "creating an event");
    }
    capacity_ = wanted;
  }

  double* buffer_[2] = {nullptr, nullptr};
  cudaEvent_t done_[2] = {nullptr, nullptr};
  size_t capacity_ = 0;
};

}  // namespace catenary::cuda
