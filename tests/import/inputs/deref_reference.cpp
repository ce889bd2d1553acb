// C-style declarations up front, sizes behind a pointer to a struct, the
// centre read through `*c` and `*(c - 1)`, the output through a reference
// to its element. Written for stencilc's import tests.
struct Sizes {
  int nx, ny;
};

void deref_update(float *out, const float *in, const Sizes *sz, float k) {
  int i, j;
  for (j = 1; j < sz->ny - 1; j++)
    for (i = 1; i < sz->nx - 1; i++) {
      const float *c = &in[j * sz->nx + i];
      float &o = out[j * sz->nx + i];
      o = *c + k * (*(c - 1) + *(c + 1) + *(c - sz->nx) + *(c + sz->nx) -
                    4.0f * *c);
    }
}
