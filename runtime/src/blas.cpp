// BLAS-1 for the three backends. GPU reductions run in two stages: each
// block reduces its grid-stride slice in shared memory (double) and writes
// one partial; the host adds the partials in block order. The host backend
// reduces fixed chunks in parallel and adds the chunk sums in order.
#include "stencil/blas.hpp"

#include "stencil/device.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/layout.hpp"
#include "stencil/platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace stencil {
namespace {

using Index = std::int64_t;

Status same(const Field &a, const Field &b, const char *what) {
  return require_same_lattice(a.lattice(), b.lattice(), what);
}

/// The same lattice but perhaps for the precision.
Status same_sites(const Field &a, const Field &b, const char *what) {
  Lattice other = b.lattice();
  other.element_bytes = a.lattice().element_bytes;
  if (a.lattice() == other)
    return Status();
  return Status::failure(std::string(what) + ": field lattice " +
                         b.lattice().describe() + " does not match " +
                         a.lattice().describe() + " (but for precision)");
}

// The elementwise operations, as functors that run unchanged on the host and
// on the device; for_each_index() runs one over 0..n-1 on the backend.
template <typename T> struct FillOp {
  T *x;
  T value;
  STENCIL_HOST_DEVICE void operator()(Index i) const { x[i] = value; }
};
template <typename T> struct AxpyOp {
  T a;
  const T *x;
  T *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const { y[i] += a * x[i]; }
};
template <typename X, typename Y> struct MixedAxpyOp {
  Y a;
  const X *x;
  Y *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    y[i] += a * static_cast<Y>(x[i]);
  }
};
template <typename From, typename To> struct ConvertOp {
  const From *from;
  To *to;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    to[i] = static_cast<To>(from[i]);
  }
};
template <typename T> struct XpayOp {
  const T *x;
  T a;
  T *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const { y[i] = x[i] + a * y[i]; }
};
/// XpayOp with `a` read from device memory.
template <typename T> struct XpayFromDeviceOp {
  const T *x;
  const double *a;
  T *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    y[i] = x[i] + static_cast<T>(*a) * y[i];
  }
};
template <typename T> struct ScaleOp {
  T a;
  T *x;
  STENCIL_HOST_DEVICE void operator()(Index i) const { x[i] *= a; }
};
template <typename T> struct DivideOp {
  const T *r;
  const T *d;
  T *z;
  STENCIL_HOST_DEVICE void operator()(Index i) const { z[i] = r[i] / d[i]; }
};
// The reductions' terms, as functors for reduce() on every backend.
template <typename T> struct DotTerm {
  const T *x;
  const T *y;
  STENCIL_HOST_DEVICE double operator()(Index i) const {
    return static_cast<double>(x[i]) * static_cast<double>(y[i]);
  }
};
/// CG's update: x += alpha p, r -= alpha q; the term is the new r_i^2.
template <typename T> struct UpdateTerm {
  T alpha;
  const T *p;
  const T *q;
  T *x;
  T *r;
  /// When set, alpha is read here (device memory) instead: CG's pipelined
  /// loop computes it on the device.
  const double *alpha_source = nullptr;
  /// This term with alpha read from alpha_source, once per thread.
  STENCIL_HOST_DEVICE UpdateTerm resolved() const {
    UpdateTerm term = *this;
    if (alpha_source)
      term.alpha = static_cast<T>(*alpha_source);
    term.alpha_source = nullptr;
    return term;
  }
  /// One value's update, on values already loaded.
  STENCIL_HOST_DEVICE double update(T &xi, T &ri, T pi, T qi) const {
    xi += alpha * pi;
    ri -= alpha * qi;
    return static_cast<double>(ri) * static_cast<double>(ri);
  }
  STENCIL_HOST_DEVICE double operator()(Index i) const {
    T xi = x[i], ri = r[i];
    const double term = update(xi, ri, p[i], q[i]);
    x[i] = xi;
    r[i] = ri;
    return term;
  }
};
struct SumTerm {
  const double *v;
  STENCIL_HOST_DEVICE double operator()(Index i) const { return v[i]; }
};

