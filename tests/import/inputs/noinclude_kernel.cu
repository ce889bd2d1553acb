// A CUDA kernel in a .cu file that, as nvcc allows, includes no CUDA
// header: __global__, blockIdx and threadIdx come from the toolkit's
// implied cuda_runtime.h. A device helper computes the update. Written for
// stencilc's import tests.
__device__ __forceinline__ float five_point(const float *c, int nx, float k) {
  return k * (c[-1] + c[1] + c[-nx] + c[nx]) + (1.0f - 4.0f * k) * c[0];
}

__global__ void bare_kernel(float *out, const float *in, int nx, int ny,
                            float kappa) {
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < 1 || iy < 1 || ix >= nx - 1 || iy >= ny - 1)
    return;
  out[iy * nx + ix] = five_point(&in[iy * nx + ix], nx, kappa);
}
