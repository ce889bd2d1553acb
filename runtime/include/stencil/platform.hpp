// stencil/platform.hpp - the one place that knows which backend runs kernels.
//
// Generated kernels are written once against the macros below and compile
// three ways:
//   AMD     hipcc / clang -x hip      : HIP runtime
//   NVIDIA  nvcc -x cu                : CUDA runtime
//   host    any C++17 compiler        : the grid runs on the CPU, blocks in
//                                       parallel (OpenMP when enabled),
//                                       threads of a block in sequence.
// Kernels that stage a block's sites in shared memory (kernel.staging:
// shared) are written in phases between barriers, each under
// `if (STENCIL_PHASE(k))`, and launched with STENCIL_LAUNCH_PHASED: on GPUs
// every phase runs and the barrier synchronises the block; on the host each
// phase runs for all of a block's threads before the next starts, which is
// what the barrier guarantees. Platform builtins live here and only here, so
// generated code carries no #ifdefs.
#ifndef STENCIL_PLATFORM_HPP
#define STENCIL_PLATFORM_HPP

#include "stencil/bfloat16.hpp"
#include "stencil/host_device.hpp"
#include "stencil/types.hpp"

#if defined(__HIP__) || defined(__HIPCC__)
#define STENCIL_BACKEND_HIP 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define STENCIL_BACKEND_CUDA 1
#include <cuda_runtime.h>
#else
#define STENCIL_BACKEND_HOST 1
#endif

#include <cstdint>
#include <string>

#if defined(STENCIL_BACKEND_HIP) || defined(STENCIL_BACKEND_CUDA)

#define STENCIL_GLOBAL __global__
#define STENCIL_DEVICE_INLINE __device__ __forceinline__
#define STENCIL_RESTRICT __restrict__
#define STENCIL_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
// At most `threads` per block and at least `blocks` resident per
// multiprocessor: the register budget follows from both. Without the second
// argument nvcc picks its own (often a quarter of what a latency-bound
// kernel with many loads in flight wants). HIP's second argument counts
// waves per execution unit (4 per CU, 64 lanes each), so blocks convert.
#if defined(STENCIL_BACKEND_HIP)
#define STENCIL_LAUNCH_BOUNDS_MIN(threads, blocks)                             \
  __launch_bounds__(threads, ((blocks) * (threads) + 255) / 256)
#else
#define STENCIL_LAUNCH_BOUNDS_MIN(threads, blocks)                             \
  __launch_bounds__(threads, blocks)
#endif
#define STENCIL_UNROLL _Pragma("unroll")
#define STENCIL_STORE(pointer, value) (*(pointer) = (value))
// A block's shared (LDS) array, its barrier, and the phases between
// barriers: every phase runs on every thread.
#define STENCIL_SHARED_ARRAY(type, name, count) __shared__ type name[count]
#define STENCIL_BARRIER() __syncthreads()
#define STENCIL_PHASE(k) true

#if defined(STENCIL_BACKEND_HIP)
// Bypasses the caches on the way out: results are not read again soon.
#define STENCIL_STORE_NT(pointer, value) ::stencil::store_nt((pointer), (value))
namespace stencil {
template <typename T> __device__ __forceinline__ void store_nt(T *p, T value) {
  __builtin_nontemporal_store(value, p);
}
// The builtin takes scalars and clang vectors: a vec goes element by element.
template <typename T, int W>
__device__ __forceinline__ void store_nt(vec<T, W> *p, const vec<T, W> &value) {
  for (int i = 0; i < W; ++i)
    store_nt(&p->v[i], value.v[i]);
}
// bfloat16 is a struct: its bits go.
__device__ __forceinline__ void store_nt(bfloat16 *p, bfloat16 value) {
  __builtin_nontemporal_store(value.bits, &p->bits);
}
} // namespace stencil
#define STENCIL_LAUNCH(kernel, grid, block, stream, ...)                       \
  hipLaunchKernelGGL((kernel), dim3((grid).x, (grid).y, (grid).z),             \
                     dim3((block).x, (block).y, (block).z), 0,                 \
                     static_cast<hipStream_t>(stream), __VA_ARGS__)
