// Helpers the host runtime tests share: kernel lookup by name, status
// assertions, random site parameters and values, complex fields as (re, im)
// pairs, their inner products and distances.
#ifndef STENCILC_TESTS_HOSTFIXTURES_H
#define STENCILC_TESTS_HOSTFIXTURES_H

#include "KernelRegistry.h"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#define ASSERT_OK(call)                                                        \
  do {                                                                         \
    ::stencil::Status status_ = (call);                                        \
    ASSERT_TRUE(status_.ok()) << status_.message();                            \
  } while (0)

namespace stencilc {
namespace testing {

/// The registered stencil named `name` (a test failure if there is none).
inline const stencil::KernelInfo &kernelNamed(const std::string &name) {
  for (const auto &k : registeredKernels())
    if (name == k.info->name)
      return *k.info;
  ADD_FAILURE() << "no kernel " << name;
  return *registeredKernels().front().info;
}

/// Gives each site parameter of A an array of values uniform in [low,
/// high); `fields` keeps them alive.
inline stencil::Status
attachRandomSiteParameters(stencil::StencilOperator &A, stencil::Random &random,
                           double low, double high,
                           std::vector<std::unique_ptr<stencil::Field>> &fields) {
  return stencil::set_random_site_parameters(
      A, random, [&](const std::string &) { return std::pair{low, high}; },
      fields);
}

/// Sets an environment variable for one scope (a test), unset however it
/// ends: later tests in the binary read it too.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char *n, const std::string &value) : name(n) {
    setenv(n, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

/// `f` created on `lattice`, its values uniform in [-1, 1), its halo zero.
inline void randomInteriorField(const stencil::Lattice &lattice,
                                stencil::Random &random, stencil::Field &f) {
  ASSERT_OK(stencil::Field::create(lattice, f));
  std::vector<double> values(lattice.values());
  for (double &v : values)
    v = random.uniform(-1.0, 1.0);
  ASSERT_OK(f.upload_values(values.data(), values.size()));
  ASSERT_OK(stencil::set_halo(f, 0.0));
}

/// `f`'s values in the host's site-major order.
inline std::vector<double> downloadValues(const stencil::Field &f) {
  std::vector<double> values(f.lattice().values());
  EXPECT_TRUE(f.download_values(values.data(), values.size()).ok());
  return values;
}

/// A failure whose message says each of `texts`.
inline void expectFailure(const stencil::Status &status,
                          std::initializer_list<std::string> texts) {
  EXPECT_FALSE(status.ok());
  for (const std::string &text : texts)
    EXPECT_NE(status.message().find(text), std::string::npos)
        << status.message();
}

using Complex = std::complex<double>;

/// `count` values uniform in [low, high).
inline std::vector<double> randomReals(stencil::Random &random,
                                       std::int64_t count, double low = -1.0,
                                       double high = 1.0) {
  std::vector<double> values(count);
  for (double &v : values)
    v = random.uniform(low, high);
  return values;
}

/// `count` complex values, each part uniform in [-1, 1) (real part first).
inline std::vector<Complex> randomComplex(stencil::Random &random,
                                          std::int64_t count) {
  std::vector<Complex> values(count);
  for (Complex &v : values)
    v = {random.uniform(-1.0, 1.0), random.uniform(-1.0, 1.0)};
  return values;
}

/// Complex values as the runtime stores them, (re, im) adjacent, and back.
inline std::vector<double> interleave(const std::vector<Complex> &values) {
  std::vector<double> reals;
  for (const Complex &v : values) {
    reals.push_back(v.real());
    reals.push_back(v.imag());
  }
  return reals;
}
inline std::vector<Complex> pairsOf(const std::vector<double> &reals) {
  std::vector<Complex> values;
  for (size_t i = 0; i + 1 < reals.size(); i += 2)
    values.push_back({reals[i], reals[i + 1]});
  return values;
}

/// <a, b> = sum_k conj(a_k) b_k, of complex values or of (re, im) pairs.
inline Complex innerProduct(const std::vector<Complex> &a,
                            const std::vector<Complex> &b) {
  Complex sum = 0.0;
  for (size_t k = 0; k < a.size(); ++k)
    sum += std::conj(a[k]) * b[k];
  return sum;
}
inline Complex innerProduct(const std::vector<double> &a,
                            const std::vector<double> &b) {
  Complex sum = 0.0;
  for (size_t k = 0; k + 1 < a.size(); k += 2)
    sum += std::conj(Complex(a[k], a[k + 1])) * Complex(b[k], b[k + 1]);
  return sum;
}

/// max |a_k - b_k| / max |b_k|.
inline double relativeDistance(const std::vector<Complex> &a,
                               const std::vector<Complex> &b) {
  double diff = 0.0, scale = 0.0;
  for (size_t k = 0; k < a.size(); ++k) {
    diff = std::max(diff, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(b[k]));
  }
  return diff / scale;
}

/// ||x - u|| / ||u|| of a field against host values.
inline double relativeError(const stencil::Field &x,
                            const std::vector<double> &u) {
  std::vector<double> got(u.size());
  EXPECT_TRUE(x.download_values(got.data(), got.size()).ok());
  double error = 0.0, scale = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    error += (got[i] - u[i]) * (got[i] - u[i]);
    scale += u[i] * u[i];
  }
  return std::sqrt(error / scale);
}

/// A in (or A^dagger in) of complex values in the host order: the output
/// poisoned first, its halo (no row of A) zeroed after, every other value
/// required to be written.
inline std::vector<Complex> applyToComplex(const stencil::StencilOperator &A,
                                           const std::vector<Complex> &in,
                                           bool adjoint = false) {
  stencil::Field f, out;
  EXPECT_TRUE(stencil::Field::create(A.lattice(), f).ok());
  EXPECT_TRUE(stencil::Field::create(A.lattice(), out).ok());
  const std::vector<double> reals = interleave(in);
  EXPECT_TRUE(f.upload_values(reals.data(), reals.size()).ok());
  EXPECT_TRUE(out.fill(std::nan("")).ok());
  EXPECT_TRUE((adjoint ? A.apply_adjoint(out, f) : A.apply(out, f)).ok());
  EXPECT_TRUE(stencil::set_halo(out, 0.0).ok());
  std::vector<double> result(reals.size());
  EXPECT_TRUE(out.download_values(result.data(), result.size()).ok());
  for (double v : result)
    EXPECT_TRUE(std::isfinite(v));
  return pairsOf(result);
}

/// CG's fold pass of A (apply_fold_dot, with the kernels fold_info() names)
/// on random r and p with poisoned outputs, against its definition: p' = r +
/// beta p on the interior (the halo of next_direction left as it was), q =
/// A p' by A.apply, and p' . q over the interior; then with x
/// (apply_fold_partials), x + alpha p on the interior by axpy.
/// `tolerance` is relative.
inline void expectFoldPassMatchesItsDefinition(const stencil::StencilOperator &A,
                                               double beta, double tolerance,
                                               unsigned seed) {
  using stencil::Field;
  const double poison = 1e30;
  stencil::Random random(seed);
  Field r, p, q, pNext, pRef, qRef;
  for (Field *f : {&r, &p, &q, &pNext, &pRef, &qRef})
    ASSERT_OK(Field::create(A.lattice(), *f));
  std::vector<double> values(A.lattice().values());
  for (Field *f : {&r, &p}) {
    for (double &v : values)
      v = random.uniform(-1.0, 1.0);
    ASSERT_OK(f->upload_values(values.data(), values.size()));
  }
  for (Field *f : {&q, &pNext, &qRef})
    ASSERT_OK(f->fill(poison));
  ASSERT_OK(pRef.copy_from(p));
  ASSERT_OK(stencil::xpay(r, beta, pRef));
  ASSERT_OK(A.apply(qRef, pRef));
  stencil::Reducer reducer;
  double folded = 0.0;
  ASSERT_OK(A.apply_fold_dot(q, pNext, r, p, beta, reducer, folded));
  ASSERT_OK(stencil::set_halo(pRef, poison));
  // Each pair of fields equal to `tolerance`, relative, value by value.
  auto expectNear = [&](std::initializer_list<
                        std::tuple<const char *, Field *, Field *>>
                            pairs) {
    std::vector<double> got(values.size()), want(values.size());
    for (auto [what, gotField, wantField] : pairs) {
      ASSERT_OK(gotField->download_values(got.data(), got.size()));
      ASSERT_OK(wantField->download_values(want.data(), want.size()));
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
            << what << " value " << i;
    }
  };
  expectNear({{"p'", &pNext, &pRef}, {"q", &q, &qRef}});
  ASSERT_OK(stencil::set_halo(pRef, 0.0));
  ASSERT_OK(stencil::set_halo(qRef, 0.0));
  double expected = 0.0;
  ASSERT_OK(reducer.dot(pRef, qRef, expected));
  EXPECT_NEAR(folded, expected, tolerance * std::abs(expected));
  EXPECT_NE(folded, 0.0);

  // As CG's pipelined loop runs it: with x, which gets the last step's
  // alpha p on the interior (its halo, poisoned, left as it was), and the
  // same p', q and block partials as without it.
  stencil::Lattice xLattice = A.lattice(); // float for bfloat16 fields
  xLattice.element_bytes = std::max(xLattice.element_bytes, 4);
  Field x, xRef, pPlain;
  ASSERT_OK(Field::create(xLattice, x));
  ASSERT_OK(Field::create(xLattice, xRef));
  for (double &v : values)
    v = random.uniform(-1.0, 1.0);
  ASSERT_OK(x.upload_values(values.data(), values.size()));
  ASSERT_OK(stencil::set_halo(x, poison));
  ASSERT_OK(xRef.copy_from(x));
  const double alpha = 0.3125;
  ASSERT_OK(stencil::axpy(alpha, p, xRef));
  ASSERT_OK(stencil::set_halo(xRef, poison));
  ASSERT_OK(Field::create(A.lattice(), pPlain));
  ASSERT_OK(pPlain.copy_from(pNext));
  for (Field *f : {&q, &pNext})
    ASSERT_OK(f->fill(poison));
  stencil::Reducer scalars;
  const double *betaOnDevice = nullptr, *alphaOnDevice = nullptr;
  ASSERT_OK(scalars.device_scalar(beta, betaOnDevice));
  stencil::Reducer alphaHolder;
  ASSERT_OK(alphaHolder.device_scalar(alpha, alphaOnDevice));
  std::int64_t blocks = 0;
  ASSERT_OK(A.apply_fold_partials(q, pNext, r, p, betaOnDevice, &x,
                                  alphaOnDevice, reducer, blocks));
  double withX = 0.0;
  ASSERT_OK(reducer.sum_block_partials(blocks, withX));
  EXPECT_EQ(withX, folded);
  // The count a solver reserves before its clock starts.
  std::int64_t counted = 0;
  ASSERT_OK(A.fold_partial_count(counted));
  EXPECT_EQ(counted, blocks);
  expectNear({{"x", &x, &xRef}, {"p'", &pNext, &pPlain}});
  stencil::Lattice wrong = xLattice;
  wrong.extents[0] *= 2; // a lattice every layout holds, but not A's
  stencil::Field wrongX;
  ASSERT_OK(Field::create(wrong, wrongX));
  EXPECT_FALSE(A.apply_fold_partials(q, pNext, r, p, betaOnDevice, &wrongX,
                                     alphaOnDevice, reducer, blocks)
                   .ok());
  EXPECT_FALSE(A.apply_fold_partials(q, pNext, r, p, betaOnDevice, &x,
                                     nullptr, reducer, blocks)
                   .ok());
}

/// CG on A x = b with b = 1 everywhere: the status a refusal test judges.
inline stencil::Status solveWithCg(const stencil::StencilOperator &A) {
  stencil::Field b, x;
  STENCIL_TRY(stencil::Field::create(A.lattice(), b));
  STENCIL_TRY(stencil::Field::create(A.lattice(), x));
  STENCIL_TRY(b.fill(1.0));
  stencil::SolveOptions options;
  options.method = stencil::Method::CG;
  stencil::SolveReport report;
  return stencil::solve(A, b, x, options, report);
}

/// Random SU(3) links on a 4-D lattice, drawn from `random`.
inline stencil::GaugeField randomGauge(const int (&extents)[4],
                                       stencil::Random &random) {
  stencil::GaugeField U;
  EXPECT_TRUE(stencil::GaugeField::create(4, extents, 3, U).ok());
  U.set_random(random);
  return U;
}

} // namespace testing
} // namespace stencilc

#endif
