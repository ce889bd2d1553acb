// BLAS-1 for the three backends. GPU reductions run in two stages: each
// block reduces its grid-stride slice in shared memory (double) and writes
// one partial; the host adds the partials in block order. The host backend
// reduces fixed chunks in parallel and adds the chunk sums in order.
#include "stencil/blas.hpp"

#include "stencil/bfloat16.hpp"
#include "stencil/device.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/layout.hpp"
#include "stencil/platform.hpp"

#include "storage_types.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace stencil {
namespace {

using Index = std::int64_t;

Status same(const Field &a, const Field &b, const char *what) {
  STENCIL_TRY(require_storage(a, what));
  STENCIL_TRY(require_storage(b, what));
  return require_same_lattice(a.lattice(), b.lattice(), what);
}

/// The same lattice but perhaps for the precision.
Status same_sites(const Field &a, const Field &b, const char *what) {
  STENCIL_TRY(require_storage(a, what));
  STENCIL_TRY(require_storage(b, what));
  Lattice other = b.lattice();
  other.element_bytes = a.lattice().element_bytes;
  if (a.lattice() == other)
    return Status();
  return Status::failure(std::string(what) + ": field lattice " +
                         b.lattice().describe() + " does not match " +
                         a.lattice().describe() + " (but for precision)");
}

/// The arithmetic type of a field stored as S: S itself, but float for
/// bfloat16, which is storage only.
template <typename S> struct RealOf {
  using type = S;
};
template <> struct RealOf<bfloat16> {
  using type = float;
};
template <typename S> using Real = typename RealOf<S>::type;

/// Value i of a field stored as S, in its arithmetic type (a no-op for float
/// and double, so their operations compile as before).
template <typename S>
STENCIL_HOST_DEVICE Real<S> load(const S *values, Index i) {
  return widen(values[i]);
}
/// Stores a value computed in float or double, rounded to S.
template <typename S, typename A>
STENCIL_HOST_DEVICE void store(S *values, Index i, A value) {
  values[i] = narrow<S>(value);
}

/// 16 bytes of a field stored as S, one access: 8 bfloat16, 4 floats or 2
/// doubles.
template <typename S> using Group = vec<S, 16 / sizeof(S)>;
template <typename S> constexpr int kGroupValues = 16 / sizeof(S);
template <typename S>
STENCIL_HOST_DEVICE Group<S> load_group(const S *values, Index g) {
  return reinterpret_cast<const Group<S> *>(values)[g];
}
template <typename S>
STENCIL_HOST_DEVICE void store_group(S *values, Index g, const Group<S> &v) {
  reinterpret_cast<Group<S> *>(values)[g] = v;
}

/// Group g of y becomes y + a x (axpy), or x + a y with ScaleY (xpay).
template <typename S, bool ScaleY>
STENCIL_HOST_DEVICE void combine_group(const S *x, Real<S> a, S *y, Index g) {
  const Group<S> xg = load_group(x, g);
  Group<S> yg = load_group(y, g);
  for (int l = 0; l < kGroupValues<S>; ++l) {
    const Real<S> xv = widen(xg.v[l]), yv = widen(yg.v[l]);
    yg.v[l] = narrow<S>(ScaleY ? xv + a * yv : yv + a * xv);
  }
  store_group(y, g, yg);
}

// The elementwise operations, as functors that run unchanged on the host and
// on the device; for_each_index() runs one over 0..n-1 on the backend. S is
// the storage type, scalars are in its arithmetic type Real<S>. An operation
// on fields of one storage type may also have group(g), the same arithmetic
// on values g * kGroup .. g * kGroup + kGroup - 1 with one 16-byte access a
// field, and aligned(), whether its fields allow those accesses:
// for_each_index() then runs a group a thread and the values past the last
// group one by one (2-byte accesses to bfloat16 fields took CGNR's xpay to
// 1625 GB/s on an H100).
template <typename S> struct FillOp {
  S *x;
  S value;
  STENCIL_HOST_DEVICE void operator()(Index i) const { x[i] = value; }
};
template <typename S> struct AxpyOp {
  static constexpr int kGroup = kGroupValues<S>;
  Real<S> a;
  const S *x;
  S *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(y, i, load(y, i) + a * load(x, i));
  }
  STENCIL_HOST_DEVICE void group(Index g) const {
    combine_group<S, false>(x, a, y, g);
  }
  bool aligned() const { return is_aligned(x, 16) && is_aligned(y, 16); }
};
/// The sum in y's arithmetic type: x is converted to it first.
template <typename X, typename Y> struct MixedAxpyOp {
  Real<Y> a;
  const X *x;
  Y *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(y, i, load(y, i) + a * static_cast<Real<Y>>(load(x, i)));
  }
};
/// y += a x with `a` read from device memory, as CG's update adds alpha p
/// to x (UpdateTerm's arithmetic: in Real<X>, x widened): the update
/// deferred into the stencil pass, for the last step.
template <typename X, typename Y> struct AxpyFromDeviceOp {
  const double *a;
  const X *x;
  Y *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    const Real<X> alpha = static_cast<Real<X>>(*a);
    y[i] = narrow<Y>(widen(y[i]) + alpha * widen(x[i]));
  }
};
template <typename From, typename To> struct ConvertOp {
  const From *from;
  To *to;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(to, i, load(from, i));
  }
};
template <typename S> struct XpayOp {
  static constexpr int kGroup = kGroupValues<S>;
  const S *x;
  Real<S> a;
  S *y;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(y, i, load(x, i) + a * load(y, i));
  }
  STENCIL_HOST_DEVICE void group(Index g) const {
    combine_group<S, true>(x, a, y, g);
  }
  bool aligned() const { return is_aligned(x, 16) && is_aligned(y, 16); }
};
/// XpayOp with `a` read from device memory.
template <typename S> struct XpayFromDeviceOp {
  static constexpr int kGroup = kGroupValues<S>;
  const S *x;
  const double *a;
  S *y;
  STENCIL_HOST_DEVICE XpayOp<S> resolved() const {
    return XpayOp<S>{x, static_cast<Real<S>>(*a), y};
  }
  STENCIL_HOST_DEVICE void operator()(Index i) const { resolved()(i); }
  STENCIL_HOST_DEVICE void group(Index g) const { resolved().group(g); }
  bool aligned() const { return is_aligned(x, 16) && is_aligned(y, 16); }
};
template <typename S> struct ScaleOp {
  Real<S> a;
  S *x;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(x, i, load(x, i) * a);
  }
};
template <typename S> struct DivideOp {
  const S *r;
  const S *d;
  S *z;
  STENCIL_HOST_DEVICE void operator()(Index i) const {
    store(z, i, load(r, i) / load(d, i));
  }
};
// The reductions' terms, as functors for reduce() on every backend.
template <typename S> struct DotTerm {
  const S *x;
  const S *y;
  STENCIL_HOST_DEVICE double operator()(Index i) const {
    return static_cast<double>(load(x, i)) * static_cast<double>(load(y, i));
  }
};
/// Whether CG's update takes x stored as X with p, q, r stored as S: x like
/// p, or float x with bfloat16 p, q, r (mixed-precision CG's inner solve
/// keeps its iterate in float, which bfloat16 would stall).
template <typename S, typename X>
constexpr bool kUpdatePair =
    std::is_same<S, X>::value ||
    (std::is_same<S, bfloat16>::value && std::is_same<X, float>::value);
