// stencil/bfloat16.hpp - bfloat16 storage: fields that keep the upper half
// of each float (8 exponent bits, 7 stored mantissa bits) and do their
// arithmetic in float. Mixed-precision CG stores its inner fields this way
// (the spec's inner_precision: bf16) to halve the inner iterations' bytes
// again; float's exponent range means no rescaling of the residual.
//
// Plain C++ with no GPU headers, so that the host backend, nvcc and hipcc
// share it: widening is a shift, narrowing a round to the nearest value,
// ties to even, with NaNs kept quiet NaNs. NVIDIA GPUs from sm_80 round in
// one instruction (cvt.rn.bf16.f32, the same rounding); the integer form
// takes six, which made a kernel that rounds each value it reads (CG's
// folded direction) instruction-bound.
#ifndef STENCIL_BFLOAT16_HPP
#define STENCIL_BFLOAT16_HPP

#include "stencil/host_device.hpp"

#include <cstdint>

namespace stencil {

STENCIL_HOST_DEVICE inline float bits_to_float(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f); // std::memcpy is host-only in HIP
  return f;
}

/// A stored bfloat16 value: the upper 16 bits of a float. It reads as the
/// float it stands for (exact, so implicit: `w * in[i]` in a generated
/// kernel is float arithmetic), but is written only through narrow() or
/// to_bfloat16(), which round: there is no conversion from float.
struct bfloat16 {
  std::uint16_t bits;
  STENCIL_HOST_DEVICE operator float() const {
    return bits_to_float(static_cast<std::uint32_t>(bits) << 16);
  }
};

STENCIL_HOST_DEVICE inline std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}

/// The float a stored value stands for (exact).
STENCIL_HOST_DEVICE inline float widen(bfloat16 v) {
  return static_cast<float>(v);
}
STENCIL_HOST_DEVICE inline float widen(float v) { return v; }
STENCIL_HOST_DEVICE inline double widen(double v) { return v; }

/// `f` rounded to the nearest bfloat16, ties to even; infinities stay
/// infinite, values past the largest finite bfloat16 round to infinity,
/// and a NaN stays a (quiet) NaN.
STENCIL_HOST_DEVICE inline bfloat16 to_bfloat16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint16_t bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(f));
  return bfloat16{bits};
#else
  const std::uint32_t u = float_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep the sign, set quiet
    return bfloat16{static_cast<std::uint16_t>((u >> 16) | 0x0040u)};
  const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  return bfloat16{static_cast<std::uint16_t>(rounded >> 16)};
#endif
}

/// A value computed in float stored as S (float, double or bfloat16): what
/// generated kernels write for `out[i] = acc`.
template <typename S> STENCIL_HOST_DEVICE inline S narrow(float f) {
  return static_cast<S>(f);
}
template <> STENCIL_HOST_DEVICE inline bfloat16 narrow<bfloat16>(float f) {
  return to_bfloat16(f);
}
template <typename S> STENCIL_HOST_DEVICE inline S narrow(double d) {
  return static_cast<S>(d);
}
/// From double via float: two roundings, so a value within float's rounding
/// of a bfloat16 tie may land one bfloat16 step from the exact rounding
/// (solver inputs converted from double; the kernels round from float).
template <> STENCIL_HOST_DEVICE inline bfloat16 narrow<bfloat16>(double d) {
  return to_bfloat16(static_cast<float>(d));
}

/// `f` as it reads back once stored as S: a kernel that computes a value
/// it also stores (CG's folded direction p') works on what it stored.
template <typename S> STENCIL_HOST_DEVICE inline float rounded(float f) {
  return static_cast<float>(narrow<S>(f));
}

/// W stored values widened (one load of 2W bytes read as W floats). The
/// vector is read as W / 2 32-bit words: read value by value, as a struct
/// of 16-bit fields, nvcc makes W 2-byte loads of it.
template <int W>
STENCIL_HOST_DEVICE inline vec<float, W> widen(const vec<bfloat16, W> &v) {
  vec<float, W> out;
  if constexpr (W % 2 == 0) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    // One vector load (a copy through memcpy becomes byte loads here).
    const vec<std::uint32_t, W / 2> words =
        *reinterpret_cast<const vec<std::uint32_t, W / 2> *>(&v);
#else
    vec<std::uint32_t, W / 2> words;
    __builtin_memcpy(&words, &v, sizeof words);
#endif
    for (int i = 0; i < W / 2; ++i) {
      // Little-endian: the lower half-word is the vector's earlier value.
      out.v[2 * i] = bits_to_float(words.v[i] << 16);
      out.v[2 * i + 1] = bits_to_float(words.v[i] & 0xffff0000u);
    }
  } else {
    for (int i = 0; i < W; ++i)
      out.v[i] = widen(v.v[i]);
  }
  return out;
}

/// W values computed in float stored as S.
template <typename S, int W>
STENCIL_HOST_DEVICE inline vec<S, W> narrow(const vec<float, W> &v) {
  vec<S, W> out;
  for (int i = 0; i < W; ++i)
    out.v[i] = narrow<S>(v.v[i]);
  return out;
}

} // namespace stencil

#endif
