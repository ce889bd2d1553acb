// bfloat16 storage (stencil/bfloat16.hpp): the conversions against
// references computed another way, every BLAS operation and CG's update on
// bfloat16 fields (and a float x with bfloat16 p, q, r) against naive float
// arithmetic on the same rounded inputs, and the Field's conversions.
#include "HostFixtures.h"

#include "stencil/bfloat16.hpp"
#include "stencil/blas.hpp"
#include "stencil/field.hpp"
#include "stencil/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace stencil;
using stencilc::testing::expectFailure;
using stencilc::testing::randomReals;

namespace {

std::uint32_t bitsOf(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float floatOf(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// The value of bfloat16 bits from their fields (sign, 8 exponent bits, 7
/// mantissa bits), not by a shift into a float.
double valueOf(std::uint16_t b) {
  const int exponent = (b >> 7) & 0xff, mantissa = b & 0x7f;
  double magnitude;
  if (exponent == 0) // subnormal: 0.m 2^-126
    magnitude = std::ldexp(mantissa, -133);
  else if (exponent == 0xff)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else // 1.m 2^(e - 127)
    magnitude = std::ldexp(128 + mantissa, exponent - 134);
  return b >> 15 ? -magnitude : magnitude;
}

/// `f` (not a NaN) rounded to bfloat16: the nearer of its neighbours below
/// and above in magnitude, by double arithmetic (exact here), ties to the
/// even mantissa. Above the largest finite value the upper neighbour is
/// 2^128, as IEEE rounding has it: reaching it means infinity.
std::uint16_t referenceRound(float f) {
  const std::uint16_t down = static_cast<std::uint16_t>(bitsOf(f) >> 16);
  if (std::isinf(f))
    return down;
  const std::uint16_t up = static_cast<std::uint16_t>(down + 1);
  const double d = std::fabs(static_cast<double>(f));
  const double low = std::fabs(valueOf(down));
  const double high =
      (up & 0x7fff) == 0x7f80 ? std::ldexp(1.0, 128) : std::fabs(valueOf(up));
  if (d - low != high - d)
    return d - low < high - d ? down : up;
  return down & 1 ? up : down;
}

TEST(BFloat16, WidenGivesTheFloatOfTheUpperBits) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float w = widen(bfloat16{static_cast<std::uint16_t>(b)});
    ASSERT_EQ(bitsOf(w), b << 16) << std::hex << b;
    const double value = valueOf(static_cast<std::uint16_t>(b));
    if (std::isnan(value))
      ASSERT_TRUE(std::isnan(w)) << std::hex << b;
    else
      ASSERT_EQ(static_cast<double>(w), value) << std::hex << b;
  }
}

TEST(BFloat16, RoundsToNearestEvenLikeTheReference) {
  std::vector<std::uint32_t> cases = {
      0x00000000u, 0x80000000u, 0x3f800000u, 0x3f808000u, // 1 + tie: even
      0x3f818000u,                                        // tie: up to even
      0x7f7f0000u, 0x7f7f7fffu, 0x7f7f8000u, 0x7f7fffffu, // near FLT_MAX
      0xff7f7fffu, 0xff7f8000u, 0xff7fffffu, 0x7f800000u, 0xff800000u, // +-inf
      0x00000001u, 0x00008000u, 0x00018000u, 0x007fffffu, // subnormals
      0x807fffffu, 0x00800000u, 0x007f8000u, 0x007f7fffu};
  Random random(2024);
  for (int k = 0; k < 200000; ++k) {
    const std::uint32_t u = static_cast<std::uint32_t>(random.next() >> 32);
    cases.push_back(u);                               // any class
    cases.push_back((u & 0xffff0000u) | 0x8000u);     // a tie
    cases.push_back((u & 0xffff0000u) | 0x7fffu);     // just below one
    cases.push_back((u & 0xffff0000u) | 0x8001u);     // just above one
    cases.push_back(u & 0x807fffffu);                 // subnormal
    cases.push_back(0x7f7f0000u | (u & 0x8000ffffu)); // near +-FLT_MAX
  }
  int mismatches = 0;
  for (std::uint32_t u : cases) {
    const float f = floatOf(u);
    const bfloat16 got = to_bfloat16(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(widen(got))) << std::hex << u;
      EXPECT_EQ(got.bits >> 15, u >> 31) << std::hex << u; // sign kept
      continue;
    }
    const std::uint16_t want = referenceRound(f);
    if (got.bits != want && ++mismatches <= 10)
      ADD_FAILURE() << std::hex << "to_bfloat16(0x" << u << ") = 0x" << got.bits
                    << ", want 0x" << want;
  }
  EXPECT_EQ(mismatches, 0);
  // The named cases' values, as a reader checks them.
  EXPECT_EQ(to_bfloat16(floatOf(0x3f808000u)).bits, 0x3f80); // tie: down
  EXPECT_EQ(to_bfloat16(floatOf(0x3f818000u)).bits, 0x3f82); // tie: up
  EXPECT_TRUE(std::isinf(widen(to_bfloat16(floatOf(0x7f7f8000u)))));
  EXPECT_EQ(to_bfloat16(floatOf(0x7f7f7fffu)).bits, 0x7f7f); // largest finite
  EXPECT_EQ(to_bfloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7f810000u})
    EXPECT_TRUE(std::isnan(widen(to_bfloat16(floatOf(nan)))))
        << std::hex << nan;
}