/// CG's update: x += alpha p, r -= alpha q; the term is the new r_i^2, of r
/// as stored. Arithmetic in Real<S>.
template <typename S, typename X> struct UpdateTerm {
  static_assert(kUpdatePair<S, X>, "x stored like p, or float for bfloat16");
  Real<S> alpha;
  const S *p;
  const S *q;
  X *x;
  S *r;
  /// When set, alpha is read here (device memory) instead: CG's pipelined
  /// loop computes it on the device.
  const double *alpha_source = nullptr;
  /// This term with alpha read from alpha_source, once per thread.
  STENCIL_HOST_DEVICE UpdateTerm resolved() const {
    UpdateTerm term = *this;
    if (alpha_source)
      term.alpha = static_cast<Real<S>>(*alpha_source);
    term.alpha_source = nullptr;
    return term;
  }
  /// One value's update, on values already loaded.
  STENCIL_HOST_DEVICE double update(X &xi, S &ri, S pi, S qi) const {
    xi = narrow<X>(widen(xi) + alpha * widen(pi));
    ri = narrow<S>(widen(ri) - alpha * widen(qi));
    const double stored = widen(ri);
    return stored * stored;
  }
  STENCIL_HOST_DEVICE double operator()(Index i) const {
    X xi = x[i];
    S ri = r[i];
    const double term = update(xi, ri, p[i], q[i]);
    x[i] = xi;
    r[i] = ri;
    return term;
  }
  /// Values g * kGroup .. g * kGroup + kGroup - 1, one access a field: 16
  /// bytes of x, the widest (8-byte accesses to bfloat16 p, q and r).
  static constexpr int kGroup = 16 / sizeof(X);
  STENCIL_HOST_DEVICE double group(Index g) const {
    using V = vec<S, kGroup>;
    using XV = vec<X, kGroup>;
    const V pg = reinterpret_cast<const V *>(p)[g];
    const V qg = reinterpret_cast<const V *>(q)[g];
    XV xg = reinterpret_cast<const XV *>(x)[g];
    V rg = reinterpret_cast<const V *>(r)[g];
    double sum = 0.0;
    for (int l = 0; l < kGroup; ++l)
      sum += update(xg.v[l], rg.v[l], pg.v[l], qg.v[l]);
    reinterpret_cast<XV *>(x)[g] = xg;
    reinterpret_cast<V *>(r)[g] = rg;
    return sum;
  }
  bool aligned() const {
    return is_aligned(p, 16) && is_aligned(q, 16) && is_aligned(x, 16) &&
           is_aligned(r, 16);
  }
};
/// CG's update of r alone, r -= alpha q, where x's update went into the
/// next stencil pass (StencilOperator::apply_fold_partials): the term is the
/// new r_i^2. The same arithmetic as UpdateTerm's r.
template <typename S> struct ResidualTerm {
  Real<S> alpha;
  const S *q;
  S *r;
  const double *alpha_source = nullptr; ///< as UpdateTerm's
  STENCIL_HOST_DEVICE ResidualTerm resolved() const {
    ResidualTerm term = *this;
    if (alpha_source)
      term.alpha = static_cast<Real<S>>(*alpha_source);
    term.alpha_source = nullptr;
    return term;
  }
  STENCIL_HOST_DEVICE double update(S &ri, S qi) const {
    ri = narrow<S>(widen(ri) - alpha * widen(qi));
    const double stored = widen(ri);
    return stored * stored;
  }
  STENCIL_HOST_DEVICE double operator()(Index i) const {
    S ri = r[i];
    const double term = update(ri, q[i]);
    r[i] = ri;
    return term;
  }
  static constexpr int kGroup = kGroupValues<S>;
  STENCIL_HOST_DEVICE double group(Index g) const {
    const Group<S> qg = load_group(q, g);
    Group<S> rg = load_group(r, g);
    double sum = 0.0;
    for (int l = 0; l < kGroup; ++l)
      sum += update(rg.v[l], qg.v[l]);
    store_group(r, g, rg);
    return sum;
  }
  bool aligned() const { return is_aligned(q, 16) && is_aligned(r, 16); }
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
template <typename S, typename X>
STENCIL_HOST_DEVICE UpdateTerm<S, X> resolved(const UpdateTerm<S, X> &term) {
  return term.resolved();
}
template <typename S>
STENCIL_HOST_DEVICE ResidualTerm<S> resolved(const ResidualTerm<S> &term) {
  return term.resolved();
}

/// Over sites: writes `value` into every component of the halo sites.
template <typename S> struct HaloOp {
  S *x;
  S value;
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

/// Whether Op has group(g) (and aligned()).
template <typename Op, typename = void> struct HasGroups : std::false_type {};
template <typename Op>
struct HasGroups<Op, std::void_t<decltype(&Op::group)>> : std::true_type {};

#if defined(STENCIL_BACKEND_HOST)

constexpr Index kChunk = 4096;

template <typename Op>
Status for_each_index(Index n, Op op, const char *, Stream = nullptr) {
  Index first = 0; // the values before it went by groups
  if constexpr (HasGroups<Op>::value) {
    if (op.aligned()) {
      const Index groups = n / Op::kGroup;
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
      for (Index g = 0; g < groups; ++g)
        op.group(g);
      first = groups * Op::kGroup;
    }
  }
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (Index i = first; i < n; ++i)
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

/// A group a thread (no grid stride, as groups_reduce_kernel); the thread
/// after the last group takes the values past it.
template <typename Op> __global__ void map_groups_kernel(Op op, Index n) {
  const Index groups = n / Op::kGroup;
  const Index g = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < groups)
    op.group(g);
  else if (g == groups)
    for (Index i = groups * Op::kGroup; i < n; ++i)
      op(i);
}

template <typename Op>
Status for_each_index(Index n, Op op, const char *name,
                      Stream stream = nullptr) {
  if constexpr (HasGroups<Op>::value) {
    const Index blocks = (n / Op::kGroup + 1 + kThreads - 1) / kThreads;
    if (op.aligned() && blocks <= kMaxGridX) {
      STENCIL_LAUNCH(map_groups_kernel<Op>,
                     (LaunchDims{static_cast<unsigned>(blocks), 1, 1}),
                     kBlock, stream, op, n);
      return launch_status(name);
    }
  }
  STENCIL_LAUNCH(map_kernel<Op>, grid_for(n), kBlock, stream, op, n);
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

/// CG's updates (UpdateTerm, ResidualTerm) with 16-byte accesses, one
/// group of values per thread (no grid stride: the whole field in flight at
/// once); the thread after the last group takes the values past it. 96% of
/// the copy bandwidth for float and 99.9% for double at 256^3 on the H100,
/// against 88% and 93% for the grid-stride reduce_kernel
/// (bench/probes/cg_update.cu). With float x and bfloat16 p, q and r, a
/// group is 16 bytes of x and 8 of the others (update_partials at
/// 512x256x256 on the H200, 50 calls: 4190 GB/s, against 3560 for 8 values
/// a thread with x in two accesses, and 4270 for float alone).
template <typename Term>
__global__ void groups_reduce_kernel(Term source, Index n, double *partials) {
  const Term term = resolved(source);
  const Index groups = n / Term::kGroup;
  const Index g = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  double sum = 0.0;
  if (g < groups)
    sum = term.group(g);
  else if (g == groups)
    for (Index i = groups * Term::kGroup; i < n; ++i)
      sum += term(i);
  block_total(sum, partials);
}

/// The blocks of groups_reduce_kernel for `n` values, or 0 when it cannot
/// run (a field not 16-byte aligned, or a grid too long).
template <typename Term> Index reduce_groups(const Term &term, Index n) {
  // One thread per group, and one for the rest.
  const Index threads = n / Term::kGroup + 1;
  const Index blocks = (threads + kThreads - 1) / kThreads;
  return term.aligned() && blocks <= kMaxGridX ? blocks : 0;
}

template <typename Term>
Status launch_reduce_groups(const Term &term, Index n, Index blocks,
                            double *partials, const char *name,
                            Stream stream = nullptr) {
  STENCIL_LAUNCH(groups_reduce_kernel<Term>,
                 (LaunchDims{static_cast<unsigned>(blocks), 1, 1}), kBlock,
                 stream, term, n, partials);
  return launch_status(name);
}

#endif

template <typename T> T *typed(Field &f) { return static_cast<T *>(f.data()); }
template <typename T> const T *typed(const Field &f) {
  return static_cast<const T *>(f.data());
}

/// Calls body(S()) with S the field's storage type; a failure for any other
/// element size rather than a guess.
template <typename Body> Status dispatch(const Field &f, Body body) {
  // Every operation here reaches its fields through this; the ones of one
  // field name themselves before (same() names the others).
  STENCIL_TRY(require_storage(f, "blas"));
  return with_storage(f.lattice().element_bytes, body);
}

/// CG's update's fields: p, q and r alike, x on their sites.
Status check_update(const Field &p, const Field &q, const Field &x,
                    const Field &r, const std::string &what) {
  STENCIL_TRY(same(p, q, (what + ": q").c_str()));
  STENCIL_TRY(same_sites(p, x, (what + ": x").c_str()));
  return same(p, r, (what + ": r").c_str());
}

/// How a refused pair of storage types is named: the field that may be
/// stored wider, the fields it goes with, and the one it must be stored
/// like.
struct PairNames {
  const char *wide;
  const char *others;
  const char *like;
};
/// CG's update: x beside p, q and r.
constexpr PairNames kUpdateNames{"x", "p, q and r", "p"};

/// Calls body(S(), X()) with the storage types of CG's update, p's and x's
/// (or any such pair: `names` says which), where they are a kUpdatePair.
template <typename Body>
Status dispatch_update(const Field &p, const Field &x, const std::string &what,
                       Body body, const PairNames &names = kUpdateNames) {
  return dispatch(p, [&](auto pZero) {
    return dispatch(x, [&](auto xZero) -> Status {
      using S = decltype(pZero);
      using X = decltype(xZero);
      if constexpr (kUpdatePair<S, X>)
        return body(pZero, xZero);
      else
        return Status::failure(
            what + ": " + names.wide + " stored as " +
            storage_name(sizeof(X)) + " with " + names.others + " as " +
            storage_name(sizeof(S)) + "; " + names.wide +
            " must be stored like " + names.like + ", or as float for " +
            "bfloat16 " + names.like);
    });
  });
}

} // namespace

Status fill(Field &x, double value) {
  STENCIL_TRY(require_storage(x, "fill"));
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(x.lattice().values(),
                          FillOp<S>{typed<S>(x), narrow<S>(value)}, "fill");
  });
}

