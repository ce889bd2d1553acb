// Gauge-covariant link taps on the host backend: gauge covariance of the
// generated covariant Laplacians, the unit gauge against the plain vector
// Laplacian, hermiticity and the adjoint kernel, two-row link compression
// against full links, GaugeField's checks and file format, the runtime's
// refusals, CG on the covariant operator (whole lattice and Schur
// complement), and Jacobi smearing. References are naive std::complex loops
// written here from the conventions of stencil/gauge.hpp.
#include "HostFixtures.h"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/host_matrix.hpp"
#include "stencil/link_algebra.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/smearing.hpp"
#include "stencil/solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace stencil;
using namespace stencilc::testing;

namespace {

const KernelInfo &kernel(const std::string &name) {
  return stencilc::testing::kernelNamed(name);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A lattice's sites in host order (x fastest) and how its axes end.
struct Geometry {
  int dims = 0;
  int n[4] = {1, 1, 1, 1};
  int boundary[4] = {kPeriodic, kPeriodic, kPeriodic, kPeriodic};
  int halo[4] = {0, 0, 0, 0};

  explicit Geometry(const Lattice &l) : dims(l.dims) {
    for (int a = 0; a < dims; ++a) {
      n[a] = l.extents[a];
      boundary[a] = l.boundary[a];
      halo[a] = l.halo[a];
    }
  }
  std::int64_t sites() const { return 1LL * n[0] * n[1] * n[2] * n[3]; }
  void coordinates(std::int64_t s, int *c) const {
    for (int a = 0; a < 4; ++a) {
      c[a] = static_cast<int>(s % n[a]);
      s /= n[a];
    }
  }
  std::int64_t site(const int *c) const {
    return c[0] + 1LL * n[0] * (c[1] + 1LL * n[1] * (c[2] + 1LL * n[2] * c[3]));
  }
  /// Updated by the operator: not in the halo of a Dirichlet axis.
  bool interior(std::int64_t s) const {
    int c[4];
    coordinates(s, c);
    for (int a = 0; a < dims; ++a)
      if (c[a] < halo[a] || c[a] >= n[a] - halo[a])
        return false;
    return true;
  }
  /// The site one step along mu; `sign` is -1 across an antiperiodic wrap.
  std::int64_t neighbour(std::int64_t s, int mu, int step, double &sign) const {
    int c[4];
    coordinates(s, c);
    c[mu] += step;
    sign = 1.0;
    if (c[mu] < 0 || c[mu] >= n[mu]) {
      EXPECT_NE(boundary[mu], kDirichlet) << "read outside a Dirichlet grid";
      c[mu] = (c[mu] + n[mu]) % n[mu];
      if (boundary[mu] == kAntiperiodic)
        sign = -1.0;
    }
    return site(c);
  }
};

Complex entry(const double *u, int colours, int i, int j) {
  return {u[2 * (i * colours + j)], u[2 * (i * colours + j) + 1]};
}

/// H psi = sum_mu U_mu(x) psi(x + mu) + U_mu(x - mu)^dagger psi(x - mu) on
/// the updated sites (0 elsewhere), for each of a site's colour vectors.
std::vector<double> naiveHop(const Geometry &g, const GaugeField &U,
                             const std::vector<double> &psi) {
  const int N = U.colours();
  const std::int64_t perSite = psi.size() / g.sites();
  const int vectors = static_cast<int>(perSite / (2 * N));
  std::vector<double> out(psi.size(), 0.0);
  for (std::int64_t s = 0; s < g.sites(); ++s) {
    if (!g.interior(s))
      continue;
    for (int mu = 0; mu < g.dims; ++mu)
      for (int step : {1, -1}) {
        double sign;
        const std::int64_t y = g.neighbour(s, mu, step, sign);
        const double *u = U.link(step > 0 ? s : y, mu);
        for (int v = 0; v < vectors; ++v) {
          const double *in = psi.data() + y * perSite + v * 2 * N;
          double *acc = out.data() + s * perSite + v * 2 * N;
          for (int i = 0; i < N; ++i) {
            Complex sum = 0;
            for (int j = 0; j < N; ++j)
              sum += (step > 0 ? entry(u, N, i, j)
                               : std::conj(entry(u, N, j, i))) *
                     Complex(in[2 * j], in[2 * j + 1]);
            acc[2 * i] += sign * sum.real();
            acc[2 * i + 1] += sign * sum.imag();
          }
        }
      }
  }
  return out;
}

/// D psi = centre psi - H psi on the updated sites (0 elsewhere).
std::vector<double> naiveLaplacian(const Geometry &g, const GaugeField &U,
                                   const std::vector<double> &psi,
                                   double centre) {
  std::vector<double> out = naiveHop(g, U, psi);
  const std::int64_t perSite = psi.size() / g.sites();
  for (std::int64_t s = 0; s < g.sites(); ++s)
    for (std::int64_t k = s * perSite; k < (s + 1) * perSite; ++k)
      out[k] = g.interior(s) ? centre * psi[k] - out[k] : 0.0;
  return out;
}

double norm(const std::vector<double> &a) {
  double sum = 0;
  for (double v : a)
    sum += v * v;
  return std::sqrt(sum);
}

/// A stencil with links taken from host gauge fields.
struct CovariantOp {
  StencilOperator A;
  Field links;
  std::vector<std::unique_ptr<Field>> sites;

  Status create(const KernelInfo &info, const std::vector<int> &extents) {
    return StencilOperator::create(info, extents.data(), A);
  }
  Status setLinks(const GaugeField &U) {
    STENCIL_TRY(A.upload_links(U, links));
    return A.set_links(links);
  }
  GaugeField gauge() const {
    GaugeField U;
    EXPECT_TRUE(GaugeField::create(A.lattice().dims, A.lattice().extents,
                                   A.info().links->colours, U)
                    .ok());
    return U;
  }
  Geometry geometry() const { return Geometry(A.lattice()); }
  /// out = A in (or A^dagger in) on host values; the output is poisoned
  /// with NaN first, so the sites A does not update read NaN.
  Status apply(const std::vector<double> &in, std::vector<double> &out,
               bool adjoint = false) const {
    Field fin, fout;
    STENCIL_TRY(Field::create(A.lattice(), fin));
    STENCIL_TRY(Field::create(A.lattice(), fout));
    STENCIL_TRY(fin.upload_values(in.data(), in.size()));
    STENCIL_TRY(fout.fill(kNaN));
    STENCIL_TRY(adjoint ? A.apply_adjoint(fout, fin) : A.apply(fout, fin));
    out.assign(in.size(), 0.0);
    return fout.download_values(out.data(), out.size());
  }
};

/// Poison checks and max |got - want| / max |want| over the updated sites.
void expectMatches(const Geometry &g, const std::vector<double> &got,
                   const std::vector<double> &want, double tolerance,
                   const char *what) {
  const std::int64_t perSite = got.size() / g.sites();
  std::int64_t nanUpdated = 0, haloWritten = 0;
  double error = 0, scale = 0;
  for (std::int64_t s = 0; s < g.sites(); ++s)
    for (std::int64_t k = s * perSite; k < (s + 1) * perSite; ++k) {
      if (!g.interior(s)) {
        haloWritten += !std::isnan(got[k]);
        continue;
      }
      nanUpdated += std::isnan(got[k]);
      error = std::max(error, std::fabs(got[k] - want[k]));
      scale = std::max(scale, std::fabs(want[k]));
    }
  EXPECT_EQ(nanUpdated, 0) << what << ": updated values left unwritten";
  EXPECT_EQ(haloWritten, 0) << what << ": halo values written";
  EXPECT_GT(scale, 0.1) << what << ": the reference is (nearly) zero";
  const double relative = error / scale;
  EXPECT_LT(relative, tolerance) << what;
  std::printf("[ info     ] %s: max relative difference %.2e\n", what,
              relative);
}

// --- 1. Gauge covariance

/// D[U^g](g psi) == g (D[U] psi) with U^g_mu(x) = g(x) U_mu(x) g(x+mu)^dagger.
void checkCovariance(const std::string &name, const std::vector<int> &extents,
                     double tolerance) {
  SCOPED_TRACE(name);
  const KernelInfo &info = kernel(name);
  ASSERT_NE(info.links, nullptr);
  CovariantOp op;
  ASSERT_OK(op.create(info, extents));
  Random random(7);
  GaugeField U = op.gauge();
  U.set_random(random);
  const int vectors = info.components / (2 * info.links->colours);
  std::vector<double> psi = randomReals(random, op.A.lattice().values());
  std::vector<double> want, got;
  ASSERT_OK(op.setLinks(U));
  ASSERT_OK(op.apply(psi, want));
  const std::vector<double> g = random_gauge_transform(U, random);
  ASSERT_OK(gauge_transform_vectors(g, U, vectors, want));
  ASSERT_OK(gauge_transform_links(g, U));
  ASSERT_OK(gauge_transform_vectors(g, U, vectors, psi));
  ASSERT_OK(op.setLinks(U));
  ASSERT_OK(op.apply(psi, got));
  expectMatches(op.geometry(), got, want, tolerance,
                (name + " covariance").c_str());
}

TEST(Covariant, LaplaciansAreGaugeCovariant) {
  // Shipped specs: site counts a multiple of 32 (odd nx), so that their
  // links' or fields' blocked layouts (aosoa up to 32 sites) fit.
  checkCovariance("covlap4d_f64", {5, 3, 4, 8}, 1e-12);
  checkCovariance("covlap4d_f32", {7, 3, 4, 8}, 1e-5);
  checkCovariance("covlap3d_f32", {5, 4, 8}, 1e-5);
  // SU(4), aosoa field and links (sites a multiple of the blocks of 8),
  // antiperiodic t (the signs commute with g).
  checkCovariance("t_cov4d_su4_aosoa_pppa", {5, 3, 3, 8}, 1e-12);
  // Four colour vectors per site, two-row links, Dirichlet z.
  checkCovariance("t_cov4d_spinor_two_rows_split", {3, 5, 5, 3}, 1e-12);
  // Two colour vectors per site, soa field and links; U(1) on Dirichlet.
  checkCovariance("t_cov3d_su2_soa_links_soa_f32", {5, 7, 3}, 1e-5);
  checkCovariance("t_cov2d_u1_dirichlet_tile_x2", {9, 7}, 1e-12);
}

// --- 2. The unit gauge

TEST(Covariant, UnitGaugeIsTheVectorLaplacian) {
  // Every real of the colour vector is an independent field of the real
  // periodic Laplacian (8 + mass) u - sum of the 8 neighbours.
  const std::vector<int> extents = {5, 3, 8, 4};
  const double mass = 0.37;
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_f64"), extents));
  ASSERT_OK(op.A.set_parameter("mass", mass));
  ASSERT_OK(op.setLinks(op.gauge())); // create() gives the unit gauge
  const Geometry g = op.geometry();
  Random random(11);
  const std::vector<double> psi = randomReals(random, g.sites() * 6);
  std::vector<double> got, want(psi.size());
  ASSERT_OK(op.apply(psi, got));
  for (std::int64_t s = 0; s < g.sites(); ++s)
    for (int c = 0; c < 6; ++c) {
      double sum = (8 + mass) * psi[s * 6 + c], sign;
      for (int mu = 0; mu < 4; ++mu)
        for (int step : {1, -1})
          sum -= psi[g.neighbour(s, mu, step, sign) * 6 + c];
      want[s * 6 + c] = sum;
    }
  expectMatches(g, got, want, 1e-14, "unit gauge vs loops");
}

// --- 3. Hermiticity and the adjoint

/// <phi, A psi> against <A^dagger phi, psi> (A^dagger = A when `hermitian`),
/// as complex numbers; the halo of Dirichlet fields held at zero.
void checkAdjoint(const std::string &name, const std::vector<int> &extents,
                  bool hermitian, double tolerance) {
  SCOPED_TRACE(name);
  CovariantOp op;
  ASSERT_OK(op.create(kernel(name), extents));
  Random random(23);
  ASSERT_OK(stencilc::testing::attachRandomSiteParameters(op.A, random, 0.5,
                                                          2.0, op.sites));
  GaugeField U = op.gauge();
  U.set_random(random);
  ASSERT_OK(op.setLinks(U));
  const Geometry g = op.geometry();
  const std::int64_t count = op.A.lattice().values();
  std::vector<double> phi = randomReals(random, count),
                      psi = randomReals(random, count);
  const std::int64_t perSite = count / g.sites();
  Field halo; // the Dirichlet halo of phi and psi set to zero
  ASSERT_OK(Field::create(op.A.lattice(), halo));
  for (std::vector<double> *v : {&phi, &psi}) {
    ASSERT_OK(halo.upload_values(v->data(), count));
    ASSERT_OK(set_halo(halo, 0.0));
    ASSERT_OK(halo.download_values(v->data(), count));
  }
  std::vector<double> aPsi, bPhi; // A psi, A^dagger phi
  ASSERT_OK(op.apply(psi, aPsi));
  ASSERT_OK(op.apply(phi, bPhi, !hermitian));
  for (std::int64_t k = 0; k < count; ++k) {
    if (g.interior(k / perSite)) {
      ASSERT_FALSE(std::isnan(aPsi[k]) || std::isnan(bPhi[k])) << k;
    } else {
      EXPECT_TRUE(std::isnan(aPsi[k]) && std::isnan(bPhi[k])) << k;
      aPsi[k] = bPhi[k] = 0.0;
    }
  }
  const Complex left = innerProduct(phi, aPsi), right = innerProduct(bPhi, psi);
  const double scale = norm(phi) * norm(aPsi);
  EXPECT_LT(std::abs(left - right), tolerance * scale)
      << left << " vs " << right;
  // Both parts must be exercised: a real-only identity would miss
  // conjugation errors.
  EXPECT_GT(std::fabs(left.imag()), 1e-4 * scale);
  // The real inner product over all reals is the complex one's real part.
  Field fPhi, fAPsi;
  ASSERT_OK(Field::create(op.A.lattice(), fPhi));
  ASSERT_OK(Field::create(op.A.lattice(), fAPsi));
  ASSERT_OK(fPhi.upload_values(phi.data(), count));
  ASSERT_OK(fAPsi.upload_values(aPsi.data(), count));
  Reducer reducer;
  double real = 0;
  ASSERT_OK(reducer.dot(fPhi, fAPsi, real));
  EXPECT_NEAR(real, left.real(), tolerance * scale);
  if (!hermitian) { // and A is not Hermitian: A phi differs from A^dagger phi
    std::vector<double> aPhi, difference(count);
    ASSERT_OK(op.apply(phi, aPhi));
    for (std::int64_t k = 0; k < count; ++k)
      difference[k] = g.interior(k / perSite) ? aPhi[k] - bPhi[k] : 0.0;
    EXPECT_GT(norm(difference), 0.1 * norm(bPhi));
  }
  std::printf("[ info     ] %s: <phi, A psi> = (%.6f, %.6f), |difference| / "
              "(|phi| |A psi|) = %.2e\n",
              name.c_str(), left.real(), left.imag(),
              std::abs(left - right) / scale);
}

TEST(Covariant, LaplaciansAreHermitian) {
  checkAdjoint("covlap4d_f64", {3, 5, 4, 8}, true, 1e-13);
  checkAdjoint("t_cov2d_u1_dirichlet_tile_x2", {9, 7}, true, 1e-13);
}

TEST(Covariant, AdjointKernelIsTheConjugateTranspose) {
  // Forward and backward taps differ, a site parameter k on the x links,
  // Dirichlet y: apply_adjoint must give A^dagger.
  checkAdjoint("t_cov3d_asym_fields_w2_f32", {7, 5, 9}, false, 1e-5);
}

// --- 4. Two-row compression

TEST(Covariant, TwoRowLinksMatchFullLinks) {
  // Two-row links (spinors, Dirichlet z) against the full 3x3 matrices they
  // came from; with them U(1) on Dirichlet and SU(4) antiperiodic in t.
  struct Case {
    const char *name;
    std::vector<int> extents;
    double centre;
  };
  for (const Case &c :
       {Case{"t_cov4d_spinor_two_rows_split", {3, 5, 5, 3}, 8.1},
        Case{"t_cov2d_u1_dirichlet_tile_x2", {9, 7}, 4.25},
        Case{"t_cov4d_su4_aosoa_pppa", {5, 3, 3, 8}, 8.5}}) {
    SCOPED_TRACE(c.name);
    CovariantOp op;
    ASSERT_OK(op.create(kernel(c.name), c.extents));
    Random random(31);
    GaugeField U = op.gauge();
    U.set_random(random);
    ASSERT_OK(op.setLinks(U));
    const Geometry g = op.geometry();
    // Random values on the Dirichlet halo too: the links there are read.
    const std::vector<double> psi =
        randomReals(random, op.A.lattice().values());
    std::vector<double> got;
    ASSERT_OK(op.apply(psi, got));
    expectMatches(g, got, naiveLaplacian(g, U, psi, c.centre), 1e-13,
                  (std::string(c.name) + " vs naive 3x3 loops").c_str());
  }
}

TEST(Covariant, ThirdRowIsRebuiltFromTheFirstTwo) {
  const int extents[1] = {40};
  GaugeField U;
  ASSERT_OK(GaugeField::create(1, extents, 3, U));
  Random random(37);
  U.set_random(random);
  double worst = 0;
  for (std::int64_t s = 0; s < U.sites(); ++s) {
    LinkMatrix<double, 3> m;
    std::fill(m.v, m.v + 18, kNaN);
    std::copy(U.link(s, 0), U.link(s, 0) + 12, m.v);
    reconstruct_third_row(m);
    for (int k = 12; k < 18; ++k)
      worst = std::max(worst, std::fabs(m.v[k] - U.link(s, 0)[k]));
  }
  EXPECT_LT(worst, 1e-14);
  std::printf("[ info     ] third row rebuilt to %.2e\n", worst);
}

// --- 5. GaugeField

TEST(Covariant, GaugeFieldPlaquetteAndUnitarity) {
  const int extents[4] = {4, 4, 4, 4};
  GaugeField U;
  ASSERT_OK(GaugeField::create(4, extents, 3, U));
  EXPECT_EQ(U.plaquette(), 1.0);
  EXPECT_EQ(U.unitarity_deviation(), 0.0);
  Random random(41);
  U.set_random(random);
  const double random_plaquette = U.plaquette();
  // Each plaquette of independent Haar links is Haar: E Re tr P / 3 = 0,
  // Var = 1/18, and plaquettes are pairwise uncorrelated, so the mean of the
  // 4^4 * 6 = 1536 has sigma 0.006: 0.05 is over 8 sigma.
  EXPECT_LT(std::fabs(random_plaquette), 0.05);
  EXPECT_LT(U.unitarity_deviation(), 1e-13);
  const std::vector<double> g = random_gauge_transform(U, random);
  ASSERT_OK(gauge_transform_links(g, U));
  EXPECT_NEAR(U.plaquette(), random_plaquette, 1e-13);
  EXPECT_LT(U.unitarity_deviation(), 1e-13);
  U.set_near_unit(random, 0.05);
  const double smooth = U.plaquette();
  EXPECT_GT(smooth, 0.9);
  EXPECT_LT(smooth, 1.0);
  // One bad link is found where it is.
  U.link(77, 2)[0] *= 1.1;
  std::int64_t site = -1;
  int mu = -1;
  EXPECT_GT(U.worst_link(site, mu), 1e-3);
  EXPECT_EQ(site, 77);
  EXPECT_EQ(mu, 2);
  U.reunitarise();
  EXPECT_LT(U.unitarity_deviation(), 1e-13);
  std::printf("[ info     ] plaquette: random %.4f, near unit (0.05) %.4f\n",
              random_plaquette, smooth);
}

TEST(Covariant, RandomLinksAreTheSequentialDrawsInSiteOrder) {
  // set_random draws pieces of the lattice on separate threads, each from
  // its place in the sequence: the links must be those of one sequential
  // walk over sites and directions (here the SU(3) matrices of a 1-D
  // "transformation" with one site per link), and the sequence must end
  // where that walk leaves it. 1890 sites: several pieces on any machine
  // with more than one core.
  const int extents[4] = {9, 7, 5, 6};
  GaugeField U, flat;
  ASSERT_OK(GaugeField::create(4, extents, 3, U));
  const int links[1] = {static_cast<int>(U.sites()) * 4};
  ASSERT_OK(GaugeField::create(1, links, 3, flat));
  Random parallel(2027), sequential(2027);
  U.set_random(parallel);
  const std::vector<double> walk = random_gauge_transform(flat, sequential);
  ASSERT_EQ(U.data().size(), walk.size());
  EXPECT_EQ(std::as_const(U).data(), walk);
  EXPECT_EQ(parallel.next(), sequential.next());
  // The plaquette (summed in chunks on the host's threads) against the
  // definition, product by product.
  double sum = 0;
  for (std::int64_t s = 0; s < U.sites(); ++s)
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) {
        const HostMatrix p = multiply(
            multiply(HostMatrix::load(U.link(s, mu), 3),
                     HostMatrix::load(U.link(U.neighbour(s, mu, 1), nu), 3)),
            multiply(
                dagger(HostMatrix::load(U.link(U.neighbour(s, nu, 1), mu), 3)),
                dagger(HostMatrix::load(U.link(s, nu), 3))));
        sum += (p(0, 0) + p(1, 1) + p(2, 2)).real() / 3;
      }
  EXPECT_NEAR(U.plaquette(), sum / (U.sites() * 6.0), 1e-15);
  // Random::ahead is the same as drawing.
  Random drawn(5), jumped = Random(5).ahead(1000);
  for (int i = 0; i < 1000; ++i)
    drawn.next();
  EXPECT_EQ(drawn.next(), jumped.next());
}

// --- 6. Gauge files

std::string fileBytes(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(is), {});
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(Covariant, GaugeFileRoundTripsAndRejectsDamage) {
  const int extents[4] = {3, 2, 5, 4};
  GaugeField U;
  ASSERT_OK(GaugeField::create(4, extents, 3, U));
  Random random(43);
  U.set_random(random);
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "covariant_gauge.bin";
  ASSERT_OK(U.write(path));
  GaugeField back;
  ASSERT_OK(GaugeField::read(path, back));
  EXPECT_EQ(back.dims(), 4);
  EXPECT_EQ(back.colours(), 3);
  for (int a = 0; a < 4; ++a)
    EXPECT_EQ(back.extents()[a], extents[a]);
  EXPECT_TRUE(std::as_const(back).data() == std::as_const(U).data()); // bit-exact
  const std::string good = fileBytes(path);
  ASSERT_EQ(good.size(), 60 + U.data().size() * 8); // 60-byte header

  struct Damage {
    const char *name;
    std::string bytes;
    const char *why;
  };
  std::string flipped = good, magic = good, version = good;
  flipped[good.size() - 100] ^= 0x10;
  magic[0] = 'X';
  version[16] = 2;
  const Damage cases[] = {
      {"truncated", good.substr(0, good.size() - 1), "truncated"},
      {"header_only", good.substr(0, 30), "truncated"},
      {"flipped", flipped, "checksum mismatch"},
      {"trailing", good + "xyz", "3 bytes follow the links"},
      {"magic", magic, "wrong magic"},
      {"version", version, "version 2"},
  };
  for (const Damage &d : cases) {
    const std::string bad = dir + "covariant_gauge_" + d.name + ".bin";
    writeBytes(bad, d.bytes);
    GaugeField out;
    SCOPED_TRACE(d.name);
    expectFailure(GaugeField::read(bad, out), {"'" + bad + "'", d.why});
  }
  const std::string missing = dir + "covariant_gauge_missing.bin";
  std::remove(missing.c_str());
  GaugeField out;
  expectFailure(GaugeField::read(missing, out), {"cannot open", missing});
}

TEST(Covariant, GaugeHelpersRejectBadSizes) {
  // Header extents 2^20 each (the site count would wrap to 0 in 64 bits),
  // and 2^20 x 2^20 x 2^20 x 1 with N = 1 and count 2^63 (the expected file
  // size would wrap to the header's): both refused, no exception.
  const std::string path = ::testing::TempDir() + "covariant_gauge_huge.bin";
  for (std::uint32_t nt : {1u << 20, 1u}) {
    const std::uint32_t header[7] = {1, 4, 1, 1u << 20, 1u << 20, 1u << 20, nt};
    const std::uint64_t tail[2] = {nt == 1 ? 1ull << 63 : 0,
                                   0xcbf29ce484222325ull};
    std::string bytes("STENCILC-GAUGE\0\0", 16);
    bytes.append(reinterpret_cast<const char *>(header), sizeof header);
    bytes.append(reinterpret_cast<const char *>(tail), sizeof tail);
    writeBytes(path, bytes);
    GaugeField out;
    expectFailure(GaugeField::read(path, out), {path});
  }
  // A g for one site, applied to 4^4 sites.
  const int extents[4] = {4, 4, 4, 4};
  GaugeField U;
  ASSERT_OK(GaugeField::create(4, extents, 3, U));
  std::vector<double> g(18, 0.0), psi(U.sites() * 6, 1.0);
  expectFailure(gauge_transform_vectors(g, U, 1, psi),
                {"gauge transformation"});
}

// --- 7. Refusals

TEST(Covariant, BadLinksAreRefusedClearly) {
  const std::vector<int> extents = {5, 3, 4, 8};
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_f64"), extents));
  // Links before set_links.
  std::vector<double> psi(op.A.lattice().values(), 0.5), out;
  expectFailure(op.apply(psi, out), {"set_links"});

  // Wrong extents, colours, dimensions.
  const int wrongExtents[4] = {5, 3, 4, 9};
  GaugeField wrong;
  Field links;
  ASSERT_OK(GaugeField::create(4, wrongExtents, 3, wrong));
  expectFailure(op.A.upload_links(wrong, links), {"extent along axis 3 is 9"});
  ASSERT_OK(GaugeField::create(4, extents.data(), 2, wrong));
  expectFailure(op.A.upload_links(wrong, links), {"2 colours"});
  ASSERT_OK(GaugeField::create(3, extents.data(), 3, wrong));
  expectFailure(op.A.upload_links(wrong, links), {"3 dimensions"});

  // A Field of the wrong lattice as links: the colour field's, another
  // extent's link lattice.
  Field colour;
  ASSERT_OK(Field::create(op.A.lattice(), colour));
  EXPECT_FALSE(op.A.set_links(colour).ok());
  CovariantOp other;
  ASSERT_OK(other.create(kernel("covlap4d_f64"), {5, 3, 8, 8}));
  ASSERT_OK(other.setLinks(other.gauge()));
  expectFailure(op.A.set_links(other.links), {"links"});

  // Links on a stencil without link taps.
  StencilOperator plain;
  ASSERT_OK(StencilOperator::create(kernel("laplacian4d_periodic"),
                                    extents.data(), plain));
  expectFailure(plain.upload_links(op.gauge(), links), {"no link taps"});

  // Non-unitary links: uploaded uncompressed, but CG refuses them.
  GaugeField scaled = op.gauge();
  scaled.link(5, 2)[0] *= 1.1;
  ASSERT_OK(op.setLinks(scaled));
  expectFailure(op.A.check_spd(), {"unitary", "U_2 at site 5"});
  expectFailure(solveWithCg(op.A), {"unitary"});
  // Projected back onto SU(3), CG accepts them.
  scaled.reunitarise();
  ASSERT_OK(op.setLinks(scaled));
  ASSERT_OK(op.A.check_spd());

  // Two-row compression refuses links it would rebuild wrong.
  CovariantOp compressed;
  ASSERT_OK(
      compressed.create(kernel("t_cov4d_spinor_two_rows_split"), {3, 5, 5, 3}));
  GaugeField bad = compressed.gauge();
  bad.link(9, 1)[2] = 0.3; // an off-diagonal entry of row 0
  expectFailure(compressed.setLinks(bad), {"reunitarise", "U_1 at site 9"});
  bad.reunitarise();
  ASSERT_OK(compressed.setLinks(bad));
}

// Links in groups of V adjacent reals (links.layout.vector, QUDA's FloatN
// order): the index formula, a one-to-one map, and the checks that guard it.
TEST(Covariant, LinkPairsOrderIsOneToOne) {
  // Blocks of 4 sites, pairs, 6 reals per site: site 5, real 3 is in block
  // 1, pair 1, lane 1 of the block: ((1 * 3 + 1) * 4 + 1) * 2 + 1 = 35.
  EXPECT_EQ(order_element(kBlocked, 4, 2, 5, 3, 6, 8), 35);
  EXPECT_EQ(order_element(kBlocked, 4, 2, 0, 0, 6, 8), 0);
  EXPECT_EQ(order_element(kBlocked, 4, 2, 0, 1, 6, 8), 1);
  EXPECT_EQ(order_element(kBlocked, 4, 2, 1, 0, 6, 8), 2);
  // Component-major pairs: real 3 of site 5 of 8 sites: (1 * 8 + 5) * 2 + 1.
  EXPECT_EQ(order_element(kComponentMajor, 1, 2, 5, 3, 6, 8), 27);
  // Vector 1 is the plain order.
  EXPECT_EQ(order_element(kBlocked, 4, 1, 5, 3, 6, 8),
            order_element(kBlocked, 4, 5, 3, 6, 8));

  // The shipped 4-D links (aosoa of 32, pairs) on 480 sites: every element
  // once.
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_f64"), {5, 3, 4, 8}));
  const Lattice links = op.A.link_lattice();
  ASSERT_EQ(links.layout.vector, 2);
  const std::int64_t values = links.values();
  std::vector<int> seen(values, 0);
  for (std::int64_t i = 0; i < values; ++i) {
    const std::int64_t at = storage_index(links, i);
    ASSERT_GE(at, 0);
    ASSERT_LT(at, values);
    ++seen[at];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), values);
  // Uploaded in that order, the operator still equals the naive reference
  // (LaplaciansAreGaugeCovariant and the Verify tests run it); here the
  // round trip through the layout.
  Field field;
  ASSERT_OK(Field::create(links, field));
  Random random(41);
  const std::vector<double> up = randomReals(random, values);
  std::vector<double> down(values);
  ASSERT_OK(field.upload_values(up.data(), values));
  ASSERT_OK(field.download_values(down.data(), values));
  EXPECT_EQ(up, down);

