// Stencil styles that stencilc import refuses, one function per refusal
// (tests/cli/import-errors.test checks each message and its position).
#include <complex>
#include <vector>

void range_for(std::vector<double> &out, const std::vector<double> &in) {
  for (double &v : out)
    v = in[0];
}

void do_while(double *f, const double *u, int n) {
  int i = 1;
  do {
    f[i] = u[i - 1] + u[i + 1];
    ++i;
  } while (i < n - 1);
}

void while_no_step(double *f, const double *u, int n) {
  int i = 1;
  while (i < n - 1) {
    ++i;
    f[i] = u[i - 1] + u[i + 1];
  }
}

void prolongation(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i) {
    const int half = i / 2;
    f[i] = 0.5 * (u[half] + u[(i + 1) / 2]);
  }
}

void moving_pointer(double *f, const double *u, int n) {
  const double *p = u;
  for (int i = 1; i < n - 1; ++i) {
    p += 1;
    f[i] = p[-1] + p[1];
  }
}

void pointer_difference(double *f, const double *u, int n) {
  const double *end = u + n;
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i - 1] + u[i + 1] + (end - u);
}

struct Vec2 {
  double x, y;
};

void coupled_components(Vec2 *f, const Vec2 *u, int n) {
  for (int i = 1; i < n - 1; ++i) {
    f[i].x = u[i - 1].x + u[i + 1].x;
    f[i].y = u[i - 1].x + u[i + 1].y;
  }
}

void one_member(Vec2 *f, const Vec2 *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i].x = u[i - 1].x + u[i + 1].x;
}

void complex_coefficient(std::complex<double> *f,
                         const std::complex<double> *u, int n) {
  const std::complex<double> I(0.0, 1.0);
  for (int i = 1; i < n - 1; ++i)
    f[i] = I * (u[i - 1] + u[i + 1]);
}

struct Options {
  int n;
  bool periodic;
};

void bool_member(double *f, const double *u, const Options &o) {
  for (int i = 1; i < o.n - 1; ++i)
    f[i] = o.periodic ? u[i] : u[i - 1] + u[i + 1];
}

void lambda_with_loop(double *f, const double *u, int n) {
  auto sum = [&](int i) {
    double s = 0;
    for (int d = -1; d <= 1; d += 2)
      s += u[i + d];
    return s;
  };
  for (int i = 1; i < n - 1; ++i)
    f[i] = sum(i);
}

template <int N>
void fixed_width(float (&f)[N], const float (&u)[N]) {
  static_assert(N % 32 == 0, "N must be a multiple of the warp size");
  for (int i = 1; i < N - 1; ++i)
    f[i] = u[i - 1] + u[i + 1];
}

void interleaved_coupled(float *f, const float *u, int n) {
  for (int s = 1; s < n - 1; ++s) {
    f[2 * s] = u[2 * s - 2] + u[2 * s + 2];
    f[2 * s + 1] = u[2 * s - 2] + u[2 * s + 3];
  }
}

void interleaved_different(float *f, const float *u, int n) {
  for (int s = 1; s < n - 1; ++s) {
    f[2 * s] = u[2 * s - 2] + u[2 * s + 2];
    f[2 * s + 1] = u[2 * s - 1] - u[2 * s + 3];
  }
}

void while_continue(double *f, const double *u, int n) {
  int i = 0;
  while (i < n) {
    if (i == 0 || i == n - 1)
      continue;
    f[i] = u[i - 1] + u[i + 1];
    ++i;
  }
}

void planar_components(double *f, const double *u, int n) {
  for (int c = 0; c < 3; ++c)
    for (int s = 1; s < n - 1; ++s)
      f[c * n + s] = u[c * n + s - 1] + u[c * n + s + 1];
}

void library_call(std::complex<double> *f, const std::complex<double> *u,
                  int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = std::conj(u[i - 1]) + u[i + 1];
}

void omp_parsed(double *f, const double *u, int n) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i - 1] + u[i + 1];
}

void early_break(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i) {
    if (i > 8)
      break;
    f[i] = u[i - 1] + u[i + 1];
  }
}

void second_site(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = u[i - 1] + u[i + 1];
  f[0] = 0.0;
}

template <bool Periodic>
void periodic_or_not(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = Periodic ? u[i] : u[i - 1] + u[i + 1];
}

// Right at the importer's own extents only: the bound 10 and the plane
// stride 143 (= 11 * 13) are constants, not NX - 1 and NX * NY.
template <int NX, int NY>
void constant_bound(const double *in, double *out) {
  for (int j = 1; j < NY - 1; ++j)
    for (int i = 1; i < 10; ++i)
      out[j * NX + i] = in[j * NX + i - 1] + in[j * NX + i + 1] +
                        in[(j - 1) * NX + i] + in[(j + 1) * NX + i];
}

template <int NX, int NY, int NZ>
void constant_stride(const double *in, double *out) {
  for (int k = 1; k < NZ - 1; ++k)
    for (int j = 1; j < NY - 1; ++j)
      for (int i = 1; i < NX - 1; ++i) {
        int s = k * 143 + j * NX + i;
        out[s] = in[s - 1] + in[s + 1] + in[s - NX] + in[s + NX] +
                 in[s - 143] + in[s + 143];
      }
}

// A static local keeps its value between calls: the factor doubles with
// every site. Const ones are constants (static_const imports).
inline double doubling(const double *c) {
  static double s = 1.0;
  s = s * 2.0;
  return s * (c[-1] + c[1]);
}

void static_factor(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = doubling(&u[i]);
}

inline double weighted(const double *c) {
  static const double w = 0.5;
  static constexpr double v = 0.25;
  return w * c[-1] + v * c[1];
}

void static_const(double *f, const double *u, int n) {
  for (int i = 1; i < n - 1; ++i)
    f[i] = weighted(&u[i]);
}
