// BLAS-1 for the three backends. GPU reductions run in two stages: each
// block reduces its grid-stride slice in shared memory (double) and writes
// one partial; the host adds the partials in block order. The host backend
// reduces fixed chunks in parallel and adds the chunk sums in order.
#include "stencil/blas.hpp"

#include "stencil/device.hpp"
#include "stencil/platform.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace stencil {
namespace {

using Index = std::int64_t;

Status same(const Field &a, const Field &b, const char *what) {
  return require_same_lattice(a.lattice(), b.lattice(), what);
}

#if defined(STENCIL_BACKEND_HOST)
bool is_halo(const Lattice &l, Index site) {
  for (int axis = 0; axis < l.dims; ++axis) {
    int c = static_cast<int>(site % l.extents[axis]);
    site /= l.extents[axis];
    if (c < l.halo[axis] || c >= l.extents[axis] - l.halo[axis])
      return true;
  }
  return false;
}

constexpr Index kChunk = 4096;

template <typename T, typename Body> void for_each_value(Index n, Body body) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (Index i = 0; i < n; ++i)
    body(i);
}

template <typename T, typename Term>
double reduce(Index n, Term term) {
  const Index chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(chunks, 0.0);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (Index c = 0; c < chunks; ++c) {
    double sum = 0.0;
    Index end = (c + 1) * kChunk < n ? (c + 1) * kChunk : n;
    for (Index i = c * kChunk; i < end; ++i)
      sum += term(i);
    partial[c] = sum;
  }
  double total = 0.0;
  for (double p : partial)
    total += p;
  return total;
}

#define STENCIL_ELEMENTWISE(T, x, body_with_i)                                 \
  do {                                                                         \
    const Index n_ = (x).lattice().values();                                   \
    for_each_value<T>(n_, [&](Index i) { body_with_i; });                      \
  } while (0)

#else // GPU backends

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;

unsigned blocks_for(Index n) {
  Index blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1)
                                                   : kMaxBlocks);
}

template <typename T> __global__ void fill_kernel(T *x, T value, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    x[i] = value;
}

template <typename T>
__global__ void axpy_kernel(T a, const T *__restrict__ x, T *__restrict__ y,
                            Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    y[i] += a * x[i];
}

template <typename T>
__global__ void xpay_kernel(const T *__restrict__ x, T a, T *__restrict__ y,
                            Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    y[i] = x[i] + a * y[i];
}

template <typename T> __global__ void scale_kernel(T a, T *x, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    x[i] *= a;
}

template <typename T>
__global__ void divide_kernel(const T *__restrict__ r, const T *__restrict__ d,
                              T *__restrict__ z, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    z[i] = r[i] / d[i];
}

template <typename T>
__global__ void set_halo_kernel(T *x, T value, Lattice lattice, Index sites) {
  for (Index site = blockIdx.x * blockDim.x + threadIdx.x; site < sites;
       site += static_cast<Index>(blockDim.x) * gridDim.x) {
    Index rest = site;
    bool halo = false;
    for (int axis = 0; axis < lattice.dims; ++axis) {
      int c = static_cast<int>(rest % lattice.extents[axis]);
      rest /= lattice.extents[axis];
      halo |= c < lattice.halo[axis] ||
              c >= lattice.extents[axis] - lattice.halo[axis];
    }
    if (!halo)
      continue;
    Index rest2 = site;
    int c[4] = {0, 0, 0, 0};
    for (int axis = 0; axis < lattice.dims; ++axis) {
      c[axis] = static_cast<int>(rest2 % lattice.extents[axis]);
      rest2 /= lattice.extents[axis];
    }
    const Index stored = layout_site(
        lattice.layout, c[0], c[1], c[2], c[3], lattice.extents[0],
        lattice.extents[1], lattice.extents[2], lattice.extents[3]);
    for (int k = 0; k < lattice.components; ++k)
      x[layout_element(lattice.layout, stored, k, lattice.components,
                       sites)] = value;
  }
}

/// One double per block: the block's share of sum_i x_i y_i.
template <typename T>
__global__ void dot_kernel(const T *__restrict__ x, const T *__restrict__ y,
                           Index n, double *partials) {
  __shared__ double shared[kThreads];
  double sum = 0.0;
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

#endif

template <typename T> T *typed(Field &f) { return static_cast<T *>(f.data()); }
template <typename T> const T *typed(const Field &f) {
  return static_cast<const T *>(f.data());
}

/// Calls body.template operator()<T>() with T the field's element type.
template <typename Body> Status dispatch(const Field &f, Body body) {
  if (f.lattice().element_bytes == 4)
    return body(float());
  return body(double());
}

#if !defined(STENCIL_BACKEND_HOST)
LaunchDims grid_for(Index n) { return LaunchDims{blocks_for(n), 1, 1}; }
constexpr LaunchDims kBlock{kThreads, 1, 1};
#endif

} // namespace

