// stencil/host_device.hpp - the little that code shared between host and
// device needs, without the GPU runtime headers or the host backend's
// built-in variables (stencil/platform.hpp brings those).
#ifndef STENCIL_HOST_DEVICE_HPP
#define STENCIL_HOST_DEVICE_HPP

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#define STENCIL_HOST_DEVICE __host__ __device__
#else
#define STENCIL_HOST_DEVICE
#endif

namespace stencil {
/// 64-bit site indices: 1024^3 sites of 24 components overflow 32 bits.
using index_t = std::int64_t;

/// W consecutive values moved by one load or store instruction (8 or 16
/// bytes: global_load_dwordx4 on AMD, LDG.E.128 on NVIDIA).
template <typename T, int W> struct alignas(sizeof(T) * W) vec {
  T v[W];
};
} // namespace stencil

#endif
