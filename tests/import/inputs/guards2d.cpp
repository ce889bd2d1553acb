// A 2-D loop nest written the other way round: inclusive bounds over the
// whole lattice, a `continue` guard for the boundary, an inline helper with
// a local constant, accumulation with += and fma. Written for stencilc's
// import tests.
#include <cmath>

inline int at(int x, int y, int nx) {
  const int row = y * nx;
  return row + x;
}

void weighted_plane(double *result, const double *field, int nx, int ny,
                    double diag, double axial) {
  for (int y = 0; y <= ny - 1; y++)
    for (int x = 0; x != nx; x += 1) {
      if (x < 1 || y < 1 || x > nx - 2 || y > ny - 2)
        continue;
      double acc = 0.0;
      acc += diag * field[at(x, y, nx)];
      acc = std::fma(-0.5, field[at(x - 1, y, nx)], acc);
      acc = std::fma(-0.5, field[at(x + 1, y, nx)], acc);
      acc -= axial * (field[at(x, y - 1, nx)] + field[at(x, y + 1, nx)]);
      acc *= 2.0;
      result[at(x, y, nx)] = acc;
    }
}