/// A term with its scalars in place (UpdateTerm may read alpha from memory).
template <typename Term>
STENCIL_HOST_DEVICE Term resolved(const Term &term) {
  return term;
}
template <typename T>
STENCIL_HOST_DEVICE UpdateTerm<T> resolved(const UpdateTerm<T> &term) {
  return term.resolved();
}

/// Over sites: writes `value` into every component of the halo sites.
template <typename T> struct HaloOp {
  T *x;
  T value;
  Lattice lattice;
  Index sites;
  STENCIL_HOST_DEVICE void operator()(Index site) const {
    // A parity half numbers its sites x fastest with x halved.
    const bool half = lattice.parity >= 0;
    Index rest = site;
    int c[4] = {0, 0, 0, 0};
    for (int axis = 0; axis < lattice.dims; ++axis) {
      const int n = half && axis == 0 ? lattice.extents[0] / 2
                                      : lattice.extents[axis];
      c[axis] = static_cast<int>(rest % n);
      rest /= n;
    }
    if (half)
      c[0] = 2 * c[0] + site_parity(lattice.parity, c[1], c[2], c[3]);
    bool halo = false;
    for (int axis = 0; axis < lattice.dims; ++axis)
      halo |= c[axis] < lattice.halo[axis] ||
              c[axis] >= lattice.extents[axis] - lattice.halo[axis];
    if (!halo)
      return;
    const Layout &l = lattice.layout;
    for (int k = 0; k < lattice.components; ++k)
      x[half ? order_element(l.order, l.block, l.vector, site, k,
                             lattice.components, sites)
             : layout_element(l,
                              layout_site(l, c[0], c[1], c[2], c[3],
                                          lattice.extents[0],
                                          lattice.extents[1],
                                          lattice.extents[2],
                                          lattice.extents[3]),
                              k, lattice.components, sites)] = value;
  }
};

#if defined(STENCIL_BACKEND_HOST)

constexpr Index kChunk = 4096;

template <typename Op> Status for_each_index(Index n, Op op, const char *) {
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (Index i = 0; i < n; ++i)
    op(i);
  return Status();
}

template <typename Term> double reduce(Index n, Term term) {
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

#else // GPU backends

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;
/// The most blocks along x a launch may have (CUDA's limit, within HIP's).
constexpr Index kMaxGridX = 2147483647;

unsigned blocks_for(Index n) {
  Index blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1)
                                                   : kMaxBlocks);
}

LaunchDims grid_for(Index n) { return LaunchDims{blocks_for(n), 1, 1}; }
constexpr LaunchDims kBlock{kThreads, 1, 1};

