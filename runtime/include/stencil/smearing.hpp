// stencil/smearing.hpp - Jacobi (Wuppertal) smearing of colour vectors with
// a generated gauge-covariant Laplacian.
//
// With the covariant Laplacian D = c - H, c the centre tap (2d on d
// dimensions) and H the hopping term sum_mu U_mu(x) psi(x + mu) +
// U_mu(x - mu)^dagger psi(x - mu) (each link tap's coefficient -1), one
// smearing step with the standard normalisation parameter kappa is
//   psi <- (psi + kappa H psi) / (1 + c kappa) = psi - kappa / (1 + c kappa) D psi,
// which keeps a constant field on the unit gauge unchanged. Source and sink
// smearing in lattice QCD apply it n times on each time slice with the
// spatial links of that slice, which smear_time_slices() does with a 3-D
// stencil (for example specs/covlap3d_f32.yaml).
#ifndef STENCIL_SMEARING_HPP
#define STENCIL_SMEARING_HPP

#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/operator.hpp"

#include <functional>
#include <vector>

namespace stencil {

class JacobiSmearing {
public:
  /// `laplacian` must have links, periodic axes, a centre tap with a
  /// constant coefficient c > 0, and link taps of coefficient -1 only (the
  /// form above); `extents` are one time slice's (or the whole lattice's).
  static Status create(const KernelInfo &laplacian, const int *extents,
                       JacobiSmearing &out);

  /// The operator; give it links (upload_links, set_links) before smear().
  StencilOperator &laplacian() { return op_; }
  /// kappa / (1 + c kappa): the multiple of D each step subtracts.
  double step_factor(double kappa) const { return kappa / (1 + centre_ * kappa); }

  /// psi <- the smeared psi, `iterations` steps, on the operator's lattice.
  Status smear(Field &psi, double kappa, int iterations);

  /// Called after each time slice: (slices done, slices in all).
  using Progress = std::function<void(int, int)>;
  /// Smears each time slice of `psi` (host values of a field one dimension
  /// larger than the operator's, x fastest, the last axis time) with the
  /// spatial links of that slice of `U`, `iterations` steps each.
  Status smear_time_slices(const GaugeField &U, double kappa, int iterations,
                           std::vector<double> &psi,
                           const Progress &progress = Progress());

private:
  StencilOperator op_;
  double centre_ = 0.0;
  Field slice_links_; ///< smear_time_slices: the current slice's links
};

} // namespace stencil

#endif
