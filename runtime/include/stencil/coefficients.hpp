// stencil/coefficients.hpp - a stencil's coefficients at each site, on the
// host: the taps' constants and scalar parameters plus the coefficient
// fields (site parameters) read at their shifted sites. The operator uses
// it for its diagonal (Jacobi) and for CG's check of a variable-coefficient
// operator; tests use it as a second, layout-free view of A.
#ifndef STENCIL_COEFFICIENTS_HPP
#define STENCIL_COEFFICIENTS_HPP

#include "stencil/field.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/types.hpp"

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace stencil {

class HostCoefficients {
public:
  /// `lattice` is the operator's (whole) lattice; `values` every parameter's
  /// value in declaration order (site parameters' entries unused);
  /// `fields[p]` the array of site parameter p (null for scalars). The
  /// fields are downloaded once, in the host order.
  static Status create(const KernelInfo &info, const Lattice &lattice,
                       const double *values,
                       const std::vector<const Field *> &fields,
                       HostCoefficients &out);

  using Coordinates = std::array<int, kMaxDims>;
  /// Tap `tap`'s coefficient at the site `x` (an updated site); for a tap
  /// with complex fields its real part.
  double at(int tap, const Coordinates &x) const {
    return complex_at(tap, x).real();
  }
  /// The same as a complex number: complex fields' terms read as (re, im),
  /// conjugated where the term says so.
  std::complex<double> complex_at(int tap, const Coordinates &x) const;
  /// The site `x + offset` along wrapped axes wrapped, as a host-order
  /// index; -1 when it leaves the lattice along a Dirichlet axis.
  std::int64_t neighbour(const Coordinates &x, const int *offset) const;
  /// Whether `x` is updated by the operator (inside the halo).
  bool updated(const Coordinates &x) const;
  std::int64_t index(const Coordinates &x) const;
  Coordinates coordinates(std::int64_t index) const;
  std::int64_t sites() const { return sites_; }
  /// Tap `tap`'s part that every site shares: constant plus scalars.
  double shared(int tap) const { return shared_[tap]; }
  /// Site parameter `param`'s values in the host order (empty for scalars;
  /// (re, im) pairs for a complex one).
  const std::vector<double> &field(int param) const { return fields_[param]; }
  /// Whether some field term sits off the diagonal (an off-centre tap or a
  /// shifted read): the off-diagonal entries vary from site to site.
  bool off_diagonal_fields() const;

private:
  const KernelInfo *info_ = nullptr;
  Lattice lattice_;
  std::int64_t sites_ = 0;
  std::vector<double> shared_;              ///< per tap: constant + scalars
  std::vector<std::vector<double>> fields_; ///< per parameter, host order
  /// Per tap, its entries of info_->field_terms: at() runs per site and tap.
  std::vector<std::vector<const FieldTerm *>> termsOfTap_;
};

/// CG's check of an operator whose off-diagonal entries come from fields:
/// every updated row must be weakly diagonally dominant (A_xx >= sum over
/// its couplings to other updated sites of |A_xy|, the modulus of a complex
/// coupling; couplings into the halo are not entries of A), and each must
/// reach a strictly dominant row through non-zero couplings. A symmetric
/// (Hermitian) matrix with that property is positive definite (weakly
/// chained diagonal dominance makes it non-singular; dominance with a
/// non-negative diagonal, positive semi-definite, by Gershgorin's discs).
/// The diagonal must be real. Returns why not, naming the site, otherwise
/// success.
Status check_chained_dominance(const KernelInfo &info,
                               const HostCoefficients &coefficients);

} // namespace stencil

#endif