Status axpy(double a, const Field &x, Field &y) {
  if (x.lattice().element_bytes != y.lattice().element_bytes) {
    STENCIL_TRY(same_sites(y, x, "axpy"));
    return dispatch(x, [&](auto xZero) {
      return dispatch(y, [&](auto yZero) {
        using X = decltype(xZero);
        using Y = decltype(yZero);
        return for_each_index(x.lattice().values(),
                              MixedAxpyOp<X, Y>{static_cast<Real<Y>>(a),
                                                typed<X>(x), typed<Y>(y)},
                              "axpy (mixed precision)");
      });
    });
  }
  STENCIL_TRY(same(x, y, "axpy"));
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(
        x.lattice().values(),
        AxpyOp<S>{static_cast<Real<S>>(a), typed<S>(x), typed<S>(y)}, "axpy");
  });
}

Status axpy_from_device(const double *a, const Field &x, Field &y) {
  STENCIL_TRY(same_sites(y, x, "axpy_from_device"));
  if (a == nullptr)
    return Status::failure("axpy_from_device: null a");
  return dispatch_update(
      x, y, "axpy_from_device",
      [&](auto xZero, auto yZero) {
        using X = decltype(xZero);
        using Y = decltype(yZero);
        return for_each_index(x.lattice().values(),
                              AxpyFromDeviceOp<X, Y>{a, typed<X>(x),
                                                     typed<Y>(y)},
                              "axpy_from_device");
      },
      {"y", "x", "x"});
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
    using S = decltype(zero);
    return for_each_index(
        x.lattice().values(),
        XpayOp<S>{typed<S>(x), static_cast<Real<S>>(a), typed<S>(y)}, "xpay");
  });
}