template <int W> void expectVectorWidensValueByValue() {
  // widen() of a stored vector reads it as 32-bit words (one vector load on
  // GPUs): each value lands at its own index, exactly widened.
  vec<bfloat16, W> v;
  for (int i = 0; i < W; ++i)
    v.v[i] = to_bfloat16(1.5f * static_cast<float>(i + 1) - 7.25f);
  const vec<float, W> w = widen(v);
  for (int i = 0; i < W; ++i)
    EXPECT_EQ(w.v[i], widen(v.v[i])) << "W = " << W << ", value " << i;
}

TEST(BFloat16, WidenOfAVectorKeepsEachValueInPlace) {
  expectVectorWidensValueByValue<1>();
  expectVectorWidensValueByValue<2>();
  expectVectorWidensValueByValue<4>();
  expectVectorWidensValueByValue<8>();
}

/// `v` as a field of `bytes`-byte values stores it: bfloat16 through float
/// (narrow<bfloat16>(double) rounds twice, and so does the reference).
double storedAs(int bytes, double v) {
  if (bytes == 8)
    return v;
  const float f = static_cast<float>(v);
  return bytes == 4 ? f : widen(to_bfloat16(f));
}

/// c + a b as the runtime may compute it in float or double: rounded
/// twice, or once where the compiler contracts it to a fused multiply-add
/// (g++ does with -march=haswell, nvcc and hipcc by default).
template <typename R> std::vector<double> plusProduct(R c, R a, R b) {
  volatile R product = a * b; // volatile: not contracted here
  return {static_cast<double>(c + product),
          static_cast<double>(std::fma(a, b, c))};
}

/// The candidates stored as `bytes`-byte values.
std::vector<double> storedAs(int bytes, std::vector<double> values) {
  for (double &v : values)
    v = storedAs(bytes, v);
  return values;
}

/// Each got[i] is one of want(i); names the first few that are not.
void expectEach(const std::vector<double> &got,
                const std::function<std::vector<double>(size_t)> &want) {
  int wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const std::vector<double> allowed = want(i);
    bool found = false;
    for (double a : allowed)
      found |= got[i] == a;
    if (!found && ++wrong <= 5)
      ADD_FAILURE() << "value " << i << ": " << got[i] << ", want "
                    << allowed[0];
  }
  EXPECT_EQ(wrong, 0);
}

/// 11x7x5 sites: no multiple of a chunk, block or 16-byte group.
Lattice oddLattice(int bytes, int components) {
  Lattice lattice;
  lattice.dims = 3;
  lattice.extents[0] = 11;
  lattice.extents[1] = 7;
  lattice.extents[2] = 5;
  lattice.components = components;
  lattice.element_bytes = bytes;
  return lattice;
}

/// A field of random values in [low, high); `stored` gets them as stored.
void randomField(const Lattice &lattice, Random &random, Field &field,
                 std::vector<double> &stored, double low = -1.0,
                 double high = 1.0) {
  ASSERT_OK(Field::create(lattice, field));
  const std::vector<double> v =
      randomReals(random, lattice.values(), low, high);
  ASSERT_OK(field.upload_values(v.data(), v.size()));
  stored.assign(v.size(), 0.0);
  ASSERT_OK(field.download_values(stored.data(), stored.size()));
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(stored[i], storedAs(lattice.element_bytes, v[i]));
}

std::vector<double> valuesOf(const Field &field) {
  std::vector<double> values(field.lattice().values());
  EXPECT_TRUE(field.download_values(values.data(), values.size()).ok());
  return values;
}

