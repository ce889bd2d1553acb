// A HIP image filter on interleaved RGB pixels, one statement per channel,
// the pixel's neighbours through a pointer to its first channel. Written
// for stencilc's import tests.
#include <hip/hip_runtime.h>

__global__ void rgb_blur(float *dst, const float *src, int width, int height,
                         float mix) {
  const int x = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  const int y = hipBlockIdx_y * hipBlockDim_y + hipThreadIdx_y;
  if (x == 0 || y == 0 || x >= width - 1 || y >= height - 1)
    return;
  const int row = 3 * width;
  const float *p = src + y * row + 3 * x;
  float *q = dst + y * row + 3 * x;
  q[0] = (1.0f - mix) * p[0] + 0.25f * mix * (p[-3] + p[3] + p[-row] + p[row]);
  q[1] = (1.0f - mix) * p[1] + 0.25f * mix * (p[-2] + p[4] + p[1 - row] + p[1 + row]);
  q[2] = (1.0f - mix) * p[2] + 0.25f * mix * (p[-1] + p[5] + p[2 - row] + p[2 + row]);
}
