// A HIP kernel with a grid-stride loop over every site of a 3-D lattice,
// the coordinates recovered from the flattened index, and the boundary
// skipped with `continue`. Written for stencilc's import tests.
#include <hip/hip_runtime.h>

__global__ void flat_gridstride3d(double *lap, const double *u, int nx,
                                  int ny, int nz, double inv_h2) {
  const int sites = nx * ny * nz;
  for (int s = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x; s < sites;
       s += hipBlockDim_x * gridDim.x) {
    const int i = s % nx;
    const int j = (s / nx) % ny;
    const int k = s / (nx * ny);
    if (i < 1 || j < 1 || k < 1 || i > nx - 2 || j > ny - 2 || k > nz - 2)
      continue;
    lap[s] = inv_h2 * (u[s - 1] + u[s + 1] + u[s - nx] + u[s + nx] +
                       u[s - nx * ny] + u[s + nx * ny] - 6.0 * u[s]);
  }
}