/// A sentinel in every value, so that a value an operation skips shows.
constexpr double kPoison = 12288.0; // a bfloat16, far from the results

TEST(BFloat16Blas, ElementwiseOperationsRoundOnce) {
  for (const int components : {1, 4}) {
    SCOPED_TRACE(components);
    const Lattice lattice = oddLattice(2, components);
    Random random(7);
    Field x, y, d;
    std::vector<double> xs, ys, ds;
    ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, x, xs));
    ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, y, ys));
    ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, d, ds, 0.5, 2.0));
    const double a = 0.37;
    const float fa = static_cast<float>(a);
    const auto f = [](double v) { return static_cast<float>(v); };
    Field out;
    ASSERT_OK(Field::create(lattice, out));

    ASSERT_OK(fill(out, 0.1));
    expectEach(valuesOf(out), [&](size_t) {
      return std::vector<double>{widen(to_bfloat16(0.1f))};
    });

    ASSERT_OK(fill(out, kPoison));
    ASSERT_OK(out.copy_from(y));
    ASSERT_OK(axpy(a, x, out));
    expectEach(valuesOf(out), [&](size_t i) {
      return storedAs(2, plusProduct(f(ys[i]), fa, f(xs[i])));
    });

    ASSERT_OK(out.copy_from(y));
    ASSERT_OK(xpay(x, a, out));
    expectEach(valuesOf(out), [&](size_t i) {
      return storedAs(2, plusProduct(f(xs[i]), fa, f(ys[i])));
    });

    Reducer reducer;
    const double *deviceA = nullptr;
    ASSERT_OK(reducer.device_scalar(a, deviceA));
    ASSERT_OK(out.copy_from(y));
    ASSERT_OK(xpay_from_device(x, deviceA, out));
    expectEach(valuesOf(out), [&](size_t i) {
      return storedAs(2, plusProduct(f(xs[i]), fa, f(ys[i])));
    });

    ASSERT_OK(out.copy_from(y));
    ASSERT_OK(scale(a, out));
    expectEach(valuesOf(out), [&](size_t i) {
      return std::vector<double>{storedAs(2, f(ys[i]) * fa)};
    });

    ASSERT_OK(fill(out, kPoison));
    ASSERT_OK(divide(x, d, out));
    expectEach(valuesOf(out), [&](size_t i) {
      return std::vector<double>{storedAs(2, f(xs[i]) / f(ds[i]))};
    });
  }
}

TEST(BFloat16Blas, GroupedPassesOfFloatAndDoubleFields) {
  // axpy and xpay run 16 bytes of each field a thread (2 doubles, 4
  // floats; the bfloat16 case above 8) and the values past the last group
  // one by one: every value as the plain loop computes it, on a lattice of
  // 385 or 1540 values (a group and a remainder).
  for (const int bytes : {4, 8})
    for (const int components : {1, 4}) {
      SCOPED_TRACE(std::to_string(bytes) + " bytes, " +
                   std::to_string(components) + " components");
      const Lattice lattice = oddLattice(bytes, components);
      Random random(11 + bytes + components);
      Field x, y, out;
      std::vector<double> xs, ys;
      ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, x, xs));
      ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, y, ys));
      ASSERT_OK(Field::create(lattice, out));
      const double a = 0.37;
      const auto want = [&](double c, double b) {
        if (bytes == 8)
          return plusProduct(c, a, b);
        return plusProduct(static_cast<float>(c), static_cast<float>(a),
                           static_cast<float>(b));
      };
      ASSERT_OK(out.copy_from(y));
      ASSERT_OK(axpy(a, x, out));
      expectEach(valuesOf(out), [&](size_t i) { return want(ys[i], xs[i]); });
      ASSERT_OK(out.copy_from(y));
      ASSERT_OK(xpay(x, a, out));
      expectEach(valuesOf(out), [&](size_t i) { return want(xs[i], ys[i]); });
      Reducer reducer;
      const double *deviceA = nullptr;
      ASSERT_OK(reducer.device_scalar(a, deviceA));
      ASSERT_OK(out.copy_from(y));
      ASSERT_OK(xpay_from_device(x, deviceA, out));
      expectEach(valuesOf(out), [&](size_t i) { return want(xs[i], ys[i]); });
    }
}