#else
// Streaming store (st.global.cs): evict-first, the CUDA counterpart.
#define STENCIL_STORE_NT(pointer, value) ::stencil::store_nt((pointer), (value))
namespace stencil {
template <typename T> __device__ __forceinline__ void store_nt(T *p, T value) {
  __stcs(p, value);
}
// bfloat16 is a struct: its bits go.
__device__ __forceinline__ void store_nt(bfloat16 *p, bfloat16 value) {
  __stcs(&p->bits, value.bits);
}
// __stcs has 4-, 8- and 16-byte overloads for CUDA's own types: a vec goes
// as the bits of its size, whatever it holds (float, double, bfloat16).
template <int Bytes> struct cuda_bits;
template <> struct cuda_bits<4> { using type = unsigned int; };
template <> struct cuda_bits<8> { using type = uint2; };
template <> struct cuda_bits<16> { using type = uint4; };
template <typename T, int W>
__device__ __forceinline__ void store_nt(vec<T, W> *p,
                                         const vec<T, W> &value) {
  using V = typename cuda_bits<sizeof(vec<T, W>)>::type;
  __stcs(reinterpret_cast<V *>(p), *reinterpret_cast<const V *>(&value));
}
} // namespace stencil
#define STENCIL_LAUNCH(kernel, grid, block, stream, ...)                       \
  (kernel)<<<dim3((grid).x, (grid).y, (grid).z),                               \
             dim3((block).x, (block).y, (block).z), 0,                         \
             static_cast<cudaStream_t>(stream)>>>(__VA_ARGS__)
#endif
namespace stencil {
/// Blocks of `threads` threads of `kernel` the current device holds at
/// once (resident per multiprocessor, times multiprocessors); 0 when the
/// backend cannot tell. A marching kernel's chunk of planes follows from it
/// (stencil::march_planes).
template <typename Kernel>
inline std::int64_t resident_blocks(Kernel kernel, int threads) {
  int device = 0, perMultiprocessor = 0, multiprocessors = 0;
#if defined(STENCIL_BACKEND_HIP)
  if (hipGetDevice(&device) != hipSuccess ||
      hipOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernel,
                                                   threads, 0) != hipSuccess ||
      hipDeviceGetAttribute(&multiprocessors,
                            hipDeviceAttributeMultiprocessorCount,
                            device) != hipSuccess)
    return 0;
#else
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernel,
                                                    threads, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&multiprocessors,
                             cudaDevAttrMultiProcessorCount,
                             device) != cudaSuccess)
    return 0;
#endif
  return static_cast<std::int64_t>(perMultiprocessor) * multiprocessors;
}
} // namespace stencil
// A kernel in phases is one launch: its barriers order the phases.
#define STENCIL_LAUNCH_PHASED(kernel, phases, grid, block, stream, ...)        \
  STENCIL_LAUNCH(kernel, grid, block, stream, __VA_ARGS__)

#else // host backend

#include <algorithm>

namespace stencil {
namespace host {
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};
} // namespace host
} // namespace stencil

// The CUDA built-in variables, one set per CPU thread.
inline thread_local stencil::host::Dim3 threadIdx;
inline thread_local stencil::host::Dim3 blockIdx;
inline thread_local stencil::host::Dim3 blockDim;
inline thread_local stencil::host::Dim3 gridDim;

#define STENCIL_GLOBAL
#define STENCIL_DEVICE_INLINE inline
#define STENCIL_RESTRICT __restrict__
#define STENCIL_LAUNCH_BOUNDS(threads)
#define STENCIL_LAUNCH_BOUNDS_MIN(threads, blocks)
#if defined(__clang__)
#define STENCIL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define STENCIL_UNROLL _Pragma("GCC unroll 16")
#else
#define STENCIL_UNROLL
#endif
#define STENCIL_STORE(pointer, value) (*(pointer) = (value))
#define STENCIL_STORE_NT(pointer, value) (*(pointer) = (value))
// A block runs wholly on one CPU thread, so a thread_local array is the
// block's own; the phases replace the barrier (host::launch_phased).
#define STENCIL_SHARED_ARRAY(type, name, count)                                \
  static thread_local type name[count]
