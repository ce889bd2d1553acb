// Round trip of stencilc import: each test input's original function,
// compiled for the host, against the kernels generated from the spec that
// `stencilc import` derived from it (built by tests/CMakeLists.txt), on
// random data and random parameter values. Equal to rounding means the
// spec computes the same function.
#include "imported_anisotropic.hpp"
#include "imported_guards2d.hpp"
#include "imported_labnote.hpp"
#include "imported_line1d.hpp"
#include "imported_multidim.hpp"
#include "imported_periodic2d.hpp"
#include "imported_periodic4d.hpp"

#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/platform.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

// The originals (tests/import/inputs/).
template <typename T>
void labnote_launch(T *f, const T *u, int nx, int ny, int nz, T hx, T hy,
                    T hz);
void anisotropic_apply(double *out, const double *in, int nx, int ny, int nz,
                       double cx, double cy, double cz, double shift);
void smooth_multidim(float out[10][12][14], const float in[10][12][14],
                     float w);
void weighted_plane(double *result, const double *field, int nx, int ny,
                    double diag, double axial);
void line_fourth_order(float *d2u, const float *u, int n, float inv_h2);
void periodic_diffusion2d(float *next, const float *now, int nx, int ny,
                          float nu);
void periodic_laplacian4d(float *out, const float *in, int nx, int ny, int nz,
                          int nt, float mass, float kappa);

namespace {

#define ASSERT_OK(call)                                                        \
  do {                                                                         \
    ::stencil::Status status_ = (call);                                        \
    ASSERT_TRUE(status_.ok()) << status_.message();                            \
  } while (0)

template <typename T> std::vector<T> randomValues(size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> values(n);
  for (T &v : values)
    v = static_cast<T>(dist(engine));
  return values;
}

/// Runs the generated stencil on `in` with `parameters` and returns out.
template <typename T>
void runGenerated(const stencil::KernelInfo &info, std::vector<int> extents,
                  const std::map<std::string, double> &parameters,
                  const std::vector<T> &in, std::vector<T> &out) {
  stencil::StencilOperator op;
  ASSERT_OK(stencil::StencilOperator::create(
      info, extents.data(), op, stencil::StencilOperator::Kernels::AsGiven));
  for (const auto &[name, value] : parameters)
    ASSERT_OK(op.set_parameter(name, value));
  stencil::Field x, y;
  ASSERT_OK(stencil::Field::create(op.lattice(), x));
  ASSERT_OK(stencil::Field::create(op.lattice(), y));
  ASSERT_EQ(op.lattice().values(), static_cast<int64_t>(in.size()));
  ASSERT_OK(x.upload(in.data(), in.size() * sizeof(T)));
  ASSERT_OK(op.apply(y, x));
  out.assign(in.size(), T(0));
  ASSERT_OK(y.download(out.data(), out.size() * sizeof(T)));
}

/// Equal to rounding at every site, the untouched boundary included; and
/// not trivially (some values are far from zero).
template <typename T>
void expectSame(const std::vector<T> &original, const std::vector<T> &generated,
                double tolerance) {
  ASSERT_EQ(original.size(), generated.size());
  double largest = 0.0;
  size_t mismatches = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    largest = std::max(largest, std::fabs(double(original[i])));
    double scale = 1.0 + std::fabs(double(original[i]));
    if (std::fabs(double(original[i]) - double(generated[i])) > tolerance * scale &&
        mismatches++ < 5)
      ADD_FAILURE() << "site " << i << ": original " << original[i]
                    << ", generated " << generated[i];
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(largest, 0.5) << "the comparison would pass on zeros";
}

TEST(ImportRoundTrip, LabNoteKernelOneFlattenedIndexDirichlet) {
  const int nx = 19, ny = 13, nz = 11;
  const double hx = 0.7, hy = 1.3, hz = 0.9;
  std::vector<double> u = randomValues<double>(size_t(nx) * ny * nz, 1);
  std::vector<double> f(u.size(), 0.0), g;
  labnote_launch<double>(f.data(), u.data(), nx, ny, nz, hx, hy, hz);
  double ix = 1 / hx / hx, iy = 1 / hy / hy, iz = 1 / hz / hz;
  runGenerated<double>(stencilc_kernels::imported_labnote::info(), {nx, ny, nz},
                       {{"invhx2", ix}, {"invhy2", iy}, {"invhz2", iz},
                        {"invhxyz2", -2 * (ix + iy + iz)}},
                       u, g);
  expectSame(f, g, 1e-12);
}

TEST(ImportRoundTrip, NestedLoopsFlattenedIndexFoldedCoefficients) {
  const int nx = 17, ny = 12, nz = 9;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny * nz, 2);
  std::vector<double> out(in.size(), 0.0), g;
  anisotropic_apply(out.data(), in.data(), nx, ny, nz, 1.25, 0.5, 2.0, 0.3);
  runGenerated<double>(
      stencilc_kernels::imported_anisotropic::info(), {nx, ny, nz},
      {{"cx", 1.25}, {"cy", 0.5}, {"cz", 2.0}, {"shift", 0.3}}, in, g);
  expectSame(out, g, 1e-12);
}