  // Groups that do not fill a site's values, or exceed 16 bytes, are
  // refused when the field is made.
  Lattice bad = links;
  bad.components = 7;
  expectFailure(Field::create(bad, field), {"7 values per site", "groups of 2"});
  bad.components = 72;
  bad.layout.vector = 4;
  expectFailure(Field::create(bad, field), {"16 bytes"});

  // The launcher refuses a link array not aligned for its 16-byte loads.
  ASSERT_OK(op.setLinks(op.gauge()));
  Field in, out;
  ASSERT_OK(Field::create(op.A.lattice(), in));
  ASSERT_OK(Field::create(op.A.lattice(), out));
  const int extents[4] = {5, 3, 4, 8};
  const double mass = 0.1;
  const void *misaligned[1] = {static_cast<const double *>(op.links.data()) + 1};
  expectFailure(op.A.info().apply(out.data(), in.data(), extents, &mass,
                                  misaligned, nullptr),
                {"link field 'U' must be aligned to 16 bytes"});
}

// --- 8. CG

TEST(Covariant, CgSolvesTheCovariantLaplacian) {
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_f64"), {5, 4, 3, 8}));
  Random random(53);
  GaugeField U = op.gauge();
  U.set_random(random);
  ASSERT_OK(op.setLinks(U));
  const std::vector<double> exact =
      randomReals(random, op.A.lattice().values());
  Field fExact, b, x;
  for (Field *f : {&fExact, &b, &x})
    ASSERT_OK(Field::create(op.A.lattice(), *f));
  ASSERT_OK(fExact.upload_values(exact.data(), exact.size()));
  ASSERT_OK(op.A.apply(b, fExact));
  SolveOptions options;
  options.method = Method::CG;
  options.tolerance = 1e-12;
  options.max_iterations = 2000;
  SolveReport report;
  ASSERT_OK(solve(op.A, b, x, options, report));
  EXPECT_TRUE(report.converged) << report.message;
  EXPECT_LT(report.true_relative_residual, 1e-11);
  std::vector<double> got(exact.size()), diff(exact.size());
  ASSERT_OK(x.download_values(got.data(), got.size()));
  for (size_t k = 0; k < got.size(); ++k)
    diff[k] = got[k] - exact[k];
  const double error = norm(diff) / norm(exact);
  EXPECT_LT(error, 1e-9);
  std::printf("[ info     ] covlap4d_f64 CG: %d iterations, residual %.2e, "
              "error %.2e\n",
              report.iterations, report.true_relative_residual, error);
}

