// A 1-D periodic Laplacian on a std::complex field with real weights, as a
// Schroedinger-equation step would apply it. Written for stencilc's import
// tests.
#include <complex>

using cplx = std::complex<double>;

void complex_laplacian(cplx *out, const cplx *psi, int n, double inv_h2,
                       double v0) {
  for (int i = 0; i < n; ++i) {
    const int left = i == 0 ? n - 1 : i - 1;
    const int right = i + 1 == n ? 0 : i + 1;
    cplx lap = psi[left] + psi[right] - 2.0 * psi[i];
    out[i] = inv_h2 * lap + v0 * psi[i];
  }
}
