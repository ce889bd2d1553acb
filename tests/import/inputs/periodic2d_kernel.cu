// A CUDA kernel on a 2-D periodic lattice: the launch may have more threads
// than sites (they return), neighbours wrap with conditionals. Written for
// stencilc's import tests.
#include <cuda_runtime.h>

__global__ void periodic_diffusion2d(float *__restrict__ next,
                                     const float *__restrict__ now, int nx,
                                     int ny, float nu) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  const int east = x + 1 < nx ? x + 1 : 0;
  const int west = x == 0 ? nx - 1 : x - 1;
  const int north = y + 1 == ny ? 0 : y + 1;
  const int south = y > 0 ? y - 1 : ny - 1;
  next[y * nx + x] = (1.0f - 4.0f * 0.25f) * now[y * nx + x] +
                     nu * (now[y * nx + east] + now[y * nx + west]) +
                     nu * (now[north * nx + x] + now[south * nx + x]);
}