/// The block's sum of `value` into partials[blockIdx.x], in a fixed order.
__device__ void block_total(double value, double *partials) {
  __shared__ double shared[kThreads];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

template <typename Op> __global__ void map_kernel(Op op, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    op(i);
}

template <typename Op>
Status for_each_index(Index n, Op op, const char *name) {
  STENCIL_LAUNCH(map_kernel<Op>, grid_for(n), kBlock, nullptr, op, n);
  return launch_status(name);
}

/// One double per block: the block's share of sum_i term(i).
template <typename Term>
__global__ void reduce_kernel(Term source, Index n, double *partials) {
  const Term term = resolved(source);
  double sum = 0.0;
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    sum += term(i);
  block_total(sum, partials);
}

/// CG's update with 16-byte accesses, one group of values per thread (no
/// grid stride: the whole field in flight at once); the thread after the
/// last group takes the values past it. 96% of the copy bandwidth for float
/// and 99.9% for double at 256^3 on the H100, against 88% and 93% for the
/// grid-stride reduce_kernel (bench/probes/cg_update.cu).
template <typename T>
__global__ void update_groups_kernel(UpdateTerm<T> source, Index n,
                                     double *partials) {
  const UpdateTerm<T> term = source.resolved();
  constexpr int W = 16 / sizeof(T);
  using V = vec<T, W>;
  const Index groups = n / W;
  const Index g = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sum = 0.0;
  if (g < groups) {
    const V p = reinterpret_cast<const V *>(term.p)[g];
    const V q = reinterpret_cast<const V *>(term.q)[g];
    V x = reinterpret_cast<const V *>(term.x)[g];
    V r = reinterpret_cast<const V *>(term.r)[g];
    for (int l = 0; l < W; ++l)
      sum += term.update(x.v[l], r.v[l], p.v[l], q.v[l]);
    reinterpret_cast<V *>(term.x)[g] = x;
    reinterpret_cast<V *>(term.r)[g] = r;
  } else if (g == groups) {
    for (Index i = groups * W; i < n; ++i)
      sum += term(i);
  }
  block_total(sum, partials);
}

/// The blocks of update_groups_kernel for `n` values, or 0 when it cannot
/// run (a field not 16-byte aligned, or a grid too long).
template <typename T> Index update_groups(const UpdateTerm<T> &term, Index n) {
  // One thread per 16 bytes of each field, and one for the rest.
  const Index threads = n / (16 / sizeof(T)) + 1;
  const Index blocks = (threads + kThreads - 1) / kThreads;
  const bool aligned = is_aligned(term.p, 16) && is_aligned(term.q, 16) &&
                       is_aligned(term.x, 16) && is_aligned(term.r, 16);
  return aligned && blocks <= kMaxGridX ? blocks : 0;
}

template <typename T>
Status launch_update_groups(const UpdateTerm<T> &term, Index n, Index blocks,
                            double *partials, const char *name) {
  STENCIL_LAUNCH(update_groups_kernel<T>,
                 (LaunchDims{static_cast<unsigned>(blocks), 1, 1}), kBlock,
                 nullptr, term, n, partials);
  return launch_status(name);
}

#endif

template <typename T> T *typed(Field &f) { return static_cast<T *>(f.data()); }
template <typename T> const T *typed(const Field &f) {
  return static_cast<const T *>(f.data());
}

/// Calls body(T()) with T the field's element type.
template <typename Body> Status dispatch(const Field &f, Body body) {
  if (f.lattice().element_bytes == 4)
    return body(float());
  return body(double());
}

} // namespace

Status fill(Field &x, double value) {
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(x.lattice().values(),
                          FillOp<T>{typed<T>(x), static_cast<T>(value)},
                          "fill");
  });
}

Status axpy(double a, const Field &x, Field &y) {
  if (x.lattice().element_bytes != y.lattice().element_bytes) {
    STENCIL_TRY(same_sites(y, x, "axpy"));
    return dispatch(x, [&](auto xZero) {
      return dispatch(y, [&](auto yZero) {
        using X = decltype(xZero);
        using Y = decltype(yZero);
        return for_each_index(
            x.lattice().values(),
            MixedAxpyOp<X, Y>{static_cast<Y>(a), typed<X>(x), typed<Y>(y)},
            "axpy (mixed precision)");
      });
    });
  }
  STENCIL_TRY(same(x, y, "axpy"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(
        x.lattice().values(),
        AxpyOp<T>{static_cast<T>(a), typed<T>(x), typed<T>(y)}, "axpy");
  });
}

Status convert(const Field &from, Field &to) {
  STENCIL_TRY(same_sites(to, from, "convert"));
  return dispatch(from, [&](auto fromZero) {
    return dispatch(to, [&](auto toZero) {
      using From = decltype(fromZero);
      using To = decltype(toZero);
      return for_each_index(from.lattice().values(),
                            ConvertOp<From, To>{typed<From>(from),
                                                typed<To>(to)},
                            "convert");
    });
  });
}

Status xpay(const Field &x, double a, Field &y) {
  STENCIL_TRY(same(x, y, "xpay"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(
        x.lattice().values(),
        XpayOp<T>{typed<T>(x), static_cast<T>(a), typed<T>(y)}, "xpay");
  });
}