TEST(ImportRoundTrip, MultiDimensionalArrays) {
  std::vector<float> in = randomValues<float>(10 * 12 * 14, 3);
  std::vector<float> out(in.size(), 0.0f), g;
  smooth_multidim(reinterpret_cast<float(*)[12][14]>(out.data()),
                  reinterpret_cast<const float(*)[12][14]>(in.data()), 0.4f);
  runGenerated<float>(stencilc_kernels::imported_multidim::info(),
                      {14, 12, 10}, {{"w", 0.4}}, in, g);
  expectSame(out, g, 1e-6);
}

TEST(ImportRoundTrip, FourDimensionalPeriodicLoop) {
  const int nx = 6, ny = 5, nz = 4, nt = 7;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny * nz * nt, 4);
  std::vector<float> out(in.size(), 0.0f), g;
  periodic_laplacian4d(out.data(), in.data(), nx, ny, nz, nt, 0.2f, 0.125f);
  runGenerated<float>(stencilc_kernels::imported_periodic4d::info(),
                      {nx, ny, nz, nt}, {{"mass", 0.2}, {"kappa", 0.125}}, in,
                      g);
  expectSame(out, g, 1e-6);
}

TEST(ImportRoundTrip, CudaKernelPeriodicWrapByConditionals) {
  // More threads than sites: the kernel's own guard keeps them out.
  const int nx = 13, ny = 10;
  std::vector<float> now = randomValues<float>(size_t(nx) * ny, 5);
  std::vector<float> next(now.size(), 0.0f), g;
  stencil::host::launch(periodic_diffusion2d, stencil::LaunchDims{2, 3, 1},
                        stencil::LaunchDims{8, 4, 1}, next.data(),
                        static_cast<const float *>(now.data()), nx, ny, 0.3f);
  runGenerated<float>(stencilc_kernels::imported_periodic2d::info(), {nx, ny},
                      {{"nu", 0.3}}, now, g);
  expectSame(next, g, 1e-6);
}

TEST(ImportRoundTrip, ContinueGuardsInclusiveBoundsHelperAndFma) {
  // The argument 'diag' keeps its name in the spec.
  const int nx = 11, ny = 9;
  std::vector<double> field = randomValues<double>(size_t(nx) * ny, 6);
  std::vector<double> result(field.size(), 0.0), g;
  weighted_plane(result.data(), field.data(), nx, ny, 3.5, 0.75);
  runGenerated<double>(stencilc_kernels::imported_guards2d::info(), {nx, ny},
                       {{"diag", 3.5}, {"axial", 0.75}}, field, g);
  expectSame(result, g, 1e-12);
}

TEST(ImportRoundTrip, HipKernelReachTwoInteriorBody) {
  const int n = 50;
  std::vector<float> u = randomValues<float>(n, 7);
  std::vector<float> d2u(u.size(), 0.0f), g;
  stencil::host::launch(line_fourth_order, stencil::LaunchDims{4, 1, 1},
                        stencil::LaunchDims{16, 1, 1}, d2u.data(),
                        static_cast<const float *>(u.data()), n, 2.0f);
  runGenerated<float>(stencilc_kernels::imported_line1d::info(), {n},
                      {{"inv_h2", 2.0}}, u, g);
  expectSame(d2u, g, 1e-6);
}

} // namespace