#define STENCIL_BARRIER() ((void)0)
#define STENCIL_PHASE(k) (::stencil::host::phase == (k))

namespace stencil {
namespace host {

/// The phase a phased launch runs (STENCIL_PHASE); 0 outside one.
inline thread_local int phase = 0;

/// Sets the built-in variables of block `b` of `grid`.
inline void enter_block(long long b, LaunchDims grid, LaunchDims block) {
  gridDim = {grid.x, grid.y, grid.z};
  blockDim = {block.x, block.y, block.z};
  blockIdx.x = static_cast<unsigned>(b % grid.x);
  blockIdx.y = static_cast<unsigned>((b / grid.x) % grid.y);
  blockIdx.z =
      static_cast<unsigned>(b / (static_cast<long long>(grid.x) * grid.y));
}

/// Runs every thread of the current block once.
template <typename Kernel, typename... Args>
void run_block(LaunchDims block, Kernel kernel, Args... args) {
  for (unsigned tz = 0; tz < block.z; ++tz)
    for (unsigned ty = 0; ty < block.y; ++ty)
      for (unsigned tx = 0; tx < block.x; ++tx) {
        threadIdx = {tx, ty, tz};
        kernel(args...);
      }
}

/// Runs every thread of the grid: blocks in parallel, each block's threads
/// in order. The stream is ignored: host launches complete before returning.
template <typename Kernel, typename... Args>
void launch(Kernel kernel, LaunchDims grid, LaunchDims block, Args... args) {
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (long long b = 0; b < blocks; ++b) {
    enter_block(b, grid, block);
    run_block(block, kernel, args...);
  }
}

/// The same for a kernel in `phases` phases between barriers: each block
/// runs all its threads through phase 0, then all through phase 1, ... on
/// one CPU thread, so that a phase sees everything the block's threads
/// wrote to its shared arrays in the phases before.
template <typename Kernel, typename... Args>
void launch_phased(Kernel kernel, int phases, LaunchDims grid,
                   LaunchDims block, Args... args) {
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (long long b = 0; b < blocks; ++b) {
    enter_block(b, grid, block);
    for (int k = 0; k < phases; ++k) {
      phase = k;
      run_block(block, kernel, args...);
    }
    phase = 0;
  }
}

} // namespace host
} // namespace stencil

#define STENCIL_LAUNCH(kernel, grid, block, stream, ...)                       \
  ((void)(stream), ::stencil::host::launch((kernel), (grid), (block),          \
                                           __VA_ARGS__))
#define STENCIL_LAUNCH_PHASED(kernel, phases, grid, block, stream, ...)        \
  ((void)(stream), ::stencil::host::launch_phased((kernel), (phases), (grid),  \
                                                  (block), __VA_ARGS__))
namespace stencil {
/// The host backend runs a grid's blocks on its threads, not resident
/// together: no count (stencil::march_planes then walks each column whole).
template <typename Kernel> inline std::int64_t resident_blocks(Kernel, int) {
  return 0;
}
} // namespace stencil

#endif // backends

