// stencil/host_matrix.hpp - small dense complex matrices on the host, for the
// runtime's gauge-field and clover code (not for kernels): an N x N matrix
// of std::complex<double>, row-major, read from and written to the links'
// (re, im) storage of stencil/link_algebra.hpp.
#ifndef STENCIL_HOST_MATRIX_HPP
#define STENCIL_HOST_MATRIX_HPP

#include <complex>
#include <vector>

namespace stencil {

struct HostMatrix {
  using Complex = std::complex<double>;
  int n = 0;
  std::vector<Complex> a;
  explicit HostMatrix(int size) : n(size), a(size * size) {}
  Complex &operator()(int i, int j) { return a[i * n + j]; }
  Complex operator()(int i, int j) const { return a[i * n + j]; }

  /// From n * n entries stored as (re, im) pairs, row-major.
  static HostMatrix load(const double *v, int n) {
    HostMatrix m(n);
    for (int k = 0; k < n * n; ++k)
      m.a[k] = Complex(v[2 * k], v[2 * k + 1]);
    return m;
  }
  void store(double *v) const {
    for (int k = 0; k < n * n; ++k) {
      v[2 * k] = a[k].real();
      v[2 * k + 1] = a[k].imag();
    }
  }
};

inline HostMatrix multiply(const HostMatrix &a, const HostMatrix &b) {
  HostMatrix c(a.n);
  for (int i = 0; i < a.n; ++i)
    for (int j = 0; j < a.n; ++j) {
      HostMatrix::Complex sum = 0;
      for (int k = 0; k < a.n; ++k)
        sum += a(i, k) * b(k, j);
      c(i, j) = sum;
    }
  return c;
}

inline HostMatrix dagger(const HostMatrix &a) {
  HostMatrix c(a.n);
  for (int i = 0; i < a.n; ++i)
    for (int j = 0; j < a.n; ++j)
      c(i, j) = std::conj(a(j, i));
  return c;
}

} // namespace stencil

#endif