Status xpay_from_device(const Field &x, const double *a, Field &y) {
  STENCIL_TRY(same(x, y, "xpay_from_device"));
  if (a == nullptr)
    return Status::failure("xpay_from_device: null a");
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(x.lattice().values(),
                          XpayFromDeviceOp<T>{typed<T>(x), a, typed<T>(y)},
                          "xpay_from_device");
  });
}

Status scale(double a, Field &x) {
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(x.lattice().values(),
                          ScaleOp<T>{static_cast<T>(a), typed<T>(x)}, "scale");
  });
}

Status divide(const Field &r, const Field &d, Field &z) {
  STENCIL_TRY(same(r, d, "divide: d"));
  STENCIL_TRY(same(r, z, "divide: z"));
  return dispatch(r, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(
        r.lattice().values(),
        DivideOp<T>{typed<T>(r), typed<T>(d), typed<T>(z)}, "divide");
  });
}

Status set_halo(Field &x, double value) {
  const Lattice &l = x.lattice();
  if (!l.has_halo())
    return Status();
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return for_each_index(
        l.sites(), HaloOp<T>{typed<T>(x), static_cast<T>(value), l, l.sites()},
        "set_halo");
  });
}

Reducer::~Reducer() {
  device_free(partials_);
  device_free(blocks_);
  device_free(scalar_);
}

template <typename Term>
Status Reducer::sum_of(Index n, Term term, const char *name, double &result) {
#if defined(STENCIL_BACKEND_HOST)
  (void)name;
  result = reduce(n, term);
  return comm_.sum(result);
#else
  if (!partials_)
    STENCIL_TRY(device_allocate(&partials_, kMaxBlocks * sizeof(double)));
  const unsigned blocks = blocks_for(n);
  double *partials = static_cast<double *>(partials_);
  STENCIL_LAUNCH(reduce_kernel<Term>, grid_for(n), kBlock, nullptr, term, n,
                 partials);
  STENCIL_TRY(launch_status(name));
  double host[kMaxBlocks];
  STENCIL_TRY(copy_to_host(host, partials, blocks * sizeof(double)));
  result = 0.0;
  for (unsigned b = 0; b < blocks; ++b)
    result += host[b];
  return comm_.sum(result);
#endif
}

template <typename Term>
Status Reducer::partials_of(Index n, Term term, const char *name,
                            std::int64_t &count) {
  double *partials = nullptr;
#if defined(STENCIL_BACKEND_HOST)
  (void)name;
  // One partial: the host's sum in its fixed chunk order.
  count = 1;
  STENCIL_TRY(block_partials(count, partials));
  partials[0] = reduce(n, resolved(term));
  return Status();
#else
  count = blocks_for(n);
  STENCIL_TRY(block_partials(count, partials));
  STENCIL_LAUNCH(reduce_kernel<Term>, grid_for(n), kBlock, nullptr, term, n,
                 partials);
  return launch_status(name);
#endif
}

Status Reducer::dot(const Field &x, const Field &y, double &result) {
  STENCIL_TRY(same(x, y, "dot"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return sum_of(x.lattice().values(), DotTerm<T>{typed<T>(x), typed<T>(y)},
                  "dot", result);
  });
}

Status Reducer::update_and_norm2(double alpha, const Field &p, const Field &q,
                                 Field &x, Field &r, double &rr) {
  STENCIL_TRY(same(p, q, "update_and_norm2: q"));
  STENCIL_TRY(same(p, x, "update_and_norm2: x"));
  STENCIL_TRY(same(p, r, "update_and_norm2: r"));
  return dispatch(p, [&](auto zero) {
    using T = decltype(zero);
    const UpdateTerm<T> term{static_cast<T>(alpha), typed<T>(p), typed<T>(q),
                             typed<T>(x), typed<T>(r)};
    const Index n = p.lattice().values();
#if !defined(STENCIL_BACKEND_HOST)
    if (const Index blocks = update_groups(term, n)) {
      double *partials = nullptr;
      STENCIL_TRY(block_partials(blocks, partials));
      STENCIL_TRY(launch_update_groups(term, n, blocks, partials,
                                       "update_and_norm2"));
      return sum_block_partials(blocks, rr);
    }
#endif
    return sum_of(n, term, "update_and_norm2", rr);
  });
}

