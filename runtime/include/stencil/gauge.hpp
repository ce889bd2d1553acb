// stencil/gauge.hpp - gauge fields on the host: the links U_mu(x) of a
// gauge-covariant stencil, their standard checks, gauge transformations and
// a file format.
//
// Conventions (the same as QUDA's and Chroma's): U_mu(x) is the parallel
// transporter from x + mu to x, so the covariant forward neighbour of a
// colour vector psi at x is U_mu(x) psi(x + mu) and the backward one
// U_mu(x - mu)^dagger psi(x - mu). A gauge transformation g(x) in SU(N) acts
// as psi(x) -> g(x) psi(x), U_mu(x) -> g(x) U_mu(x) g(x + mu)^dagger; every
// axis wraps (a gauge field lives on a torus). Matrices are stored as in
// stencil/link_algebra.hpp: row-major, each entry (re, im) adjacent, and a
// site's `dims` matrices U_x, U_y, ... together; sites x fastest.
//
// File format (stencilc gauge file, version 1; all integers and values
// little-endian):
//   bytes 0..15   magic "STENCILC-GAUGE" followed by two zero bytes
//   u32           version (1)
//   u32           dims (1..4)
//   u32           colours N (1..4)
//   u32 x 4       extents nx, ny, nz, nt (1 past dims)
//   u64           count of doubles that follow (sites * dims * 2 N^2)
//   u64           FNV-1a 64-bit hash of those doubles' bytes
//   f64 x count   the links, in the order above
// Readers reject a wrong magic, version or header, a short or long file, a
// checksum mismatch and non-finite values, each with a message naming the
// file. ILDG configurations (SU(3), 4-D, in LIME files) are read by
// read_ildg (runtime/src/ildg.cpp); they are not written.
#ifndef STENCIL_GAUGE_HPP
#define STENCIL_GAUGE_HPP

#include "stencil/random.hpp"
#include "stencil/types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stencil {

/// A gauge field's links, writable in place. A view, not the vector: the
/// count of values is fixed by the field's extents and colours.
class LinkValues {
public:
  LinkValues(double *values, std::size_t count)
      : values_(values), count_(count) {}
  double *data() const { return values_; }
  std::size_t size() const { return count_; }
  double &operator[](std::size_t i) const { return values_[i]; }
  double *begin() const { return values_; }
  double *end() const { return values_ + count_; }

private:
  double *values_;
  std::size_t count_;
};

class GaugeField {
public:
  /// The unit gauge (every link the identity) on `extents` (dims entries).
  static Status create(int dims, const int *extents, int colours,
                       GaugeField &out);

  int dims() const { return dims_; }
  int colours() const { return colours_; }
  const int *extents() const { return extents_; }
  std::int64_t sites() const;
  /// Reals of one matrix, 2 N^2.
  int reals_per_link() const { return 2 * colours_ * colours_; }

  /// U_mu at site `site` (x fastest): reals_per_link() doubles.
  double *link(std::int64_t site, int mu) {
    return data_.data() + (site * dims_ + mu) * reals_per_link();
  }
  const double *link(std::int64_t site, int mu) const {
    return data_.data() + (site * dims_ + mu) * reals_per_link();
  }
  /// Every link, sites x fastest, a site's `dims` matrices together.
  LinkValues data() { return LinkValues(data_.data(), data_.size()); }
  const std::vector<double> &data() const { return data_; }

  /// Site index of coordinates (each wrapped onto the torus).
  std::int64_t site_of(const int *coordinates) const;
  /// The neighbour of `site` one step along `mu` (+1 or -1), wrapped.
  std::int64_t neighbour(std::int64_t site, int mu, int step) const;

