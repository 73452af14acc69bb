#pragma once
// Marks functions that are compiled for both the host and CUDA devices. The element math is
// written once with this marker so that the CPU path and the CUDA kernels call the same code.
#if defined(__CUDACC__)
#define CATENARY_HD __host__ __device__ inline
#else
#define CATENARY_HD inline
#endif
