// A 1-D HIP kernel with HIP's index macros and the update inside an
// `if (interior) { ... }` body; a reach of 2. Written for stencilc's import
// tests.
#include <hip/hip_runtime.h>

__global__ void line_fourth_order(float *d2u, const float *u, int n,
                                  float inv_h2) {
  const int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i >= 2 && i < n - 2) {
    const float c = inv_h2 / 12.0f;
    (void)c;
    d2u[i] = inv_h2 * (-u[i - 2] / 12.0f + 4.0f / 3.0f * u[i - 1] -
                       2.5f * u[i] + 4.0f / 3.0f * u[i + 1] -
                       u[i + 2] / 12.0f);
  }
}
