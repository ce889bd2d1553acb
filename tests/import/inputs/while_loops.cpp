// A 2-D periodic smoother with while loops over the coordinates and
// wrap-around by %. Written for stencilc's import tests.
void while_smooth(float *out, const float *in, int width, int height,
                  float w) {
  int y = 0;
  while (y < height) {
    int x = 0;
    while (x < width) {
      const int left = (x + width - 1) % width;
      const int right = (x + 1) % width;
      const int down = (y + height - 1) % height;
      const int up = (y + 1) % height;
      out[y * width + x] = (1.0f - 4.0f * w) * in[y * width + x] +
                           w * (in[y * width + left] + in[y * width + right] +
                                in[down * width + x] + in[up * width + x]);
      ++x;
    }
    y++;
  }
}
