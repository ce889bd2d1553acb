// z_march.cu - a probe, not part of the build: on the H200 the register
// kernels of the 3-D stencils are bound by L2, not DRAM (docs/performance.md,
// "Even/odd whole-lattice kernels", "CG's iteration as one launch graph").
// A block of the generated kernels covers one plane (or a tile of 2-8 planes
// unrolled in registers), so a value comes through L2 up to three times: as
// the plane below one block's sites, as their own plane, as the plane above.
// Does a thread that marches along z through a chunk of planes, in a loop,
// cut that traffic without the registers the unrolled tiles cost, and
// without the barriers that made the shared-memory streaming form
// (plane_stream.cu) slow? Results: docs/performance.md, "Marching along z".
//
// Two forms. `march` (the "sums" rows): for every plane q a thread forms two
// partial sums a site, A(q) with the weights of the output's own plane and
// B(q) with those of the plane above or below (the stencils are symmetric in
// z); the output at z is B(z-1) + A(z) + B(z+1). `ring`: what a generator
// would print for any constant-coefficient stencil of radius R, each plane's
// values added into the 2R + 1 outputs they feed.
//
// A thread owns VX consecutive sites along x (one aligned VX-wide load) and
// TY rows along y. A block's chunk of planes is a launch argument: 64, and
// the chunks that make the grid one to four whole waves of resident blocks.
// Dirichlet update region as the generated kernels: sites R..n-1-R on every
// axis, read from 0..n-1. Every variant is checked against a naive kernel
// (itself checked against a host loop in double) on random input, with the
// output poisoned first.
//   nvcc -O3 -std=c++17 -arch=sm_90 [-DREAL=double] -o z_march z_march.cu
//   ./z_march [N [RUNS]]      (RUNS 1: each kernel twice, for Nsight Compute)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
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
// -DREAL=double builds the double-precision probe.
#ifndef REAL
#define REAL float
#endif
using real = REAL;
constexpr bool kDouble = sizeof(real) == 8;
/// Relative L2 error a variant may show against the naive kernel.
constexpr double kTolerance = kDouble ? 1e-12 : 1e-5;

/// Tap weight by neighbour class (number of nonzero offsets): the shipped
/// compact 27-point stencil, or the 7-point Laplacian.
template <bool Box> __host__ __device__ constexpr real weight(int n) {
  if (Box)
    return n == 0 ? 128.f / 30 : n == 1 ? -14.f / 30 : n == 2 ? -0.1f : -1.f / 30;
  return n == 0 ? 6.f : n == 1 ? -1.f : 0.f;
}
__host__ __device__ constexpr int cls(int dx, int dy, int dz) {
  return (dx != 0) + (dy != 0) + (dz != 0);
}

// --- the marching kernel ----------------------------------------------------

