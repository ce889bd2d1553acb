// A CUDA kernel with one thread per site of a 2-D lattice, launched over
// nx * ny threads in 1-D: the coordinates come back with % and /. Written
// for stencilc's import tests.
#include <cuda_runtime.h>

__global__ void flat_thread_smooth(float *out, const float *in, int nx, int ny,
                                   float a) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= nx * ny)
    return;
  const int i = idx % nx;
  const int j = idx / nx;
  if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
    return;
  out[idx] = (1.0f - 4.0f * a) * in[idx] +
             a * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx]);
}
