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
// probe-h200-t-march-vec24.txt.
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
// resident blocks. A block's chunk of planes is a launch argument: 64, 32,
// 16, 8, and the chunks that make the grid one, two and four whole waves
// of resident blocks (occupancy API times multiprocessors).
//
// `base`: the tuned kernel's form (block 8x4x2x2, one t plane a thread, 4
// sites along x a float4 with the x halo as two scalar loads, loads in the
// spec's order -YZT +YZT -X +X C, launch bounds 128 with 4 blocks an SM).
//
// Every kernel is checked against a naive kernel (one thread a site and
// component, plain loads with wrap) on fresh random non-zero input, with the
// output poisoned (NaN) first: max |out - ref| / max |ref| under 1e-5 and no
// element unwritten. The naive kernel is checked against a host loop in
// double on 100000 random (site, component) pairs. GB/s counts the field
// read once and written once; percentages are of the same run's copy
// (cudaMemcpy device to device, 1 GiB buffers, bytes read plus written).
//   nvcc -O3 -std=c++17 -arch=sm_90 -o t_march_vec24 t_march_vec24.cu
//   ./t_march_vec24 [--lattice NXxNYxNZxNT] [--runs N] [--only S1,S2,...]
//   (--runs 1: each kernel checked, then run once without warm-ups, for
//   Nsight Compute; --only keeps the rows whose name holds one of S1, S2)
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

using Index = long long;
constexpr int NC = 24;
constexpr float kMass = 0.1f;
constexpr double kTolerance = 1e-5;

__host__ __device__ inline int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

// --- naive reference ----------------------------------------------------------

__global__ void naive(float *__restrict__ out, const float *__restrict__ in,
                      int nx, int ny, int nz, int nt) {
  const Index V = Index(nx) * ny * nz * nt;
  const Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x;
  if (i >= V * NC)
    return;
  const Index s = i % V, c = i / V;
  const int x = int(s % nx), y = int(s / nx % ny), z = int(s / nx / ny % nz),
            t = int(s / nx / ny / nz);
  const float *u = in + c * V;
  auto at = [&](int xx, int yy, int zz, int tt) {
    return u[((Index(tt) * nz + zz) * ny + yy) * nx + xx];
  };
  float r = (8.f + kMass) * at(x, y, z, t);
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

// --- the baseline: the tuned kernel's form ------------------------------------------

/// Block (8, 4, 4): threadIdx.z = z % 2 + 2 (t % 2), as the generated kernel
/// lays out 8x4x2x2. blockIdx.x counts the 24 / CPT shares of a site fastest.
template <int CPT, int MINB>
__global__ void __launch_bounds__(128, MINB)
    base(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
         int nz, int nt, unsigned zblocks) {
  constexpr int S = NC / CPT;
  const int g = blockIdx.x % S;
  const int x0 = 4 * int((blockIdx.x / S) * 8u + threadIdx.x);
  const int y = int(blockIdx.y * 4u + threadIdx.y);
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

/// P = (8 + mass) u - in-plane neighbours, from the raw loads. With Shfl the x
/// halo comes from the lanes holding the float4s left and right of this one
/// (BX lanes span a whole row; the row wraps among them).
template <int CPT, int BX, bool Shfl>
__device__ inline void plane_sum(float4 (&P)[CPT], const Raw<CPT> &r) {
  const unsigned lane = threadIdx.x + BX * (threadIdx.y + blockDim.y * threadIdx.z);
  const int base = int(lane % 32u) & ~(BX - 1), lx = int(lane % 32u) & (BX - 1);
  const int from_l = base | ((lx + BX - 1) & (BX - 1)),
            from_r = base | ((lx + 1) & (BX - 1));
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
  static_assert(32 % BX == 0, "a row's threads stay inside a warp");
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

// --- input, checks, timing -------------------------------------------------------------

__device__ inline unsigned hash(unsigned a) {
  a ^= a >> 16, a *= 0x7feb352du, a ^= a >> 15, a *= 0x846ca68bu, a ^= a >> 16;
  return a;
}
/// Random values in [-1, 1], never zero.
__global__ void fill(float *p, Index n, unsigned seed) {
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n;
       i += Index(blockDim.x) * gridDim.x) {
    const unsigned h = hash(unsigned(i) ^ hash(seed + unsigned(i >> 32) * 977u));
    const float m = float((h >> 9) + 1u) * (1.f / 8388608.f);
    p[i] = (h & 1u) ? m : -m;
  }
}

struct Diff {
  unsigned max_diff, max_ref; // float bits (non-negative)
  unsigned long long bad;     // non-finite outputs (unwritten: NaN poison)
  double sq_diff, sq_ref;
};

__global__ void compare(Diff *d, const float *got, const float *ref, Index n) {
  float md = 0.f, mr = 0.f;
  double sd = 0, sr = 0;
  unsigned long long bad = 0;
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n;
       i += Index(blockDim.x) * gridDim.x) {
    const float a = got[i], b = ref[i];
    if (!isfinite(a)) {
      ++bad;
      continue;
    }
    const float e = fabsf(a - b);
    md = fmaxf(md, e);
    mr = fmaxf(mr, fabsf(b));
    sd += double(e) * e;
    sr += double(b) * b;
  }
  for (int k = 16; k > 0; k /= 2) {
    md = fmaxf(md, __shfl_down_sync(0xffffffffu, md, k));
    mr = fmaxf(mr, __shfl_down_sync(0xffffffffu, mr, k));
    sd += __shfl_down_sync(0xffffffffu, sd, k);
    sr += __shfl_down_sync(0xffffffffu, sr, k);
    bad += __shfl_down_sync(0xffffffffu, bad, k);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&d->max_diff, __float_as_uint(md));
    atomicMax(&d->max_ref, __float_as_uint(mr));
    atomicAdd(&d->bad, bad);
    atomicAdd(&d->sq_diff, sd);
    atomicAdd(&d->sq_ref, sr);
  }
}