Status xpay_from_device(const Field &x, const double *a, Field &y,
                        Stream stream) {
  STENCIL_TRY(same(x, y, "xpay_from_device"));
  if (a == nullptr)
    return Status::failure("xpay_from_device: null a");
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(x.lattice().values(),
                          XpayFromDeviceOp<S>{typed<S>(x), a, typed<S>(y)},
                          "xpay_from_device", stream);
  });
}

Status scale(double a, Field &x) {
  STENCIL_TRY(require_storage(x, "scale"));
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(x.lattice().values(),
                          ScaleOp<S>{static_cast<Real<S>>(a), typed<S>(x)},
                          "scale");
  });
}

Status divide(const Field &r, const Field &d, Field &z) {
  STENCIL_TRY(same(r, d, "divide: d"));
  STENCIL_TRY(same(r, z, "divide: z"));
  return dispatch(r, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(
        r.lattice().values(),
        DivideOp<S>{typed<S>(r), typed<S>(d), typed<S>(z)}, "divide");
  });
}

Status set_halo(Field &x, double value) {
  STENCIL_TRY(require_storage(x, "set_halo"));
  const Lattice &l = x.lattice();
  if (!l.has_halo())
    return Status();
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return for_each_index(
        l.sites(), HaloOp<S>{typed<S>(x), narrow<S>(value), l, l.sites()},
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
                            std::int64_t &count, Stream stream) {
  double *partials = nullptr;
#if defined(STENCIL_BACKEND_HOST)
  (void)name;
  (void)stream;
  // One partial: the host's sum in its fixed chunk order.
  count = 1;
  STENCIL_TRY(block_partials(count, partials));
  partials[0] = reduce(n, resolved(term));
  return Status();
#else
  count = blocks_for(n);
  STENCIL_TRY(block_partials(count, partials));
  STENCIL_LAUNCH(reduce_kernel<Term>, grid_for(n), kBlock, stream, term, n,
                 partials);
  return launch_status(name);
#endif
}

template <typename Term>
Status Reducer::update_partials_of(Index n, Term term, const char *name,
                                   std::int64_t &count, Stream stream) {
#if !defined(STENCIL_BACKEND_HOST)
  if ((count = reduce_groups(term, n))) {
    double *partials = nullptr;
    STENCIL_TRY(block_partials(count, partials));
    return launch_reduce_groups(term, n, count, partials, name, stream);
  }
#endif
  return partials_of(n, term, name, count, stream);
}

Status Reducer::dot(const Field &x, const Field &y, double &result) {
  return comm_.local_failure_ends_job(dot_on_rank(x, y, result), "dot");
}

Status Reducer::dot_on_rank(const Field &x, const Field &y, double &result) {
  STENCIL_TRY(same(x, y, "dot"));
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return sum_of(x.lattice().values(), DotTerm<S>{typed<S>(x), typed<S>(y)},
                  "dot", result);
  });
}

