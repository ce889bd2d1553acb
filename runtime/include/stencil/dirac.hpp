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
#include "stencil/link_algebra.hpp"

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

/// acc (=|+=) w (1 + Sign gamma_Mu) L v over one spinor v (4 spins x N
/// colours, spin slowest, (re, im) adjacent), L the link u or, with Dagger,
/// u^dagger (stencil/link_algebra.hpp's order). Spin projection: for every
/// mu = 0..3 rows 0 and 1 of gamma_mu have their entries in columns 2 and
/// 3, so (1 + s gamma) v has two independent rows h_r = v_r + s gamma_r,c
/// v_c (r = 0, 1); L multiplies those two colour vectors only, and row r =
/// 2, 3 of the result is s gamma_r,c times row c (c its column, 0 or 1),
/// since gamma_r,c gamma_c,r = 1.
template <bool First, bool Dagger, int Mu, int Sign, int N, typename T>
STENCIL_HOST_DEVICE inline void spin_link_times(T *acc, T w,
                                                const LinkMatrix<T, N> &u,
                                                const T *v) {
  static_assert(Mu >= 0 && Mu < 4 && (Sign == 1 || Sign == -1),
                "a spin projector 1 +/- gamma_mu, mu = x, y, z, t");
  constexpr int kVector = 2 * N; // reals of one colour vector
  T h[2][kVector];
  for (int r = 0; r < 2; ++r) {
    const GammaEntry e = gamma_entry(Mu, r);
    for (int a = 0; a < N; ++a) {
      T re = v[e.column * kVector + 2 * a], im = v[e.column * kVector + 2 * a + 1];
      times_i_power(e.phase, re, im);
      h[r][2 * a] = v[r * kVector + 2 * a] + Sign * re;
      h[r][2 * a + 1] = v[r * kVector + 2 * a + 1] + Sign * im;
    }
  }
  T lh[2][kVector];
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < N; ++i)
      link_row<Dagger>(u, h[r], i, lh[r][2 * i], lh[r][2 * i + 1]);
  for (int r = 0; r < kSpins; ++r) {
    const GammaEntry e = gamma_entry(Mu, r);
    for (int i = 0; i < N; ++i) {
      T re, im;
      if (r < 2) {
        re = lh[r][2 * i];
        im = lh[r][2 * i + 1];
      } else {
        re = Sign * lh[e.column][2 * i];
        im = Sign * lh[e.column][2 * i + 1];
        times_i_power(e.phase, re, im);
      }
      T &accRe = acc[r * kVector + 2 * i], &accIm = acc[r * kVector + 2 * i + 1];
      accRe = First ? w * re : accRe + w * re;
      accIm = First ? w * im : accIm + w * im;
    }
  }
}

} // namespace stencil

#endif