TEST(BFloat16Blas, MixedPrecisionAxpyAndConvert) {
  for (const int xBytes : {2, 4, 8})
    for (const int yBytes : {2, 4, 8}) {
      SCOPED_TRACE(std::to_string(xBytes) + " -> " + std::to_string(yBytes));
      Random random(100 + 10 * xBytes + yBytes);
      Field x, y, to;
      std::vector<double> xs, ys;
      ASSERT_NO_FATAL_FAILURE(
          randomField(oddLattice(xBytes, 4), random, x, xs));
      ASSERT_NO_FATAL_FAILURE(
          randomField(oddLattice(yBytes, 4), random, y, ys));

      ASSERT_OK(Field::create(y.lattice(), to));
      ASSERT_OK(fill(to, kPoison));
      ASSERT_OK(convert(x, to));
      expectEach(valuesOf(to), [&](size_t i) {
        return std::vector<double>{storedAs(yBytes, xs[i])};
      });

      // The sum in y's arithmetic (float for bfloat16), x converted to it.
      const double a = -0.83;
      ASSERT_OK(axpy(a, x, y));
      expectEach(valuesOf(y), [&](size_t i) {
        if (yBytes == 8)
          return plusProduct(ys[i], a, xs[i]);
        return storedAs(yBytes, plusProduct(static_cast<float>(ys[i]),
                                            static_cast<float>(a),
                                            static_cast<float>(xs[i])));
      });
    }
  // Sites must agree but for the precision.
  Field x, y;
  ASSERT_OK(Field::create(oddLattice(2, 4), x));
  ASSERT_OK(Field::create(oddLattice(4, 1), y));
  expectFailure(axpy(1.0, x, y), {"axpy", "but for precision"});
  expectFailure(convert(x, y), {"convert", "but for precision"});
}

TEST(BFloat16Blas, SetHaloWritesOnlyTheHalo) {
  Lattice lattice = oddLattice(2, 4);
  for (int axis = 0; axis < 3; ++axis)
    lattice.halo[axis] = 1; // Dirichlet (the default boundary)
  Random random(5);
  Field x;
  std::vector<double> xs;
  ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, x, xs));
  ASSERT_OK(set_halo(x, 0.1));
  const std::vector<double> got = valuesOf(x);
  const int nx = 11, ny = 7, nz = 5, nc = 4;
  int halo = 0;
  for (int z = 0; z < nz; ++z)
    for (int yy = 0; yy < ny; ++yy)
      for (int xx = 0; xx < nx; ++xx) {
        const bool inHalo = xx == 0 || xx == nx - 1 || yy == 0 ||
                            yy == ny - 1 || z == 0 || z == nz - 1;
        halo += inHalo;
        for (int c = 0; c < nc; ++c) {
          const size_t i =
              ((static_cast<size_t>(z) * ny + yy) * nx + xx) * nc + c;
          ASSERT_EQ(got[i], inHalo ? storedAs(2, 0.1) : xs[i]) << i;
        }
      }
  EXPECT_EQ(halo, nx * ny * nz - 9 * 5 * 3);
}

TEST(BFloat16Blas, DotAndNorm2AgainstDouble) {
  for (const int components : {1, 4}) {
    SCOPED_TRACE(components);
    const Lattice lattice = oddLattice(2, components);
    Random random(9);
    Field x, y;
    std::vector<double> xs, ys;
    ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, x, xs));
    ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, y, ys));
    double wantDot = 0.0, wantSquares = 0.0, scale = 0.0;
    for (size_t i = 0; i < xs.size(); ++i) {
      wantDot += xs[i] * ys[i];
      wantSquares += xs[i] * xs[i];
      scale += std::fabs(xs[i] * ys[i]);
    }
    Reducer reducer;
    ASSERT_OK(reducer.reserve_partials(x));
    double dot = 0.0, norm = 0.0;
    ASSERT_OK(reducer.dot(x, y, dot));
    EXPECT_NEAR(dot, wantDot, 1e-13 * scale);
    ASSERT_OK(reducer.norm2(x, norm));
    EXPECT_NEAR(norm, std::sqrt(wantSquares), 1e-13 * std::sqrt(wantSquares));
    std::int64_t count = 0;
    double fromPartials = 0.0;
    ASSERT_OK(reducer.dot_partials(x, y, count));
    ASSERT_OK(reducer.sum_block_partials(count, fromPartials));
    EXPECT_NEAR(fromPartials, wantDot, 1e-13 * scale);
  }
}

