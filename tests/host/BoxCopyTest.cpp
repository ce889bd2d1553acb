// The halo exchange's box copies (stencil/box_copy.hpp) on the host, against
// boxes walked site by site here: pack then unpack lands every real of the
// box (of one parity for a half field) and nothing else, a move equals a
// pack from the source box and an unpack into the destination, for every
// storage order; a half field's box may not move by an odd number of sites.
#include "stencil/box_copy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using stencil::BoxCopyArgs;
using stencil::index_t;
using stencil::Layout;

constexpr int kDims = 4;
constexpr int kExtents[kDims] = {6, 4, 5, 4};
constexpr int kComponents = 6;

struct Case {
  const char *name;
  Layout layout;
  int parity; // -1: a whole field
};

std::vector<Case> cases() {
  Layout aos, soa, aosoa, sub, eo, aosoa_eo;
  soa.order = stencil::kComponentMajor;
  soa.vector = 2;
  aosoa.order = stencil::kBlocked;
  aosoa.block = 4;
  aosoa.vector = 2;
  sub.sub[0] = 2;
  sub.sub[1] = 2;
  eo.even_odd = 1;
  aosoa_eo = aosoa;
  aosoa_eo.even_odd = 1;
  return {{"aos", aos, -1},           {"soa_v2", soa, -1},
          {"aosoa4_v2", aosoa, -1},   {"subdomains", sub, -1},
          {"even_odd_whole", eo, -1}, {"even_half", eo, 0},
          {"odd_half", aosoa_eo, 1}};
}

/// Where component k of site c lives in the case's array.
index_t elementOf(const Case &k, const int *c, int component) {
  const Layout &l = k.layout;
  if (k.parity >= 0) {
    const index_t half =
        static_cast<index_t>(kExtents[0]) * kExtents[1] * kExtents[2] *
        kExtents[3] / 2;
    return stencil::order_element(
        l.order, l.block, l.vector,
        stencil::even_odd_site(c[0], c[1], c[2], c[3], kExtents[0],
                               kExtents[1], kExtents[2]),
        component, kComponents, half);
  }
  const index_t sites = static_cast<index_t>(kExtents[0]) * kExtents[1] *
                        kExtents[2] * kExtents[3];
  return stencil::layout_element(
      l,
      stencil::layout_site(l, c[0], c[1], c[2], c[3], kExtents[0],
                           kExtents[1], kExtents[2], kExtents[3]),
      component, kComponents, sites);
}

bool heldBy(const Case &k, const int *c) {
  return k.parity < 0 || ((c[0] + c[1] + c[2] + c[3]) & 1) == k.parity;
}

bool inBox(const int *c, const int *lo, const int *hi) {
  for (int a = 0; a < kDims; ++a)
    if (c[a] < lo[a] || c[a] >= hi[a])
      return false;
  return true;
}

/// Calls f(coordinates) for every site the case's array holds.
template <typename F> void forEachSite(const Case &k, F f) {
  int c[kDims];
  for (c[3] = 0; c[3] < kExtents[3]; ++c[3])
    for (c[2] = 0; c[2] < kExtents[2]; ++c[2])
      for (c[1] = 0; c[1] < kExtents[1]; ++c[1])
        for (c[0] = 0; c[0] < kExtents[0]; ++c[0])
          if (heldBy(k, c))
            f(c);
}

double valueAt(const int *c, int component) {
  return 1.0 + c[0] + 10.0 * c[1] + 100.0 * c[2] + 1000.0 * c[3] +
         0.01 * component;
}

std::size_t arraySize(const Case &k) {
  return static_cast<std::size_t>(kExtents[0]) * kExtents[1] * kExtents[2] *
         kExtents[3] * kComponents / (k.parity >= 0 ? 2 : 1);
}

std::vector<double> distinctField(const Case &k) {
  std::vector<double> f(arraySize(k), std::nan(""));
  forEachSite(k, [&](const int *c) {
    for (int n = 0; n < kComponents; ++n)
      f[elementOf(k, c, n)] = valueAt(c, n);
  });
  return f;
}

