// A function template over the extents, taking references to fixed-size
// arrays; the file never instantiates it. Written for stencilc's import
// tests.
template <int NZ, int NY, int NX>
void heat_step(float (&next)[NZ][NY][NX], const float (&now)[NZ][NY][NX],
               float r) {
  for (int k = 1; k < NZ - 1; ++k)
    for (int j = 1; j < NY - 1; ++j)
      for (int i = 1; i < NX - 1; ++i)
        next[k][j][i] = now[k][j][i] +
                        r * (now[k][j][i - 1] + now[k][j][i + 1] +
                             now[k][j - 1][i] + now[k][j + 1][i] +
                             now[k - 1][j][i] + now[k + 1][j][i] -
                             6.0f * now[k][j][i]);
}
