// t_march_vec24.cu - a probe, not part of the build: on the H200 the tuned
// kernels of the 24-float 4-D vector Laplacian (specs/laplacian4d_vec24_soa
// .yaml: periodic 4-D, component-major "soa" storage, y = (8 + mass) u -
// sum of the 8 nearest neighbours) run at about 74.5% of the copy, and
// Nsight Compute found such kernels bound by L2, not DRAM (docs/
// performance.md, "Even/odd whole-lattice kernels"). A block of the tuned
// kernel (8x4x2x2 threads, 4 sites along x a float4, 6 of the 24
// components a thread) covers a 32x4x2x2 box, so a value comes through L2
// as its own site's, and again as the y, z and t neighbour of other
// blocks' sites. Does a thread that marches along t (the slowest axis,
// periodic) through a chunk of planes, the form of z_march.cu, cut that
// traffic enough to speed the kernel up? Results: docs/results/
// probe-h200-t-march-vec24.txt (mode soa), docs/results/
// probe-h200-t-march-vec24-more.txt (modes soa-sizes, aos, single,
// single-float).
//
// `march`: a thread owns 4 aligned sites along x (one float4 a component),
// one (y, z) position and CPT consecutive components (24 / CPT blocks along
// x share a site, as the tuned kernels split it). It walks t through a
// chunk of planes. For each plane q it loads the in-plane neighbourhood
// once (own float4, y +- 1, z +- 1, and the x halo: two scalar loads, or
// with `shfl` two warp shuffles from the neighbouring float4s when a row
// is BX threads wide), forms P(q) = (8 + mass) u(q) - in-plane sum, and
// feeds the ring of three outputs: q - 1 gets -u(q) and is stored, q gets
// P(q), q + 1 starts at -u(q). A chunk starts with u of the plane before it
// and ends with u of the plane after it (periodic wrap). Options: `pf`
// loads the next plane before this plane's sums; `u2` unrolls the walk by
// 2; `cs` stores with __stcs (streaming); `mbN` asks launch bounds for N
// resident blocks. A block's chunk of planes is a launch argument: nt,
// nt / 2, nt / 4, nt / 8, the chunks that make the grid at most one, two,
// three and four whole waves of resident blocks (occupancy API times
// multiprocessors: the largest chunk count c with columns x c <= k x
// resident), and the rule's chunk (marked ", rule"): the fewest chunks
// whose grid is 0.75 to 1 wave, or over one wave with its last wave at
// least 90% full.
//
// `base`: the tuned kernel's form (block BXx4x2x2, 8x4x2x2 as tuned, one t
// plane a thread, 4 sites along x a float4 with the x halo as two scalar
// loads, loads in the spec's order -YZT +YZT -X +X C, launch bounds 128
// with 4 blocks an SM; 6x4x2x2 and 4x8x2x2, 12x4x2x2 for lattices whose
// rows are not 8 float4s).
//
// Mode `aos` (specs/laplacian4d_vec24_aos.yaml: site s, component c at
// s * 24 + c). `base-aos` is its tuned H200 entry's form (tuning/
// tunecache.tsv: block 32x2x2x2, no tile, loads as written C -X +X -Y +Y
// -Z +Z -T +T, non-temporal stores, launch bounds 256, 16-byte accesses,
// 8 of 24 components a thread; the 24 / CPT blocks of the same 32 sites
// take thread k's share k % S of site k / S, so a warp reads adjacent
// sites' components as one run). `march-aos`: a thread owns one site and
// CPT components (CPT / 4 float4s) with the same share mapping, and walks
// t as `march` does; the x neighbours are loads (the neighbouring lanes'
// own values, so mostly L1 hits).
//
// Modes `single` and `single-float` (specs/laplacian4d_periodic.yaml: one
// component, periodic 4-D, the same 9 taps and mass 0.1; the spec is
// double precision). `base1` is the form of its generated groups-along-x
// kernel, the one that runs on the H200 (laplacian4d_periodic_x2: block
// 32x4x2x1, tile t x 2, loads in the spec's order "-YZT+YZT-X C+X", launch
// bounds 256, a group of 16 bytes along x: 2 doubles, or 4 floats for
// single-float with block 16x8x2x1 so a row is whole). `march1`: a thread
// owns one 16-byte group along x (2 doubles or 4 floats) at one (y, z) and
// walks t; `shfl` and `pf` as above.
//
// Every kernel is checked against a naive kernel (one thread a site and
// component, plain loads with wrap) on fresh random non-zero input, with the
// output poisoned (NaN) first: max |out - ref| / max |ref| under 1e-5
// (float) or 1e-12 (double) and no element unwritten. The naive kernel is
// checked against a host loop in double on 100000 random (site, component)
// pairs. GB/s counts the field read once and written once; percentages are
// of the same run's copy (cudaMemcpy device to device, 1 GiB buffers, bytes
// read plus written). Where a field is under 200 MB, timing rotates among
// up to 4 input and output pairs so that no launch finds its input in the
// 60 MB L2.
//   nvcc -O3 -std=c++17 -arch=sm_90 -o t_march_vec24 t_march_vec24.cu
//   (-DPART=1 soa, 2 soa-sizes, 3 aos, 4 single and single-float: only that
//   mode's kernels, for a shorter compile; default every mode)
//   ./t_march_vec24 [--mode soa|soa-sizes|aos|single|single-float]
//                   [--lattice NXxNYxNZxNT] [--runs N] [--only S1,S2,...]
//   (--runs 1: each kernel checked, then run once without warm-ups, for
//   Nsight Compute; --only keeps the rows whose name holds one of S1, S2;
//   lattice 32x32x32x64 by default, 64x64x64x128 for single and
//   single-float, the size stencil_bench times laplacian4d_periodic at)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#ifndef PART
#define PART 0
#endif
#define WITH(p) (PART == 0 || PART == (p))

using Index = long long;
constexpr int NC = 24;
constexpr float kMass = 0.1f;
constexpr double kTolerance = 1e-5;     // float kernels
constexpr double kToleranceF64 = 1e-12; // double kernels

/// The spec's mass in the field's precision (0.1f for float, as kMass).
template <typename R> __host__ __device__ constexpr R mass() { return R(0.1); }

__host__ __device__ inline int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

enum class Mode { Soa, SoaSizes, Aos, Single, SingleFloat };

// --- naive reference ----------------------------------------------------------

/// One thread a site and component; C components, site-major (Aos) or
/// component-major.
template <typename R, int C, bool Aos>
__global__ void naive(R *__restrict__ out, const R *__restrict__ in, int nx, int ny,
                      int nz, int nt) {
  const Index V = Index(nx) * ny * nz * nt;
  const Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x;
  if (i >= V * C)
    return;
  const Index s = Aos ? i / C : i % V, c = Aos ? i % C : i / V;
  const int x = int(s % nx), y = int(s / nx % ny), z = int(s / nx / ny % nz),
            t = int(s / nx / ny / nz);
  auto at = [&](int xx, int yy, int zz, int tt) {
    const Index site = ((Index(tt) * nz + zz) * ny + yy) * nx + xx;
    return Aos ? in[site * C + c] : in[c * V + site];
  };
  R r = (R(8) + mass<R>()) * at(x, y, z, t);
  r -= at(wrap(x - 1, nx), y, z, t);
  r -= at(wrap(x + 1, nx), y, z, t);
  r -= at(x, wrap(y - 1, ny), z, t);
  r -= at(x, wrap(y + 1, ny), z, t);
  r -= at(x, y, wrap(z - 1, nz), t);
  r -= at(x, y, wrap(z + 1, nz), t);
  r -= at(x, y, z, wrap(t - 1, nt));
  r -= at(x, y, z, wrap(t + 1, nt));
  out[i] = r;
}

// --- float4 helpers -------------------------------------------------------------

