// fold_march.cu - a probe, not part of the build: does marching along z
// (z_march.cu) lift CG's fold pass, the kernel that bounds CG's iteration on
// the H200 (docs/performance.md, "CG's iteration as one launch graph": L2 at
// 88-93%, DRAM at 59-68%)?
//
// The fold pass of laplacian3d_f64 at 256^3: p' = r + beta p at every tap,
// q = A p', next_direction = p', x += alpha p (the last step's update) and
// one partial of p' . q per block. The probe times the generated kernels
// that run there now (laplacian3d_f64's H200 fold entry in double, its
// inner float operator's in float; the generated file is compiled in)
// against a march: each thread walks a chunk of planes, loads each plane's
// r and p once (its own 4 or 2 sites along x as one vector, the x halo
// value by value, the rows above and below), forms p' and adds it into the
// three outputs it feeds (a ring of accumulators); at a store it reads r and
// p of the output site again (a cache hit) for next_direction, x and the dot.
//
// Every march is checked against the generated kernel (q, next_direction,
// x and the sum of the partials), which is itself checked against a host
// loop on 20000 sites; inputs random, outputs poisoned first.
//   nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I runtime/include -I generated \
//        -o fold_march bench/probes/fold_march.cu && ./fold_march 256
#include "laplacian3d_f64.hip"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

template <typename T, int VX> struct Vec {
  T v[VX];
};

template <typename T, int VX>
__device__ inline Vec<T, VX> load_vec(const T *p) {
  Vec<T, VX> out;
  constexpr int bytes = sizeof(T) * VX;
  if constexpr (bytes == 16 || bytes == 32) {
#pragma unroll
    for (int k = 0; k < bytes / 16; ++k) {
      const float4 q = __ldg(reinterpret_cast<const float4 *>(p) + k);
      __builtin_memcpy(reinterpret_cast<char *>(out.v) + 16 * k, &q, 16);
    }
  } else if constexpr (bytes == 8) {
    const float2 q = __ldg(reinterpret_cast<const float2 *>(p));
    __builtin_memcpy(out.v, &q, 8);
  } else {
#pragma unroll
    for (int k = 0; k < VX; ++k)
      out.v[k] = __ldg(p + k);
  }
  return out;
}

template <typename T, int VX>
__device__ inline void store_vec(T *p, const Vec<T, VX> &in) {
  constexpr int bytes = sizeof(T) * VX;
  if constexpr (bytes == 16 || bytes == 32) {
#pragma unroll
    for (int k = 0; k < bytes / 16; ++k) {
      float4 q;
      __builtin_memcpy(&q, reinterpret_cast<const char *>(in.v) + 16 * k, 16);
      reinterpret_cast<float4 *>(p)[k] = q;
    }
  } else if constexpr (bytes == 8) {
    float2 q;
    __builtin_memcpy(&q, in.v, 8);
    *reinterpret_cast<float2 *>(p) = q;
  } else {
#pragma unroll
    for (int k = 0; k < VX; ++k)
      p[k] = in.v[k];
  }
}

