// CUDA kernels that stencilc import refuses: the sites they update depend
// on the launch (tests/cli/import-errors.test).
__global__ void grid_dependent(float *f, const float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1 || i >= n - 1 || i >= gridDim.x * 64)
    return;
  f[i] = u[i - 1] + u[i + 1];
}

__global__ void grid_dependent_local(float *f, const float *u, int n) {
  const int threads = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1 || i >= n - 1 || i >= threads)
    return;
  f[i] = u[i - 1] + u[i + 1];
}

// Two coordinates along one thread axis: a launch gives each thread one
// global index along x, so these visit other sites than the loops say.
__global__ void two_strides_one_axis(float *f, const float *u, int nx, int ny) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < ny; j += blockDim.x * gridDim.x)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nx; i += blockDim.x * gridDim.x)
      if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
        f[j * nx + i] = u[j * nx + i - 1] + u[j * nx + i + 1] + u[(j - 1) * nx + i] + u[(j + 1) * nx + i];
}

__global__ void thread_and_stride_one_axis(float *f, const float *u, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1 || i >= nx - 1)
    return;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < ny; j += blockDim.x * gridDim.x)
    if (j > 0 && j < ny - 1)
      f[j * nx + i] = u[j * nx + i - 1] + u[j * nx + i + 1] + u[(j - 1) * nx + i] + u[(j + 1) * nx + i];
}
