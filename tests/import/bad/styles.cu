// A CUDA kernel that stencilc import refuses: the sites it updates depend
// on the launch's grid (tests/cli/import-errors.test).
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