template <typename F> float median_ms(F &&launch, int runs, int warm) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warm; ++i)
    launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < runs; ++i) {
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
  double ms, gbs, pct;
  bool ok;
};

struct Setup {
  int nx, ny, nz, nt;
  Index V;
  float *in, *out, *ref;
  Diff *diff;
  double peak;
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
  void run_naive(float *dst) const {
    const Index n = V * NC;
    naive<<<unsigned((n + 255) / 256), 256>>>(dst, in, nx, ny, nz, nt);
    CHECK(cudaGetLastError());
  }
};

/// Fresh input, the naive kernel into ref, NaN into out, the kernel, compare.
template <typename F> bool check(Setup &s, F &&launch, double &rel_max, double &rel_l2,
                                 unsigned long long &bad) {
  const Index n = s.V * NC;
  fill<<<4096, 256>>>(s.in, n, ++s.seed);
  CHECK(cudaGetLastError());
  s.run_naive(s.ref);
  CHECK(cudaMemset(s.out, 0xff, n * sizeof(float))); // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaMemset(s.diff, 0, sizeof(Diff)));
  compare<<<4096, 256>>>(s.diff, s.out, s.ref, n);
  CHECK(cudaGetLastError());
  Diff d;
  CHECK(cudaMemcpy(&d, s.diff, sizeof d, cudaMemcpyDeviceToHost));
  float md, mr;
  std::memcpy(&md, &d.max_diff, 4);
  std::memcpy(&mr, &d.max_ref, 4);
  rel_max = md / double(mr);
  rel_l2 = std::sqrt(d.sq_diff / d.sq_ref);
  bad = d.bad;
  return bad == 0 && rel_max < kTolerance;
}

template <typename K, typename F>
void row(Setup &s, const std::string &name, const std::string &threads, int cpt,
         int planes, K kernel, int block_threads, F &&launch) {
  if (!s.wanted(name))
    return;
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, kernel));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_threads, 0));
  double rel_max, rel_l2;
  unsigned long long bad;
  const bool ok = check(s, launch, rel_max, rel_l2, bad);
  const double ms = median_ms(launch, s.runs, s.warm);
  const double bytes = 2.0 * sizeof(float) * NC * double(s.V);
  const double gbs = bytes / ms / 1e6;
  const int occ = int(std::lround(100.0 * per_sm * block_threads / 2048));
  std::printf("%-40s %3d regs %2d blk/SM %3d%% %8.4f ms %7.1f GB/s %5.1f%%  %s "
              "(max %.1e, l2 %.1e%s)\n",
              name.c_str(), attr.numRegs, per_sm, occ, ms, gbs, 100 * gbs / s.peak,
              ok ? "PASS" : "FAIL", rel_max, rel_l2,
              bad ? (", " + std::to_string(bad) + " unwritten").c_str() : "");
  if (attr.localSizeBytes)
    std::printf("  (%zu bytes of local memory a thread)\n", size_t(attr.localSizeBytes));
  std::fflush(stdout);
  if (!ok)
    ++s.failures;
  s.results.push_back({name, threads, cpt, planes, attr.numRegs, per_sm, occ, ms, gbs,
                       100 * gbs / s.peak, ok});
}

