// Constants of types narrower than double folded as C++ rounds them: a
// _Float16 constant to half precision ((_Float16)0.1 is 0.0999755859375),
// a std::complex<float> expression to float at each step (0.1f * 0.7f +
// 0.3f is 0.3700000047683716 in float, 0.3700000117719173 in double).
// Written for stencilc's import tests.
#include <complex>

using cplxf = std::complex<float>;

void half_constant(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = (float)(_Float16)0.1 * u[i] - u[i - 1] - u[i + 1];
}

void complex_float_constant(cplxf *out, const cplxf *psi, int n) {
  for (int i = 1; i < n - 1; ++i)
    out[i] = (cplxf(0.1f) * cplxf(0.7f) + cplxf(0.3f)) * psi[i] - psi[i - 1] -
             psi[i + 1];
}

// A long double literal converted to float is rounded once: just above
// the midpoint 1 + 2^-24, it is 1 + 2^-23 in float, where rounding through
// double (to the midpoint itself, then ties to even) would give 1.
void long_double_literal(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = (float)1.0000000596046447756L * u[i] - u[i - 1] - u[i + 1];
}
