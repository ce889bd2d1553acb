// Round trip of stencilc import: each test input's original function,
// compiled for the host, against the kernels generated from the spec that
// `stencilc import` derived from it (built by tests/CMakeLists.txt), on
// random data and random parameter values. Equal to rounding means the
// spec computes the same function.
#include "imported_anisotropic.hpp"
#include "imported_aos_struct.hpp"
#include "imported_centre_pointer.hpp"
#include "imported_complex.hpp"
#include "imported_constant_structs.hpp"
#include "imported_deref_reference.hpp"
#include "imported_flat_gridstride3d.hpp"
#include "imported_flat_thread.hpp"
#include "imported_grid_struct.hpp"
#include "imported_gridstride.hpp"
#include "imported_helper_kernel.hpp"
#include "imported_interleaved.hpp"
#include "imported_lambda_captures.hpp"
#include "imported_lambda_index.hpp"
#include "imported_noinclude.hpp"
#include "imported_openmp.hpp"
#include "imported_ranges_iota.hpp"
#include "imported_rgb_blur.hpp"
#include "imported_row_pointers.hpp"
#include "imported_std_array.hpp"
#include "imported_struct_fields.hpp"
#include "imported_template_refs.hpp"
#include "imported_vector_rows.hpp"
#include "imported_while_loops.hpp"
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

#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <cstddef>
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

// Issue 21's styles (tests/import/inputs/).
void smooth9(double *out, const double *in, int nx, int ny, double side,
             double corner);
void rows_laplacian(float *dst, const float *src, int nx, int ny, int nz,
                    float h2inv);
void lambda_apply(double *out, const double *in, int nx, int ny, int nz,
                  double ax, double ay, double az);
struct Grid {
  int nx, ny;
  double inv_dx2, inv_dy2;
};
void struct_laplacian(double *lap, const double *phi, const Grid &g);
void while_smooth(float *out, const float *in, int width, int height, float w);
void gridstride_diffusion(double *unew, const double *u, int nx, int ny,
                          double alpha);
void bare_kernel(float *out, const float *in, int nx, int ny, float kappa);
void omp_fourth_order(double *du, const double *u, int nx, int ny,
                      double inv_12h2);
void vector_diffusion(float *out, const float *in, int nx, int ny, float d);
struct Velocity {
  double u;
  double v;
};
void velocity_smooth(Velocity *next, const Velocity *cur, int nx, int ny,
                     double nu);
void complex_laplacian(std::complex<double> *out,
                       const std::complex<double> *psi, int n, double inv_h2,
                       double v0);
using Plane = std::array<std::array<double, 24>, 18>;
void plane_blur(Plane &dst, const Plane &src, double centre, double edge);
void helper_kernel(float *v, const float *w, int n, float c1, float c2);
void rgb_blur(float *dst, const float *src, int width, int height, float mix);
void flat_thread_smooth(float *out, const float *in, int nx, int ny, float a);
void flat_gridstride3d(double *lap, const double *u, int nx, int ny, int nz,
                       double inv_h2);
void vector_rows(std::vector<double> &next, const std::vector<double> &cur,
                 std::size_t nx, double r);
typedef struct {
  float *data;
  int nx, ny;
} field2d;
void field_smooth(field2d out, const field2d *in, float c);
void lambda_captures(double *out, const double *in, int n, double early,
                     double late);
void iota_laplacian(float *out, const float *in, int nx, int ny, float s);
void mesh_filter(double *out, const double *in, double gain);
struct Sizes {
  int nx, ny;
};
void deref_update(float *out, const float *in, const Sizes *sz, float k);

// Never instantiated in its file: instantiated here, with extents other
// than the importer's.
#include "template_refs.cpp"

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

/// How runGenerated's output field starts: zero (as the originals' outputs
/// in the first round trips), or NaN, so that every value the kernels leave
/// alone shows.
enum class Output { Zeroed, Poisoned };

/// Runs the generated stencil on `in` with `parameters` and returns out.
template <typename T>
void runGenerated(const stencil::KernelInfo &info, std::vector<int> extents,
                  const std::map<std::string, double> &parameters,
                  const std::vector<T> &in, std::vector<T> &out,
                  Output start = Output::Zeroed) {
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
  if (start == Output::Poisoned)
    ASSERT_OK(y.fill(std::numeric_limits<double>::quiet_NaN()));
  ASSERT_OK(op.apply(y, x));
  out.assign(in.size(), T(0));
  ASSERT_OK(y.download(out.data(), out.size() * sizeof(T)));
}

template <typename T> std::vector<T> poisoned(size_t n) {
  return std::vector<T>(n, std::numeric_limits<T>::quiet_NaN());
}

