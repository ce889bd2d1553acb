#include "stencil/gauge.hpp"

#include "stencil/device.hpp"
#include "stencil/host_matrix.hpp"

#include "host_parallel.hpp"
#include "link_products.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>

namespace stencil {
namespace {

using Complex = std::complex<double>;

Complex determinant(HostMatrix m) {
  // Gaussian elimination with partial pivoting.
  Complex det = 1;
  for (int col = 0; col < m.n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < m.n; ++r)
      if (std::abs(m(r, col)) > std::abs(m(pivot, col)))
        pivot = r;
    if (std::abs(m(pivot, col)) == 0.0)
      return 0;
    if (pivot != col) {
      for (int j = 0; j < m.n; ++j)
        std::swap(m(pivot, j), m(col, j));
      det = -det;
    }
    det *= m(col, col);
    for (int r = col + 1; r < m.n; ++r) {
      const Complex f = m(r, col) / m(col, col);
      for (int j = col; j < m.n; ++j)
        m(r, j) -= f * m(col, j);
    }
  }
  return det;
}

/// Standard normal deviate (Box-Muller).
double gaussian(Random &random) {
  const double u = random.uniform(0.0, 1.0);
  const double v = random.uniform(0.0, 1.0);
  return std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2.0 * M_PI * v);
}

/// Rows made orthonormal (Gram-Schmidt), then det fixed to 1 for N >= 2.
void projectSpecialUnitary(HostMatrix &m) {
  for (int i = 0; i < m.n; ++i) {
    for (int k = 0; k < i; ++k) {
      Complex overlap = 0;
      for (int j = 0; j < m.n; ++j)
        overlap += std::conj(m(k, j)) * m(i, j);
      for (int j = 0; j < m.n; ++j)
        m(i, j) -= overlap * m(k, j);
    }
    double norm = 0;
    for (int j = 0; j < m.n; ++j)
      norm += std::norm(m(i, j));
    norm = std::sqrt(norm);
    for (int j = 0; j < m.n; ++j)
      m(i, j) /= norm;
  }
  if (m.n < 2)
    return;
  const Complex det = determinant(m);
  const Complex phase = std::conj(det) / std::abs(det);
  for (int j = 0; j < m.n; ++j)
    m(m.n - 1, j) *= phase;
}

HostMatrix randomSpecialUnitary(int n, Random &random) {
  HostMatrix m(n);
  for (Complex &z : m.a)
    z = Complex(gaussian(random), gaussian(random));
  projectSpecialUnitary(m);
  return m;
}

/// max |U U^dagger - 1| (and |det U - 1|): NaN where any entry is NaN,
/// which std::max alone would drop.
double deviation(const HostMatrix &u, bool special) {
  const HostMatrix p = multiply(u, dagger(u));
  double worst = 0;
  auto take = [&](double d) { worst = std::isnan(d) ? d : std::max(worst, d); };
  for (int i = 0; i < u.n && !std::isnan(worst); ++i)
    for (int j = 0; j < u.n && !std::isnan(worst); ++j)
      take(std::abs(p(i, j) - (i == j ? 1.0 : 0.0)));
  if (u.n >= 2 && special && !std::isnan(worst))
    take(std::abs(determinant(u) - 1.0));
  return worst;
}

} // namespace

Status GaugeField::create(int dims, const int *extents, int colours,
                          GaugeField &out) {
  if (dims < 1 || dims > 4)
    return Status::failure("gauge field: dims must be 1 to 4, not " +
                           std::to_string(dims));
  if (colours < 1 || colours > 4)
    return Status::failure("gauge field: colours must be 1 to 4, not " +
                           std::to_string(colours));
  GaugeField field;
  field.dims_ = dims;
  field.colours_ = colours;
  // At most 2^40 sites: products below stay far from 64-bit overflow.
  std::int64_t sites = 1;
  for (int axis = 0; axis < dims; ++axis) {
    if (extents[axis] < 1)
      return Status::failure("gauge field: extent " + std::to_string(axis) +
                             " is " + std::to_string(extents[axis]) +
                             "; extents must be positive");
    field.extents_[axis] = extents[axis];
    sites *= extents[axis];
    if (sites > (std::int64_t(1) << 40))
      return Status::failure("gauge field: the lattice has more than 2^40 "
                             "sites");
  }
  try {
    field.data_.assign(sites * dims * field.reals_per_link(), 0.0);
  } catch (const std::exception &) {
    return Status::failure("gauge field: cannot allocate " +
                           std::to_string(sites * dims *
                                          field.reals_per_link() * 8) +
                           " bytes on the host");
  }
  field.set_unit();
  out = std::move(field);
  return Status();
}

std::int64_t GaugeField::sites() const {
  std::int64_t count = 1;
  for (int axis = 0; axis < dims_; ++axis)
    count *= extents_[axis];
  return count;
}