__device__ inline float4 ld4(const float *p) {
  return __ldg(reinterpret_cast<const float4 *>(p));
}
__device__ inline float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ inline float4 operator-(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
__device__ inline float4 operator*(float a, float4 b) {
  return make_float4(a * b.x, a * b.y, a * b.z, a * b.w);
}
template <bool Streaming> __device__ inline void st4(float *p, float4 v) {
  if constexpr (Streaming)
    __stcs(reinterpret_cast<float4 *>(p), v);
  else
    *reinterpret_cast<float4 *>(p) = v;
}

/// A 16-byte group as an array: 4 floats or 2 doubles.
__device__ inline void ldv(float (&v)[4], const float *p) {
  const float4 q = __ldg(reinterpret_cast<const float4 *>(p));
  v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
__device__ inline void ldv(double (&v)[2], const double *p) {
  const double2 q = __ldg(reinterpret_cast<const double2 *>(p));
  v[0] = q.x, v[1] = q.y;
}
template <bool Streaming> __device__ inline void stv(float *p, const float (&v)[4]) {
  st4<Streaming>(p, make_float4(v[0], v[1], v[2], v[3]));
}
template <bool Streaming> __device__ inline void stv(double *p, const double (&v)[2]) {
  const double2 q = make_double2(v[0], v[1]);
  if constexpr (Streaming)
    __stcs(reinterpret_cast<double2 *>(p), q);
  else
    *reinterpret_cast<double2 *>(p) = q;
}

// --- the baseline: the tuned kernel's form ------------------------------------------

/// Block (BX, BY, 4): threadIdx.z = z % 2 + 2 (t % 2), as the generated kernel
/// lays out BXxBYx2x2 (8x4x2x2 tuned). blockIdx.x counts the 24 / CPT shares
/// of a site fastest.
template <int BX, int BY, int CPT, int MINB>
__global__ void __launch_bounds__(BX *BY * 4, MINB)
    base(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
         int nz, int nt, unsigned zblocks) {
  constexpr int S = NC / CPT;
  const int g = blockIdx.x % S;
  const int x0 = 4 * int((blockIdx.x / S) * BX + threadIdx.x);
  const int y = int(blockIdx.y * BY + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * 2u + threadIdx.z % 2u);
  const int t = int((blockIdx.z / zblocks) * 2u + threadIdx.z / 2u);
  if (x0 >= nx || y >= ny || z >= nz || t >= nt)
    return;
  const Index V = Index(nx) * ny * nz * nt;
  const float *u = in + Index(g) * CPT * V;
  auto site = [&](int xx, int yy, int zz, int tt) {
    return ((Index(tt) * nz + zz) * ny + yy) * nx + xx;
  };
  const Index s0 = site(x0, y, z, t);
  // Taps in the spec's load order: -Y -Z -T +Y +Z +T, then -X +X, then C.
  const Index nb[6] = {site(x0, wrap(y - 1, ny), z, t),
                       site(x0, y, wrap(z - 1, nz), t),
                       site(x0, y, z, wrap(t - 1, nt)),
                       site(x0, wrap(y + 1, ny), z, t),
                       site(x0, y, wrap(z + 1, nz), t),
                       site(x0, y, z, wrap(t + 1, nt))};
  const Index xl = site(wrap(x0 - 1, nx), y, z, t),
              xr = site(wrap(x0 + 4, nx), y, z, t);
  float4 acc[CPT];
#pragma unroll
  for (int c = 0; c < CPT; ++c)
    acc[c] = -1.f * ld4(u + c * V + nb[0]);
#pragma unroll
  for (int k = 1; k < 6; ++k)
#pragma unroll
    for (int c = 0; c < CPT; ++c)
      acc[c] = acc[c] - ld4(u + c * V + nb[k]);
  float hl[CPT], hr[CPT];
#pragma unroll
  for (int c = 0; c < CPT; ++c)
    hl[c] = __ldg(u + c * V + xl);
#pragma unroll
  for (int c = 0; c < CPT; ++c)
    hr[c] = __ldg(u + c * V + xr);
#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    const float4 o = ld4(u + c * V + s0);
    float4 a = acc[c];
    a.x -= hl[c] + o.y;
    a.y -= o.x + o.z;
    a.z -= o.y + o.w;
    a.w -= o.z + hr[c];
    a = a + (8.f + kMass) * o;
    *reinterpret_cast<float4 *>(out + Index(g) * CPT * V + c * V + s0) = a;
  }
}

// --- the march along t --------------------------------------------------------------

/// One plane's raw loads for a thread's CPT components.
template <int CPT> struct Raw {
  float4 own[CPT], ym[CPT], yp[CPT], zm[CPT], zp[CPT];
  float xl[CPT], xr[CPT];
};

/// Offsets inside a t plane (int: a plane is under 2^31 values).
struct Offs {
  int own, ym, yp, zm, zp, xl, xr;
};

template <int CPT, bool Shfl>
__device__ inline void load_raw(Raw<CPT> &r, const float *u, Index V, Index plane,
                                const Offs &o) {
  const float *p = u + plane;
#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    const float *q = p + c * V;
    r.own[c] = ld4(q + o.own);
    r.ym[c] = ld4(q + o.ym);
    r.yp[c] = ld4(q + o.yp);
    r.zm[c] = ld4(q + o.zm);
    r.zp[c] = ld4(q + o.zp);
    if constexpr (!Shfl) {
      r.xl[c] = __ldg(q + o.xl);
      r.xr[c] = __ldg(q + o.xr);
    }
  }
}

/// u of one plane only (a chunk's first and last plane feed one output each).
template <int CPT>
__device__ inline void load_own(float4 (&v)[CPT], const float *u, Index V,
                                Index plane, int own) {
#pragma unroll
  for (int c = 0; c < CPT; ++c)
    v[c] = ld4(u + plane + c * V + own);
}

/// The lanes a row's x halo comes from when BX lanes span a whole row (the
/// row wraps among them).
template <int BX> __device__ inline void halo_lanes(int &from_l, int &from_r) {
  const unsigned lane = threadIdx.x + BX * (threadIdx.y + blockDim.y * threadIdx.z);
  const int base = int(lane % 32u) & ~(BX - 1), lx = int(lane % 32u) & (BX - 1);
  from_l = base | ((lx + BX - 1) & (BX - 1));
  from_r = base | ((lx + 1) & (BX - 1));
}

/// P = (8 + mass) u - in-plane neighbours, from the raw loads. With Shfl the x
/// halo comes from the lanes holding the float4s left and right of this one.
template <int CPT, int BX, bool Shfl>
__device__ inline void plane_sum(float4 (&P)[CPT], const Raw<CPT> &r) {
  int from_l = 0, from_r = 0;
  if constexpr (Shfl)
    halo_lanes<BX>(from_l, from_r);
#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    const float4 o = r.own[c];
    float hl, hr;
    if constexpr (Shfl) {
      hl = __shfl_sync(0xffffffffu, o.w, from_l);
      hr = __shfl_sync(0xffffffffu, o.x, from_r);
    } else {
      hl = r.xl[c];
      hr = r.xr[c];
    }
    float4 s = (r.ym[c] + r.yp[c]) + (r.zm[c] + r.zp[c]);
    s.x += hl + o.y;
    s.y += o.x + o.z;
    s.z += o.y + o.w;
    s.w += o.z + hr;
    P[c] = (8.f + kMass) * o - s;
  }
}

template <int BX, int BY, int BZ, int CPT, bool Shfl, bool Prefetch, int UNR,
          bool Streaming, int MINB>
__global__ void __launch_bounds__(BX *BY *BZ, MINB)
    march(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
          int nz, int nt, unsigned xblocks, unsigned zblocks, int T) {
  static_assert(!Shfl || 32 % BX == 0, "a row's threads stay inside a warp");
  constexpr int S = NC / CPT;
  const int g = blockIdx.x % S;
  const int x0 = 4 * int((blockIdx.x / S) * BX + threadIdx.x);
  const int y = int(blockIdx.y * BY + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * BZ + threadIdx.z);
  const int t0 = int(blockIdx.z / zblocks) * T;
  // Shfl variants run only where every lane is in the lattice (host check).
  if (x0 >= nx || y >= ny || z >= nz || t0 >= nt)
    return;
  const int t1 = min(t0 + T, nt);
  const Index V = Index(nx) * ny * nz * nt, P = Index(nx) * ny * nz;
  const float *u = in + Index(g) * CPT * V;
  float *w = out + Index(g) * CPT * V;
  const int row = nx * (y + ny * z);
  const Offs o{row + x0,
               nx * (wrap(y - 1, ny) + ny * z) + x0,
               nx * (wrap(y + 1, ny) + ny * z) + x0,
               nx * (y + ny * wrap(z - 1, nz)) + x0,
               nx * (y + ny * wrap(z + 1, nz)) + x0,
               row + wrap(x0 - 1, nx),
               row + wrap(x0 + 4, nx)};
  // A: output q - 1 without its -u(q); B: u(q - 1).
  float4 A[CPT], B[CPT], Pq[CPT];
  Raw<CPT> cur;
  load_own<CPT>(B, u, V, wrap(t0 - 1, nt) * P, o.own);
  load_raw<CPT, Shfl>(cur, u, V, t0 * P, o);
  plane_sum<CPT, BX, Shfl>(Pq, cur);
#pragma unroll
  for (int c = 0; c < CPT; ++c) {
    A[c] = Pq[c] - B[c];
    B[c] = cur.own[c];
  }
  if constexpr (Prefetch) {
    if (t0 + 1 < t1)
      load_raw<CPT, Shfl>(cur, u, V, (t0 + 1) * P, o);
  }
#pragma unroll UNR
  for (int q = t0 + 1; q < t1; ++q) {
    if constexpr (Prefetch) {
      Raw<CPT> nxt;
      if (q + 1 < t1)
        load_raw<CPT, Shfl>(nxt, u, V, (q + 1) * P, o);
      plane_sum<CPT, BX, Shfl>(Pq, cur);
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        st4<Streaming>(w + (q - 1) * P + c * V + o.own, A[c] - cur.own[c]);
        A[c] = Pq[c] - B[c];
        B[c] = cur.own[c];
      }
      cur = nxt;
    } else {
      load_raw<CPT, Shfl>(cur, u, V, q * P, o);
      plane_sum<CPT, BX, Shfl>(Pq, cur);
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        st4<Streaming>(w + (q - 1) * P + c * V + o.own, A[c] - cur.own[c]);
        A[c] = Pq[c] - B[c];
        B[c] = cur.own[c];
      }
    }
  }
  float4 last[CPT];
  load_own<CPT>(last, u, V, wrap(t1, nt) * P, o.own);
