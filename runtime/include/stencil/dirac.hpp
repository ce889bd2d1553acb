// stencil/dirac.hpp - Euclidean Dirac gamma matrices in the DeGrand-Rossi
// (chiral) basis, the basis of Chroma, QPhiX and QUDA's
// QUDA_DEGRAND_ROSSI_GAMMA_BASIS, for Wilson-type stencils.
//
// Spin index 0..3, mu = 0..3 for x, y, z, t and 4 for gamma_5:
//
//   gamma_x = [[ 0,  0,  0, -i],     gamma_y = [[ 0,  0,  0, -1],
//              [ 0,  0, -i,  0],                [ 0,  0,  1,  0],
//              [ 0,  i,  0,  0],                [ 0,  1,  0,  0],
//              [ i,  0,  0,  0]]                [-1,  0,  0,  0]]
//
//   gamma_z = [[ 0,  0, -i,  0],     gamma_t = [[ 0,  0,  1,  0],
//              [ 0,  0,  0,  i],                [ 0,  0,  0,  1],
//              [ i,  0,  0,  0],                [ 1,  0,  0,  0],
//              [ 0, -i,  0,  0]]                [ 0,  1,  0,  0]]
//
//   gamma_5 = gamma_x gamma_y gamma_z gamma_t = diag(1, 1, -1, -1).
//
// They are Hermitian, square to 1 and anticommute: {gamma_mu, gamma_nu} =
// 2 delta_mu,nu. Every row has exactly one non-zero entry, a power of i,
// which is what spin projection exploits: (1 -/+ gamma_mu) psi has only two
// independent spin components.
#ifndef STENCIL_DIRAC_HPP
#define STENCIL_DIRAC_HPP

#include "stencil/host_device.hpp"

namespace stencil {

constexpr int kSpins = 4;
/// The index of gamma_5 in gamma_entry().
constexpr int kGamma5 = 4;

/// Row `row`'s only non-zero entry of a gamma matrix: at `column`, with the
/// value i^phase (phase 0: 1, 1: i, 2: -1, 3: -i).
struct GammaEntry {
  int column;
  int phase;
};

/// gamma_mu's entry in row `row` (mu 0..3: x, y, z, t; 4: gamma_5).
STENCIL_HOST_DEVICE constexpr GammaEntry gamma_entry(int mu, int row) {
  // Columns and phases row by row, as the matrices above.
  constexpr int columns[5][kSpins] = {
      {3, 2, 1, 0}, {3, 2, 1, 0}, {2, 3, 0, 1}, {2, 3, 0, 1}, {0, 1, 2, 3}};
  constexpr int phases[5][kSpins] = {
      {3, 3, 1, 1}, {2, 0, 0, 2}, {3, 1, 1, 3}, {0, 0, 0, 0}, {0, 0, 2, 2}};
  return {columns[mu][row], phases[mu][row]};
}

/// i^phase times (re, im), in place.
template <typename T>
STENCIL_HOST_DEVICE inline void times_i_power(int phase, T &re, T &im) {
  const T r = re, m = im;
  switch (phase & 3) {
  case 1: // i (r + i m) = -m + i r
    re = -m;
    im = r;
    break;
  case 2:
    re = -r;
    im = -m;
    break;
  case 3: // -i (r + i m) = m - i r
    re = m;
    im = -r;
    break;
  default:
    break;
  }
}

} // namespace stencil

#endif