Status gauge_box(const GaugeField &U, const int *first, const int *extents,
                 GaugeField &out) {
  GaugeField box;
  STENCIL_TRY(GaugeField::create(U.dims(), extents, U.colours(), box));
  const int reals = U.reals_per_link();
  for (std::int64_t s = 0; s < box.sites(); ++s) {
    int c[4] = {0, 0, 0, 0};
    std::int64_t rest = s;
    for (int axis = 0; axis < U.dims(); ++axis) {
      c[axis] = first[axis] + static_cast<int>(rest % extents[axis]);
      rest /= extents[axis];
    }
    const std::int64_t from = U.site_of(c);
    for (int mu = 0; mu < U.dims(); ++mu)
      std::copy_n(U.link(from, mu), reals, box.link(s, mu));
  }
  out = std::move(box);
  return Status();
}

std::int64_t GaugeField::site_of(const int *c) const {
  std::int64_t site = 0;
  for (int axis = dims_ - 1; axis >= 0; --axis) {
    const int n = extents_[axis];
    site = site * n + ((c[axis] % n) + n) % n;
  }
  return site;
}

std::int64_t GaugeField::neighbour(std::int64_t site, int mu, int step) const {
  // Only the coordinate along mu moves (and wraps).
  std::int64_t stride = 1;
  for (int axis = 0; axis < mu; ++axis)
    stride *= extents_[axis];
  const int n = extents_[mu];
  const int from = static_cast<int>((site / stride) % n);
  int to = (from + step) % n;
  if (to < 0)
    to += n;
  return site + (static_cast<std::int64_t>(to) - from) * stride;
}

void GaugeField::set_unit() {
  std::fill(data_.begin(), data_.end(), 0.0);
  for (std::int64_t s = 0; s < sites(); ++s)
    for (int mu = 0; mu < dims_; ++mu)
      for (int i = 0; i < colours_; ++i)
        link(s, mu)[2 * (i * colours_ + i)] = 1.0;
}

void GaugeField::set_random(Random &random) {
  // Each link takes 4 N^2 draws (N^2 complex Gaussians, two uniforms each),
  // so a piece of the lattice starts its draws where the sequence stands at
  // its first site: the same links for any number of threads.
  const std::uint64_t perSite =
      static_cast<std::uint64_t>(dims_) * 4 * colours_ * colours_;
  parallel_ranges(
      sites(),
      [&](std::int64_t begin, std::int64_t end) {
        Random piece = random.ahead(static_cast<std::uint64_t>(begin) * perSite);
        for (std::int64_t s = begin; s < end; ++s)
          for (int mu = 0; mu < dims_; ++mu)
            randomSpecialUnitary(colours_, piece).store(link(s, mu));
      },
      256);
  random.skip(static_cast<std::uint64_t>(sites()) * perSite);
}

void GaugeField::set_near_unit(Random &random, double epsilon) {
  for (std::int64_t s = 0; s < sites(); ++s)
    for (int mu = 0; mu < dims_; ++mu) {
      HostMatrix m(colours_);
      for (int i = 0; i < colours_; ++i)
        for (int j = 0; j < colours_; ++j)
          m(i, j) = (i == j ? 1.0 : 0.0) +
                    epsilon * Complex(gaussian(random), gaussian(random));
      projectSpecialUnitary(m);
      m.store(link(s, mu));
    }
}

void GaugeField::reunitarise() {
  for (std::int64_t s = 0; s < sites(); ++s)
    for (int mu = 0; mu < dims_; ++mu) {
      HostMatrix m = HostMatrix::load(link(s, mu), colours_);
      projectSpecialUnitary(m);
      m.store(link(s, mu));
    }
}

double GaugeField::plaquette() const {
  if (dims_ < 2)
    return 0.0;
  // Partial sums over fixed chunks of sites, added in chunk order: the
  // same value for any number of threads.
  constexpr std::int64_t kChunk = 1024;
  const std::int64_t chunks = (sites() + kChunk - 1) / kChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
  with_colours(colours_, [&](auto colours) {
    constexpr int N = decltype(colours)::value;
    // Re tr(X Y^dagger) = sum_ij Re X_ij conj(Y_ij), with
    // X = U_mu(s) U_nu(s + mu) and Y = U_nu(s) U_mu(s + nu).
    auto addPlaquettes = [&](std::int64_t s, double &sum) {
      for (int mu = 0; mu < dims_; ++mu)
        for (int nu = mu + 1; nu < dims_; ++nu) {
          const LinkMatrix<double, N> x =
              link_product(host_link<N>(*this, s, mu),
                           host_link<N>(*this, neighbour(s, mu, 1), nu));
          const LinkMatrix<double, N> y =
              link_product(host_link<N>(*this, s, nu),
                           host_link<N>(*this, neighbour(s, nu, 1), mu));
          double trace = 0;
          for (int k = 0; k < N * N; ++k)
            trace += x.v[2 * k] * y.v[2 * k] + x.v[2 * k + 1] * y.v[2 * k + 1];
          sum += trace / N;
        }
    };
    parallel_ranges(
        chunks,
        [&](std::int64_t first, std::int64_t last) {
          for (std::int64_t chunk = first; chunk < last; ++chunk) {
            double sum = 0;
            const std::int64_t end = std::min(sites(), (chunk + 1) * kChunk);
            for (std::int64_t s = chunk * kChunk; s < end; ++s)
              addPlaquettes(s, sum);
            partial[static_cast<std::size_t>(chunk)] = sum;
          }
        },
        4);
  });
  double sum = 0;
  for (double chunkSum : partial)
    sum += chunkSum;
  const std::int64_t planes = dims_ * (dims_ - 1) / 2;
  return sum / static_cast<double>(sites() * planes);
}

