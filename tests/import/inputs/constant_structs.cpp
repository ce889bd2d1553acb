// Extents as static constexpr members of a struct, default weights in a
// global constexpr struct, and a local struct of weights built from them
// and an argument. Written for stencilc's import tests.
struct Mesh {
  static constexpr int NX = 21;
  static constexpr int NY = 15;
};

struct Weights {
  double centre, edge;
};

constexpr Weights kDefault{0.5, 0.125};

void mesh_filter(double *out, const double *in, double gain) {
  const Weights w{gain * kDefault.centre, kDefault.edge};
  for (int y = 1; y < Mesh::NY - 1; ++y)
    for (int x = 1; x < Mesh::NX - 1; ++x) {
      const int s = y * Mesh::NX + x;
      out[s] = w.centre * in[s] +
               w.edge * (in[s - 1] + in[s + 1] + in[s - Mesh::NX] +
                         in[s + Mesh::NX]);
    }
}