/// Both outputs poisoned first: the original and the generated kernels
/// update the same `updated` values, equal to rounding, and leave the
/// others alone.
template <typename T>
void expectSameUpdates(const std::vector<T> &original,
                       const std::vector<T> &generated, double tolerance,
                       size_t updated) {
  ASSERT_EQ(original.size(), generated.size());
  double largest = 0.0;
  size_t mismatches = 0, written = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    bool a = std::isnan(double(original[i])), b = std::isnan(double(generated[i]));
    if (a || b) {
      if (a != b && mismatches++ < 5)
        ADD_FAILURE() << "value " << i << ": original " << original[i]
                      << ", generated " << generated[i];
      continue;
    }
    ++written;
    largest = std::max(largest, std::fabs(double(original[i])));
    double scale = 1.0 + std::fabs(double(original[i]));
    if (std::fabs(double(original[i]) - double(generated[i])) > tolerance * scale &&
        mismatches++ < 5)
      ADD_FAILURE() << "value " << i << ": original " << original[i]
                    << ", generated " << generated[i];
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(written, updated);
  EXPECT_GT(largest, 0.5) << "the comparison would pass on zeros";
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

// --- Issue 21: stencils as people write them ---------------------------

TEST(ImportRoundTrip, PointerToCentreWithOffsets) {
  const int nx = 19, ny = 14;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny, 21);
  std::vector<double> out = poisoned<double>(in.size()), g;
  smooth9(out.data(), in.data(), nx, ny, 0.3, -0.15);
  runGenerated<double>(stencilc_kernels::imported_centre_pointer::info(),
                       {nx, ny}, {{"side", 0.3}, {"corner", -0.15}}, in, g,
                       Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, RowPointers) {
  const int nx = 13, ny = 10, nz = 9;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny * nz, 22);
  std::vector<float> out = poisoned<float>(in.size()), g;
  rows_laplacian(out.data(), in.data(), nx, ny, nz, 0.7f);
  runGenerated<float>(stencilc_kernels::imported_row_pointers::info(),
                      {nx, ny, nz}, {{"h2inv", 0.7}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2) * (nz - 2));
}

TEST(ImportRoundTrip, LambdaIndexAndGenericLambda) {
  const int nx = 15, ny = 11, nz = 8;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny * nz, 23);
  std::vector<double> out = poisoned<double>(in.size()), g;
  lambda_apply(out.data(), in.data(), nx, ny, nz, 0.5, 1.5, -0.25);
  runGenerated<double>(stencilc_kernels::imported_lambda_index::info(),
                       {nx, ny, nz}, {{"ax", 0.5}, {"ay", 1.5}, {"az", -0.25}},
                       in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2) * (nz - 2));
}

