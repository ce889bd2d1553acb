// stencil/clover.hpp - the Sheikholeslami-Wohlert (clover) term of
// Wilson-clover fermions on the host, from a 4-D gauge field.
//
// Conventions (Luescher, Sint, Sommer, Weisz; openQCD's), in the
// DeGrand-Rossi basis of stencil/dirac.hpp:
//
//   A(x) = (4 + m) + c_sw (i/4) sum_{mu,nu} sigma_mu,nu Fhat_mu,nu(x)
//   sigma_mu,nu = (i/2) [gamma_mu, gamma_nu]
//   Fhat_mu,nu(x) = (Q_mu,nu(x) - Q_mu,nu(x)^dagger) / 8
//
// with Q_mu,nu(x) the sum of the four plaquettes in the (mu, nu) plane that
// start and end at x (the clover leaves). Fhat is anti-Hermitian, so A is
// Hermitian; on the unit gauge Fhat = 0 and A = 4 + m. sigma_mu,nu commutes
// with gamma_5 = diag(1, 1, -1, -1), so A is block diagonal: chirality 0
// acts on spins 0 and 1, chirality 1 on spins 2 and 3, each a Hermitian
// 2N x 2N matrix over (spin, colour) with index s N + c (s = 0, 1 within
// the block).
//
// Storage: per site and chirality 4 N^2 reals, compactly: the 2N real
// diagonal entries, then the strictly lower triangle's complex entries
// row by row ((1, 0), (2, 0), (2, 1), ...), (re, im) adjacent; 36 reals per
// block and 72 per site for SU(3). Sites x fastest, chirality 0 first.
#ifndef STENCIL_CLOVER_HPP
#define STENCIL_CLOVER_HPP

#include "stencil/gauge.hpp"
#include "stencil/types.hpp"

#include <complex>
#include <cstdint>
#include <vector>

namespace stencil {

class CloverField {
public:
  /// A(x) of the gauge field U (4-D) with bare mass m and coefficient c_sw.
  static Status create(const GaugeField &U, double mass, double csw,
                       CloverField &out);

  int colours() const { return colours_; }
  /// The bare mass and c_sw it was computed with (A = 4 + mass + ...).
  double mass() const { return mass_; }
  double csw() const { return csw_; }
  std::int64_t sites() const { return sites_; }
  /// Reals of one compact block: 4 N^2.
  int reals_per_block() const { return 4 * colours_ * colours_; }
  /// The compact block of `site` and `chirality` (0: spins 0, 1).
  const double *block(std::int64_t site, int chirality) const {
    return data_.data() + (site * 2 + chirality) * reals_per_block();
  }
  const std::vector<double> &data() const { return data_; }
  /// The block as a dense 2N x 2N row-major matrix.
  std::vector<std::complex<double>> dense_block(std::int64_t site,
                                                int chirality) const;

  /// out = A in on spinor fields in the host order: per site (x fastest)
  /// 4 spins x N colours of complex values, spin slowest, (re, im)
  /// adjacent. `in` and `out` may not alias.
  Status apply(const std::vector<double> &in, std::vector<double> &out) const;

  /// The inverse blocks, A(x)^-1, on the sites of one parity (0 even, 1
  /// odd: (x + y + z + t) % 2) or on every site (-1); other sites keep A.
  /// Each block is factored as L D L^dagger (L unit lower triangular, D
  /// real diagonal); a pivot that vanishes against the block's size (below
  /// 1e-12 of its largest entry) is refused naming the site, its
  /// coordinates and the chirality, since A is then not invertible there.
  Status invert(int parity, CloverField &out) const;

  /// The sites first + [0, extents) of this field (inside it): the part of
  /// a clover term computed on a box with margins that the margins do not
  /// spoil.
  Status box(const int *first, const int *extents, CloverField &out) const;

private:
  int colours_ = 3;
  int extents_[4] = {1, 1, 1, 1};
  double mass_ = 0.0;
  double csw_ = 0.0;
  std::int64_t sites_ = 0;
  std::vector<double> data_;
};

} // namespace stencil

#endif
