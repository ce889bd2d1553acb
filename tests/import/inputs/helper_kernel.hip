// A HIP kernel that hands each site to a device helper which writes it;
// the helper returns early at the boundary. Written for stencilc's import
// tests.
#include <hip/hip_runtime.h>

__device__ void update_site(float *v, const float *w, int i, int n,
                            float c1, float c2) {
  if (i < 2 || i >= n - 2)
    return;
  const float *p = w + i;
  v[i] = c2 * (p[-2] + p[2]) + c1 * (p[-1] + p[1]) - 2.0f * (c1 + c2) * p[0];
}

__global__ void helper_kernel(float *v, const float *w, int n, float c1,
                              float c2) {
  const int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i >= n)
    return;
  update_site(v, w, i, n, c1, c2);
}
