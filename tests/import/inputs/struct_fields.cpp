// C-style fields: a struct that carries its data pointer and extents,
// passed by value for the output and by pointer for the input; the same
// struct type for both. Written for stencilc's import tests.
typedef struct {
  float *data;
  int nx, ny;
} field2d;

void field_smooth(field2d out, const field2d *in, float c) {
  const int nx = in->nx;
  for (int j = 1; j < in->ny - 1; j++)
    for (int i = 1; i < nx - 1; i++)
      out.data[j * nx + i] =
          in->data[j * nx + i] +
          c * (in->data[j * nx + i - 1] + in->data[j * nx + i + 1] +
               in->data[(j - 1) * nx + i] + in->data[(j + 1) * nx + i]);
}