#pragma unroll
  for (int c = 0; c < CPT; ++c)
    st4<Streaming>(w + (t1 - 1) * P + c * V + o.own, A[c] - last[c]);
}

// --- site-major (aos) storage ------------------------------------------------------

/// The tuned H200 entry's form: block (32, 2, 4) = 32x2x2x2 (threadIdx.z =
/// z % 2 + 2 (t % 2)), CPT components a thread as CPT / 4 float4s, the S =
/// 24 / CPT blocks of the same 32 sites side by side (thread k of the S x 32
/// takes share k % S of site k / S), loads as written (C -X +X -Y +Y -Z +Z
/// -T +T), launch bounds 256.
template <int CPT, bool Streaming>
__global__ void __launch_bounds__(256)
    base_aos(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
             int nz, int nt, unsigned zblocks) {
  constexpr int S = NC / CPT, V4 = CPT / 4;
  static_assert(CPT % 4 == 0, "16-byte accesses");
  const unsigned share_thread = (blockIdx.x % S) * 32u + threadIdx.x;
  const int x = int((blockIdx.x / S) * 32u + share_thread / S);
  const int y = int(blockIdx.y * 2u + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * 2u + threadIdx.z % 2u);
  const int t = int((blockIdx.z / zblocks) * 2u + threadIdx.z / 2u);
  const int c0 = int(share_thread % S) * CPT;
  if (x >= nx || y >= ny || z >= nz || t >= nt)
    return;
  auto site = [&](int xx, int yy, int zz, int tt) {
    return (((Index(tt) * nz + zz) * ny + yy) * nx + xx) * NC + c0;
  };
  const Index nb[9] = {site(x, y, z, t),
                       site(wrap(x - 1, nx), y, z, t),
                       site(wrap(x + 1, nx), y, z, t),
                       site(x, wrap(y - 1, ny), z, t),
                       site(x, wrap(y + 1, ny), z, t),
                       site(x, y, wrap(z - 1, nz), t),
                       site(x, y, wrap(z + 1, nz), t),
                       site(x, y, z, wrap(t - 1, nt)),
                       site(x, y, z, wrap(t + 1, nt))};
  float4 acc[V4];
#pragma unroll
  for (int j = 0; j < V4; ++j)
    acc[j] = (8.f + kMass) * ld4(in + nb[0] + 4 * j);
#pragma unroll
  for (int k = 1; k < 9; ++k)
#pragma unroll
    for (int j = 0; j < V4; ++j)
      acc[j] = acc[j] - ld4(in + nb[k] + 4 * j);
#pragma unroll
  for (int j = 0; j < V4; ++j)
    st4<Streaming>(out + nb[0] + 4 * j, acc[j]);
}

template <int V4> struct RawA {
  float4 own[V4], xm[V4], xp[V4], ym[V4], yp[V4], zm[V4], zp[V4];
};

/// The march on site-major storage: a thread owns one site and CPT
/// components (CPT / 4 float4s), with base_aos's share mapping over BX
/// threads along x (S blocks side by side cover BX sites), and walks t.
template <int BX, int BY, int BZ, int CPT, bool Streaming, int MINB>
__global__ void __launch_bounds__(BX *BY *BZ, MINB)
    march_aos(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
              int nz, int nt, unsigned zblocks, int T) {
  constexpr int S = NC / CPT, V4 = CPT / 4;
  static_assert(CPT % 4 == 0, "16-byte accesses");
  const unsigned share_thread = (blockIdx.x % S) * unsigned(BX) + threadIdx.x;
  const int x = int((blockIdx.x / S) * unsigned(BX) + share_thread / S);
  const int c0 = int(share_thread % S) * CPT;
  const int y = int(blockIdx.y * BY + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * BZ + threadIdx.z);
  const int t0 = int(blockIdx.z / zblocks) * T;
  if (x >= nx || y >= ny || z >= nz || t0 >= nt)
    return;
  const int t1 = min(t0 + T, nt);
  const Index P = Index(nx) * ny * nz * NC; // floats a plane
  auto at = [&](int xx, int yy, int zz) { return (xx + nx * (yy + ny * zz)) * NC + c0; };
  const int own = at(x, y, z), xm = at(wrap(x - 1, nx), y, z),
            xp = at(wrap(x + 1, nx), y, z), ym = at(x, wrap(y - 1, ny), z),
            yp = at(x, wrap(y + 1, ny), z), zm = at(x, y, wrap(z - 1, nz)),
            zp = at(x, y, wrap(z + 1, nz));
  auto load = [&](RawA<V4> &r, Index plane) {
    const float *p = in + plane;
#pragma unroll
    for (int j = 0; j < V4; ++j) {
      r.own[j] = ld4(p + own + 4 * j);
      r.xm[j] = ld4(p + xm + 4 * j);
      r.xp[j] = ld4(p + xp + 4 * j);
      r.ym[j] = ld4(p + ym + 4 * j);
      r.yp[j] = ld4(p + yp + 4 * j);
      r.zm[j] = ld4(p + zm + 4 * j);
      r.zp[j] = ld4(p + zp + 4 * j);
    }
  };
  auto psum = [&](float4 (&Pq)[V4], const RawA<V4> &r) {
#pragma unroll
    for (int j = 0; j < V4; ++j)
      Pq[j] = (8.f + kMass) * r.own[j] -
              ((r.xm[j] + r.xp[j]) + (r.ym[j] + r.yp[j]) + (r.zm[j] + r.zp[j]));
  };
  float4 A[V4], B[V4], Pq[V4];
  RawA<V4> cur;
#pragma unroll
  for (int j = 0; j < V4; ++j)
    B[j] = ld4(in + wrap(t0 - 1, nt) * P + own + 4 * j);
  load(cur, t0 * P);
  psum(Pq, cur);
#pragma unroll
  for (int j = 0; j < V4; ++j) {
    A[j] = Pq[j] - B[j];
    B[j] = cur.own[j];
  }
#pragma unroll 1
  for (int q = t0 + 1; q < t1; ++q) {
    load(cur, q * P);
    psum(Pq, cur);
#pragma unroll
    for (int j = 0; j < V4; ++j) {
      st4<Streaming>(out + (q - 1) * P + own + 4 * j, A[j] - cur.own[j]);
      A[j] = Pq[j] - B[j];
      B[j] = cur.own[j];
    }
  }
#pragma unroll
  for (int j = 0; j < V4; ++j)
    st4<Streaming>(out + (t1 - 1) * P + own + 4 * j,
                   A[j] - ld4(in + wrap(t1, nt) * P + own + 4 * j));
}

// --- a single-component field -------------------------------------------------------