/// The 7-point negative Laplacian with unit spacings (the spec's defaults):
/// 6 at the centre, -1 at each neighbour.
template <typename T, int BX, int BY, int VX>
__global__ void __launch_bounds__(BX *BY)
    fold_march(T *__restrict__ q, T *__restrict__ next_p, T *__restrict__ x,
               const T *__restrict__ r, const T *__restrict__ p,
               const double *__restrict__ beta_source,
               const double *__restrict__ alpha_source,
               double *__restrict__ partials, int nx, int ny, int nz,
               int planes) {
  __shared__ double block_dot[BX * BY / 32];
  const T beta = static_cast<T>(*beta_source);
  const T alpha = static_cast<T>(*alpha_source);
  const int x0 = VX * static_cast<int>(blockIdx.x * BX + threadIdx.x);
  const int y = 1 + static_cast<int>(blockIdx.y * BY + threadIdx.y);
  const int z_first = 1 + static_cast<int>(blockIdx.z) * planes;
  double dot = 0.0;
  // No early return: every thread takes part in the block's sum.
  if (x0 < nx && y < ny - 1 && z_first < nz - 1) {
    const int z_end = min(z_first + planes, nz - 1);
    const Index sy = nx, sz = sy * ny;
    T acc[3][VX];
#pragma unroll
    for (int k = 0; k < 3; ++k)
#pragma unroll
      for (int j = 0; j < VX; ++j)
        acc[k][j] = T(0);
    // Output z takes plane z + 1 last: the loop loads plane z + 1 and
    // stores z, starting two planes early to fill the ring.
    for (int z = z_first - 2; z < z_end; ++z) {
      const Index row = x0 + y * sy + (z + 1) * sz; // plane z + 1, own row
      const Vec<T, VX> rc = load_vec<T, VX>(r + row),
                       pc = load_vec<T, VX>(p + row);
      const Vec<T, VX> rs = load_vec<T, VX>(r + row - sy),
                       ps = load_vec<T, VX>(p + row - sy);
      const Vec<T, VX> rn = load_vec<T, VX>(r + row + sy),
                       pn = load_vec<T, VX>(p + row + sy);
      const T left = x0 > 0 ? __ldg(r + row - 1) + beta * __ldg(p + row - 1) : T(0);
      const T right = x0 + VX < nx ? __ldg(r + row + VX) + beta * __ldg(p + row + VX) : T(0);
#pragma unroll
      for (int j = 0; j < VX; ++j) {
        const T c = rc.v[j] + beta * pc.v[j];
        const T xm = j == 0 ? left : rc.v[j - 1] + beta * pc.v[j - 1];
        const T xp = j == VX - 1 ? right : rc.v[j + 1] + beta * pc.v[j + 1];
        const T ym = rs.v[j] + beta * ps.v[j];
        const T yp = rn.v[j] + beta * pn.v[j];
        acc[0][j] -= c;                          // output z: plane z + 1
        acc[1][j] += T(6) * c - (xm + xp + ym + yp); // output z + 1: its own
        acc[2][j] -= c;                          // output z + 2: plane z + 1
      }
      if (z >= z_first) {
        const Index at = x0 + y * sy + z * sz;
        const Vec<T, VX> ro = load_vec<T, VX>(r + at), po = load_vec<T, VX>(p + at);
        const Vec<T, VX> xo = load_vec<T, VX>(x + at);
        Vec<T, VX> qv, pv, xv;
#pragma unroll
        for (int j = 0; j < VX; ++j) {
          qv.v[j] = acc[0][j];
          pv.v[j] = ro.v[j] + beta * po.v[j];
          xv.v[j] = xo.v[j] + alpha * po.v[j];
        }
        if (x0 >= 1 && x0 + VX <= nx - 1) {
          store_vec<T, VX>(q + at, qv);
          store_vec<T, VX>(next_p + at, pv);
          store_vec<T, VX>(x + at, xv);
#pragma unroll
          for (int j = 0; j < VX; ++j)
            dot += static_cast<double>(pv.v[j]) * static_cast<double>(qv.v[j]);
        } else {
#pragma unroll
          for (int j = 0; j < VX; ++j)
            if (x0 + j >= 1 && x0 + j < nx - 1) {
              q[at + j] = qv.v[j];
              next_p[at + j] = pv.v[j];
              x[at + j] = xv.v[j];
              dot += static_cast<double>(pv.v[j]) * static_cast<double>(qv.v[j]);
            }
        }
      }
#pragma unroll
      for (int j = 0; j < VX; ++j) {
        acc[0][j] = acc[1][j];
        acc[1][j] = acc[2][j];
        acc[2][j] = T(0);
      }
    }
  }
  for (int offset = 16; offset > 0; offset /= 2)
    dot += __shfl_down_sync(0xffffffffu, dot, offset);
  const int lane = (threadIdx.y * BX + threadIdx.x) % 32,
            warp = (threadIdx.y * BX + threadIdx.x) / 32;
  if (lane == 0)
    block_dot[warp] = dot;
  __syncthreads();
  if (warp == 0) {
    dot = lane < BX * BY / 32 ? block_dot[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2)
      dot += __shfl_down_sync(0xffffffffu, dot, offset);
    if (lane == 0)
      partials[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = dot;
  }
}

// --- harness ------------------------------------------------------------------

template <typename F> float median_ms(F &&launch, int runs) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
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

__global__ void copy4(float4 *dst, const float4 *src, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    dst[i] = src[i];
}

constexpr int kMaxPartials = 1 << 22;

template <typename T> struct Fields {
  int n;
  Index sites;
  T *r, *p, *x, *x0, *q, *next_p;
  double *beta, *alpha, *partials;
  std::vector<T> host_r, host_p, host_x;
  int runs = 30;
  double peak = 0;

  explicit Fields(int n_) : n(n_), sites(Index(n_) * n_ * n_) {
    for (T **f : {&r, &p, &x, &x0, &q, &next_p})
      CHECK(cudaMalloc(f, sites * sizeof(T)));
    CHECK(cudaMalloc(&beta, sizeof(double)));
    CHECK(cudaMalloc(&alpha, sizeof(double)));
    CHECK(cudaMalloc(&partials, kMaxPartials * sizeof(double)));
    const double b = 0.37, a = 0.61;
    CHECK(cudaMemcpy(beta, &b, sizeof b, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(alpha, &a, sizeof a, cudaMemcpyHostToDevice));
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto *h : {&host_r, &host_p, &host_x}) {
      h->resize(sites);
      for (T &v : *h)
        v = static_cast<T>(u(rng));
    }
    CHECK(cudaMemcpy(r, host_r.data(), sites * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(p, host_p.data(), sites * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(x0, host_x.data(), sites * sizeof(T), cudaMemcpyHostToDevice));
  }
  /// Poisoned outputs and a fresh x before a checked run.
  void reset() {
    CHECK(cudaMemset(q, 0xff, sites * sizeof(T)));
    CHECK(cudaMemset(next_p, 0xff, sites * sizeof(T)));
    CHECK(cudaMemset(partials, 0xff, kMaxPartials * sizeof(double)));
    CHECK(cudaMemcpy(x, x0, sites * sizeof(T), cudaMemcpyDeviceToDevice));
  }
  /// Interior sites times six transfers, as the tuning program counts.
  double gbps(double ms) const {
    return double(n - 2) * (n - 2) * (n - 2) * 6 * sizeof(T) / ms / 1e6;
  }
};

template <typename T> struct Result {
  std::vector<T> q, next_p, x;
  double dot = 0;
};

template <typename T>
Result<T> fetch(const Fields<T> &f, long long blocks) {
  Result<T> out;
  for (auto [dst, src] : {std::pair{&out.q, f.q}, std::pair{&out.next_p, f.next_p},
                          std::pair{&out.x, f.x}}) {
    dst->resize(f.sites);
    CHECK(cudaMemcpy(dst->data(), src, f.sites * sizeof(T), cudaMemcpyDeviceToHost));
  }
  std::vector<double> parts(blocks);
  CHECK(cudaMemcpy(parts.data(), f.partials, blocks * sizeof(double),
                   cudaMemcpyDeviceToHost));
  for (double v : parts)
    out.dot += v;
  return out;
}

/// Largest difference over the interior relative to the field's largest
/// value, worst of q, next_direction and x; NaN where a site was not written.
template <typename T>
double difference(const Fields<T> &f, const Result<T> &a, const Result<T> &b) {
  const int n = f.n;
  double worst_ratio = 0;
  const std::vector<T> *pairs[3][2] = {
      {&a.q, &b.q}, {&a.next_p, &b.next_p}, {&a.x, &b.x}};
  for (const auto &pair : pairs) {
    double worst = 0, scale = 0;
    for (int z = 1; z < n - 1; ++z)
      for (int y = 1; y < n - 1; ++y)
        for (int x = 1; x < n - 1; ++x) {
          const Index i = x + Index(n) * (y + Index(n) * z);
          const double d = std::fabs(double((*pair[0])[i]) - double((*pair[1])[i]));
          if (std::isnan(d))
            return NAN;
          worst = std::max(worst, d);
          scale = std::max(scale, std::fabs(double((*pair[1])[i])));
        }
    worst_ratio = std::max(worst_ratio, worst / scale);
  }
  return worst_ratio;
}

/// `blocks`: the generated launch's grid, one partial each.
template <typename T, typename Generated>
Result<T> run_generated(Fields<T> &f, const char *name, long long blocks,
                        Generated &&launch) {
  f.reset();
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // The reference is checked against a host loop before it serves.
  const Result<T> ref = fetch(f, blocks);
  std::mt19937 rng(5);
  double worst = 0;
  const int n = f.n;
  const double beta = 0.37, alpha = 0.61;
  auto pp = [&](Index i) {
    return double(f.host_r[i]) + double(static_cast<T>(beta)) * double(f.host_p[i]);
  };
  for (int k = 0; k < 20000; ++k) {
    const int x = 1 + rng() % (n - 2), y = 1 + rng() % (n - 2), z = 1 + rng() % (n - 2);
    const Index i = x + Index(n) * (y + Index(n) * z), sy = n, sz = Index(n) * n;
    const double want_q = 6 * pp(i) - pp(i - 1) - pp(i + 1) - pp(i - sy) -
                          pp(i + sy) - pp(i - sz) - pp(i + sz);
    const double want_x = double(f.host_x[i]) + double(static_cast<T>(alpha)) * double(f.host_p[i]);
    worst = std::max({worst, std::fabs(want_q - ref.q[i]) / 16,
                      std::fabs(pp(i) - ref.next_p[i]), std::fabs(want_x - ref.x[i])});
  }
  const double tolerance = sizeof(T) == 8 ? 1e-13 : 1e-5;
  std::printf("%s against a host loop on 20000 sites: worst %.2e %s\n", name, worst,
              worst < tolerance ? "ok" : "WRONG");
  const float ms = median_ms(launch, f.runs);
  std::printf("%-52s %8.4f ms %7.1f GB/s %5.1f%%\n", name, ms, f.gbps(ms),
              100 * f.gbps(ms) / f.peak);
  return ref;
}

template <typename T, int BX, int BY, int VX>
void march_variant(Fields<T> &f, const Result<T> &ref, int planes_override = 0) {
  const int n = f.n;
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, fold_march<T, BX, BY, VX>, BX * BY, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int gx = (n + BX * VX - 1) / (BX * VX), gy = (n - 2 + BY - 1) / BY;
  std::vector<int> plane_counts;
  if (planes_override)
    plane_counts.push_back(planes_override);
  else
    for (int waves = 1; waves <= 4; ++waves) {
      const long chunks = std::max(1L, long(per_sm) * sms * waves / (long(gx) * gy));
      plane_counts.push_back(int((n - 2 + chunks - 1) / chunks));
    }
  for (int planes : plane_counts) {
    const dim3 grid(gx, gy, (n - 2 + planes - 1) / planes), block(BX, BY);
    auto launch = [&] {
      fold_march<T, BX, BY, VX><<<grid, block>>>(f.q, f.next_p, f.x, f.r, f.p,
                                                f.beta, f.alpha, f.partials, n,
                                                n, n, planes);
    };
    f.reset();
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const Result<T> got = fetch(f, Index(grid.x) * grid.y * grid.z);
    const double diff = difference(f, got, ref);
    const double dot_diff = std::fabs(got.dot - ref.dot) / std::fabs(ref.dot);
    const double tolerance = sizeof(T) == 8 ? 1e-12 : 1e-5;
    const bool ok = diff < tolerance && dot_diff < (sizeof(T) == 8 ? 1e-10 : 1e-4);
    const float ms = median_ms(launch, f.runs);
    char name[96];
    std::snprintf(name, sizeof name, "march %dx%d, %d along x, %d planes (%d/SM)", BX,
                  BY, VX, planes, per_sm);
    std::printf("%-52s %8.4f ms %7.1f GB/s %5.1f%% %s (fields %.1e, dot %.1e)\n",
                name, ms, f.gbps(ms), 100 * f.gbps(ms) / f.peak, ok ? "ok" : "WRONG",
                diff, dot_diff);
  }
}

double copy_peak(void *dst, const void *src, Index bytes, int runs) {
  const Index quads = bytes / 16;
  const float ms = median_ms(
      [&] {
        copy4<<<(quads + 255) / 256, 256>>>(static_cast<float4 *>(dst),
                                            static_cast<const float4 *>(src), quads);
      },
      runs);
  return 2.0 * bytes / ms / 1e6;
}

int main(int argc, char **argv) {
  // fold_march [N [float|double]]: both precisions unless one is named.
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const std::string only = argc > 2 ? argv[2] : "";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (only != "float") {
    Fields<double> f(n);
    f.peak = copy_peak(f.q, f.r, f.sites * sizeof(double), f.runs);
    std::printf("%s, %d^3 double; copy %.1f GB/s\n", prop.name, n, f.peak);
    namespace k = stencilc_kernels::laplacian3d_f64_tuned3;
    const k::Extents e{n, n, n};
    const k::Params params{};
    stencil::LaunchConfig config;
    if (!k::launch_config(e, config).ok())
      std::exit(1);
    const long long blocks = 1LL * config.grid.x * config.grid.y * config.grid.z;
    const Result<double> ref = run_generated(f, "laplacian3d_f64_tuned3 fold (H200 entry)", blocks, [&] {
      const stencil::Status s = k::apply_fold_dot(f.q, f.next_p, f.r, f.p, f.beta, f.x,
                                                  f.alpha, e, params, f.partials);
      if (!s.ok())
        std::printf("%s\n", s.message().c_str()), std::exit(1);
    });
    march_variant<double, 32, 4, 2>(f, ref);
    march_variant<double, 32, 8, 2>(f, ref);
    march_variant<double, 64, 4, 2>(f, ref);
    march_variant<double, 32, 4, 4>(f, ref);
    march_variant<double, 64, 2, 2>(f, ref);
    march_variant<double, 128, 2, 1>(f, ref);
  }
  if (only != "double") {
    Fields<float> f(n);
    f.peak = copy_peak(f.q, f.r, f.sites * sizeof(float), f.runs);
    std::printf("%s, %d^3 float; copy %.1f GB/s\n", prop.name, n, f.peak);
    namespace k = stencilc_kernels::laplacian3d_f64_inner_tuned1;
    const k::Extents e{n, n, n};
    const k::Params params{};
    stencil::LaunchConfig config;
    if (!k::launch_config(e, config).ok())
      std::exit(1);
    const long long blocks = 1LL * config.grid.x * config.grid.y * config.grid.z;
    const Result<float> ref = run_generated(f, "laplacian3d_f64_inner_tuned1 fold (H200 entry)", blocks, [&] {
      const stencil::Status s = k::apply_fold_dot(f.q, f.next_p, f.r, f.p, f.beta, f.x,
                                                  f.alpha, e, params, f.partials);
      if (!s.ok())
        std::printf("%s\n", s.message().c_str()), std::exit(1);
    });
    march_variant<float, 32, 4, 4>(f, ref);
    march_variant<float, 32, 8, 4>(f, ref);
    march_variant<float, 64, 4, 4>(f, ref);
    march_variant<float, 64, 2, 4>(f, ref);
    march_variant<float, 64, 4, 2>(f, ref);
    march_variant<float, 32, 8, 2>(f, ref);
    march_variant<float, 128, 2, 2>(f, ref);
    march_variant<float, 32, 4, 2>(f, ref);
    march_variant<float, 64, 8, 2>(f, ref);
    march_variant<float, 128, 4, 1>(f, ref);
  }
  return 0;
}