template <int VX> __device__ inline void load_vec(real (&v)[VX], const real *p) {
  if constexpr (kDouble && VX % 2 == 0) {
#pragma unroll
    for (int k = 0; k < VX; k += 2) {
      const double2 q = __ldg(reinterpret_cast<const double2 *>(p) + k / 2);
      v[k] = q.x, v[k + 1] = q.y;
    }
  } else if constexpr (!kDouble && VX == 4) {
    const float4 q = __ldg(reinterpret_cast<const float4 *>(p));
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else if constexpr (!kDouble && VX == 2) {
    const float2 q = __ldg(reinterpret_cast<const float2 *>(p));
    v[0] = q.x, v[1] = q.y;
  } else {
#pragma unroll
    for (int k = 0; k < VX; ++k)
      v[k] = __ldg(p + k);
  }
}

template <int VX> __device__ inline void store_vec(real *p, const real (&v)[VX]) {
  if constexpr (kDouble && VX % 2 == 0) {
#pragma unroll
    for (int k = 0; k < VX; k += 2)
      reinterpret_cast<double2 *>(p)[k / 2] = make_double2(v[k], v[k + 1]);
  } else if constexpr (!kDouble && VX == 4) {
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (!kDouble && VX == 2) {
    *reinterpret_cast<float2 *>(p) = make_float2(v[0], v[1]);
  } else {
#pragma unroll
    for (int k = 0; k < VX; ++k)
      p[k] = v[k];
  }
}

/// The partial sums of plane `q` for a thread's TY x VX sites: a[t][j] with
/// the weights of the output's own plane, b[t][j] with those of the plane
/// above or below.
template <int VX, int TY, bool Box>
__device__ inline void plane_sums(real (&a)[TY][VX], real (&b)[TY][VX],
                                  const real *in, Index plane, int x0,
                                  int y0, int nx, int ny) {
  // rows[r][1 + j]: row y0 - 1 + r, site x0 + j; j = -1 and VX are the
  // halo, loaded only where a tap needs them.
  real rows[TY + 2][VX + 2];
#pragma unroll
  for (int r = 0; r < TY + 2; ++r) {
    const int y = min(y0 - 1 + r, ny - 1);
    const real *row = in + plane + static_cast<Index>(y) * nx;
    real mid[VX];
    load_vec<VX>(mid, row + x0);
#pragma unroll
    for (int j = 0; j < VX; ++j)
      rows[r][1 + j] = mid[j];
    const bool halo = Box || (r > 0 && r < TY + 1);
    rows[r][0] = halo && x0 > 0 ? __ldg(row + x0 - 1) : 0.f;
    rows[r][VX + 1] = halo && x0 + VX < nx ? __ldg(row + x0 + VX) : 0.f;
  }
#pragma unroll
  for (int t = 0; t < TY; ++t)
#pragma unroll
    for (int j = 0; j < VX; ++j) {
      real sa = 0.f, sb = 0.f;
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
          const real v = rows[t + 1 + dy][1 + j + dx];
          if (weight<Box>(cls(dx, dy, 0)) != 0.f)
            sa += weight<Box>(cls(dx, dy, 0)) * v;
          if (weight<Box>(cls(dx, dy, 1)) != 0.f)
            sb += weight<Box>(cls(dx, dy, 1)) * v;
        }
      a[t][j] = sa;
      b[t][j] = sb;
    }
}

template <int BX, int BY, int VX, int TY, int ZC, int UNROLL, bool Box>
__global__ void __launch_bounds__(BX *BY)
    march(real *out, const real *in, int nx, int ny, int nz) {
  const int x0 = VX * static_cast<int>(blockIdx.x * BX + threadIdx.x);
  const int y0 = 1 + TY * static_cast<int>(blockIdx.y * BY + threadIdx.y);
  const int z0 = 1 + static_cast<int>(blockIdx.z) * ZC;
  if (x0 >= nx || y0 >= ny - 1 || z0 >= nz - 1)
    return;
  const int z1 = min(z0 + ZC, nz - 1);
  const Index sz = static_cast<Index>(nx) * ny;
  real a_cur[TY][VX], b_prev[TY][VX], b_cur[TY][VX];
  {
    real unused[TY][VX];
    plane_sums<VX, TY, Box>(unused, b_prev, in, (z0 - 1) * sz, x0, y0, nx, ny);
    plane_sums<VX, TY, Box>(a_cur, b_cur, in, z0 * sz, x0, y0, nx, ny);
  }
#pragma unroll UNROLL
  for (int z = z0; z < z1; ++z) {
    real a_next[TY][VX], b_next[TY][VX];
    plane_sums<VX, TY, Box>(a_next, b_next, in, (z + 1) * sz, x0, y0, nx, ny);
#pragma unroll
    for (int t = 0; t < TY; ++t) {
      const int y = y0 + t;
      if (y >= ny - 1)
        break;
      real o[VX];
#pragma unroll
      for (int j = 0; j < VX; ++j)
        o[j] = b_prev[t][j] + a_cur[t][j] + b_next[t][j];
      real *dst = out + z * sz + static_cast<Index>(y) * nx + x0;
      if (x0 > 0 && x0 + VX < nx) {
        store_vec<VX>(dst, o);
      } else {
#pragma unroll
        for (int j = 0; j < VX; ++j)
          if (x0 + j >= 1 && x0 + j < nx - 1)
            dst[j] = o[j];
      }
    }
#pragma unroll
    for (int t = 0; t < TY; ++t)
#pragma unroll
      for (int j = 0; j < VX; ++j) {
        b_prev[t][j] = b_cur[t][j];
        a_cur[t][j] = a_next[t][j];
        b_cur[t][j] = b_next[t][j];
      }
  }
}

// --- the generic form: a ring of 2R + 1 accumulators ----------------------
//
// What a generator would print for any constant-coefficient stencil of
// radius R along z: each plane q = z + R is loaded once (the in-plane
// neighbourhood any tap needs), added into the outputs z .. z + 2R it feeds
// with the weights of its offset, and output z, now complete, is stored. With
// Prefetch the next plane's rows are loaded before this plane's sums.

struct Box27 {
  static constexpr int R = 1;
  __host__ __device__ static constexpr real w(int dx, int dy, int dz) {
    return weight<true>(cls(dx, dy, dz));
  }
};
struct Plus7 {
  static constexpr int R = 1;
  __host__ __device__ static constexpr real w(int dx, int dy, int dz) {
    return weight<false>(cls(dx, dy, dz));
  }
};
/// The fourth-order 13-point Laplacian: -1/12, 4/3, -5/2 along each axis.
struct Plus13 {
  static constexpr int R = 2;
  __host__ __device__ static constexpr real w1(int d) {
    return d == 0 ? -2.5f : (d == 1 || d == -1) ? 4.f / 3 : (d == 2 || d == -2) ? -1.f / 12 : 0.f;
  }
  __host__ __device__ static constexpr real w(int dx, int dy, int dz) {
    return -((dy == 0 && dz == 0 ? w1(dx) : 0.f) + (dx == 0 && dz == 0 ? w1(dy) : 0.f) +
             (dx == 0 && dy == 0 ? w1(dz) : 0.f));
  }
};

template <class S> __host__ __device__ constexpr bool in_plane_needed(int dx, int dy) {
  for (int dz = -S::R; dz <= S::R; ++dz)
    if (S::w(dx, dy, dz) != 0.f)
      return true;
  return false;
}

template <class S, int VX, int TY>
__device__ inline void load_rows(real (&rows)[TY + 2 * S::R][VX + 2 * S::R],
                                 const real *__restrict__ in, Index plane,
                                 int x0, int y0, int nx, int ny) {
  constexpr int R = S::R;
#pragma unroll
  for (int r = 0; r < TY + 2 * R; ++r) {
    const int y = min(max(y0 - R + r, 0), ny - 1);
    const real *row = in + plane + static_cast<Index>(y) * nx;
    real mid[VX];
    load_vec<VX>(mid, row + x0);
#pragma unroll
    for (int j = 0; j < VX; ++j)
      rows[r][R + j] = mid[j];
#pragma unroll
    for (int h = 1; h <= R; ++h) {
      // Is the value h sites left (right) of the group a tap of some site
      // of some row this row feeds?
      bool left = false, right = false;
#pragma unroll
      for (int t = 0; t < TY; ++t) {
        const int dy = r - R - t;
        if (dy < -R || dy > R)
          continue;
#pragma unroll
        for (int j = 0; j < VX; ++j) {
          if (j - h >= -R && in_plane_needed<S>(-h - j, dy)) left = true;
          if (VX - 1 + h - j <= R && in_plane_needed<S>(VX - 1 + h - j, dy)) right = true;
        }
      }
      rows[r][R - h] = left && x0 - h >= 0 ? __ldg(row + x0 - h) : 0.f;
      rows[r][R + VX - 1 + h] = right && x0 + VX - 1 + h < nx ? __ldg(row + x0 + VX - 1 + h) : 0.f;
    }
  }
}

template <class S, int BX, int BY, int VX, int TY, bool Prefetch>
__global__ void __launch_bounds__(BX *BY)
    ring(real *__restrict__ out, const real *__restrict__ in, int nx, int ny,
         int nz, int ZC) {
  constexpr int R = S::R;
  const int x0 = VX * static_cast<int>(blockIdx.x * BX + threadIdx.x);
  const int y0 = R + TY * static_cast<int>(blockIdx.y * BY + threadIdx.y);
  const int z0 = R + static_cast<int>(blockIdx.z) * ZC;
  if (x0 >= nx || y0 >= ny - R || z0 >= nz - R)
    return;
  const int z1 = min(z0 + ZC, nz - R);
  const Index sz = static_cast<Index>(nx) * ny;
  real acc[2 * R + 1][TY][VX];
#pragma unroll
  for (int k = 0; k < 2 * R + 1; ++k)
#pragma unroll
    for (int t = 0; t < TY; ++t)
#pragma unroll
      for (int j = 0; j < VX; ++j)
        acc[k][t][j] = 0.f;
  real rows[TY + 2 * R][VX + 2 * R];
  if (Prefetch)
    load_rows<S, VX, TY>(rows, in, (z0 - R) * sz, x0, y0, nx, ny);
  for (int z = z0 - 2 * R; z < z1; ++z) {
    const int q = z + R;
    real next[TY + 2 * R][VX + 2 * R];
    if (Prefetch) {
      if (q + 1 < z1 + R)
        load_rows<S, VX, TY>(next, in, (q + 1) * sz, x0, y0, nx, ny);
    } else {
      load_rows<S, VX, TY>(rows, in, q * sz, x0, y0, nx, ny);
    }
#pragma unroll
    for (int k = 0; k < 2 * R + 1; ++k)
#pragma unroll
      for (int t = 0; t < TY; ++t)
#pragma unroll
        for (int j = 0; j < VX; ++j)
#pragma unroll
          for (int dy = -R; dy <= R; ++dy)
#pragma unroll
            for (int dx = -R; dx <= R; ++dx)
              if (S::w(dx, dy, R - k) != 0.f)
                acc[k][t][j] += S::w(dx, dy, R - k) * rows[t + R + dy][j + R + dx];
    if (z >= z0) {
#pragma unroll
      for (int t = 0; t < TY; ++t) {
        const int y = y0 + t;
        if (y >= ny - R)
          break;
        real *dst = out + z * sz + static_cast<Index>(y) * nx + x0;
        const real(&o)[VX] = acc[0][t];
        if (x0 >= R && x0 + VX <= nx - R) {
          store_vec<VX>(dst, o);
        } else {
#pragma unroll
          for (int j = 0; j < VX; ++j)
            if (x0 + j >= R && x0 + j < nx - R)
              dst[j] = o[j];
        }
      }
    }
#pragma unroll
    for (int k = 0; k < 2 * R; ++k)
#pragma unroll
      for (int t = 0; t < TY; ++t)
#pragma unroll
        for (int j = 0; j < VX; ++j)
          acc[k][t][j] = acc[k + 1][t][j];
#pragma unroll
    for (int t = 0; t < TY; ++t)
#pragma unroll
      for (int j = 0; j < VX; ++j)
        acc[2 * R][t][j] = 0.f;
    if (Prefetch)
#pragma unroll
      for (int r = 0; r < TY + 2 * R; ++r)
#pragma unroll
        for (int c = 0; c < VX + 2 * R; ++c)
          rows[r][c] = next[r][c];
  }
}

// --- timing -----------------------------------------------------------------

__global__ void copy4(float4 *dst, const float4 *src, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    dst[i] = src[i];
}

template <typename F> float median_ms(F &&launch, int runs, int warm = 3) {
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

struct Setup {
  int nx, ny, nz;
  real *in, *out, *ref;
  double peak;
  int runs;
  int warm;
};

template <class S>
__global__ void naive_s(real *out, const real *in, int nx, int ny, int nz) {
  constexpr int R = S::R;
  const int x = R + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = R + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = R + blockIdx.z;
  if (x >= nx - R || y >= ny - R || z >= nz - R)
    return;
  const Index sy = nx, sz = sy * ny, site = x + y * sy + z * sz;
  real acc = 0.f;
#pragma unroll
  for (int dz = -R; dz <= R; ++dz)
#pragma unroll
    for (int dy = -R; dy <= R; ++dy)
#pragma unroll
      for (int dx = -R; dx <= R; ++dx)
        if (S::w(dx, dy, dz) != 0.f)
          acc += S::w(dx, dy, dz) * __ldg(&in[site + dx + dy * sy + dz * sz]);
  out[site] = acc;
}

/// Relative L2 error against ref, and whether every update site was written.
bool check(const Setup &s, const char *name, int R) {
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  std::vector<real> got(n), want(n);
  CHECK(cudaMemcpy(got.data(), s.out, n * sizeof(real), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), s.ref, n * sizeof(real), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  Index unwritten = 0;
  for (int z = R; z < s.nz - R; ++z)
    for (int y = R; y < s.ny - R; ++y)
      for (int x = R; x < s.nx - R; ++x) {
        const Index i = x + static_cast<Index>(s.nx) * (y + static_cast<Index>(s.ny) * z);
        if (std::isnan(got[i])) {
          ++unwritten;
          continue;
        }
        num += (got[i] - want[i]) * double(got[i] - want[i]);
        den += double(want[i]) * want[i];
      }
  const double err = std::sqrt(num / den);
  const bool ok = unwritten == 0 && err < kTolerance;
  if (!ok)
    std::printf("  %s: FAILED (relative error %.3g, %lld sites unwritten)\n",
                name, err, unwritten);
  return ok;
}

template <typename F>
void row(const Setup &s, const char *name, int R, F &&launch) {
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  CHECK(cudaMemset(s.out, 0xff, n * sizeof(real))); // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const bool ok = check(s, name, R);
  const double ms = median_ms(launch, s.runs, s.warm);
  // stencil_bench's count: the whole field read once and written once.
  const double bytes = 2.0 * sizeof(real) * s.nx * double(s.ny) * s.nz;
  std::printf("%-52s %8.4f ms %7.1f GB/s %5.1f%% %s\n", name, ms,
              bytes / ms / 1e6, 100 * bytes / ms / 1e6 / s.peak,
              ok ? "ok" : "WRONG");
}

template <int BX, int BY, int VX, int TY, int ZC, int UNROLL, bool Box>
void variant(const Setup &s) {
  const dim3 block(BX, BY), grid((s.nx + BX * VX - 1) / (BX * VX),
                                 (s.ny - 2 + BY * TY - 1) / (BY * TY),
                                 (s.nz - 2 + ZC - 1) / ZC);
  char name[96];
  std::snprintf(name, sizeof name, "%s sums %dx%d, %dx%d sites, z%d u%d",
                Box ? "27pt" : "7pt", BX, BY, VX, TY, ZC, UNROLL);
  row(s, name, 1, [&] {
    march<BX, BY, VX, TY, ZC, UNROLL, Box>
        <<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz);
  });
}

template <class S, int BX, int BY, int VX, int TY, bool Prefetch>
void ring_variant(const Setup &s, const char *stencil, int ZC) {
  constexpr int R = S::R;
  const dim3 block(BX, BY), grid((s.nx + BX * VX - 1) / (BX * VX),
                                 (s.ny - 2 * R + BY * TY - 1) / (BY * TY),
                                 (s.nz - 2 * R + ZC - 1) / ZC);
  char name[96];
  std::snprintf(name, sizeof name, "%s ring %dx%d, %dx%d sites, z%d%s", stencil,
                BX, BY, VX, TY, ZC, Prefetch ? " prefetch" : "");
  row(s, name, R, [&] {
    ring<S, BX, BY, VX, TY, Prefetch>
        <<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz, ZC);
  });
}

template <class S> void reference(Setup &s, const char *stencil) {
  constexpr int R = S::R;
  const dim3 nb(32, 4), ng((s.nx - 2 * R + 31) / 32, (s.ny - 2 * R + 3) / 4,
                           s.nz - 2 * R);
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  CHECK(cudaMemset(s.ref, 0xff, n * sizeof(real)));
  naive_s<S><<<ng, nb>>>(s.ref, s.in, s.nx, s.ny, s.nz);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<real> in(n), ref(n);
  CHECK(cudaMemcpy(in.data(), s.in, n * sizeof(real), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ref.data(), s.ref, n * sizeof(real), cudaMemcpyDeviceToHost));
  std::mt19937 rng(7);
  double worst = 0;
  for (int k = 0; k < 100000; ++k) {
    const int x = R + rng() % (s.nx - 2 * R), y = R + rng() % (s.ny - 2 * R),
              z = R + rng() % (s.nz - 2 * R);
    double acc = 0;
    for (int dz = -R; dz <= R; ++dz)
      for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx)
          acc += double(S::w(dx, dy, dz)) *
                 in[(x + dx) + Index(s.nx) * ((y + dy) + Index(s.ny) * (z + dz))];
    const Index i = x + Index(s.nx) * (y + Index(s.ny) * z);
    worst = std::max(worst, std::fabs(acc - ref[i]) / (1.0 + std::fabs(acc)));
  }
  std::printf("%s naive against the host in double: worst %.2e %s\n", stencil,
              worst, worst < kTolerance ? "ok" : "WRONG");
  char name[64];
  std::snprintf(name, sizeof name, "%s naive 32x4 one site", stencil);
  row(s, name, R, [&] { naive_s<S><<<ng, nb>>>(s.out, s.in, s.nx, s.ny, s.nz); });
}