/// The generated groups-along-x kernel's form (laplacian4d_periodic_x2):
/// block (BX, BY, BZ), a thread W sites along x (16 bytes) at t and t + 1
/// (tile t x 2), loads in the generated order (-Y -Z at t, t + 1; -T; C; +Y
/// +Z at t, t + 1; C of t + 1; t + 2; then the x halo, -X at t, t + 1, +X at
/// t, t + 1), launch bounds BX BY BZ.
template <typename R, int W, int BX, int BY, int BZ>
__global__ void __launch_bounds__(BX *BY *BZ)
    base1(R *__restrict__ out, const R *__restrict__ in, int nx, int ny, int nz,
          int nt, unsigned zblocks) {
  const int x = W * int(blockIdx.x * BX + threadIdx.x);
  const int y = int(blockIdx.y * BY + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * BZ + threadIdx.z);
  const int t = 2 * int(blockIdx.z / zblocks);
  if (x >= nx || y >= ny || z >= nz || t >= nt)
    return;
  auto site = [&](int xx, int yy, int zz, int tt) {
    return ((Index(tt) * nz + zz) * ny + yy) * nx + xx;
  };
  const int ym = wrap(y - 1, ny), yp = wrap(y + 1, ny), zm = wrap(z - 1, nz),
            zp = wrap(z + 1, nz), tm = wrap(t - 1, nt), tp = wrap(t + 1, nt),
            tp2 = wrap(t + 2, nt);
  const R c8 = R(8) + mass<R>();
  R a0[W], a1[W], v[W];
  ldv(v, in + site(x, ym, z, t));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a0[l] = -v[l];
  ldv(v, in + site(x, ym, z, tp));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a1[l] = -v[l];
  ldv(v, in + site(x, y, zm, t));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a0[l] -= v[l];
  ldv(v, in + site(x, y, zm, tp));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a1[l] -= v[l];
  ldv(v, in + site(x, y, z, tm));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a0[l] -= v[l];
  ldv(v, in + site(x, y, z, t)); // C of t, -T of t + 1
#pragma unroll
  for (int l = 0; l < W; ++l) {
    a0[l] += c8 * v[l];
    if (l > 0)
      a0[l] -= v[l > 0 ? l - 1 : 0];
    if (l < W - 1)
      a0[l] -= v[l < W - 1 ? l + 1 : 0];
    a1[l] -= v[l];
  }
  ldv(v, in + site(x, yp, z, t));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a0[l] -= v[l];
  ldv(v, in + site(x, yp, z, tp));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a1[l] -= v[l];
  ldv(v, in + site(x, y, zp, t));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a0[l] -= v[l];
  ldv(v, in + site(x, y, zp, tp));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a1[l] -= v[l];
  ldv(v, in + site(x, y, z, tp)); // +T of t, C of t + 1
#pragma unroll
  for (int l = 0; l < W; ++l) {
    a0[l] -= v[l];
    a1[l] += c8 * v[l];
    if (l > 0)
      a1[l] -= v[l > 0 ? l - 1 : 0];
    if (l < W - 1)
      a1[l] -= v[l < W - 1 ? l + 1 : 0];
  }
  ldv(v, in + site(x, y, z, tp2));
#pragma unroll
  for (int l = 0; l < W; ++l)
    a1[l] -= v[l];
  const int xm = wrap(x - 1, nx), xp = wrap(x + W, nx);
  a0[0] -= __ldg(in + site(xm, y, z, t));
  a1[0] -= __ldg(in + site(xm, y, z, tp));
  a0[W - 1] -= __ldg(in + site(xp, y, z, t));
  a1[W - 1] -= __ldg(in + site(xp, y, z, tp));
  stv<false>(out + site(x, y, z, t), a0);
  if (t + 1 < nt)
    stv<false>(out + site(x, y, z, t + 1), a1);
}

template <typename R, int W> struct Raw1 {
  R own[W], ym[W], yp[W], zm[W], zp[W];
  R xl, xr;
};

/// The march on a single-component field: a thread owns one 16-byte group
/// of W sites along x at one (y, z) and walks t.
template <typename R, int W, int BX, int BY, int BZ, bool Shfl, bool Prefetch, int MINB>
__global__ void __launch_bounds__(BX *BY *BZ, MINB)
    march1(R *__restrict__ out, const R *__restrict__ in, int nx, int ny, int nz,
           int nt, unsigned zblocks, int T) {
  static_assert(!Shfl || 32 % BX == 0, "a row's threads stay inside a warp");
  const int x0 = W * int(blockIdx.x * BX + threadIdx.x);
  const int y = int(blockIdx.y * BY + threadIdx.y);
  const int z = int((blockIdx.z % zblocks) * BZ + threadIdx.z);
  const int t0 = int(blockIdx.z / zblocks) * T;
  if (x0 >= nx || y >= ny || z >= nz || t0 >= nt)
    return;
  const int t1 = min(t0 + T, nt);
  const Index P = Index(nx) * ny * nz;
  const int row = nx * (y + ny * z);
  const Offs o{row + x0,
               nx * (wrap(y - 1, ny) + ny * z) + x0,
               nx * (wrap(y + 1, ny) + ny * z) + x0,
               nx * (y + ny * wrap(z - 1, nz)) + x0,
               nx * (y + ny * wrap(z + 1, nz)) + x0,
               row + wrap(x0 - 1, nx),
               row + wrap(x0 + W, nx)};
  const R c8 = R(8) + mass<R>();
  auto load = [&](Raw1<R, W> &r, Index plane) {
    const R *p = in + plane;
    ldv(r.own, p + o.own);
    ldv(r.ym, p + o.ym);
    ldv(r.yp, p + o.yp);
    ldv(r.zm, p + o.zm);
    ldv(r.zp, p + o.zp);
    if constexpr (!Shfl) {
      r.xl = __ldg(p + o.xl);
      r.xr = __ldg(p + o.xr);
    }
  };
  auto psum = [&](R (&Pq)[W], const Raw1<R, W> &r) {
    R hl, hr;
    if constexpr (Shfl) {
      int from_l, from_r;
      halo_lanes<BX>(from_l, from_r);
      hl = __shfl_sync(0xffffffffu, r.own[W - 1], from_l);
      hr = __shfl_sync(0xffffffffu, r.own[0], from_r);
    } else {
      hl = r.xl;
      hr = r.xr;
    }
#pragma unroll
    for (int l = 0; l < W; ++l) {
      const R left = l == 0 ? hl : r.own[l > 0 ? l - 1 : 0];
      const R right = l == W - 1 ? hr : r.own[l < W - 1 ? l + 1 : 0];
      const R s = ((r.ym[l] + r.yp[l]) + (r.zm[l] + r.zp[l])) + (left + right);
      Pq[l] = c8 * r.own[l] - s;
    }
  };
  R A[W], B[W], Pq[W];
  Raw1<R, W> cur;
  ldv(B, in + wrap(t0 - 1, nt) * P + o.own);
  load(cur, t0 * P);
  psum(Pq, cur);
#pragma unroll
  for (int l = 0; l < W; ++l) {
    A[l] = Pq[l] - B[l];
    B[l] = cur.own[l];
  }
  if constexpr (Prefetch) {
    if (t0 + 1 < t1)
      load(cur, (t0 + 1) * P);
  }
#pragma unroll 1
  for (int q = t0 + 1; q < t1; ++q) {
    R st[W];
    if constexpr (Prefetch) {
      Raw1<R, W> nxt;
      if (q + 1 < t1)
        load(nxt, (q + 1) * P);
      psum(Pq, cur);
#pragma unroll
      for (int l = 0; l < W; ++l) {
        st[l] = A[l] - cur.own[l];
        A[l] = Pq[l] - B[l];
        B[l] = cur.own[l];
      }
      stv<false>(out + (q - 1) * P + o.own, st);
      cur = nxt;
    } else {
      load(cur, q * P);
      psum(Pq, cur);
#pragma unroll
      for (int l = 0; l < W; ++l) {
        st[l] = A[l] - cur.own[l];
        A[l] = Pq[l] - B[l];
        B[l] = cur.own[l];
      }
      stv<false>(out + (q - 1) * P + o.own, st);
    }
  }
  R last[W];
  ldv(last, in + wrap(t1, nt) * P + o.own);
#pragma unroll
  for (int l = 0; l < W; ++l)
    last[l] = A[l] - last[l];
  stv<false>(out + (t1 - 1) * P + o.own, last);
}

// --- input, checks, timing -------------------------------------------------------------

__device__ inline unsigned hash(unsigned a) {
  a ^= a >> 16, a *= 0x7feb352du, a ^= a >> 15, a *= 0x846ca68bu, a ^= a >> 16;
  return a;
}
/// Random values in [-1, 1], never zero (23 random bits for float, 52 for
/// double).
template <typename R> __global__ void fill(R *p, Index n, unsigned seed) {
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n;
       i += Index(blockDim.x) * gridDim.x) {
    const unsigned h = hash(unsigned(i) ^ hash(seed + unsigned(i >> 32) * 977u));
    if constexpr (sizeof(R) == 4) {
      const float m = float((h >> 9) + 1u) * (1.f / 8388608.f);
      p[i] = (h & 1u) ? m : -m;
    } else {
      const unsigned long long b =
          (static_cast<unsigned long long>(h) << 32) | hash(h ^ 0x9e3779b9u);
      const double m = double((b >> 12) + 1ull) * 0x1p-52;
      p[i] = (b & 1ull) ? m : -m;
    }
  }
}

struct Diff {
  unsigned long long max_diff, max_ref; // double bits (non-negative)
  unsigned long long bad;               // non-finite outputs (unwritten: NaN poison)
  double sq_diff, sq_ref;
};

template <typename R>
__global__ void compare(Diff *d, const R *got, const R *ref, Index n) {
  double md = 0, mr = 0, sd = 0, sr = 0;
  unsigned long long bad = 0;
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n;
       i += Index(blockDim.x) * gridDim.x) {
    const double a = got[i], b = ref[i];
    if (!isfinite(a)) {
      ++bad;
      continue;
    }
    const double e = fabs(a - b);
    md = fmax(md, e);
    mr = fmax(mr, fabs(b));
    sd += e * e;
    sr += b * b;
  }
  for (int k = 16; k > 0; k /= 2) {
    md = fmax(md, __shfl_down_sync(0xffffffffu, md, k));
    mr = fmax(mr, __shfl_down_sync(0xffffffffu, mr, k));
    sd += __shfl_down_sync(0xffffffffu, sd, k);
    sr += __shfl_down_sync(0xffffffffu, sr, k);
    bad += __shfl_down_sync(0xffffffffu, bad, k);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&d->max_diff, static_cast<unsigned long long>(__double_as_longlong(md)));
    atomicMax(&d->max_ref, static_cast<unsigned long long>(__double_as_longlong(mr)));
    atomicAdd(&d->bad, bad);
    atomicAdd(&d->sq_diff, sd);
    atomicAdd(&d->sq_ref, sr);
  }
}