/// CG's update, x += alpha p and r -= alpha q, against float arithmetic on
/// the stored values, and sum r^2 of the new r as stored; then
/// update_partials with alpha from device memory gives the same bits.
void checkUpdate(int pBytes, int xBytes, int components) {
  SCOPED_TRACE("p, q, r of " + std::to_string(pBytes) + " bytes, x of " +
               std::to_string(xBytes) + ", " + std::to_string(components) +
               " components");
  const Lattice lattice = oddLattice(pBytes, components);
  Random random(31 + pBytes + xBytes + components);
  Field p, q, r, x;
  std::vector<double> ps, qs, rs, xs;
  ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, p, ps));
  ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, q, qs));
  ASSERT_NO_FATAL_FAILURE(randomField(lattice, random, r, rs));
  ASSERT_NO_FATAL_FAILURE(
      randomField(oddLattice(xBytes, components), random, x, xs));
  Field x2, r2;
  ASSERT_OK(Field::create(x.lattice(), x2));
  ASSERT_OK(Field::create(r.lattice(), r2));
  ASSERT_OK(x2.copy_from(x));
  ASSERT_OK(r2.copy_from(r));

  const double alpha = 0.61;
  const float fa = static_cast<float>(alpha);
  const auto f = [](double v) { return static_cast<float>(v); };
  Reducer reducer;
  double rr = 0.0;
  ASSERT_OK(reducer.update_and_norm2(alpha, p, q, x, r, rr));
  const std::vector<double> gotX = valuesOf(x), gotR = valuesOf(r);
  expectEach(gotX, [&](size_t i) {
    return storedAs(xBytes, plusProduct(f(xs[i]), fa, f(ps[i])));
  });
  expectEach(gotR, [&](size_t i) {
    return storedAs(pBytes, plusProduct(f(rs[i]), -fa, f(qs[i])));
  });
  double squares = 0.0;
  for (double v : gotR)
    squares += v * v;
  EXPECT_NEAR(rr, squares, 1e-13 * squares);

  const double *deviceAlpha = nullptr;
  ASSERT_OK(reducer.device_scalar(alpha, deviceAlpha));
  ASSERT_OK(reducer.reserve_partials(p));
  std::int64_t count = 0;
  ASSERT_OK(reducer.update_partials(deviceAlpha, p, q, x2, r2, count));
  double fromPartials = 0.0;
  ASSERT_OK(reducer.sum_block_partials(count, fromPartials));
  EXPECT_EQ(valuesOf(x2), gotX);
  EXPECT_EQ(valuesOf(r2), gotR);
  EXPECT_DOUBLE_EQ(fromPartials, rr);

  // The same update in two parts, as CG runs it where x's update went into
  // the fold pass: r alone with its norm, then x += alpha p.
  Field x3, r3;
  ASSERT_OK(Field::create(x.lattice(), x3));
  ASSERT_OK(Field::create(r.lattice(), r3));
  ASSERT_OK(x3.upload_values(xs.data(), xs.size()));
  ASSERT_OK(r3.upload_values(rs.data(), rs.size()));
  ASSERT_OK(reducer.residual_partials(deviceAlpha, q, r3, count));
  double residual = 0.0;
  ASSERT_OK(reducer.sum_block_partials(count, residual));
  EXPECT_EQ(valuesOf(r3), gotR);
  EXPECT_DOUBLE_EQ(residual, rr);
  ASSERT_OK(axpy_from_device(deviceAlpha, p, x3));
  EXPECT_EQ(valuesOf(x3), gotX);
}

TEST(BFloat16Blas, UpdateWithFloatXAndBFloat16Fields) {
  for (const int components : {1, 4}) {
    checkUpdate(2, 4, components); // mixed-precision CG's inner iterations
    checkUpdate(2, 2, components);
    checkUpdate(4, 4, components); // float as before
  }
}

