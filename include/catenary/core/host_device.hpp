#pragma once
// Marks functions that are compiled for both the host and CUDA devices. The element math is
// written once with this marker so that the CPU path and the CUDA kernels call the same code.
// CATENARY_HD_FORCE_INLINE is for the element math's per-point steps, which GCC otherwise leaves
// out of line on the host (measured: a 7 % longer element stage; docs/performance.md, Element
// passes).
// CATENARY_UNROLL unrolls the next loop completely in device code where its trip count is known at
// compile time (nothing on the host): a small array a thread indexes only with unrolled loop
// counters stays in registers instead of local memory.
#if defined(__CUDA_ARCH__)
#define CATENARY_UNROLL _Pragma("unroll")
#else
#define CATENARY_UNROLL
#endif
#if defined(__CUDACC__)
#define CATENARY_HD __host__ __device__ inline
#define CATENARY_HD_FORCE_INLINE __host__ __device__ __forceinline__
#else
#define CATENARY_HD inline
#define CATENARY_HD_FORCE_INLINE __attribute__((always_inline)) inline
#endif