struct NoRotate {
  void operator()(int) const {}
};

template <typename F, typename Rot = NoRotate>
float median_ms(F &&launch, int runs, int warm, Rot rot = Rot()) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warm; ++i) {
    rot(i);
    launch();
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < runs; ++i) {
    rot(warm + i);
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

struct Result {
  std::string name, threads;
  int cpt, planes, regs, blocks_sm, occ;
  double waves, ms, gbs, pct;
  bool ok;
};

struct Setup {
  Mode mode = Mode::Soa;
  int nx, ny, nz, nt;
  Index V, n;       // sites; elements of a field
  int nc;           // components
  size_t esize;     // bytes an element
  float *in, *out;  // the buffers a launch reads and writes (double modes cast)
  float *ref;
  std::vector<float *> ins, outs; // rotation sets; ins[0], outs[0] are checked
  Diff *diff;
  double peak, tol;
  int runs, warm, sms;
  unsigned seed;
  std::vector<std::string> only;
  std::vector<Result> results;
  int failures = 0;
  bool wanted(const std::string &name) const {
    if (only.empty())
      return true;
    for (const auto &s : only)
      if (name.find(s) != std::string::npos)
        return true;
    return false;
  }
  template <typename R> R *I() const { return reinterpret_cast<R *>(in); }
  template <typename R> R *O() const { return reinterpret_cast<R *>(out); }
  double field_bytes() const { return double(n) * esize; }
  void run_naive(float *dst) const {
    const unsigned blocks = unsigned((n + 255) / 256);
    switch (mode) {
    case Mode::Soa:
    case Mode::SoaSizes:
      naive<float, NC, false><<<blocks, 256>>>(dst, in, nx, ny, nz, nt);
      break;
    case Mode::Aos:
      naive<float, NC, true><<<blocks, 256>>>(dst, in, nx, ny, nz, nt);
      break;
    case Mode::Single:
      naive<double, 1, false><<<blocks, 256>>>(reinterpret_cast<double *>(dst),
                                              I<double>(), nx, ny, nz, nt);
      break;
    case Mode::SingleFloat:
      naive<float, 1, false><<<blocks, 256>>>(dst, in, nx, ny, nz, nt);
      break;
    }
    CHECK(cudaGetLastError());
  }
  void fill_input(float *p, unsigned sd) const {
    if (esize == 8)
      fill<double><<<4096, 256>>>(reinterpret_cast<double *>(p), n, sd);
    else
      fill<float><<<4096, 256>>>(p, n, sd);
    CHECK(cudaGetLastError());
  }
};

/// Fresh input, the naive kernel into ref, NaN into out, the kernel, compare.
template <typename F> bool check(Setup &s, F &&launch, double &rel_max, double &rel_l2,
                                 unsigned long long &bad) {
  s.fill_input(s.in, ++s.seed);
  s.run_naive(s.ref);
  CHECK(cudaMemset(s.out, 0xff, s.n * s.esize)); // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaMemset(s.diff, 0, sizeof(Diff)));
  if (s.esize == 8)
    compare<double><<<4096, 256>>>(s.diff, s.O<double>(),
                                   reinterpret_cast<const double *>(s.ref), s.n);
  else
    compare<float><<<4096, 256>>>(s.diff, s.out, s.ref, s.n);
  CHECK(cudaGetLastError());
  Diff d;
  CHECK(cudaMemcpy(&d, s.diff, sizeof d, cudaMemcpyDeviceToHost));
  double md, mr;
  std::memcpy(&md, &d.max_diff, 8);
  std::memcpy(&mr, &d.max_ref, 8);
  rel_max = md / mr;
  rel_l2 = std::sqrt(d.sq_diff / d.sq_ref);
  bad = d.bad;
  return bad == 0 && rel_max < s.tol;
}

/// Checks and times one kernel; `blocks` is its grid's size (for the waves).
template <typename K, typename F>
void row(Setup &s, const std::string &name, const std::string &threads, int cpt,
         int planes, long blocks, K kernel, int block_threads, F &&launch) {
  if (!s.wanted(name))
    return;
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  double rel_max, rel_l2;
  unsigned long long bad;
  const bool ok = check(s, launch, rel_max, rel_l2, bad);
  const size_t sets = s.ins.size();
  const double ms = median_ms(launch, s.runs, s.warm, [&](int i) {
    s.in = s.ins[i % sets];
    s.out = s.outs[i % sets];
  });
  s.in = s.ins[0];
  s.out = s.outs[0];
  const double bytes = 2.0 * s.field_bytes();
  const double gbs = bytes / ms / 1e6;
  const int occ = int(std::lround(100.0 * per_sm * block_threads / 2048));
  const double waves = double(blocks) / (double(per_sm) * s.sms);
  std::printf("%-44s %3d regs %2d blk/SM %3d%% %8.4f ms %7.1f GB/s %5.1f%%  %s "
              "(max %.1e, l2 %.1e%s)\n",
              name.c_str(), attr.numRegs, per_sm, occ, ms, gbs, 100 * gbs / s.peak,
              ok ? "PASS" : "FAIL", rel_max, rel_l2,
              bad ? (", " + std::to_string(bad) + " unwritten").c_str() : "");
  if (attr.localSizeBytes)
    std::printf("  (%zu bytes of local memory a thread)\n", size_t(attr.localSizeBytes));
  std::fflush(stdout);
  if (!ok)
    ++s.failures;
  s.results.push_back({name, threads, cpt, planes, attr.numRegs, per_sm, occ, waves, ms,
                       gbs, 100 * gbs / s.peak, ok});
}

/// A march's chunk sizes (planes a block): nt, nt / 2, nt / 4, nt / 8; the
/// largest chunk count c with columns x c <= k x resident blocks for k = 1
/// to 4 (at least 1); and the rule's: the fewest chunks c (T = ceil(nt / c)
/// giving c chunks) whose grid is 0.75 to 1 wave, or over one wave with its
/// last wave at least 90% full (waves w = columns x c / resident blocks).
/// Returns the rule's T in `rule`.
std::vector<int> chunk_sizes(const Setup &s, long columns, int per_sm, int &rule) {
  const long resident = long(per_sm) * s.sms;
  std::vector<int> Ts;
  for (int d = 1; d <= 8; d *= 2)
    Ts.push_back(std::max(1, s.nt / d));
  for (int k = 1; k <= 4; ++k) {
    const long c = std::max(1L, k * resident / columns);
    Ts.push_back(int((s.nt + c - 1) / c));
  }
  rule = s.nt;
  for (int c = 1; c <= s.nt; ++c) {
    const int T = (s.nt + c - 1) / c;
    if ((s.nt + T - 1) / T != c)
      continue;
    const double w = double(columns) * c / resident;
    if ((w >= 0.75 && w <= 1.0) || (w > 1.0 && w / std::ceil(w) >= 0.9)) {
      rule = T;
      break;
    }
  }
  Ts.push_back(rule);
  std::vector<int> seen;
  for (int T : Ts) {
    T = std::min(T, s.nt);
    if (std::find(seen.begin(), seen.end(), T) == seen.end())
      seen.push_back(T);
  }
  return seen;
}

/// Rows of one march kernel at each chunk size; launch_for(T, chunks) launches.
/// The rule's chunk is marked ", rule" in the row's name.
template <typename K, typename L>
void chunk_rows(Setup &s, const std::string &prefix, const std::string &threads, int cpt,
                K kernel, int block_threads, long columns, L &&launch_for) {
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  int rule = 0;
  for (int T : chunk_sizes(s, columns, per_sm, rule)) {
    const unsigned chunks = (s.nt + T - 1) / T;
    char name[160];
    std::snprintf(name, sizeof name, "%s t%d (%.2f waves%s)", prefix.c_str(), T,
                  double(columns) * chunks / (double(per_sm) * s.sms),
                  T == rule ? ", rule" : "");
    row(s, name, threads, cpt, T, columns * long(chunks), kernel, block_threads,
        [&] { launch_for(T, chunks); });
  }
}

template <int BX, int BY, int CPT, int MINB> void baseline(Setup &s) {
  constexpr int S = NC / CPT;
  const unsigned zblocks = (s.nz + 1) / 2;
  const dim3 block(BX, BY, 4),
      grid(S * ((s.nx / 4 + BX - 1) / BX), (s.ny + BY - 1) / BY,
           zblocks * ((s.nt + 1) / 2));
  char name[96], thr[32];
  std::snprintf(name, sizeof name, "base %dx%dx2x2 cpt%d mb%d", BX, BY, CPT, MINB);
  std::snprintf(thr, sizeof thr, "%dx%dx2x2", BX, BY);
  auto kernel = base<BX, BY, CPT, MINB>;
  row(s, name, thr, CPT, 1, long(grid.x) * grid.y * grid.z, kernel, BX * BY * 4, [&] {
    kernel<<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, zblocks);
  });
}