/// Planes a block marches through: 64, and the chunks that make the grid
/// one to four full waves of resident blocks on this GPU (blocks a
/// multiprocessor holds, from the occupancy API, times multiprocessors).
template <class S, int BX, int BY, int VX, int TY, bool Prefetch>
void chunkings(const Setup &s, const char *stencil) {
  constexpr int R = S::R;
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, ring<S, BX, BY, VX, TY, Prefetch>, BX * BY, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long columns = long((s.nx + BX * VX - 1) / (BX * VX)) *
                       ((s.ny - 2 * R + BY * TY - 1) / (BY * TY));
  const int planes = s.nz - 2 * R;
  std::vector<int> zcs{64};
  for (int waves = 1; waves <= 4; ++waves) {
    const long chunks = std::max(1L, long(per_sm) * sms * waves / columns);
    zcs.push_back(int((planes + chunks - 1) / chunks));
  }
  std::printf("  (%d blocks an SM, %d SMs, %ld columns)\n", per_sm, sms, columns);
  for (int zc : zcs)
    ring_variant<S, BX, BY, VX, TY, Prefetch>(s, stencil, zc);
}

template <class S> void rings(Setup &s, const char *stencil) {
  chunkings<S, 32, 4, 4, 1, false>(s, stencil);
  chunkings<S, 32, 4, 4, 1, true>(s, stencil);
  chunkings<S, 64, 2, 4, 1, false>(s, stencil);
  chunkings<S, 32, 8, 4, 1, false>(s, stencil);
  chunkings<S, 64, 4, 4, 1, false>(s, stencil);
  chunkings<S, 32, 4, 4, 2, false>(s, stencil);
  chunkings<S, 64, 4, 2, 1, false>(s, stencil);
  chunkings<S, 128, 2, 2, 1, false>(s, stencil);
}