template <int CPT, int MINB> void baseline(Setup &s) {
  constexpr int S = NC / CPT;
  const unsigned zblocks = (s.nz + 1) / 2;
  const dim3 block(8, 4, 4),
      grid(S * ((s.nx / 4 + 7) / 8), (s.ny + 3) / 4, zblocks * ((s.nt + 1) / 2));
  char name[96];
  std::snprintf(name, sizeof name, "base 8x4x2x2 cpt%d mb%d", CPT, MINB);
  row(s, name, "8x4x2x2", CPT, 1, base<CPT, MINB>, 128, [&] {
    base<CPT, MINB><<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, zblocks);
  });
}

/// One march kernel at chunks of 64, 32, 16 and 8 planes, and the chunks that
/// make one, two and four whole waves.
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
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  std::vector<int> Ts{64, 32, 16, 8};
  for (int waves = 1; waves <= 4; waves *= 2) {
    const long chunks = std::max(1L, long(per_sm) * s.sms * waves / columns);
    Ts.push_back(int((s.nt + chunks - 1) / chunks));
  }
  std::vector<int> seen;
  for (int T : Ts) {
    T = std::min(T, s.nt);
    if (std::find(seen.begin(), seen.end(), T) != seen.end())
      continue;
    seen.push_back(T);
    const unsigned chunks = (s.nt + T - 1) / T;
    const dim3 block(BX, BY, BZ),
        grid(S * xblocks, (s.ny + BY - 1) / BY, zblocks * chunks);
    char name[128];
    std::snprintf(name, sizeof name, "%s t%d (%.2f waves)", prefix.c_str(), T,
                  double(columns) * chunks / (double(per_sm) * s.sms));
    char thr[32];
    std::snprintf(thr, sizeof thr, "%dx%dx%d", BX, BY, BZ);
    row(s, name, thr, CPT, T, kernel, threads, [&] {
      kernel<<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, s.nt, xblocks, zblocks, T);
    });
  }
}