TEST(Covariant, SchurCgSolvesTheEvenOddCovariantLaplacian) {
  // As EvenOddTest's solveBothWays: float, tolerance 1e-6, error 1e-4.
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_eo_f32"), {6, 4, 6, 4}));
  Random random(59);
  GaugeField U = op.gauge();
  U.set_random(random);
  ASSERT_OK(op.setLinks(U));
  const std::vector<double> exact =
      randomReals(random, op.A.lattice().values());
  Field fExact, b, whole, schur;
  for (Field *f : {&fExact, &b, &whole, &schur})
    ASSERT_OK(Field::create(op.A.lattice(), *f));
  ASSERT_OK(fExact.upload_values(exact.data(), exact.size()));
  ASSERT_OK(op.A.apply(b, fExact));
  SolveOptions options;
  options.method = Method::CG;
  options.tolerance = 1e-6;
  options.max_iterations = 5000;
  SolveReport wholeReport, schurReport;
  ASSERT_OK(solve(op.A, b, whole, options, wholeReport));
  ASSERT_OK(solve_even_odd(op.A, b, schur, options, schurReport));
  EXPECT_TRUE(wholeReport.converged) << wholeReport.message;
  EXPECT_TRUE(schurReport.converged) << schurReport.message;
  EXPECT_EQ(schurReport.system, "even/odd Schur complement");
  EXPECT_LT(schurReport.true_relative_residual, 1e-5);
  EXPECT_LT(schurReport.iterations, wholeReport.iterations);
  std::vector<double> got(exact.size()), diff(exact.size());
  double errors[2];
  int which = 0;
  for (const Field *x : {&whole, &schur}) {
    ASSERT_OK(x->download_values(got.data(), got.size()));
    for (size_t k = 0; k < got.size(); ++k)
      diff[k] = got[k] - exact[k];
    errors[which] = norm(diff) / norm(exact);
    EXPECT_LT(errors[which++], 1e-4);
  }
  std::printf("[ info     ] covlap4d_eo_f32: CG %d iterations (error %.2e), "
              "Schur CG %d (error %.2e)\n",
              wholeReport.iterations, errors[0], schurReport.iterations,
              errors[1]);
}

