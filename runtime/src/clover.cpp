#include "stencil/clover.hpp"

#include "stencil/dirac.hpp"
#include "stencil/host_matrix.hpp"

#include "host_parallel.hpp"
#include "link_products.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

namespace stencil {
namespace {

using Complex = std::complex<double>;

/// Fhat_mu,nu(x) = (Q - Q^dagger) / 8 from the four clover leaves at x.
HostMatrix fieldStrength(const GaugeField &U, std::int64_t x, int mu, int nu) {
  return with_colours(U.colours(), [&](auto colours) {
    constexpr int N = decltype(colours)::value;
    auto step = [&](std::int64_t s, int axis, int by) {
      return U.neighbour(s, axis, by);
    };
    auto u = [&](std::int64_t s, int axis, bool daggered = false) {
      return host_link<N>(U, s, axis, daggered);
    };
    auto times = [](const auto &a, const auto &b) { return link_product(a, b); };
    constexpr bool dag = true;
    const std::int64_t xpm = step(x, mu, 1), xmm = step(x, mu, -1);
    const std::int64_t xpn = step(x, nu, 1), xmn = step(x, nu, -1);
    const std::int64_t xmmpn = step(xmm, nu, 1), xmmmn = step(xmm, nu, -1);
    const std::int64_t xpmmn = step(xpm, nu, -1);
    const LinkMatrix<double, N> leaves[4] = {
        times(times(u(x, mu), u(xpm, nu)), times(u(xpn, mu, dag), u(x, nu, dag))),
        times(times(u(x, nu), u(xmmpn, mu, dag)), times(u(xmm, nu, dag), u(xmm, mu))),
        times(times(u(xmm, mu, dag), u(xmmmn, nu, dag)),
              times(u(xmmmn, mu), u(xmn, nu))),
        times(times(u(xmn, nu, dag), u(xmn, mu)),
              times(u(xpmmn, nu), u(x, mu, dag)))};
    // Q = l1 + (l2 + l3 + l4), summed as complex values in that order.
    auto entry = [&](int leaf, int i, int j) {
      const double *z = leaves[leaf].v + 2 * (i * N + j);
      return Complex(z[0], z[1]);
    };
    auto q = [&](int i, int j) {
      return entry(0, i, j) + (entry(1, i, j) + entry(2, i, j) + entry(3, i, j));
    };
    HostMatrix f(N);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        f(i, j) = (q(i, j) - std::conj(q(j, i))) / 8.0;
    return f;
  });
}

/// gamma_mu as a dense 4 x 4 matrix (stencil/dirac.hpp's entries).
HostMatrix gamma(int mu) {
  HostMatrix g(kSpins);
  for (int row = 0; row < kSpins; ++row) {
    const GammaEntry e = gamma_entry(mu, row);
    double re = 1.0, im = 0.0;
    times_i_power(e.phase, re, im);
    g(row, e.column) = {re, im};
  }
  return g;
}

void pack(const HostMatrix &block, double *out) {
  const int n = block.n;
  for (int i = 0; i < n; ++i)
    out[i] = block(i, i).real();
  int k = n;
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      out[k++] = block(i, j).real();
      out[k++] = block(i, j).imag();
    }
}

HostMatrix unpack(const double *in, int n) {
  HostMatrix block(n);
  for (int i = 0; i < n; ++i)
    block(i, i) = in[i];
  int k = n;
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      block(i, j) = {in[k], in[k + 1]};
      block(j, i) = {in[k], -in[k + 1]};
      k += 2;
    }
  return block;
}

} // namespace

Status CloverField::box(const int *first, const int *extents,
                        CloverField &out) const {
  CloverField b;
  b.colours_ = colours_;
  b.mass_ = mass_;
  b.csw_ = csw_;
  b.sites_ = 1;
  for (int mu = 0; mu < 4; ++mu) {
    if (extents[mu] < 1)
      return Status::failure("clover box: extent " +
                             std::to_string(extents[mu]) + " along axis " +
                             std::to_string(mu) + " is not positive");
    if (first[mu] < 0 || first[mu] + extents[mu] > extents_[mu])
      return Status::failure("clover box: sites [" + std::to_string(first[mu]) +
                             ", " + std::to_string(first[mu] + extents[mu]) +
                             ") along axis " + std::to_string(mu) +
                             " leave the field of " +
                             std::to_string(extents_[mu]));
    b.extents_[mu] = extents[mu];
    b.sites_ *= extents[mu];
  }
  const std::int64_t reals = 2 * reals_per_block();
  b.data_.resize(b.sites_ * reals);
  for (std::int64_t s = 0; s < b.sites_; ++s) {
    std::int64_t rest = s, from = 0, stride = 1;
    for (int mu = 0; mu < 4; ++mu) {
      from += (first[mu] + rest % extents[mu]) * stride;
      rest /= extents[mu];
      stride *= extents_[mu];
    }
    std::copy_n(data_.data() + from * reals, reals, b.data_.data() + s * reals);
  }
  out = std::move(b);
  return Status();
}

