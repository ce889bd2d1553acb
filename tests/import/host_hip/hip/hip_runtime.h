// Host emulation of the little HIP that the import tests' kernels use: the
// round-trip test compiles the original kernel with g++ and runs it through
// the runtime's host backend (stencil/platform.hpp: the thread built-ins
// and a launch that runs every thread of the grid).
#ifndef STENCILC_TESTS_HOST_HIP_RUNTIME_H
#define STENCILC_TESTS_HOST_HIP_RUNTIME_H

#include "stencil/launch_config.hpp"
#include "stencil/platform.hpp"

#include <cstddef>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
  operator stencil::LaunchDims() const { return {x, y, z}; }
};

#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...)         \
  STENCIL_LAUNCH(kernel, stencil::LaunchDims(grid),                           \
                 stencil::LaunchDims(block), stream, __VA_ARGS__)

#endif
