// A 3-D anisotropic operator whose index comes from a lambda, with the
// sizes captured by reference and a generic lambda for the update. Written
// for stencilc's import tests.
void lambda_apply(double *out, const double *in, int nx, int ny, int nz,
                  double ax, double ay, double az) {
  auto idx = [&](int x, int y, int z) { return (z * ny + y) * nx + x; };
  auto second = [](auto lo, auto mid, auto hi) { return lo - 2.0 * mid + hi; };
  for (int z = 1; z < nz - 1; ++z)
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 1; x < nx - 1; ++x) {
        const double centre = in[idx(x, y, z)];
        out[idx(x, y, z)] =
            ax * second(in[idx(x - 1, y, z)], centre, in[idx(x + 1, y, z)]) +
            ay * second(in[idx(x, y - 1, z)], centre, in[idx(x, y + 1, z)]) +
            az * second(in[idx(x, y, z - 1)], centre, in[idx(x, y, z + 1)]);
      }
}
