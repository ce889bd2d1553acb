// An OpenMP loop nest with a constexpr reach and const locals: the pragmas
// change how the loops run, not what they compute. Written for stencilc's
// import tests.
void omp_fourth_order(double *du, const double *u, int nx, int ny,
                      double inv_12h2) {
  constexpr int R = 2;
  const int ld = nx;
#pragma omp parallel for schedule(static)
  for (int y = R; y < ny - R; ++y) {
#pragma omp simd
    for (int x = R; x < nx - R; ++x) {
      const int p = y * ld + x;
      du[p] = inv_12h2 * (-u[p - 2] + 16.0 * u[p - 1] - 30.0 * u[p] +
                          16.0 * u[p + 1] - u[p + 2]) +
              inv_12h2 * (-u[p - 2 * ld] + 16.0 * u[p - ld] - 30.0 * u[p] +
                          16.0 * u[p + ld] - u[p + 2 * ld]);
    }
  }
}