int main(int argc, char **argv) {
  // z_march [N [RUNS]]: RUNS 1 runs each kernel twice, once checked and
  // once timed without warm-ups (for Nsight Compute).
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 30;
  Setup s{n, n, n, nullptr, nullptr, nullptr, 0, runs, runs > 1 ? 3 : 0};
  const Index sites = Index(n) * n * n;
  CHECK(cudaMalloc(&s.in, sites * sizeof(real)));
  CHECK(cudaMalloc(&s.out, sites * sizeof(real)));
  CHECK(cudaMalloc(&s.ref, sites * sizeof(real)));
  {
    std::vector<real> h(sites);
    std::mt19937 rng(42);
    std::uniform_real_distribution<real> u(-1.f, 1.f);
    for (auto &v : h)
      v = u(rng);
    CHECK(cudaMemcpy(s.in, h.data(), sites * sizeof(real), cudaMemcpyHostToDevice));
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const Index quads = sites * sizeof(real) / 16;
  auto copy = [&] {
    copy4<<<(quads + 255) / 256, 256>>>(reinterpret_cast<float4 *>(s.out),
                                        reinterpret_cast<const float4 *>(s.in),
                                        quads);
  };
  const float copy_ms = median_ms(copy, s.runs);
  s.peak = 2.0 * sizeof(real) * sites / copy_ms / 1e6;
  std::printf("%s, %d^3 %s; copy %.4f ms, peak %.1f GB/s\n", prop.name, n,
              kDouble ? "double" : "float", copy_ms, s.peak);
  reference<Plus7>(s, "7pt");
  rings<Plus7>(s, "7pt");
  reference<Box27>(s, "27pt");
  variant<64, 4, 4, 1, 64, 2, true>(s);
  rings<Box27>(s, "27pt");
  reference<Plus13>(s, "13pt");
  rings<Plus13>(s, "13pt");
  std::printf("copy again: %.1f GB/s\n", 2.0 * sizeof(real) * sites / median_ms(copy, s.runs) / 1e6);
  return 0;
}