Status Reducer::update_and_norm2(double alpha, const Field &p, const Field &q,
                                 Field &x, Field &r, double &rr) {
  return comm_.local_failure_ends_job(
      update_and_norm2_on_rank(alpha, p, q, x, r, rr), "update_and_norm2");
}

Status Reducer::update_and_norm2_on_rank(double alpha, const Field &p,
                                         const Field &q, Field &x, Field &r,
                                         double &rr) {
  const std::string name = "update_and_norm2";
  STENCIL_TRY(check_update(p, q, x, r, name));
  return dispatch_update(p, x, name, [&](auto pZero, auto xZero) {
    using S = decltype(pZero);
    using X = decltype(xZero);
    const UpdateTerm<S, X> term{static_cast<Real<S>>(alpha), typed<S>(p),
                                typed<S>(q), typed<X>(x), typed<S>(r)};
    const Index n = p.lattice().values();
#if !defined(STENCIL_BACKEND_HOST)
    if (const Index blocks = reduce_groups(term, n)) {
      double *partials = nullptr;
      STENCIL_TRY(block_partials(blocks, partials));
      STENCIL_TRY(
          launch_reduce_groups(term, n, blocks, partials, name.c_str()));
      return sum_block_partials_on_rank(blocks, rr);
    }
#endif
    return sum_of(n, term, name.c_str(), rr);
  });
}

