// Float constants folded as C++ computes them: 4.0f / 3.0f in float; a
// parameter divided by a constant keeps the exact quotient (C++ rounds the
// quotient of the parameter's value). Written for stencilc's import tests.
void float_constants(float *f, const float *u, int n, float kappa) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = (4.0f / 3.0f) * u[i] - (kappa / 3.0f) * (u[i - 1] + u[i + 1]);
}