namespace stencil {

/// Periodic coordinate: `c` is within one extent of [0, n) for every site
/// that is stored; larger values only feed tile sites past the end, which
/// are never stored, and are clamped so that the read stays in the array.
STENCIL_DEVICE_INLINE int wrap(int c, int n) {
  return c < 0 ? c + n : (c >= n ? (c - n < n ? c - n : n - 1) : c);
}

/// Dirichlet tile loads past the array's end feed only sites that are never
/// stored; clamping keeps the read inside the array.
STENCIL_DEVICE_INLINE int clamp_above(int d, int limit) {
  return d < limit ? d : limit;
}

/// The same at the array's start: halo loads left of a thread's aligned
/// group of sites along x (vector width) feed only sites that are never
/// stored when the group starts at x = 0.
STENCIL_DEVICE_INLINE int clamp_below(int d, int limit) {
  return d > limit ? d : limit;
}

/// CG's next direction p' = r + beta p, one vector access of each
/// (kernels that fold the direction update into the stencil's loads).
template <typename T, int W>
STENCIL_DEVICE_INLINE vec<T, W> fold_direction(const vec<T, W> *r,
                                               const vec<T, W> *p, T beta) {
  const vec<T, W> a = *r, b = *p;
  vec<T, W> sum;
  STENCIL_UNROLL
  for (int l = 0; l < W; ++l)
    sum.v[l] = a.v[l] + beta * b.v[l];
  return sum;
}

/// The same on bfloat16 fields: both widened, and p' rounded to what its
/// store keeps, so that q = A p' holds for the stored p' (CG's p and A p
/// must agree: A amplifies the rounding of a smooth p').
template <int W>
STENCIL_DEVICE_INLINE vec<float, W> fold_direction(const vec<bfloat16, W> *r,
                                                   const vec<bfloat16, W> *p,
                                                   float beta) {
  const vec<float, W> a = widen(*r), b = widen(*p);
  vec<float, W> sum;
  STENCIL_UNROLL
  for (int l = 0; l < W; ++l)
    sum.v[l] = rounded<bfloat16>(a.v[l] + beta * b.v[l]);
  return sum;
}

/// CG's x + alpha p, deferred from the last step into the stencil pass
/// that reads p anyway: W values of x (the arithmetic type) and of p (as
/// stored), one vector access each; the caller stores the sum.
template <typename T, typename S, int W>
STENCIL_DEVICE_INLINE vec<T, W> plus_scaled(const vec<T, W> *x,
                                            const vec<S, W> *p, T alpha) {
  vec<T, W> sum = *x;
  const vec<S, W> d = *p;
  STENCIL_UNROLL
  for (int l = 0; l < W; ++l)
    sum.v[l] = sum.v[l] + alpha * widen(d.v[l]);
  return sum;
}

/// Stores the sum of `value` over the block's threads in
/// partials[linear block index], in a fixed order (the same result on every
/// run). Every thread of the block must call it: on GPUs it has a barrier,
/// and the shuffles assume whole warps (the generator emits it only for
/// blocks of a multiple of 64 threads). On the host the block's threads run
/// in sequence, so each adds its value in turn.
STENCIL_DEVICE_INLINE void block_sum(double value, double *partials) {
  const unsigned thread =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block =
      blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
#if defined(STENCIL_BACKEND_HIP) || defined(STENCIL_BACKEND_CUDA)
#if defined(STENCIL_BACKEND_HIP)
  constexpr unsigned kWarp = 64;
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_down(value, offset, kWarp);
#else
  constexpr unsigned kWarp = 32;
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
#endif
  __shared__ double warp_sums[1024 / kWarp];
  if (thread % kWarp == 0)
    warp_sums[thread / kWarp] = value;
  __syncthreads();
  if (thread == 0) {
    const unsigned warps =
        (blockDim.x * blockDim.y * blockDim.z + kWarp - 1) / kWarp;
    double sum = 0.0;
    for (unsigned w = 0; w < warps; ++w)
      sum += warp_sums[w];
    partials[block] = sum;
  }
#else
  partials[block] = thread == 0 ? value : partials[block] + value;
#endif
}

/// The status of the launch just made, naming the kernel on failure.
inline Status launch_status(const char *kernel) {
#if defined(STENCIL_BACKEND_HIP)
  hipError_t error = hipGetLastError();
  if (error != hipSuccess)
    return Status::failure(std::string("launch of ") + kernel +
                           " failed: " + hipGetErrorString(error));
#elif defined(STENCIL_BACKEND_CUDA)
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    return Status::failure(std::string("launch of ") + kernel +
                           " failed: " + cudaGetErrorString(error));
#else
  (void)kernel;
#endif
  return Status();
}

} // namespace stencil

#endif
