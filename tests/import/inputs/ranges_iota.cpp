// A C++20 loop nest over std::views::iota ranges (import with
// `-- -std=c++20`). Written for stencilc's import tests.
#include <ranges>

void iota_laplacian(float *out, const float *in, int nx, int ny, float s) {
  for (int j : std::views::iota(1, ny - 1))
    for (const int i : std::views::iota(1, nx - 1))
      out[j * nx + i] = s * (in[j * nx + i - 1] + in[j * nx + i + 1] +
                             in[(j - 1) * nx + i] + in[(j + 1) * nx + i] -
                             4.0f * in[j * nx + i]);
}