// --- 9. Jacobi smearing

/// n steps of psi <- (psi + kappa H psi) / (1 + 6 kappa), in double.
std::vector<double> naiveSmear(const Geometry &g, const GaugeField &U,
                               std::vector<double> psi, double kappa, int n) {
  for (int i = 0; i < n; ++i) {
    const std::vector<double> h = naiveHop(g, U, psi);
    for (size_t k = 0; k < psi.size(); ++k)
      psi[k] = (psi[k] + kappa * h[k]) / (1 + 6 * kappa);
  }
  return psi;
}

/// Smears host values with `smearing`'s operator, links from `U` (set only
/// for this call: the operator keeps a pointer to them).
std::vector<double> smearHost(JacobiSmearing &smearing, const GaugeField &U,
                              const std::vector<double> &psi, double kappa,
                              int n) {
  Field links, field;
  std::vector<double> out(psi.size(), kNaN);
  StencilOperator &D = smearing.laplacian();
  EXPECT_TRUE(D.upload_links(U, links).ok() && D.set_links(links).ok());
  EXPECT_TRUE(Field::create(D.lattice(), field).ok());
  EXPECT_TRUE(field.upload_values(psi.data(), psi.size()).ok());
  Status status = smearing.smear(field, kappa, n);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(field.download_values(out.data(), out.size()).ok());
  return out;
}

