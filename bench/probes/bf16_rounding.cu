// bf16_rounding.cu - a probe, not part of the build: does the GPU's
// one-instruction rounding to bfloat16 (cvt.rn.bf16.f32, which
// stencil/bfloat16.hpp uses from sm_80) give the integer rounding that the
// host backend and other GPUs use, for every one of the 2^32 floats? NaNs
// must stay NaNs (their payload may differ); everything else bit for bit.
//   nvcc -O3 -arch=sm_90 -I../../runtime/include -o bf16_rounding \
//     bf16_rounding.cu && ./bf16_rounding
#include "stencil/bfloat16.hpp"

#include <cstdio>

// The host formula, written again here so that the device runs it too.
__device__ unsigned short integerRounding(unsigned u) {
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<unsigned short>((u >> 16) | 0x0040u);
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__global__ void compare(unsigned long long *mismatches,
                        unsigned long long *nans, unsigned *first) {
  const unsigned long long stride =
      static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, nan = 0;
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
       i < (1ull << 32); i += stride) {
    const unsigned u = static_cast<unsigned>(i);
    const unsigned short got =
        stencil::to_bfloat16(__uint_as_float(u)).bits;
    const unsigned short want = integerRounding(u);
    const bool gotNan = (got & 0x7fffu) > 0x7f80u;
    const bool wantNan = (want & 0x7fffu) > 0x7f80u;
    if (wantNan) {
      ++nan;
      bad += !gotNan;
    } else if (got != want) {
      if (++bad == 1)
        atomicCAS(first, 0u, u);
    }
  }
  atomicAdd(mismatches, bad);
  atomicAdd(nans, nan);
}

int main() {
  unsigned long long *counts;
  unsigned *first;
  cudaMallocManaged(&counts, 2 * sizeof *counts);
  cudaMallocManaged(&first, sizeof *first);
  counts[0] = counts[1] = 0;
  *first = 0;
  compare<<<132 * 8, 256>>>(counts, counts + 1, first);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("bf16_rounding: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  std::printf("bf16_rounding: 4294967296 floats, %llu NaNs, %llu mismatches "
              "between cvt.rn.bf16.f32 and the integer rounding\n",
              counts[1], counts[0]);
  if (counts[0])
    std::printf("  first mismatch near bits 0x%08x\n", *first);
  return counts[0] ? 1 : 0;
}
