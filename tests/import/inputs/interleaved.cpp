// A 3-component field stored interleaved (x, y, z of a vector per site),
// the component loop innermost. Written for stencilc's import tests.
constexpr int NC = 3;

void vector_diffusion(float *out, const float *in, int nx, int ny, float d) {
  for (int j = 1; j < ny - 1; ++j)
    for (int i = 1; i < nx - 1; ++i) {
      const int site = j * nx + i;
      for (int c = 0; c < NC; ++c)
        out[site * NC + c] =
            in[site * NC + c] +
            d * (in[(site - 1) * NC + c] + in[(site + 1) * NC + c] +
                 in[(site - nx) * NC + c] + in[(site + nx) * NC + c] -
                 4.0f * in[site * NC + c]);
    }
}
