// The AMD lab note's first Laplacian kernel, in its shape: one thread per
// site from 3-D thread indices, a flattened index, neighbours at pos +- 1,
// pos +- nx and pos +- nx*ny, boundary threads returning early. Written for
// stencilc's import tests.
#include "hip/hip_runtime.h"

template <typename T>
__global__ void labnote_laplacian(T *f, const T *u, int nx, int ny, int nz,
                                  T invhx2, T invhy2, T invhz2, T invhxyz2) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  int k = threadIdx.z + blockIdx.z * blockDim.z;

  if (i == 0 || i >= nx - 1 || j == 0 || j >= ny - 1 || k == 0 || k >= nz - 1)
    return;

  const int slice = nx * ny;
  size_t pos = i + nx * j + slice * k;

  f[pos] = u[pos] * invhxyz2 + (u[pos - 1] + u[pos + 1]) * invhx2 +
           (u[pos - nx] + u[pos + nx]) * invhy2 +
           (u[pos - slice] + u[pos + slice]) * invhz2;
}

// The host side launches one thread per site.
template <typename T>
void labnote_launch(T *f, const T *u, int nx, int ny, int nz, T hx, T hy,
                    T hz) {
  dim3 block(64, 4, 1);
  dim3 grid((nx - 1) / block.x + 1, (ny - 1) / block.y + 1,
            (nz - 1) / block.z + 1);
  T invhx2 = T(1) / hx / hx, invhy2 = T(1) / hy / hy, invhz2 = T(1) / hz / hz;
  T invhxyz2 = T(-2) * (invhx2 + invhy2 + invhz2);
  hipLaunchKernelGGL(labnote_laplacian<T>, grid, block, 0, 0, f, u, nx, ny,
                     nz, invhx2, invhy2, invhz2, invhxyz2);
}

template void labnote_launch<double>(double *, const double *, int, int, int,
                                     double, double, double);