  void set_unit();
  /// Independent random links: complex Gaussian matrices made unitary by
  /// Gram-Schmidt over the rows, then the last row turned by the conjugate
  /// phase of the determinant so that det U = 1 (SU(N); for N = 1 a random
  /// U(1) phase). Drawn site by site, direction by direction, from `random`
  /// (pieces of the lattice on the host's threads, each from its place in
  /// the sequence: the same links as one sequential walk).
  void set_random(Random &random);
  /// Each link moved towards the identity: U -> reunitarised (1 + eps R)
  /// with R a random complex Gaussian matrix, for smooth ("cold-ish")
  /// configurations whose plaquette is near 1.
  void set_near_unit(Random &random, double epsilon);
  /// Each link projected back onto SU(N) (U(1) for N = 1) as set_random
  /// does: for links read in lower precision or accumulated rounding.
  void reunitarise();

  /// The average over sites and planes mu < nu of Re tr P_mu,nu(x) / N,
  /// P = U_mu(x) U_nu(x + mu) U_mu(x + nu)^dagger U_nu(x)^dagger: 1 on the
  /// unit gauge, gauge invariant, near 0 for random links. 0 in 1-D.
  double plaquette() const;
  /// max over links of max |(U U^dagger - 1)_ij| and of |det U - 1| (the
  /// latter only for N >= 2): how far the links are from SU(N).
  double unitarity_deviation() const;
  /// The same for the worst link, whose place `site` and `mu` receive;
  /// without `determinant`, only max |(U U^dagger - 1)_ij| (U(N)).
  double worst_link(std::int64_t &site, int &mu,
                    bool determinant = true) const;

  /// FNV-1a (64 bits) of the links' bytes: what a gauge file records.
  std::uint64_t checksum() const;
  Status write(const std::string &path) const;
  static Status read(const std::string &path, GaugeField &out);
  /// An ILDG file: the 'ildg-format' and 'ildg-binary-data' records of a
  /// LIME file (precision 32 or 64, big-endian, x fastest, U_x .. U_t per
  /// site), its 'scidac-checksum' checked when present. Damaged, truncated
  /// or foreign files are refused with the reason.
  static Status read_ildg(const std::string &path, GaugeField &out);
  /// Either format, told apart by the file's first bytes (a LIME record's
  /// magic 0x456789ab, else the stencilc header): what programs taking a
  /// user's gauge file call.
  static Status load(const std::string &path, GaugeField &out);

private:
  int dims_ = 0;
  int colours_ = 3;
  int extents_[4] = {1, 1, 1, 1};
  std::vector<double> data_;
};

/// The links of the sites first + [0, extents) of U, coordinates wrapped
/// onto U's torus (`first` may be negative): a rank's block with its ghost
/// layers, or a box with margins around it.
Status gauge_box(const GaugeField &U, const int *first, const int *extents,
                 GaugeField &out);

/// A random SU(N) matrix per site (as GaugeField::set_random draws links):
/// `sites` * 2 N^2 doubles.
std::vector<double> random_gauge_transform(const GaugeField &like,
                                           Random &random);

/// U_mu(x) -> g(x) U_mu(x) g(x + mu)^dagger for every link.
Status gauge_transform_links(const std::vector<double> &g, GaugeField &U);

/// psi(x) -> g(x) psi(x) for each of the site's colour vectors: psi holds
/// `vectors` colour vectors of N complex values per site (x fastest), as a
/// field with shape [..., N] stores them.
Status gauge_transform_vectors(const std::vector<double> &g,
                               const GaugeField &like, int vectors,
                               std::vector<double> &psi);

/// The CRC-32 (IEEE, as zlib's crc32) of one site's bytes as an ILDG file
/// stores them: SciDAC's per-site checksum (for writers of test files).
std::uint32_t scidac_site_checksum(const unsigned char *bytes,
                                   std::size_t count);

/// The spatial links (directions 0 .. dims-2) of time slice `t` of a gauge
/// field whose last axis is time, as a gauge field of one dimension fewer.
Status time_slice_links(const GaugeField &U, int t, GaugeField &out);

} // namespace stencil

#endif
