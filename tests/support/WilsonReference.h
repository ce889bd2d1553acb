// An independent naive reference for the Wilson Dirac operator, in double:
// plain loops over sites, spins and colours with dense 4 x 4 gamma matrices
// and full N x N links, no spin projection. It shares nothing with
// stencil/dirac.hpp (its own transcription of the DeGrand-Rossi matrices) or
// with the generator.
//
//   (M psi)(x) = (m + 4) psi(x)
//       - 1/2 sum_mu [ (1 - gamma_mu) U_mu(x) psi(x + mu)
//                      + (1 + gamma_mu) U_mu(x - mu)^dagger psi(x - mu) ]
//
// with a neighbour across the wrap of an antiperiodic axis entering with its
// sign flipped. Its free symbol is m + sum_mu (1 - cos p_mu) + i sum_mu
// gamma_mu sin p_mu; with kappa = 1 / (2 m + 8), M = (1 / (2 kappa)) (1 -
// kappa D_hop).
#ifndef STENCILC_TESTS_WILSONREFERENCE_H
#define STENCILC_TESTS_WILSONREFERENCE_H

#include "stencil/gauge.hpp"

#include <array>
#include <complex>
#include <vector>

namespace stencilc {
namespace testing {

using Complex = std::complex<double>;
using SpinMatrix = std::array<Complex, 16>; ///< row-major 4 x 4

/// gamma_mu in the DeGrand-Rossi basis (mu 0..3: x, y, z, t; 4: gamma_5).
SpinMatrix diracGamma(int mu);

/// A spinor field: per site (x fastest) 4 spins x N colours of complex
/// values, spin slowest: value (s, c) of site x at x * 4N + s * N + c.
using SpinorField = std::vector<Complex>;

/// M psi on the 4-D gauge field U (its extents and N); `antiperiodic[mu]`
/// flips the sign of neighbours read across the wrap along mu.
SpinorField wilsonApply(const stencil::GaugeField &U,
                        const std::array<bool, 4> &antiperiodic, double mass,
                        const SpinorField &psi);

/// The clover term's share of Wilson-clover, c_sw (i/4) sum over mu != nu
/// of sigma_mu,nu Fhat_mu,nu(x) psi(x), sigma_mu,nu = (i/2) [gamma_mu,
/// gamma_nu], Fhat = (Q - Q^dagger) / 8 from the four plaquette leaves Q at
/// x, with dense matrices (no chiral blocks, no compact storage). The whole
/// operator is wilsonApply + this.
SpinorField cloverTermApply(const stencil::GaugeField &U, double csw,
                            const SpinorField &psi);

/// gamma_5 psi, site by site.
SpinorField gamma5Times(const SpinorField &psi, int colours);

} // namespace testing
} // namespace stencilc

#endif