void runCopy(const Case &k, std::vector<double> &field, double *buffer,
             const BoxCopyArgs &args) {
  for (std::int64_t i = 0; i < stencil::box_copy_elements(args); ++i)
    stencil::copy_box_element(k.layout, field.data(), buffer, args, i);
}

TEST(BoxCopy, PackThenUnpackMovesExactlyTheBox) {
  const int lo[kDims] = {1, 0, 2, 1}, hi[kDims] = {5, 3, 4, 3};
  for (const Case &k : cases()) {
    SCOPED_TRACE(k.name);
    const std::vector<double> source = distinctField(k);
    BoxCopyArgs pack, unpack;
    ASSERT_TRUE(stencil::prepare_box(k.layout, kDims, kExtents, lo, hi,
                                     kComponents, 0, kComponents, k.parity,
                                     stencil::kPackBox, 1.0, pack)
                    .ok());
    ASSERT_TRUE(stencil::prepare_box(k.layout, kDims, kExtents, lo, hi,
                                     kComponents, 0, kComponents, k.parity,
                                     stencil::kUnpackBox, -2.0, unpack)
                    .ok());
    int boxSites = 0;
    forEachSite(k, [&](const int *c) { boxSites += inBox(c, lo, hi); });
    EXPECT_EQ(pack.sites, boxSites);
    std::vector<double> buffer(
        static_cast<std::size_t>(stencil::box_copy_elements(pack)),
        std::nan(""));
    std::vector<double> from = source;
    runCopy(k, from, buffer.data(), pack);
    EXPECT_EQ(from, source) << "a pack wrote into its field";
    std::vector<double> into(arraySize(k), std::nan(""));
    runCopy(k, into, buffer.data(), unpack);
    forEachSite(k, [&](const int *c) {
      for (int n = 0; n < kComponents; ++n) {
        const double got = into[elementOf(k, c, n)];
        if (inBox(c, lo, hi))
          ASSERT_EQ(got, -2.0 * valueAt(c, n))
              << "at " << c[0] << "," << c[1] << "," << c[2] << "," << c[3];
        else
          ASSERT_TRUE(std::isnan(got)) << "written outside the box";
      }
    });
  }
}

TEST(BoxCopy, AMoveEqualsAPackAndAnUnpack) {
  // The ghost zone at the low t end takes the face two sites below the top.
  const int lo[kDims] = {0, 0, 0, 0}, hi[kDims] = {6, 4, 5, 1};
  const int from[kDims] = {0, 0, 0, 2};
  for (const Case &k : cases()) {
    SCOPED_TRACE(k.name);
    std::vector<double> field = distinctField(k);
    const std::vector<double> before = field;
    BoxCopyArgs move;
    ASSERT_TRUE(stencil::prepare_box_move(k.layout, kDims, kExtents, lo, hi,
                                          from, kComponents, k.parity, -1.0,
                                          move)
                    .ok());
    runCopy(k, field, nullptr, move);
    forEachSite(k, [&](const int *c) {
      for (int n = 0; n < kComponents; ++n) {
        const double got = field[elementOf(k, c, n)];
        if (inBox(c, lo, hi)) {
          const int source[kDims] = {c[0], c[1], c[2], c[3] + 2};
          ASSERT_EQ(got, -valueAt(source, n));
        } else {
          ASSERT_EQ(got, before[elementOf(k, c, n)]);
        }
      }
    });
  }
}

TEST(BoxCopy, AHalfFieldsBoxMovesOnlyByEvenShifts) {
  const int lo[kDims] = {0, 0, 0, 0}, hi[kDims] = {6, 4, 5, 1};
  const int from[kDims] = {0, 0, 0, 3};
  Layout eo;
  eo.even_odd = 1;
  BoxCopyArgs move;
  const stencil::Status status = stencil::prepare_box_move(
      eo, kDims, kExtents, lo, hi, from, kComponents, 0, 1.0, move);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("odd number of sites (3)"),
            std::string::npos)
      << status.message();
  const int outside[kDims] = {0, 0, 0, 4}; // [4, 5) of 4 sites
  EXPECT_FALSE(stencil::prepare_box_move(eo, kDims, kExtents, lo, hi,
                                         outside, kComponents, -1, 1.0, move)
                   .ok());
}

} // namespace
