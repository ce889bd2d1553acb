// A CPU loop nest over i, j, k with a flattened index and coefficients
// folded as (a + b) * c sums: an anisotropic 7-point operator with a shift.
// Written for stencilc's import tests.
#include <cstddef>

void anisotropic_apply(double *out, const double *in, int nx, int ny, int nz,
                       double cx, double cy, double cz, double shift) {
  for (int k = 1; k < nz - 1; ++k)
    for (int j = 1; j < ny - 1; ++j)
      for (int i = 1; i < nx - 1; ++i) {
        const std::size_t c = (std::size_t(k) * ny + j) * nx + i;
        double centre = (2.0 + 2.0) * cx / 2 + (cy + cz) * 2.0 + shift;
        double value = centre * in[c];
        value -= (in[(k * ny + j) * nx + i - 1] + in[(k * ny + j) * nx + i + 1]) * cx;
        value -= (in[(k * ny + j - 1) * nx + i] + in[(k * ny + j + 1) * nx + i]) * cy;
        value -= cz * (in[((k - 1) * ny + j) * nx + i] + in[((k + 1) * ny + j) * nx + i]);
        out[c] = value;
      }
}