Status Reducer::update_partials(const double *alpha, const Field &p,
                                const Field &q, Field &x, Field &r,
                                std::int64_t &count, Stream stream) {
  const std::string name = "update_partials";
  STENCIL_TRY(check_update(p, q, x, r, name));
  if (alpha == nullptr)
    return Status::failure("update_partials: null alpha");
  return dispatch_update(p, x, name, [&](auto pZero, auto xZero) {
    using S = decltype(pZero);
    using X = decltype(xZero);
    UpdateTerm<S, X> term{Real<S>(0), typed<S>(p), typed<S>(q), typed<X>(x),
                          typed<S>(r)};
    term.alpha_source = alpha;
    const Index n = p.lattice().values();
    return update_partials_of(n, term, name.c_str(), count, stream);
  });
}

Status Reducer::residual_partials(const double *alpha, const Field &q,
                                  Field &r, std::int64_t &count,
                                  Stream stream) {
  const std::string name = "residual_partials";
  STENCIL_TRY(same(q, r, (name + ": r").c_str()));
  if (alpha == nullptr)
    return Status::failure("residual_partials: null alpha");
  return dispatch(q, [&](auto zero) {
    using S = decltype(zero);
    ResidualTerm<S> term{Real<S>(0), typed<S>(q), typed<S>(r)};
    term.alpha_source = alpha;
    const Index n = q.lattice().values();
    return update_partials_of(n, term, name.c_str(), count, stream);
  });
}

