// A 4-D periodic loop: every site updated, neighbours wrapped with %, with
// a ternary and through an index helper. Written for stencilc's import
// tests.
inline long site_index(int x, int y, int z, int t, int nx, int ny, int nz) {
  return ((long(t) * nz + z) * ny + y) * nx + x;
}

void periodic_laplacian4d(float *out, const float *in, int nx, int ny, int nz,
                          int nt, float mass, float kappa) {
  for (int t = 0; t < nt; ++t)
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          int xp = (x + 1) % nx, xm = (x - 1 + nx) % nx;
          int yp = (y + 1) % ny, ym = (y + ny - 1) % ny;
          int zp = z + 1 == nz ? 0 : z + 1, zm = z == 0 ? nz - 1 : z - 1;
          int tp = (t + 1) % nt, tm = (t + nt - 1) % nt;
          float hop = in[site_index(xp, y, z, t, nx, ny, nz)] +
                      in[site_index(xm, y, z, t, nx, ny, nz)] +
                      in[site_index(x, yp, z, t, nx, ny, nz)] +
                      in[site_index(x, ym, z, t, nx, ny, nz)] +
                      in[site_index(x, y, zp, t, nx, ny, nz)] +
                      in[site_index(x, y, zm, t, nx, ny, nz)] +
                      in[site_index(x, y, z, tp, nx, ny, nz)] +
                      in[site_index(x, y, z, tm, nx, ny, nz)];
          out[site_index(x, y, z, t, nx, ny, nz)] =
              (8.0f + mass) * in[site_index(x, y, z, t, nx, ny, nz)] -
              kappa * hop;
        }
}