TEST(BFloat16Blas, UpdateRefusesMismatchedFields) {
  Field p2, q2, r2, x2, p4, q4, x4, x8, far4;
  for (Field *field : {&p2, &q2, &r2, &x2})
    ASSERT_OK(Field::create(oddLattice(2, 4), *field));
  for (Field *field : {&p4, &q4, &x4})
    ASSERT_OK(Field::create(oddLattice(4, 4), *field));
  ASSERT_OK(Field::create(oddLattice(8, 4), x8));
  Lattice other = oddLattice(4, 4);
  other.extents[2] = 6;
  ASSERT_OK(Field::create(other, far4));
  double rr = 0.0;
  expectFailure(Reducer().update_and_norm2(1.0, p4, q2, x4, r2, rr),
                {"update_and_norm2: q", "float", "bfloat16"});
  expectFailure(Reducer().update_and_norm2(1.0, p2, q2, x4, q4, rr),
                {"update_and_norm2: r"});
  expectFailure(Reducer().update_and_norm2(1.0, p2, q2, x8, r2, rr),
                {"update_and_norm2: x stored as double with p, q and r as "
                 "bfloat16"});
  expectFailure(Reducer().update_and_norm2(1.0, p4, q4, x2, q4, rr),
                {"x stored as bfloat16 with p, q and r as float"});
  expectFailure(Reducer().update_and_norm2(1.0, p2, q2, far4, r2, rr),
                {"update_and_norm2: x", "11x7x6", "but for precision"});
  Reducer reducer;
  const double *alpha = nullptr;
  ASSERT_OK(reducer.device_scalar(1.0, alpha));
  std::int64_t count = 0;
  expectFailure(reducer.update_partials(alpha, p2, q2, x8, r2, count),
                {"update_partials: x stored as double"});
  expectFailure(reducer.update_partials(alpha, p2, q4, x4, r2, count),
                {"update_partials: q"});
  expectFailure(reducer.residual_partials(nullptr, q2, r2, count),
                {"residual_partials: null alpha"});
  expectFailure(reducer.residual_partials(alpha, q4, r2, count),
                {"residual_partials: r"});
  expectFailure(axpy_from_device(alpha, p2, x8),
                {"axpy_from_device: y stored as double with x as bfloat16"});
  expectFailure(axpy_from_device(nullptr, p2, x4), {"null a"});
}

TEST(BFloat16Field, ValuesBytesFillAndDescription) {
  Lattice lattice = oddLattice(2, 4);
  for (const bool soa : {false, true}) {
    SCOPED_TRACE(soa ? "component-major" : "site-major");
    lattice.layout.order = soa ? kComponentMajor : kSiteMajor;
    Field field;
    ASSERT_OK(Field::create(lattice, field));
    EXPECT_NE(lattice.describe().find("11x7x5, 4 bfloat16 per site"),
              std::string::npos)
        << lattice.describe();
    EXPECT_EQ(lattice.bytes(), 2u * 11 * 7 * 5 * 4);

    // Doubles in: rounded through float, overflow to infinity included.
    Random random(3);
    std::vector<double> values = randomReals(random, lattice.values(), -4, 4);
    const double specials[] = {
        0.0,    -0.0,    1e-40,           -3e-39,         1e38,
        3.4e38, -3.4e38, 1.0 + 1.0 / 256, 1.0 + 3.0 / 256};
    std::copy(std::begin(specials), std::end(specials), values.begin());
    ASSERT_OK(field.upload_values(values.data(), values.size()));
    std::vector<double> got = valuesOf(field);
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(got[i], storedAs(2, values[i])) << i << ": " << values[i];
    EXPECT_TRUE(std::isinf(got[5]) && got[5] > 0);
    EXPECT_EQ(got[7], 1.0);             // tie to even
    EXPECT_EQ(got[8], 1.0 + 4.0 / 256); // tie to even, upward

    // Bytes in the user's order read back as values and as bytes.
    std::vector<std::uint16_t> bits(lattice.values());
    for (std::uint16_t &b : bits)
      b = static_cast<std::uint16_t>(0x3c00 + random.next() % 0x0800);
    ASSERT_OK(field.upload(bits.data(), bits.size() * 2));
    got = valuesOf(field);
    for (size_t i = 0; i < bits.size(); ++i)
      ASSERT_EQ(got[i], widen(bfloat16{bits[i]})) << i;
    std::vector<std::uint16_t> back(bits.size(), 0xffff);
    ASSERT_OK(field.download(back.data(), back.size() * 2));
    EXPECT_EQ(back, bits);
    expectFailure(field.upload(bits.data(), bits.size() * 4), {"bytes"});

    Field copy;
    ASSERT_OK(Field::create(lattice, copy));
    ASSERT_OK(copy.copy_from(field));
    EXPECT_EQ(valuesOf(copy), got);
    ASSERT_OK(copy.fill(-2.5));
    for (double v : valuesOf(copy))
      ASSERT_EQ(v, -2.5);
  }
  Field bad;
  lattice.element_bytes = 3;
  expectFailure(Field::create(lattice, bad),
                {"3-byte values", "bfloat16 (2 bytes)"});
}

} // namespace