Status Reducer::dot_partials(const Field &x, const Field &y,
                             std::int64_t &count, Stream stream) {
  STENCIL_TRY(same(x, y, "dot_partials"));
  return dispatch(x, [&](auto zero) {
    using S = decltype(zero);
    return partials_of(x.lattice().values(),
                       DotTerm<S>{typed<S>(x), typed<S>(y)}, "dot_partials",
                       count, stream);
  });
}

Status Reducer::reserve_partials(const Field &like) {
#if defined(STENCIL_BACKEND_HOST)
  (void)like; // one partial per reduction: the host's sum
  double *partials = nullptr;
  return block_partials(1, partials);
#else
  // The most of reduce_kernel's blocks and groups_reduce_kernel's: a thread
  // per 16 bytes of x, one more for the rest. x is at most as wide as
  // Real<S>, float for bfloat16 fields like `like`.
  return dispatch(like, [&](auto zero) {
    using S = decltype(zero);
    const Index n = like.lattice().values();
    const Index groups = n / (16 / sizeof(Real<S>)) + 1;
    const Index blocks = std::max<Index>((groups + kThreads - 1) / kThreads,
                                         kMaxBlocks);
    double *partials = nullptr;
    return block_partials(blocks, partials);
  });
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
  return comm_.local_failure_ends_job(sum_block_partials_on_rank(count, result),
                                      "sum_block_partials");
}

Status Reducer::sum_block_partials_on_rank(std::int64_t count, double &result) {
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