Status CloverField::create(const GaugeField &U, double mass, double csw,
                           CloverField &out) {
  if (U.dims() != 4)
    return Status::failure("the clover term needs a 4-D gauge field, not " +
                           std::to_string(U.dims()) + "-D");
  if (!std::isfinite(mass) || !std::isfinite(csw))
    return Status::failure("the clover term's mass and c_sw must be finite");
  CloverField c;
  c.colours_ = U.colours();
  for (int mu = 0; mu < 4; ++mu)
    c.extents_[mu] = U.extents()[mu];
  c.sites_ = U.sites();
  const int n = c.colours_;
  c.data_.assign(c.sites_ * 2 * c.reals_per_block(), 0.0);
  // sigma_mu,nu = (i/2) [gamma_mu, gamma_nu] at sigma[mu * 4 + nu], mu < nu.
  std::vector<HostMatrix> sigma(16, HostMatrix(4));
  for (int mu = 0; mu < 4; ++mu)
    for (int nu = mu + 1; nu < 4; ++nu) {
      const HostMatrix ab = multiply(gamma(mu), gamma(nu)),
                       ba = multiply(gamma(nu), gamma(mu));
      for (size_t k = 0; k < ab.a.size(); ++k)
        sigma[mu * 4 + nu].a[k] = Complex(0.0, 0.5) * (ab.a[k] - ba.a[k]);
    }
  // Sites are independent: threads take contiguous ranges of them.
  auto fill = [&](std::int64_t begin, std::int64_t end) {
  for (std::int64_t x = begin; x < end; ++x) {
    // The whole 4N x 4N matrix over (spin, colour), then its two blocks.
    HostMatrix a(4 * n);
    for (int k = 0; k < 4 * n; ++k)
      a(k, k) = 4.0 + mass;
    for (int mu = 0; mu < 4; ++mu)
      for (int nu = mu + 1; nu < 4; ++nu) {
        // (i/4) sum over both orders = (i/2) sum over mu < nu.
        const HostMatrix f = fieldStrength(U, x, mu, nu);
        const Complex scale = Complex(0.0, 0.5) * csw;
        for (int s = 0; s < 4; ++s)
          for (int t = 0; t < 4; ++t) {
            const Complex st = sigma[mu * 4 + nu](s, t);
            if (st == 0.0)
              continue;
            for (int i = 0; i < n; ++i)
              for (int j = 0; j < n; ++j)
                a(s * n + i, t * n + j) += scale * st * f(i, j);
          }
      }
    for (int chirality = 0; chirality < 2; ++chirality) {
      HostMatrix block(2 * n);
      for (int i = 0; i < 2 * n; ++i)
        for (int j = 0; j < 2 * n; ++j)
          block(i, j) = a(2 * chirality * n + i, 2 * chirality * n + j);
      pack(block, c.data_.data() + (x * 2 + chirality) * c.reals_per_block());
    }
  }
  };
  parallel_ranges(c.sites_, fill);
  c.mass_ = mass;
  c.csw_ = csw;
  out = std::move(c);
  return Status();
}

std::vector<std::complex<double>>
CloverField::dense_block(std::int64_t site, int chirality) const {
  return unpack(block(site, chirality), 2 * colours_).a;
}