TEST(Covariant, SmearingMatchesTheNaiveSteps) {
  const int extents[3] = {5, 4, 8};
  JacobiSmearing smearing;
  ASSERT_OK(JacobiSmearing::create(kernel("covlap3d_f32"), extents, smearing));
  EXPECT_DOUBLE_EQ(smearing.step_factor(0.2), 0.2 / 2.2);
  GaugeField U;
  ASSERT_OK(GaugeField::create(3, extents, 3, U));
  const Geometry g(smearing.laplacian().lattice());
  // The unit gauge keeps a constant field (the normalisation 1 + 6 kappa).
  const double colour[6] = {0.3, 0.1, -0.7, 0.2, 0.5, -0.4};
  std::vector<double> constant(g.sites() * 6);
  for (size_t k = 0; k < constant.size(); ++k)
    constant[k] = colour[k % 6];
  expectMatches(g, smearHost(smearing, U, constant, 0.25, 5), constant, 1e-6,
                "smeared constant field");
  // Random links: n naive steps.
  Random random(61);
  U.set_random(random);
  const std::vector<double> psi = randomReals(random, g.sites() * 6);
  const double kappa = 0.2;
  const int steps = 4;
  const std::vector<double> got = smearHost(smearing, U, psi, kappa, steps);
  expectMatches(g, got, naiveSmear(g, U, psi, kappa, steps), 1e-5,
                "smear vs naive steps");
  // Smearing is gauge covariant: smear(g psi; U^g) = g smear(psi; U).
  const std::vector<double> t = random_gauge_transform(U, random);
  std::vector<double> want = got, moved = psi;
  ASSERT_OK(gauge_transform_vectors(t, U, 1, want));
  ASSERT_OK(gauge_transform_vectors(t, U, 1, moved));
  ASSERT_OK(gauge_transform_links(t, U));
  expectMatches(g, smearHost(smearing, U, moved, kappa, steps), want, 1e-5,
                "smearing covariance");
}