Status Reducer::update_partials(const double *alpha, const Field &p,
                                const Field &q, Field &x, Field &r,
                                std::int64_t &count) {
  STENCIL_TRY(same(p, q, "update_partials: q"));
  STENCIL_TRY(same(p, x, "update_partials: x"));
  STENCIL_TRY(same(p, r, "update_partials: r"));
  if (alpha == nullptr)
    return Status::failure("update_partials: null alpha");
  return dispatch(p, [&](auto zero) {
    using T = decltype(zero);
    UpdateTerm<T> term{T(0), typed<T>(p), typed<T>(q), typed<T>(x),
                       typed<T>(r)};
    term.alpha_source = alpha;
    const Index n = p.lattice().values();
#if !defined(STENCIL_BACKEND_HOST)
    if ((count = update_groups(term, n))) {
      double *partials = nullptr;
      STENCIL_TRY(block_partials(count, partials));
      return launch_update_groups(term, n, count, partials,
                                  "update_partials");
    }
#endif
    return partials_of(n, term, "update_partials", count);
  });
}

Status Reducer::dot_partials(const Field &x, const Field &y,
                             std::int64_t &count) {
  STENCIL_TRY(same(x, y, "dot_partials"));
  return dispatch(x, [&](auto zero) {
    using T = decltype(zero);
    return partials_of(x.lattice().values(),
                       DotTerm<T>{typed<T>(x), typed<T>(y)}, "dot_partials",
                       count);
  });
}

Status Reducer::reserve_partials(const Field &like) {
#if defined(STENCIL_BACKEND_HOST)
  (void)like; // one partial per reduction: the host's sum
  double *partials = nullptr;
  return block_partials(1, partials);
#else
  // The most of reduce_kernel's blocks and update_groups_kernel's (a thread
  // per 16 bytes, one more for the rest).
  const Index n = like.lattice().values();
  const Index groups = n / (16 / like.lattice().element_bytes) + 1;
  const Index blocks = std::max<Index>((groups + kThreads - 1) / kThreads,
                                       kMaxBlocks);
  double *partials = nullptr;
  return block_partials(blocks, partials);
#endif
}

Status Reducer::device_scalar(double value, const double *&pointer) {
  if (!scalar_)
    STENCIL_TRY(device_allocate(&scalar_, sizeof(double)));
  STENCIL_TRY(copy_to_device(scalar_, &value, sizeof(double)));
  pointer = static_cast<const double *>(scalar_);
  return Status();
}

Status Reducer::block_partials(std::int64_t count, double *&partials) {
  if (count < 1)
    return Status::failure("block_partials: count must be positive, not " +
                           std::to_string(count));
  if (count > block_capacity_) {
    device_free(blocks_);
    blocks_ = nullptr;
    block_capacity_ = 0;
    STENCIL_TRY(device_allocate(&blocks_, count * sizeof(double)));
    block_capacity_ = count;
  }
  partials = static_cast<double *>(blocks_);
  return Status();
}

Status Reducer::sum_block_partials(std::int64_t count, double &result) {
  if (count < 1 || count > block_capacity_)
    return Status::failure("sum_block_partials: " + std::to_string(count) +
                           " partials, but block_partials() holds " +
                           std::to_string(block_capacity_));
  return sum_of(count, SumTerm{static_cast<const double *>(blocks_)},
                "sum_block_partials", result);
}

Status Reducer::norm2(const Field &x, double &result) {
  double squared = 0.0;
  STENCIL_TRY(dot(x, x, squared));
  result = std::sqrt(squared);
  return Status();
}

} // namespace stencil
