// A 2-D heat step on std::vector storage: the row length is an argument,
// the number of rows comes from the vector's size, unsigned indices and
// bounds written as `j + 1 < ny`, the output written with at(). Written for
// stencilc's import tests.
#include <cstddef>
#include <vector>

void vector_rows(std::vector<double> &next, const std::vector<double> &cur,
                 std::size_t nx, double r) {
  const std::size_t ny = cur.size() / nx;
  for (std::size_t j = 1; j + 1 < ny; ++j)
    for (std::size_t i = 1; i + 1 < nx; ++i) {
      const std::size_t c = j * nx + i;
      next.at(c) = cur[c] + r * (cur[c - 1] + cur[c + 1] + cur[c - nx] +
                                 cur[c + nx] - 4.0 * cur[c]);
    }
}
