// A 2-D stencil on nested std::array grids of fixed size, indexed with
// operator[]. Written for stencilc's import tests.
#include <array>

constexpr int W = 24;
constexpr int H = 18;
using Plane = std::array<std::array<double, W>, H>;

void plane_blur(Plane &dst, const Plane &src, double centre, double edge) {
  for (int r = 1; r < H - 1; ++r)
    for (int c = 1; c < W - 1; ++c)
      dst[r][c] = centre * src[r][c] +
                  edge * (src[r - 1][c] + src[r + 1][c] + src[r][c - 1] +
                          src[r][c + 1]);
}
