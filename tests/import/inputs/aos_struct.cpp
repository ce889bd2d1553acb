// An array of structs: each site holds a velocity (u, v); both members
// diffuse with the same weights, written member by member. Written for
// stencilc's import tests.
struct Velocity {
  double u;
  double v;
};

void velocity_smooth(Velocity *next, const Velocity *cur, int nx, int ny,
                     double nu) {
  for (int y = 1; y < ny - 1; ++y)
    for (int x = 1; x < nx - 1; ++x) {
      const Velocity *c = cur + y * nx + x;
      next[y * nx + x].u = c->u + nu * (c[-1].u + c[1].u + c[-nx].u +
                                        c[nx].u - 4.0 * c->u);
      next[y * nx + x].v = c->v + nu * (c[-1].v + c[1].v + c[-nx].v +
                                        c[nx].v - 4.0 * c->v);
    }
}
