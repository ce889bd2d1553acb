// Sizes and coefficients read from a struct passed by reference, with a
// const local for the row length. Written for stencilc's import tests.
struct Grid {
  int nx, ny;
  double inv_dx2, inv_dy2;
};

void struct_laplacian(double *lap, const double *phi, const Grid &g) {
  const int stride = g.nx;
  for (int j = 1; j < g.ny - 1; ++j)
    for (int i = 1; i < g.nx - 1; ++i) {
      const int s = j * stride + i;
      lap[s] = g.inv_dx2 * (phi[s - 1] - 2.0 * phi[s] + phi[s + 1]) +
               g.inv_dy2 * (phi[s - stride] - 2.0 * phi[s] + phi[s + stride]);
    }
}
