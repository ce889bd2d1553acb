// Compiles only with -DWEIGHT=...: the compiler arguments after `--` reach
// Clang. The unrelated function does not compile at all; its error is only
// a warning for the import of a function that does not depend on it.
// Written for stencilc's import tests.
void smooth1d(double *out, const double *in, int n) {
  for (int i = 1; i < n - 1; ++i)
    out[i] = WEIGHT * (in[i - 1] + in[i + 1]) + (1 - 2 * WEIGHT) * in[i];
}

void unrelated() { undefined_helper(); }