/// One march kernel at its chunk sizes.
template <int BX, int BY, int BZ, int CPT, bool Shfl = false, bool Prefetch = false,
          int UNR = 1, bool Streaming = false, int MINB = 1>
void marches(Setup &s) {
  constexpr int S = NC / CPT;
  constexpr int threads = BX * BY * BZ;
  auto kernel = march<BX, BY, BZ, CPT, Shfl, Prefetch, UNR, Streaming, MINB>;
  char tag[96];
  std::snprintf(tag, sizeof tag, "march %dx%dx%d cpt%d%s%s%s%s", BX, BY, BZ, CPT,
                Shfl ? " shfl" : "", Prefetch ? " pf" : "", UNR > 1 ? " u2" : "",
                Streaming ? " cs" : "");
  std::string prefix = tag;
  if (MINB > 1)
    prefix += " mb" + std::to_string(MINB);
  if (Shfl && (s.nx != 4 * BX || s.ny % BY || s.nz % BZ)) {
    std::printf("%s: skipped (shuffles need nx = %d and whole blocks)\n", prefix.c_str(),
                4 * BX);
    return;
  }
  const unsigned xblocks = (s.nx / 4 + BX - 1) / BX, zblocks = (s.nz + BZ - 1) / BZ;
  const long columns = long(S) * xblocks * ((s.ny + BY - 1) / BY) * zblocks;
  char thr[32];
  std::snprintf(thr, sizeof thr, "%dx%dx%d", BX, BY, BZ);
  chunk_rows(s, prefix, thr, CPT, kernel, threads, columns, [&](int T, unsigned chunks) {
    const dim3 block(BX, BY, BZ),
        grid(S * xblocks, (s.ny + BY - 1) / BY, zblocks * chunks);
    kernel<<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, xblocks, zblocks, T);
  });
}

template <int CPT, bool Streaming> void baseline_aos(Setup &s) {
  constexpr int S = NC / CPT;
  const unsigned zblocks = (s.nz + 1) / 2;
  const dim3 block(32, 2, 4),
      grid(S * ((s.nx + 31) / 32), (s.ny + 1) / 2, zblocks * ((s.nt + 1) / 2));
  char name[96];
  std::snprintf(name, sizeof name, "base-aos 32x2x2x2 cpt%d%s", CPT,
                Streaming ? " cs" : "");
  auto kernel = base_aos<CPT, Streaming>;
  row(s, name, "32x2x2x2", CPT, 1, long(grid.x) * grid.y * grid.z, kernel, 256, [&] {
    kernel<<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, zblocks);
  });
}

template <int BX, int BY, int BZ, int CPT, bool Streaming = false, int MINB = 1>
void marches_aos(Setup &s) {
  constexpr int S = NC / CPT;
  auto kernel = march_aos<BX, BY, BZ, CPT, Streaming, MINB>;
  char tag[96], thr[32];
  std::snprintf(tag, sizeof tag, "march-aos %dx%dx%d cpt%d%s", BX, BY, BZ, CPT,
                Streaming ? " cs" : "");
  std::string prefix = tag;
  if (MINB > 1)
    prefix += " mb" + std::to_string(MINB);
  std::snprintf(thr, sizeof thr, "%dx%dx%d", BX, BY, BZ);
  const unsigned xblocks = (s.nx + BX - 1) / BX, zblocks = (s.nz + BZ - 1) / BZ;
  const long columns = long(S) * xblocks * ((s.ny + BY - 1) / BY) * zblocks;
  chunk_rows(s, prefix, thr, CPT, kernel, BX * BY * BZ, columns,
             [&](int T, unsigned chunks) {
               const dim3 block(BX, BY, BZ),
                   grid(S * xblocks, (s.ny + BY - 1) / BY, zblocks * chunks);
               kernel<<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, zblocks, T);
             });
}

template <typename R> const char *type_tag() { return sizeof(R) == 8 ? "f64" : "f32"; }

template <typename R, int W, int BX, int BY, int BZ> void baseline1(Setup &s) {
  const unsigned zblocks = (s.nz + BZ - 1) / BZ;
  const dim3 block(BX, BY, BZ),
      grid((s.nx / W + BX - 1) / BX, (s.ny + BY - 1) / BY, zblocks * ((s.nt + 1) / 2));
  char name[96], thr[32];
  std::snprintf(name, sizeof name, "base1 %s %dx%dx%dx1 t2", type_tag<R>(), BX, BY, BZ);
  std::snprintf(thr, sizeof thr, "%dx%dx%dx1", BX, BY, BZ);
  auto kernel = base1<R, W, BX, BY, BZ>;
  row(s, name, thr, 1, 2, long(grid.x) * grid.y * grid.z, kernel, BX * BY * BZ, [&] {
    kernel<<<grid, block>>>(s.O<R>(), s.I<R>(), s.nx, s.ny, s.nz, s.nt, zblocks);
  });
}

template <typename R, int W, int BX, int BY, int BZ, bool Shfl = false,
          bool Prefetch = false, int MINB = 1>
void marches1(Setup &s) {
  auto kernel = march1<R, W, BX, BY, BZ, Shfl, Prefetch, MINB>;
  char tag[96], thr[32];
  std::snprintf(tag, sizeof tag, "march1 %s %dx%dx%d%s%s", type_tag<R>(), BX, BY, BZ,
                Shfl ? " shfl" : "", Prefetch ? " pf" : "");
  std::string prefix = tag;
  if (MINB > 1)
    prefix += " mb" + std::to_string(MINB);
  if (Shfl && (s.nx != W * BX || s.ny % BY || s.nz % BZ)) {
    std::printf("%s: skipped (shuffles need nx = %d and whole blocks)\n", prefix.c_str(),
                W * BX);
    return;
  }
  std::snprintf(thr, sizeof thr, "%dx%dx%d", BX, BY, BZ);
  const unsigned xblocks = (s.nx / W + BX - 1) / BX, zblocks = (s.nz + BZ - 1) / BZ;
  const long columns = long(xblocks) * ((s.ny + BY - 1) / BY) * zblocks;
  chunk_rows(s, prefix, thr, 1, kernel, BX * BY * BZ, columns,
             [&](int T, unsigned chunks) {
               const dim3 block(BX, BY, BZ),
                   grid(xblocks, (s.ny + BY - 1) / BY, zblocks * chunks);
               kernel<<<grid, block>>>(s.O<R>(), s.I<R>(), s.nx, s.ny, s.nz, s.nt,
                                       zblocks, T);
             });
}

/// The naive kernel against a host loop in double.
template <typename R> void host_check(Setup &s) {
  const bool aos = s.mode == Mode::Aos;
  s.fill_input(s.in, ++s.seed);
  CHECK(cudaMemset(s.ref, 0xff, s.n * s.esize));
  s.run_naive(s.ref);
  CHECK(cudaDeviceSynchronize());
  std::vector<R> in(s.n), ref(s.n);
  CHECK(cudaMemcpy(in.data(), s.in, s.n * sizeof(R), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ref.data(), s.ref, s.n * sizeof(R), cudaMemcpyDeviceToHost));
  std::mt19937_64 rng(7);
  double worst = 0, worst_abs = 0;
  const int nx = s.nx, ny = s.ny, nz = s.nz, nt = s.nt, C = s.nc;
  auto index = [&](Index site, int c) {
    return aos ? site * C + c : Index(c) * s.V + site;
  };
  for (int k = 0; k < 100000; ++k) {
    const Index site = Index(rng() % s.V);
    const int c = int(rng() % C);
    const int x = int(site % nx), y = int(site / nx % ny), z = int(site / nx / ny % nz),
              t = int(site / nx / ny / nz);
    auto at = [&](int xx, int yy, int zz, int tt) {
      return double(in[index(((Index(tt) * nz + zz) * ny + yy) * nx + xx, c)]);
    };
    const double nb[8] = {at(wrap(x - 1, nx), y, z, t), at(wrap(x + 1, nx), y, z, t),
                          at(x, wrap(y - 1, ny), z, t), at(x, wrap(y + 1, ny), z, t),
                          at(x, y, wrap(z - 1, nz), t), at(x, y, wrap(z + 1, nz), t),
                          at(x, y, z, wrap(t - 1, nt)), at(x, y, z, wrap(t + 1, nt))};
    double r = (8.0 + double(mass<R>())) * at(x, y, z, t);
    double scale = std::fabs(r);
    for (double v : nb)
      r -= v, scale += std::fabs(v);
    const double got = ref[index(site, c)];
    worst = std::max(worst, std::fabs(got - r) / scale);
    worst_abs = std::max(worst_abs, std::fabs(got - r));
  }
  // Relative to the sum of the terms' magnitudes (|8.1 u| + sum |neighbours|):
  // the bound float summation obeys; an output near zero has no relative
  // error of its own.
  std::printf("naive against the host in double, 100000 (site, component) pairs: "
              "worst |error| / sum |terms| %.2e (worst |error| %.2e) %s\n",
              worst, worst_abs, worst < s.tol ? "PASS" : "FAIL");
  if (!(worst < s.tol))
    ++s.failures;
}

