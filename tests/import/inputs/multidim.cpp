// Multi-dimensional arrays u[k][j][i] with constant extents: a 2-D 9-point
// smoother applied plane by plane... as a 3-D array with a 5-point
// cross in x-y and a 2-point coupling along z. Written for stencilc's
// import tests.
constexpr int NZ = 10;
constexpr int NY = 12;
constexpr int NX = 14;
constexpr double kHalf = 0.5;

void smooth_multidim(float out[NZ][NY][NX], const float in[NZ][NY][NX],
                     float w) {
  for (int k = 1; k < NZ - 1; k++)
    for (int j = 1; j < NY - 1; j++)
      for (int i = 1; i < NX - 1; i++)
        out[k][j][i] = w * in[k][j][i] +
                       0.125f * (in[k][j][i - 1] + in[k][j][i + 1] +
                                 in[k][j - 1][i] + in[k][j + 1][i]) +
                       kHalf * 0.25f * (in[k - 1][j][i] + in[k + 1][j][i]);
}
