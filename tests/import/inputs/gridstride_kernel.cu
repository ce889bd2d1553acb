// A CUDA kernel with 2-D grid-stride loops, one step held in a local: any
// launch covers the interior of the lattice. Written for stencilc's import
// tests.
#include <cuda_runtime.h>

__global__ void gridstride_diffusion(double *__restrict__ unew,
                                     const double *__restrict__ u, int nx,
                                     int ny, double alpha) {
  const int stride_x = blockDim.x * gridDim.x;
  for (int j = blockIdx.y * blockDim.y + threadIdx.y + 1; j < ny - 1;
       j += blockDim.y * gridDim.y) {
    for (int i = threadIdx.x + blockIdx.x * blockDim.x + 1; i < nx - 1;
         i += stride_x) {
      const int c = j * nx + i;
      unew[c] = u[c] + alpha * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] -
                                4.0 * u[c]);
    }
  }
}