TEST(Covariant, SmearingPerTimeSliceSmearsEachSlice) {
  const int extents[4] = {5, 4, 8, 3};
  const double kappa = 0.3;
  const int steps = 3;
  JacobiSmearing smearing;
  ASSERT_OK(JacobiSmearing::create(kernel("covlap3d_f32"), extents, smearing));
  Random random(67);
  GaugeField U;
  ASSERT_OK(GaugeField::create(4, extents, 3, U));
  U.set_random(random);
  const std::int64_t sitesPerSlice = 5 * 4 * 8, perSlice = sitesPerSlice * 6;
  const std::vector<double> psi = randomReals(random, perSlice * 3);
  std::vector<double> got = psi;
  std::vector<std::pair<int, int>> calls;
  ASSERT_OK(
      smearing.smear_time_slices(U, kappa, steps, got, [&](int done, int all) {
        calls.emplace_back(done, all);
      }));
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{1, 3}, {2, 3}, {3, 3}}));

  const Geometry g(smearing.laplacian().lattice());
  for (int t = 0; t < 3; ++t) {
    SCOPED_TRACE("slice " + std::to_string(t));
    GaugeField slice;
    ASSERT_OK(time_slice_links(U, t, slice));
    ASSERT_EQ(slice.dims(), 3);
    EXPECT_TRUE(std::equal(slice.link(0, 0), slice.link(0, 0) + 18,
                           U.link(t * sitesPerSlice, 0)));
    const std::vector<double> in(psi.begin() + t * perSlice,
                                 psi.begin() + (t + 1) * perSlice);
    const std::vector<double> part(got.begin() + t * perSlice,
                                   got.begin() + (t + 1) * perSlice);
    // The same operator on that slice alone, and the naive steps.
    JacobiSmearing alone;
    ASSERT_OK(JacobiSmearing::create(kernel("covlap3d_f32"), extents, alone));
    expectMatches(g, part, smearHost(alone, slice, in, kappa, steps), 1e-7,
                  "time slice vs slice alone");
    expectMatches(g, part, naiveSmear(g, slice, in, kappa, steps), 1e-5,
                  "time slice vs naive steps");
  }
  // A gauge field of the wrong shape is refused.
  GaugeField flat;
  ASSERT_OK(GaugeField::create(3, extents, 3, flat));
  EXPECT_FALSE(smearing.smear_time_slices(flat, kappa, steps, got).ok());
}

