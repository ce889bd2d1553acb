// Functions stencilc import must refuse, each with a diagnostic at the
// exact location (tests/cli/import-errors.test).
double weight(int i);

void non_affine(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i * i] + u[i - 1];
}

void data_coefficient(double *f, const double *u, const double *a, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = a[i] * u[i] + u[i - 1] + u[i + 1];
}

void two_outputs(double *f, double *g, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i) {
    f[i] = u[i - 1] + u[i + 1];
    g[i] = u[i];
  }
}

void opaque_call(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = weight(i) * u[i] + u[i - 1];
}

void parameter_product(double *f, const double *u, int n, double a, double b) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = a * (b * u[i]) + u[i + 1] + u[i - 1];
}

void wide_boundary(double *f, const double *u, int n) {
  for (int i = 2; i < n - 2; ++i)
    f[i] = u[i - 1] + u[i + 1];
}

void unwrapped_read(double *f, const double *u, int n) {
  for (int i = 0; i < n; ++i)
    f[i] = u[(i + 1) % n] + u[i - 1];
}

void negative_modulo(double *f, const double *u, int n) {
  for (int i = 0; i < n; ++i)
    f[i] = u[(i + 1) % n] + u[(i - 1) % n];
}

void accumulates(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] += u[i - 1] + u[i + 1];
}

void data_dependent_guard(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    if (u[i] > 0)
      f[i] = u[i - 1] + u[i + 1];
}

void checkerboard(double *f, const double *u, int nx, int ny) {
  for (int j = 1; j < ny - 1; ++j)
    for (int i = 1; i < nx - 1; ++i) {
      if ((i + j) % 2 == 1)
        continue;
      f[j * nx + i] = u[j * nx + i - 1] + u[j * nx + i + 1];
    }
}

void transposed_read(double *f, const double *u, int nx, int ny) {
  for (int j = 1; j < ny - 1; ++j)
    for (int i = 1; i < nx - 1; ++i)
      f[j * nx + i] = u[i * ny + j] + u[j * nx + i + 1];
}

void in_place(double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    u[i] = u[i - 1] + u[i + 1];
}

void reads_second_array(double *f, const double *u, const double *v, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i - 1] + v[i + 1];
}

void forcing_term(double *f, const double *u, int n, double source) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i - 1] + u[i + 1] + source;
}

template <typename T> void generic_smooth(T *f, const T *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = T(0.5) * (u[i - 1] + u[i + 1]);
}

// Constant factors that overflow: double's range in the folding, float's in
// a float function (where C++ computes them in float).
void overflowing_factor(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = 1e300 * 1e300 * u[i - 1] + u[i + 1];
}

void overflowing_literal(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = (1e308 + 1e308) * u[i - 1] - 0.5 * u[i + 1];
}

void float_overflow(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = 1e30f * 1e30f * u[i - 1] + u[i + 1];
}

void overflowing_sum_of_reads(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = 1e308 * u[i - 1] + 1e308 * u[i - 1] + u[i + 1];
}

// Folded in float, as C++ computes it: 1e30f * 1e30f is infinite there, so
// the tiny factor after it cannot bring it back (in double it had passed as
// 1e30).
void float_constant_overflow(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = 1e30f * 1e30f * 1e-30f * u[i - 1] + u[i + 1];
}

// A coefficient of a read beyond float's range: C++ rounds each product
// with the value read, which a spec cannot say; refused.
void float_coefficient_overflow(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = 1e30f * (1e30f * u[i - 1]) + u[i + 1];
}

// A float local scaled in place is held in float after each step: the
// first product overflows there.
void float_compound_overflow(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i) {
    float c = 1e30f;
    c *= 1e30f;
    c *= 1e-30f;
    f[i] = c * u[i - 1] + u[i + 1];
  }
}

// A _Float16 constant past half precision's largest value (65504)
// overflows there, as C++ rounds it.
void half_overflow(float *f, const float *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = (float)(_Float16)70000.0 * u[i - 1] + u[i + 1];
}