/// The naive kernel against a host loop in double.
void host_check(Setup &s) {
  const Index n = s.V * NC;
  fill<<<4096, 256>>>(s.in, n, ++s.seed);
  CHECK(cudaGetLastError());
  CHECK(cudaMemset(s.ref, 0xff, n * sizeof(float)));
  s.run_naive(s.ref);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> in(n), ref(n);
  CHECK(cudaMemcpy(in.data(), s.in, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ref.data(), s.ref, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::mt19937_64 rng(7);
  double worst = 0, worst_abs = 0;
  const int nx = s.nx, ny = s.ny, nz = s.nz, nt = s.nt;
  for (int k = 0; k < 100000; ++k) {
    const Index site = Index(rng() % s.V);
    const int c = int(rng() % NC);
    const int x = int(site % nx), y = int(site / nx % ny), z = int(site / nx / ny % nz),
              t = int(site / nx / ny / nz);
    auto at = [&](int xx, int yy, int zz, int tt) {
      return double(in[c * s.V + ((Index(tt) * nz + zz) * ny + yy) * nx + xx]);
    };
    const double nb[8] = {at(wrap(x - 1, nx), y, z, t), at(wrap(x + 1, nx), y, z, t),
                          at(x, wrap(y - 1, ny), z, t), at(x, wrap(y + 1, ny), z, t),
                          at(x, y, wrap(z - 1, nz), t), at(x, y, wrap(z + 1, nz), t),
                          at(x, y, z, wrap(t - 1, nt)), at(x, y, z, wrap(t + 1, nt))};
    double r = (8.0 + double(kMass)) * at(x, y, z, t);
    double scale = std::fabs(r);
    for (double v : nb)
      r -= v, scale += std::fabs(v);
    const double got = ref[c * s.V + site];
    worst = std::max(worst, std::fabs(got - r) / scale);
    worst_abs = std::max(worst_abs, std::fabs(got - r));
  }
  // Relative to the sum of the terms' magnitudes (|8.1 u| + sum |neighbours|):
  // the bound float summation obeys; an output near zero has no relative
  // error of its own.
  std::printf("naive against the host in double, 100000 (site, component) pairs: "
              "worst |error| / sum |terms| %.2e (worst |error| %.2e) %s\n",
              worst, worst_abs, worst < kTolerance ? "PASS" : "FAIL");
  if (!(worst < kTolerance))
    ++s.failures;
}

double copy_peak(float *a, float *b, size_t bytes, int runs) {
  const float ms = median_ms(
      [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, runs, 3);
  return 2.0 * bytes / ms / 1e6;
}

int main(int argc, char **argv) {
  int nx = 32, ny = 32, nz = 32, nt = 64, runs = 50;
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
                   "usage: %s [--lattice NXxNYxNZxNT] [--runs N] [--only S1,S2]\n",
                   argv[0]);
      return 2;
    }
  }
  if (nx % 4 || nx < 4 || ny < 3 || nz < 3 || nt < 3) {
    std::fprintf(stderr, "nx must be a multiple of 4; every extent at least 3\n");
    return 2;
  }
  Setup s;
  s.nx = nx, s.ny = ny, s.nz = nz, s.nt = nt;
  s.V = Index(nx) * ny * nz * nt;
  s.runs = std::max(runs, 1);
  s.warm = runs > 1 ? 5 : 0;
  s.seed = 1000;
  s.only = only;
  const Index n = s.V * NC;
  CHECK(cudaMalloc(&s.in, n * sizeof(float)));
  CHECK(cudaMalloc(&s.out, n * sizeof(float)));
  CHECK(cudaMalloc(&s.ref, n * sizeof(float)));
  CHECK(cudaMalloc(&s.diff, sizeof(Diff)));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  s.sms = prop.multiProcessorCount;
  const size_t copy_bytes = size_t(1) << 30;
  float *ca, *cb;
  CHECK(cudaMalloc(&ca, copy_bytes));
  CHECK(cudaMalloc(&cb, copy_bytes));
  fill<<<4096, 256>>>(ca, Index(copy_bytes / 4), 1);
  CHECK(cudaGetLastError());
  s.peak = copy_peak(ca, cb, copy_bytes, 30);
  std::printf("%s, %d SMs, L2 %d MB; lattice %dx%dx%dx%d, 24 floats a site (soa), "
              "%.1f MB a field\n",
              prop.name, s.sms, prop.l2CacheSize >> 20, nx, ny, nz, nt,
              n * 4.0 / 1e6);
  std::printf("copy peak (cudaMemcpy D2D, 1 GiB, read + written): %.1f GB/s; "
              "median of %d runs, %d warm-ups a kernel\n",
              s.peak, s.runs, s.warm);
  host_check(s);
  std::printf("%-40s %s\n", "kernel", "registers, resident blocks an SM, occupancy, "
                                      "median, GB/s, % of copy, check");

  baseline<6, 4>(s);
  baseline<2, 4>(s);
  baseline<6, 1>(s);

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

  baseline<6, 4>(s); // again, for the spread
  const double peak2 = copy_peak(ca, cb, copy_bytes, 30);
  std::printf("copy again: %.1f GB/s\n", peak2);

  // Summary: the baseline and the best march of each (threads, CPT, options).
  const Result *best_base = nullptr, *best_march = nullptr;
  for (const auto &r : s.results) {
    if (!r.ok)
      continue;
    if (r.name.rfind("base 8x4x2x2 cpt6 mb4", 0) == 0 && (!best_base || r.ms < best_base->ms))
      best_base = &r;
    if (r.name.rfind("march", 0) == 0 && (!best_march || r.ms < best_march->ms))
      best_march = &r;
  }
  std::printf("\nfastest rows (checked):\n");
  std::vector<const Result *> sorted;
  for (const auto &r : s.results)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const Result *a, const Result *b) { return a->ms < b->ms; });
  for (size_t i = 0; i < sorted.size() && i < 12; ++i) {
    const Result &r = *sorted[i];
    std::printf("  %-40s %-8s cpt%-2d t%-2d %3d regs %3d%% %7.1f GB/s %5.1f%% %s\n",
                r.name.c_str(), r.threads.c_str(), r.cpt, r.planes, r.regs, r.occ, r.gbs,
                r.pct, r.ok ? "PASS" : "FAIL");
  }
  if (best_base && best_march)
    std::printf("best march %s: %.1f GB/s against the baseline's %.1f: %+.1f%%\n",
                best_march->name.c_str(), best_march->gbs, best_base->gbs,
                100 * (best_march->gbs / best_base->gbs - 1));
  std::printf("%d checks failed\n", s.failures);
  return s.failures ? 1 : 0;
}
