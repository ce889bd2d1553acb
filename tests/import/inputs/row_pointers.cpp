// A 3-D 7-point operator over row pointers: one pointer per (j, k) row of
// the input and of the output, neighbours in y and z as whole rows away.
// Written for stencilc's import tests.
#include <cstddef>

void rows_laplacian(float *__restrict dst, const float *__restrict src,
                    int nx, int ny, int nz, float h2inv) {
  const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(nx) * ny;
  for (int k = 1; k < nz - 1; k++) {
    for (int j = 1; j < ny - 1; j++) {
      const float *row = src + k * plane + j * nx;
      const float *below = row - nx;
      const float *above = row + nx;
      float *out_row = dst + k * plane + j * nx;
      for (int i = 1; i < nx - 1; i++) {
        out_row[i] = h2inv * (row[i - 1] + row[i + 1] + below[i] + above[i] +
                              row[i - plane] + row[i + nx * ny] -
                              6.0f * row[i]);
      }
    }
  }
}