Status fill(Field &x, double value) {
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    T *data = typed<T>(x);
    const T v = static_cast<T>(value);
#if defined(STENCIL_BACKEND_HOST)
    STENCIL_ELEMENTWISE(T, x, data[i] = v);
    return Status();
#else
    const Index n = x.lattice().values();
    STENCIL_LAUNCH(fill_kernel<T>, grid_for(n), kBlock, nullptr, data, v, n);
    return launch_status("fill_kernel");
#endif
  });
}

Status axpy(double a, const Field &x, Field &y) {
  STENCIL_TRY(same(x, y, "axpy"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    const T *xs = typed<T>(x);
    T *ys = typed<T>(y);
    const T ta = static_cast<T>(a);
#if defined(STENCIL_BACKEND_HOST)
    STENCIL_ELEMENTWISE(T, x, ys[i] += ta * xs[i]);
    return Status();
#else
    const Index n = x.lattice().values();
    STENCIL_LAUNCH(axpy_kernel<T>, grid_for(n), kBlock, nullptr, ta, xs, ys, n);
    return launch_status("axpy_kernel");
#endif
  });
}

Status xpay(const Field &x, double a, Field &y) {
  STENCIL_TRY(same(x, y, "xpay"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    const T *xs = typed<T>(x);
    T *ys = typed<T>(y);
    const T ta = static_cast<T>(a);
#if defined(STENCIL_BACKEND_HOST)
    STENCIL_ELEMENTWISE(T, x, ys[i] = xs[i] + ta * ys[i]);
    return Status();
#else
    const Index n = x.lattice().values();
    STENCIL_LAUNCH(xpay_kernel<T>, grid_for(n), kBlock, nullptr, xs, ta, ys, n);
    return launch_status("xpay_kernel");
#endif
  });
}

Status scale(double a, Field &x) {
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    T *xs = typed<T>(x);
    const T ta = static_cast<T>(a);
#if defined(STENCIL_BACKEND_HOST)
    STENCIL_ELEMENTWISE(T, x, xs[i] *= ta);
    return Status();
#else
    const Index n = x.lattice().values();
    STENCIL_LAUNCH(scale_kernel<T>, grid_for(n), kBlock, nullptr, ta, xs, n);
    return launch_status("scale_kernel");
#endif
  });
}

Status divide(const Field &r, const Field &d, Field &z) {
  STENCIL_TRY(same(r, d, "divide: d"));
  STENCIL_TRY(same(r, z, "divide: z"));
  return dispatch(r, [&](auto zero) {
    using T = decltype(zero);
    const T *rs = typed<T>(r);
    const T *ds = typed<T>(d);
    T *zs = typed<T>(z);
#if defined(STENCIL_BACKEND_HOST)
    STENCIL_ELEMENTWISE(T, r, zs[i] = rs[i] / ds[i]);
    return Status();
#else
    const Index n = r.lattice().values();
    STENCIL_LAUNCH(divide_kernel<T>, grid_for(n), kBlock, nullptr, rs, ds, zs, n);
    return launch_status("divide_kernel");
#endif
  });
}

Status set_halo(Field &x, double value) {
  const Lattice &l = x.lattice();
  if (l.periodic)
    return Status();
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    T *xs = typed<T>(x);
    const T v = static_cast<T>(value);
#if defined(STENCIL_BACKEND_HOST)
    const Index sites = l.sites();
    const int nc = l.components;
    for_each_value<T>(sites, [&](Index site) {
      if (is_halo(l, site))
        for (int k = 0; k < nc; ++k)
          xs[storage_index(l, site * nc + k)] = v;
    });
    return Status();
#else
    STENCIL_LAUNCH(set_halo_kernel<T>, grid_for(l.sites()), kBlock, nullptr, xs, v,
                   l, l.sites());
    return launch_status("set_halo_kernel");
#endif
  });
}

Reducer::~Reducer() { device_free(partials_); }

Status Reducer::dot(const Field &x, const Field &y, double &result) {
  STENCIL_TRY(same(x, y, "dot"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    const T *xs = typed<T>(x);
    const T *ys = typed<T>(y);
    const Index n = x.lattice().values();
#if defined(STENCIL_BACKEND_HOST)
    result = reduce<T>(n, [&](Index i) {
      return static_cast<double>(xs[i]) * static_cast<double>(ys[i]);
    });
    return Status();
#else
    if (!partials_)
      STENCIL_TRY(device_allocate(&partials_, kMaxBlocks * sizeof(double)));
    const unsigned blocks = blocks_for(n);
    double *partials = static_cast<double *>(partials_);
    STENCIL_LAUNCH(dot_kernel<T>, grid_for(n), kBlock, nullptr, xs, ys, n,
                   partials);
    STENCIL_TRY(launch_status("dot_kernel"));
    double host[kMaxBlocks];
    STENCIL_TRY(copy_to_host(host, partials, blocks * sizeof(double)));
    result = 0.0;
    for (unsigned b = 0; b < blocks; ++b)
      result += host[b];
    return Status();
#endif
  });
}

Status Reducer::norm2(const Field &x, double &result) {
  double squared = 0.0;
  STENCIL_TRY(dot(x, x, squared));
  result = std::sqrt(squared);
  return Status();
}

} // namespace stencil
