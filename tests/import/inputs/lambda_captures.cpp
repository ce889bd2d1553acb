// Two lambdas over the same weight: one captured it by value before it
// changed, one by reference; the stencil depends on which is which.
// Written for stencilc's import tests.
void lambda_captures(double *out, const double *in, int n, double early,
                     double late) {
  double w = early;
  const auto sides = [=](const double *c) { return w * (c[-1] + c[1]); };
  const auto centre = [&](const double *c) { return w * c[0]; };
  w = late;
  for (int i = 1; i < n - 1; ++i)
    out[i] = sides(in + i) + centre(in + i);
}
