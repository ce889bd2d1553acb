// A 9-point 2-D smoother written with a pointer to the centre site and
// offsets from it, as in many finite-difference codes. Written for
// stencilc's import tests.
void smooth9(double *out, const double *in, int nx, int ny, double side,
             double corner) {
  for (int j = 1; j < ny - 1; ++j) {
    for (int i = 1; i < nx - 1; ++i) {
      const double *c = in + j * nx + i;
      double *o = &out[j * nx + i];
      *o = 0.25 * c[0] + side * (c[-1] + c[1] + c[-nx] + c[nx]) +
           corner * (c[-nx - 1] + c[-nx + 1] + c[nx - 1] + c[nx + 1]);
    }
  }
}