TEST(Covariant, SmearingRefusesOtherOperators) {
  const int extents[4] = {5, 4, 8, 3};
  JacobiSmearing smearing;
  // A parameter (the mass), Dirichlet axes, no links at all.
  expectFailure(
      JacobiSmearing::create(kernel("covlap4d_f64"), extents, smearing),
      {"not of the form D = c - H"});
  expectFailure(JacobiSmearing::create(kernel("t_cov2d_u1_dirichlet_tile_x2"),
                                       extents, smearing),
                {"periodic"});
  expectFailure(
      JacobiSmearing::create(kernel("laplacian3d_f64"), extents, smearing),
      {"no link taps"});
}

} // namespace

TEST(Covariant, CgAcceptsUnitaryLinksWithDeterminantMinusOne) {
  // -U is unitary with det -U = -1 (N = 3): a sign folded into the links
  // (a boundary condition, staggered phases) keeps the diamagnetic bound,
  // so CG's check accepts it.
  const std::vector<int> extents = {5, 3, 4, 8};
  CovariantOp op;
  ASSERT_OK(op.create(kernel("covlap4d_f64"), extents));
  GaugeField U = op.gauge();
  Random random(12);
  U.set_random(random);
  for (std::int64_t s = 0; s < U.sites(); s += 3)
    for (int k = 0; k < 18; ++k)
      U.link(s, 3)[k] = -U.link(s, 3)[k];
  ASSERT_OK(op.setLinks(U));
  ASSERT_OK(op.A.check_spd());
}