double copy_peak(float *a, float *b, size_t bytes, int runs) {
  const float ms = median_ms(
      [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, runs, 3);
  return 2.0 * bytes / ms / 1e6;
}

// --- the modes' rows ---------------------------------------------------------------------

#if WITH(1)
/// The first probe's list (docs/results/probe-h200-t-march-vec24.txt).
void soa_rows(Setup &s) {
  baseline<8, 4, 6, 4>(s);
  baseline<8, 4, 2, 4>(s);
  baseline<8, 4, 6, 1>(s);

  // Shapes and shares.
  marches<8, 4, 4, 6>(s);
  marches<8, 8, 2, 6>(s);
  marches<8, 2, 8, 6>(s);
  marches<8, 8, 4, 6>(s);
  marches<8, 4, 4, 3>(s);
  marches<8, 8, 2, 3>(s);
  marches<8, 2, 8, 3>(s);
  marches<8, 8, 4, 3>(s);
  marches<8, 4, 4, 2>(s);
  marches<8, 8, 4, 2>(s);
  marches<8, 8, 8, 2>(s);
  marches<8, 4, 4, 12>(s);
  marches<8, 8, 2, 12>(s);
  // Options: x halo by shuffles, prefetch, unroll 2, streaming stores,
  // resident blocks.
  marches<8, 4, 4, 4, true>(s);
  marches<8, 8, 4, 4, true>(s);
  marches<8, 4, 4, 8, true>(s);
  marches<8, 4, 4, 1, true>(s);
  marches<8, 8, 4, 1, true>(s);
  marches<8, 4, 2, 3, true>(s);
  marches<8, 4, 8, 3, true>(s);
  marches<8, 8, 8, 3, true>(s);
  marches<8, 4, 4, 6, true>(s);
  marches<8, 8, 4, 6, true>(s);
  marches<8, 4, 4, 3, true>(s);
  marches<8, 8, 4, 3, true>(s);
  marches<8, 4, 4, 2, true>(s);
  marches<8, 4, 4, 3, false, true>(s);
  marches<8, 4, 4, 2, false, true>(s);
  marches<8, 4, 4, 3, true, true>(s);
  marches<8, 4, 4, 6, false, false, 2>(s);
  marches<8, 4, 4, 3, false, false, 2>(s);
  marches<8, 4, 4, 6, false, false, 1, true>(s);
  marches<8, 4, 4, 3, false, false, 1, true>(s);
  marches<8, 4, 4, 6, false, false, 1, false, 4>(s);
  marches<8, 4, 4, 6, false, false, 1, false, 3>(s);
  marches<8, 4, 4, 3, false, false, 1, false, 6>(s);
  marches<8, 8, 4, 3, false, false, 1, false, 3>(s);
  marches<8, 4, 4, 2, false, false, 1, false, 8>(s);
  marches<8, 4, 4, 2, true, false, 1, false, 8>(s);

  baseline<8, 4, 6, 4>(s); // again, for the spread
}
#endif

#if WITH(2)
/// The soa field at other lattices: the tuned form, blocks whose rows fit
/// nx / 4 float4s, and the marches of 3 components a thread (the first
/// probe's best share) in shapes whose rows fit.
void soa_sizes_rows(Setup &s) {
  const int gx = s.nx / 4; // float4s a row
  auto fits = [&](int BX) { return BX == 8 || gx % BX == 0; };
  baseline<8, 4, 6, 4>(s);
  baseline<8, 4, 2, 4>(s);
  if (fits(6)) {
    baseline<6, 4, 6, 5>(s);
    baseline<6, 4, 2, 5>(s);
  }
  if (fits(4))
    baseline<4, 8, 6, 4>(s);
  if (fits(12)) {
    baseline<12, 4, 6, 3>(s);
    baseline<12, 4, 2, 4>(s);
  }
  marches<8, 8, 4, 3, true>(s);
  marches<8, 4, 8, 3, true>(s);
  marches<8, 4, 4, 3, true>(s);
  marches<8, 4, 4, 3>(s);
  marches<8, 8, 4, 3>(s);
  marches<8, 8, 2, 3>(s);
  marches<8, 4, 4, 2, true, false, 1, false, 8>(s);
  marches<8, 4, 2, 3, true>(s);
  marches<8, 4, 2, 3>(s);
  if (fits(4)) {
    marches<4, 8, 4, 3>(s);
    marches<4, 8, 8, 3>(s);
    marches<4, 16, 4, 3>(s);
  }
  if (fits(6)) {
    marches<6, 8, 4, 3>(s);
    marches<6, 4, 4, 3>(s);
    marches<6, 4, 8, 3>(s);
    marches<6, 4, 2, 3>(s);
    marches<6, 4, 4, 2>(s);
    marches<6, 2, 4, 3>(s);
  }
  if (fits(12)) {
    marches<12, 4, 4, 3>(s);
    marches<12, 4, 2, 3>(s);
    marches<12, 8, 2, 3>(s);
    marches<12, 2, 2, 3>(s);
    marches<12, 4, 2, 2>(s);
  }
  baseline<8, 4, 6, 4>(s); // again, for the spread
}
#endif

#if WITH(3)
void aos_rows(Setup &s) {
  baseline_aos<8, true>(s); // the tuned entry's form
  baseline_aos<8, false>(s);
  baseline_aos<4, true>(s);
  marches_aos<32, 4, 2, 8>(s);
  marches_aos<32, 2, 4, 8>(s);
  marches_aos<32, 4, 4, 8>(s);
  marches_aos<32, 2, 2, 8>(s);
  marches_aos<32, 4, 2, 8, true>(s);
  marches_aos<32, 4, 2, 4>(s);
  marches_aos<32, 4, 4, 4>(s);
  marches_aos<32, 8, 2, 4>(s);
  marches_aos<32, 4, 2, 4, true>(s);
  marches_aos<32, 4, 2, 4, false, 4>(s);
  marches_aos<32, 2, 2, 8, false, 5>(s);
  marches_aos<32, 2, 2, 4, false, 8>(s);
  marches_aos<32, 4, 2, 4, false, 5>(s);
  marches_aos<32, 4, 2, 8, false, 3>(s);
  marches_aos<32, 2, 2, 8, false, 6>(s);
  marches_aos<32, 4, 2, 12>(s);
  marches_aos<32, 2, 2, 12>(s);
  marches_aos<32, 2, 2, 24>(s);
  baseline_aos<8, true>(s); // again, for the spread
}
#endif

#if WITH(4)
void single_rows(Setup &s) { // double, 2 sites a thread, as the spec
  baseline1<double, 2, 32, 4, 2>(s);
  marches1<double, 2, 32, 4, 2, true>(s);
  marches1<double, 2, 32, 4, 4, true>(s);
  marches1<double, 2, 32, 2, 2, true>(s);
  marches1<double, 2, 32, 8, 2, true>(s);
  marches1<double, 2, 32, 4, 1, true>(s);
  marches1<double, 2, 32, 4, 2>(s);
  marches1<double, 2, 32, 4, 2, true, true>(s);
  marches1<double, 2, 32, 4, 4, true, true>(s);
  marches1<double, 2, 32, 4, 2, true, false, 6>(s);
  marches1<double, 2, 32, 4, 1, true, false, 12>(s);
  baseline1<double, 2, 32, 4, 2>(s); // again
}
void single_float_rows(Setup &s) { // float, 4 sites a thread, as the brief
  baseline1<float, 4, 16, 8, 2>(s);
  baseline1<float, 4, 32, 4, 2>(s);
  marches1<float, 4, 16, 8, 2, true>(s);
  marches1<float, 4, 16, 8, 4, true>(s);
  marches1<float, 4, 16, 4, 2, true>(s);
  marches1<float, 4, 16, 16, 2, true>(s);
  marches1<float, 4, 16, 4, 4, true>(s);
  marches1<float, 4, 16, 8, 2>(s);
  marches1<float, 4, 16, 8, 2, true, true>(s);
  marches1<float, 4, 16, 8, 4, true, true>(s);
  marches1<float, 4, 16, 8, 2, true, false, 6>(s);
  marches1<float, 4, 16, 4, 2, true, false, 12>(s);
  baseline1<float, 4, 16, 8, 2>(s); // again
}
#endif

const char *mode_name(Mode m) {
  switch (m) {
  case Mode::Soa: return "soa";
  case Mode::SoaSizes: return "soa-sizes";
  case Mode::Aos: return "aos";
  case Mode::Single: return "single";
  case Mode::SingleFloat: return "single-float";
  }
  return "?";
}

int main(int argc, char **argv) {
  int nx = 0, ny = 0, nz = 0, nt = 0, runs = 50;
  Mode mode = Mode::Soa;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--lattice" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%dx%dx%dx%d", &nx, &ny, &nz, &nt) != 4) {
        std::fprintf(stderr, "--lattice NXxNYxNZxNT\n");
        return 2;
      }
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--mode" && i + 1 < argc) {
      const std::string m = argv[++i];
      if (m == "soa")
        mode = Mode::Soa;
      else if (m == "soa-sizes")
        mode = Mode::SoaSizes;
      else if (m == "aos")
        mode = Mode::Aos;
      else if (m == "single")
        mode = Mode::Single;
      else if (m == "single-float")
        mode = Mode::SingleFloat;
      else {
        std::fprintf(stderr, "--mode soa|soa-sizes|aos|single|single-float\n");
        return 2;
      }
    } else if (a == "--only" && i + 1 < argc) {
      std::string list = argv[++i];
      size_t p = 0;
      while (p <= list.size()) {
        const size_t q = std::min(list.find(',', p), list.size());
        if (q > p)
          only.push_back(list.substr(p, q - p));
        p = q + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--mode soa|soa-sizes|aos|single|single-float] "
                   "[--lattice NXxNYxNZxNT] [--runs N] [--only S1,S2]\n",
                   argv[0]);
      return 2;
    }
  }
  const bool single = mode == Mode::Single || mode == Mode::SingleFloat;
  if (nx == 0) {
    if (single)
      nx = 64, ny = 64, nz = 64, nt = 128;
    else
      nx = 32, ny = 32, nz = 32, nt = 64;
  }
  if (nx % 4 || nx < 4 || ny < 3 || nz < 3 || nt < 3) {
    std::fprintf(stderr, "nx must be a multiple of 4; every extent at least 3\n");
    return 2;
  }
  Setup s;
  s.mode = mode;
  s.nx = nx, s.ny = ny, s.nz = nz, s.nt = nt;
  s.V = Index(nx) * ny * nz * nt;
  s.nc = single ? 1 : NC;
  s.n = s.V * s.nc;
  s.esize = mode == Mode::Single ? 8 : 4;
  s.tol = mode == Mode::Single ? kToleranceF64 : kTolerance;
  s.runs = std::max(runs, 1);
  s.warm = runs > 1 ? 5 : 0;
  s.seed = 1000;
  s.only = only;
  // Rotation: enough input and output pairs for 200 MB of input, at most 4.
  const int sets = int(std::min<double>(4, std::max(1.0, std::ceil(200e6 / s.field_bytes()))));
  for (int k = 0; k < sets; ++k) {
    float *a, *b;
    CHECK(cudaMalloc(&a, s.n * s.esize));
    CHECK(cudaMalloc(&b, s.n * s.esize));
    s.ins.push_back(a);
    s.outs.push_back(b);
    s.fill_input(a, 500 + k);
    CHECK(cudaMemset(b, 0, s.n * s.esize));
  }
  s.in = s.ins[0];
  s.out = s.outs[0];
  CHECK(cudaMalloc(&s.ref, s.n * s.esize));
  CHECK(cudaMalloc(&s.diff, sizeof(Diff)));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  s.sms = prop.multiProcessorCount;
  const size_t copy_bytes = size_t(1) << 30;
  float *ca, *cb;
  CHECK(cudaMalloc(&ca, copy_bytes));
  CHECK(cudaMalloc(&cb, copy_bytes));
  fill<float><<<4096, 256>>>(ca, Index(copy_bytes / 4), 1);
  CHECK(cudaGetLastError());
  s.peak = copy_peak(ca, cb, copy_bytes, 30);
  const char *storage = mode == Mode::Aos ? "24 floats a site (aos)"
                        : mode == Mode::Single ? "1 double a site"
                        : mode == Mode::SingleFloat ? "1 float a site"
                                                    : "24 floats a site (soa)";
  std::printf("mode %s: %s, %d SMs, L2 %d MB; lattice %dx%dx%dx%d, %s, %.1f MB a field, "
              "%d input/output set%s rotated\n",
              mode_name(mode), prop.name, s.sms, prop.l2CacheSize >> 20, nx, ny, nz, nt,
              storage, s.field_bytes() / 1e6, sets, sets > 1 ? "s" : "");
  std::printf("copy peak (cudaMemcpy D2D, 1 GiB, read + written): %.1f GB/s; "
              "median of %d runs, %d warm-ups a kernel\n",
              s.peak, s.runs, s.warm);
  if (mode == Mode::Single)
    host_check<double>(s);
  else
    host_check<float>(s);
  std::printf("%-44s %s\n", "kernel", "registers, resident blocks an SM, occupancy, "
                                      "median, GB/s, % of copy, check");

  const char *reference = "";
  bool built = false;
  switch (mode) {
  case Mode::Soa:
#if WITH(1)
    soa_rows(s), built = true;
#endif
    reference = "base 8x4x2x2 cpt6 mb4";
    break;
  case Mode::SoaSizes:
#if WITH(2)
    soa_sizes_rows(s), built = true;
#endif
    reference = "base 8x4x2x2 cpt6 mb4";
    break;
  case Mode::Aos:
#if WITH(3)
    aos_rows(s), built = true;
#endif
    reference = "base-aos 32x2x2x2 cpt8 cs";
    break;
  case Mode::Single:
#if WITH(4)
    single_rows(s), built = true;
#endif
    reference = "base1 f64 32x4x2x1 t2";
    break;
  case Mode::SingleFloat:
#if WITH(4)
    single_float_rows(s), built = true;
#endif
    reference = "base1 f32 16x8x2x1 t2";
    break;
  }
  if (!built) {
    std::fprintf(stderr, "mode %s is not in this build (PART %d)\n", mode_name(mode), PART);
    return 2;
  }
  const double peak2 = copy_peak(ca, cb, copy_bytes, 30);
  std::printf("copy again: %.1f GB/s\n", peak2);

  // Summary: the reference baseline (the tuned or generated form; its best
  // of two rows), the best baseline row, and the fastest checked rows.
  const Result *ref_base = nullptr, *best_base = nullptr, *best_march = nullptr;
  for (const auto &r : s.results) {
    if (!r.ok)
      continue;
    const bool is_base = r.name.rfind("base", 0) == 0;
    if (r.name == reference && (!ref_base || r.ms < ref_base->ms))
      ref_base = &r;
    if (is_base && (!best_base || r.ms < best_base->ms))
      best_base = &r;
    if (!is_base && (!best_march || r.ms < best_march->ms))
      best_march = &r;
  }
  std::printf("\nbaselines and fastest marches (checked), mode %s, lattice %dx%dx%dx%d:\n",
              mode_name(mode), nx, ny, nz, nt);
  std::printf("  %-44s %-9s %-5s %-4s %6s %4s %5s %8s %6s %s\n", "kernel", "threads", "cpt",
              "T", "waves", "regs", "occ", "GB/s", "%copy", "check");
  auto line = [&](const Result &r) {
    std::printf("  %-44s %-9s cpt%-2d t%-3d %6.2f %4d %4d%% %8.1f %5.1f%% %s\n",
                r.name.c_str(), r.threads.c_str(), r.cpt, r.planes, r.waves, r.regs, r.occ,
                r.gbs, r.pct, r.ok ? "PASS" : "FAIL");
  };
  std::vector<const Result *> sorted;
  for (const auto &r : s.results)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Result *a, const Result *b) { return a->ms < b->ms; });
  for (const Result *r : sorted)
    if (r->name.rfind("base", 0) == 0)
      line(*r);
  int shown = 0;
  for (const Result *r : sorted)
    if (r->name.rfind("base", 0) != 0 && shown++ < 12)
      line(*r);
  if (ref_base && best_march)
    std::printf("best march %s: %.1f GB/s (%.1f%%) against %s's %.1f (%.1f%%): %+.1f%%\n",
                best_march->name.c_str(), best_march->gbs, best_march->pct, reference,
                ref_base->gbs, ref_base->pct, 100 * (best_march->gbs / ref_base->gbs - 1));
  if (best_base && best_march && best_base != ref_base)
    std::printf("  against the best baseline row, %s's %.1f: %+.1f%%\n",
                best_base->name.c_str(), best_base->gbs,
                100 * (best_march->gbs / best_base->gbs - 1));
  std::printf("%d checks failed\n", s.failures);
  return s.failures ? 1 : 0;
}