double GaugeField::worst_link(std::int64_t &site, int &mu,
                              bool determinant) const {
  double worst = -1;
  for (std::int64_t s = 0; s < sites(); ++s)
    for (int m = 0; m < dims_; ++m) {
      const double d =
          deviation(HostMatrix::load(link(s, m), colours_), determinant);
      if (!(d <= worst)) { // NaN counts as worst
        worst = std::isnan(d) ? INFINITY : d;
        site = s;
        mu = m;
      }
    }
  return worst;
}

double GaugeField::unitarity_deviation() const {
  std::int64_t site = 0;
  int mu = 0;
  return worst_link(site, mu);
}

std::vector<double> random_gauge_transform(const GaugeField &like,
                                           Random &random) {
  const int n = like.colours();
  std::vector<double> g(like.sites() * 2 * n * n);
  for (std::int64_t s = 0; s < like.sites(); ++s)
    randomSpecialUnitary(n, random).store(g.data() + s * 2 * n * n);
  return g;
}

Status gauge_transform_links(const std::vector<double> &g, GaugeField &U) {
  const int n = U.colours();
  if (g.size() != static_cast<std::size_t>(U.sites() * 2 * n * n))
    return Status::failure("gauge transformation: " +
                           std::to_string(g.size()) + " values for " +
                           std::to_string(U.sites()) + " sites of " +
                           std::to_string(n) + "x" + std::to_string(n) +
                           " matrices");
  for (std::int64_t s = 0; s < U.sites(); ++s)
    for (int mu = 0; mu < U.dims(); ++mu) {
      const HostMatrix gx = HostMatrix::load(g.data() + s * 2 * n * n, n);
      const HostMatrix gy =
          HostMatrix::load(g.data() + U.neighbour(s, mu, 1) * 2 * n * n, n);
      multiply(multiply(gx, HostMatrix::load(U.link(s, mu), n)), dagger(gy))
          .store(U.link(s, mu));
    }
  return Status();
}

Status gauge_transform_vectors(const std::vector<double> &g,
                               const GaugeField &like, int vectors,
                               std::vector<double> &psi) {
  const int n = like.colours();
  const std::int64_t perSite = static_cast<std::int64_t>(vectors) * 2 * n;
  if (g.size() != static_cast<std::size_t>(like.sites() * 2 * n * n))
    return Status::failure("gauge transformation: " +
                           std::to_string(g.size()) + " values for " +
                           std::to_string(like.sites()) + " sites of " +
                           std::to_string(n) + "x" + std::to_string(n) +
                           " matrices");
  if (vectors < 1)
    return Status::failure("gauge transformation: vectors per site must be "
                           "positive");
  if (psi.size() != static_cast<std::size_t>(like.sites() * perSite))
    return Status::failure("gauge transformation: the field holds " +
                           std::to_string(psi.size()) + " values, not " +
                           std::to_string(like.sites() * perSite));
  for (std::int64_t s = 0; s < like.sites(); ++s) {
    const HostMatrix gx = HostMatrix::load(g.data() + s * 2 * n * n, n);
    for (int v = 0; v < vectors; ++v) {
      double *x = psi.data() + s * perSite + v * 2 * n;
      std::vector<Complex> in(n), result(n, 0.0);
      for (int j = 0; j < n; ++j)
        in[j] = Complex(x[2 * j], x[2 * j + 1]);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          result[i] += gx(i, j) * in[j];
      for (int i = 0; i < n; ++i) {
        x[2 * i] = result[i].real();
        x[2 * i + 1] = result[i].imag();
      }
    }
  }
  return Status();
}

Status time_slice_links(const GaugeField &U, int t, GaugeField &out) {
  const int dims = U.dims();
  if (dims < 2)
    return Status::failure("time slices need a gauge field of at least two "
                           "dimensions");
  const int nt = U.extents()[dims - 1];
  if (t < 0 || t >= nt)
    return Status::failure("time slice " + std::to_string(t) +
                           " is outside 0.." + std::to_string(nt - 1));
  GaugeField slice;
  STENCIL_TRY(GaugeField::create(dims - 1, U.extents(), U.colours(), slice));
  const std::int64_t perSlice = slice.sites();
  const int reals = U.reals_per_link();
  for (std::int64_t s = 0; s < perSlice; ++s)
    for (int mu = 0; mu < dims - 1; ++mu)
      std::copy(U.link(t * perSlice + s, mu),
                U.link(t * perSlice + s, mu) + reals, slice.link(s, mu));
  out = std::move(slice);
  return Status();
}

} // namespace stencil