TEST(ImportRoundTrip, TemplateOverExtentsWithArrayReferences) {
  constexpr int NZ = 9, NY = 11, NX = 13;
  std::vector<float> in = randomValues<float>(size_t(NX) * NY * NZ, 24);
  std::vector<float> out = poisoned<float>(in.size()), g;
  heat_step<NZ, NY, NX>(*reinterpret_cast<float(*)[NZ][NY][NX]>(out.data()),
                        *reinterpret_cast<const float(*)[NZ][NY][NX]>(in.data()),
                        0.1f);
  runGenerated<float>(stencilc_kernels::imported_template_refs::info(),
                      {NX, NY, NZ}, {{"r", 0.1}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(NX - 2) * (NY - 2) * (NZ - 2));
}

TEST(ImportRoundTrip, SizesAndCoefficientsFromAStruct) {
  const Grid grid{17, 12, 1.3, 0.6};
  std::vector<double> in = randomValues<double>(size_t(grid.nx) * grid.ny, 25);
  std::vector<double> out = poisoned<double>(in.size()), g;
  struct_laplacian(out.data(), in.data(), grid);
  runGenerated<double>(
      stencilc_kernels::imported_grid_struct::info(), {grid.nx, grid.ny},
      {{"g_inv_dx2", 1.3}, {"g_inv_dy2", 0.6}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(grid.nx - 2) * (grid.ny - 2));
}

TEST(ImportRoundTrip, WhileLoopsPeriodic) {
  const int nx = 11, ny = 7;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny, 26);
  std::vector<float> out = poisoned<float>(in.size()), g;
  while_smooth(out.data(), in.data(), nx, ny, 0.2f);
  runGenerated<float>(stencilc_kernels::imported_while_loops::info(), {nx, ny},
                      {{"w", 0.2}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, in.size());
}

TEST(ImportRoundTrip, CudaGridStrideLoops) {
  // Fewer threads than sites: the grid-stride loops cover the rest.
  const int nx = 23, ny = 17;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny, 27);
  std::vector<double> out = poisoned<double>(in.size()), g;
  stencil::host::launch(gridstride_diffusion, stencil::LaunchDims{2, 2, 1},
                        stencil::LaunchDims{4, 3, 1}, out.data(),
                        static_cast<const double *>(in.data()), nx, ny, 0.15);
  runGenerated<double>(stencilc_kernels::imported_gridstride::info(), {nx, ny},
                       {{"alpha", 0.15}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, CudaFileWithoutRuntimeInclude) {
  const int nx = 21, ny = 15;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny, 28);
  std::vector<float> out = poisoned<float>(in.size()), g;
  stencil::host::launch(bare_kernel, stencil::LaunchDims{3, 4, 1},
                        stencil::LaunchDims{8, 4, 1}, out.data(),
                        static_cast<const float *>(in.data()), nx, ny, 0.2f);
  runGenerated<float>(stencilc_kernels::imported_noinclude::info(), {nx, ny},
                      {{"kappa", 0.2}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, OpenMpLoopNestReachTwo) {
  const int nx = 20, ny = 15;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny, 29);
  std::vector<double> out = poisoned<double>(in.size()), g;
  omp_fourth_order(out.data(), in.data(), nx, ny, 0.05);
  runGenerated<double>(stencilc_kernels::imported_openmp::info(), {nx, ny},
                       {{"inv_12h2", 0.05}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 4) * (ny - 4));
}

TEST(ImportRoundTrip, InterleavedComponents) {
  const int nx = 12, ny = 9;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny * 3, 30);
  std::vector<float> out = poisoned<float>(in.size()), g;
  vector_diffusion(out.data(), in.data(), nx, ny, 0.125f);
  EXPECT_EQ(stencilc_kernels::imported_interleaved::info().components, 3);
  runGenerated<float>(stencilc_kernels::imported_interleaved::info(), {nx, ny},
                      {{"d", 0.125}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2) * 3);
}

TEST(ImportRoundTrip, ArrayOfStructs) {
  const int nx = 14, ny = 11;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny * 2, 31);
  std::vector<double> out = poisoned<double>(in.size()), g;
  velocity_smooth(reinterpret_cast<Velocity *>(out.data()),
                  reinterpret_cast<const Velocity *>(in.data()), nx, ny, 0.2);
  runGenerated<double>(stencilc_kernels::imported_aos_struct::info(), {nx, ny},
                       {{"nu", 0.2}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2) * 2);
}

TEST(ImportRoundTrip, StdComplexPeriodic) {
  const int n = 37;
  std::vector<double> in = randomValues<double>(size_t(n) * 2, 32);
  std::vector<double> out = poisoned<double>(in.size()), g;
  complex_laplacian(reinterpret_cast<std::complex<double> *>(out.data()),
                    reinterpret_cast<const std::complex<double> *>(in.data()),
                    n, 1.75, -0.4);
  runGenerated<double>(stencilc_kernels::imported_complex::info(), {n},
                       {{"inv_h2", 1.75}, {"v0", -0.4}}, in, g,
                       Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, in.size());
}

TEST(ImportRoundTrip, NestedStdArrays) {
  std::vector<double> in = randomValues<double>(24 * 18, 33);
  std::vector<double> out = poisoned<double>(in.size()), g;
  static_assert(sizeof(Plane) == 24 * 18 * sizeof(double));
  plane_blur(*reinterpret_cast<Plane *>(out.data()),
             *reinterpret_cast<const Plane *>(in.data()), 0.4, 0.15);
  runGenerated<double>(stencilc_kernels::imported_std_array::info(), {24, 18},
                       {{"centre", 0.4}, {"edge", 0.15}}, in, g,
                       Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(22) * 16);
}

TEST(ImportRoundTrip, HipKernelCallingAWritingHelper) {
  const int n = 61;
  std::vector<float> in = randomValues<float>(n, 34);
  std::vector<float> out = poisoned<float>(in.size()), g;
  stencil::host::launch(helper_kernel, stencil::LaunchDims{4, 1, 1},
                        stencil::LaunchDims{16, 1, 1}, out.data(),
                        static_cast<const float *>(in.data()), n, 0.8f, -0.1f);
  runGenerated<float>(stencilc_kernels::imported_helper_kernel::info(), {n},
                      {{"c1", 0.8}, {"c2", -0.1}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(n - 4));
}

TEST(ImportRoundTrip, HipInterleavedChannelsOneStoreEach) {
  const int width = 17, height = 12;
  std::vector<float> in = randomValues<float>(size_t(width) * height * 3, 35);
  std::vector<float> out = poisoned<float>(in.size()), g;
  stencil::host::launch(rgb_blur, stencil::LaunchDims{3, 4, 1},
                        stencil::LaunchDims{8, 4, 1}, out.data(),
                        static_cast<const float *>(in.data()), width, height,
                        0.6f);
  EXPECT_EQ(stencilc_kernels::imported_rgb_blur::info().components, 3);
  runGenerated<float>(stencilc_kernels::imported_rgb_blur::info(),
                      {width, height}, {{"mix", 0.6}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(width - 2) * (height - 2) * 3);
}

TEST(ImportRoundTrip, CudaOneThreadPerSiteSplitWithDivAndMod) {
  // 1-D launch over nx * ny threads and more: the coordinates from % and /.
  const int nx = 19, ny = 13;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny, 36);
  std::vector<float> out = poisoned<float>(in.size()), g;
  stencil::host::launch(flat_thread_smooth, stencil::LaunchDims{8, 1, 1},
                        stencil::LaunchDims{32, 1, 1}, out.data(),
                        static_cast<const float *>(in.data()), nx, ny, 0.2f);
  runGenerated<float>(stencilc_kernels::imported_flat_thread::info(), {nx, ny},
                      {{"a", 0.2}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, HipGridStrideOverAFlattened3dLattice) {
  const int nx = 11, ny = 9, nz = 7;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny * nz, 37);
  std::vector<double> out = poisoned<double>(in.size()), g;
  stencil::host::launch(flat_gridstride3d, stencil::LaunchDims{3, 1, 1},
                        stencil::LaunchDims{32, 1, 1}, out.data(),
                        static_cast<const double *>(in.data()), nx, ny, nz,
                        0.8);
  runGenerated<double>(stencilc_kernels::imported_flat_gridstride3d::info(),
                       {nx, ny, nz}, {{"inv_h2", 0.8}}, in, g,
                       Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2) * (nz - 2));
}

TEST(ImportRoundTrip, StdVectorRowsFromItsSize) {
  const int nx = 16, ny = 11;
  std::vector<double> in = randomValues<double>(size_t(nx) * ny, 38);
  std::vector<double> out = poisoned<double>(in.size()), g;
  vector_rows(out, in, nx, 0.15);
  runGenerated<double>(stencilc_kernels::imported_vector_rows::info(), {nx, ny},
                       {{"r", 0.15}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, CStructsCarryingDataAndExtents) {
  const int nx = 15, ny = 12;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny, 39);
  std::vector<float> out = poisoned<float>(in.size()), g;
  const field2d source{in.data(), nx, ny};
  field_smooth(field2d{out.data(), nx, ny}, &source, 0.3f);
  runGenerated<float>(stencilc_kernels::imported_struct_fields::info(),
                      {nx, ny}, {{"c", 0.3}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, LambdaCapturesByValueAndByReference) {
  // The weight changes after both lambdas exist: the one that copied it
  // keeps the early value, the one that refers to it sees the late one.
  const int n = 29;
  std::vector<double> in = randomValues<double>(n, 40);
  std::vector<double> out = poisoned<double>(in.size()), g;
  lambda_captures(out.data(), in.data(), n, 0.7, -1.3);
  runGenerated<double>(stencilc_kernels::imported_lambda_captures::info(), {n},
                       {{"early", 0.7}, {"late", -1.3}}, in, g,
                       Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(n - 2));
}

TEST(ImportRoundTrip, Cxx20IotaRanges) {
  const int nx = 18, ny = 13;
  std::vector<float> in = randomValues<float>(size_t(nx) * ny, 41);
  std::vector<float> out = poisoned<float>(in.size()), g;
  iota_laplacian(out.data(), in.data(), nx, ny, 0.45f);
  runGenerated<float>(stencilc_kernels::imported_ranges_iota::info(), {nx, ny},
                      {{"s", 0.45}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, ConstexprStructsOfExtentsAndWeights) {
  const int nx = 21, ny = 15; // Mesh::NX, Mesh::NY in the input
  std::vector<double> in = randomValues<double>(size_t(nx) * ny, 42);
  std::vector<double> out = poisoned<double>(in.size()), g;
  mesh_filter(out.data(), in.data(), 1.6);
  runGenerated<double>(stencilc_kernels::imported_constant_structs::info(),
                       {nx, ny}, {{"gain", 1.6}}, in, g, Output::Poisoned);
  expectSameUpdates(out, g, 1e-12, size_t(nx - 2) * (ny - 2));
}

TEST(ImportRoundTrip, DereferencedPointersAndAReferenceToTheOutput) {
  const Sizes sizes{13, 10};
  std::vector<float> in = randomValues<float>(size_t(sizes.nx) * sizes.ny, 43);
  std::vector<float> out = poisoned<float>(in.size()), g;
  deref_update(out.data(), in.data(), &sizes, 0.2f);
  runGenerated<float>(stencilc_kernels::imported_deref_reference::info(),
                      {sizes.nx, sizes.ny}, {{"k", 0.2}}, in, g,
                      Output::Poisoned);
  expectSameUpdates(out, g, 1e-5, size_t(sizes.nx - 2) * (sizes.ny - 2));
}

} // namespace