Status CloverField::apply(const std::vector<double> &in,
                          std::vector<double> &out) const {
  const int n = colours_;
  const std::int64_t values = sites_ * 8 * n;
  if (static_cast<std::int64_t>(in.size()) != values)
    return Status::failure("clover apply: the spinor field has " +
                           std::to_string(in.size()) + " reals, not the " +
                           std::to_string(values) + " of " +
                           std::to_string(sites_) + " sites");
  out.assign(values, 0.0);
  for (std::int64_t x = 0; x < sites_; ++x)
    for (int chirality = 0; chirality < 2; ++chirality) {
      const HostMatrix b = unpack(block(x, chirality), 2 * n);
      // Spins 2 chirality and 2 chirality + 1: 2N complex values in a row.
      const std::int64_t first = x * 8 * n + chirality * 4 * n;
      for (int i = 0; i < 2 * n; ++i) {
        Complex sum = 0.0;
        for (int j = 0; j < 2 * n; ++j)
          sum += b(i, j) * Complex(in[first + 2 * j], in[first + 2 * j + 1]);
        out[first + 2 * i] = sum.real();
        out[first + 2 * i + 1] = sum.imag();
      }
    }
  return Status();
}

Status CloverField::invert(int parity, CloverField &out) const {
  if (parity < -1 || parity > 1)
    return Status::failure("clover invert: parity must be 0, 1 or -1 (all), "
                           "not " + std::to_string(parity));
  CloverField inverse = *this;
  const int m = 2 * colours_;
  // Sites over the host's threads; the failure reported is the first
  // site's, whatever the threads' timing.
  std::mutex failureLock;
  std::int64_t failedSite = sites_;
  Status failure;
  auto invertRange = [&](std::int64_t begin, std::int64_t end) {
  for (std::int64_t x = begin; x < end; ++x) {
    int c[4];
    std::int64_t rest = x;
    for (int mu = 0; mu < 4; ++mu) {
      c[mu] = static_cast<int>(rest % extents_[mu]);
      rest /= extents_[mu];
    }
    if (parity >= 0 && (c[0] + c[1] + c[2] + c[3]) % 2 != parity)
      continue;
    for (int chirality = 0; chirality < 2; ++chirality) {
      const HostMatrix a = unpack(block(x, chirality), m);
      double scale = 0.0;
      for (const Complex &v : a.a)
        scale = std::max(scale, std::abs(v));
      // A = L D L^dagger, L unit lower triangular, D real.
      HostMatrix l(m);
      std::vector<double> d(m);
      for (int j = 0; j < m; ++j) {
        double dj = a(j, j).real();
        for (int k = 0; k < j; ++k)
          dj -= std::norm(l(j, k)) * d[k];
        if (!(std::fabs(dj) > 1e-12 * scale)) {
          std::lock_guard<std::mutex> lock(failureLock);
          if (x < failedSite) {
            failedSite = x;
            failure = Status::failure(
              "the clover term is not invertible at site " +
              std::to_string(x) + " (" + std::to_string(c[0]) + ", " +
              std::to_string(c[1]) + ", " + std::to_string(c[2]) + ", " +
              std::to_string(c[3]) + "), chirality " +
              std::to_string(chirality) + ": pivot " + std::to_string(j) +
              " of its L D L^dagger factorisation is " + std::to_string(dj) +
              " against a largest entry of " + std::to_string(scale) +
              " (check the mass and c_sw)");
          }
          return;
        }
        d[j] = dj;
        l(j, j) = 1.0;
        for (int i = j + 1; i < m; ++i) {
          Complex v = a(i, j);
          for (int k = 0; k < j; ++k)
            v -= l(i, k) * std::conj(l(j, k)) * d[k];
          l(i, j) = v / dj;
        }
      }
      // A^-1 column by column: L y = e, z = D^-1 y, L^dagger w = z.
      HostMatrix inv(m);
      for (int col = 0; col < m; ++col) {
        std::vector<Complex> y(m, 0.0);
        for (int i = 0; i < m; ++i) {
          Complex v = i == col ? 1.0 : 0.0;
          for (int k = 0; k < i; ++k)
            v -= l(i, k) * y[k];
          y[i] = v;
        }
        for (int i = 0; i < m; ++i)
          y[i] /= d[i];
        for (int i = m - 1; i >= 0; --i) {
          Complex v = y[i];
          for (int k = i + 1; k < m; ++k)
            v -= std::conj(l(k, i)) * inv(k, col);
          inv(i, col) = v;
        }
      }
      pack(inv, inverse.data_.data() +
                    (x * 2 + chirality) * inverse.reals_per_block());
    }
  }
  };
  parallel_ranges(sites_, invertRange);
  if (!failure.ok())
    return failure;
  out = std::move(inverse);
  return Status();
}

} // namespace stencil
