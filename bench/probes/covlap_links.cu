// covlap_links.cu - a probe, not part of the build: what limits the gauge-
// covariant Laplacian (SU(3) links, AoS colour vectors) on this GPU, and
// which link order, load width, block and tile reach the copy bandwidth?
// Written to decide what the generator emits for link taps (issue 17).
// Every variant is checked against a naive kernel (one thread per site,
// scalar loads, links site-major) on random input and random links.
//   nvcc -O3 -arch=sm_90 -o covlap_links covlap_links.cu && ./covlap_links
//   ./covlap_links profile   (one launch of each variant, for ncu)
// What it showed on the H100 (docs/results/probe-h100-covlap-links.txt,
// docs/results/ncu-h100-covlap-links.csv): blocks of 32 sites with pairs of
// reals adjacent (BLK2) and paired vector loads beat every other link order;
// a tile along y re-reads links from DRAM; __launch_bounds__(threads, 1)
// lets nvcc keep a site's loads in flight. The generator now emits that
// (links.layout.vector, kernel.min_blocks_per_sm). The link values here are
// random, not SU(3): the probe checks indexing and arithmetic, not physics.
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

constexpr int B = 32;  // sites per block of the blocked link orders
constexpr int LR = 18; // reals per link

// Link orders: SOA (one array per real and direction, [mu*18+k][site]);
// BLK (blocks of 32 sites, each real's 32 values together: aosoa:32);
// BLK2 (blocks of 32 sites, pairs of reals together: 8- or 16-byte loads).
enum LinkOrder { SOA, BLK, BLK2 };

template <typename T> struct Pair;
template <> struct Pair<float> { using type = float2; };
template <> struct Pair<double> { using type = double2; };

template <int ORDER, int DIMS>
__host__ __device__ inline long link_elem(long site, int mu, int k,
                                          long sites) {
  if (ORDER == SOA)
    return (long)(mu * LR + k) * sites + site;
  const long blk = site / B;
  const int lane = int(site % B);
  const int r = mu * LR + k;
  if (ORDER == BLK)
    return (blk * (DIMS * LR) + r) * B + lane;
  return ((blk * (DIMS * LR / 2) + r / 2) * B + lane) * 2 + (r & 1);
}

template <typename T, int ORDER, int DIMS>
__device__ __forceinline__ void load_link(T u[LR], const T *__restrict__ l,
                                          long site, int mu, long sites) {
  if (ORDER == BLK2) {
    using P = typename Pair<T>::type;
#pragma unroll
    for (int k = 0; k < LR; k += 2) {
      const P p = __ldg(reinterpret_cast<const P *>(
          l + link_elem<ORDER, DIMS>(site, mu, k, sites)));
      u[k] = p.x;
      u[k + 1] = p.y;
    }
  } else {
#pragma unroll
    for (int k = 0; k < LR; ++k)
      u[k] = __ldg(l + link_elem<ORDER, DIMS>(site, mu, k, sites));
  }
}

// A colour vector (6 reals, AoS) with scalar or paired loads.
template <typename T, int FV>
__device__ __forceinline__ void load_vec(T v[6], const T *__restrict__ in,
                                         long site) {
  if (FV == 2) {
    using P = typename Pair<T>::type;
    const P *p = reinterpret_cast<const P *>(in + site * 6);
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const P q = __ldg(p + c);
      v[2 * c] = q.x;
      v[2 * c + 1] = q.y;
    }
  } else {
#pragma unroll
    for (int c = 0; c < 6; ++c)
      v[c] = __ldg(in + site * 6 + c);
  }
}

// acc -= U v (DAG: U^dagger v)
template <bool DAG, typename T>
__device__ __forceinline__ void sub_link_times(T acc[6], const T u[LR],
                                               const T v[6]) {
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    T re = 0, im = 0;
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      const int e = DAG ? 2 * (j * 3 + i) : 2 * (i * 3 + j);
      const T ur = u[e], ui = DAG ? -u[e + 1] : u[e + 1];
      re += ur * v[2 * j] - ui * v[2 * j + 1];
      im += ur * v[2 * j + 1] + ui * v[2 * j];
    }
    acc[2 * i] -= re;
    acc[2 * i + 1] -= im;
  }
}

__device__ __forceinline__ int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

struct Ext { int n[4]; };

// One thread per TY consecutive sites along y; the y link between two of
// them is loaded once. Loads in the order written: centre, then per axis
// the backward neighbour and the forward one.
template <typename T, int DIMS, int ORDER, int FV, int BX, int BY, int TY,
          int MINB, bool NT>
__global__ void __launch_bounds__(BX *BY, MINB)
covlap(T *__restrict__ out, const T *__restrict__ in,
       const T *__restrict__ links, Ext e, T diag) {
  const int nx = e.n[0], ny = e.n[1], nz = e.n[2];
  const int nt = DIMS == 4 ? e.n[3] : 1;
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = (blockIdx.y * BY + threadIdx.y) * TY;
  const int z = blockIdx.z % nz, t = blockIdx.z / nz;
  if (x >= nx || y0 >= ny)
    return;
  const long sites = (long)nx * ny * nz * nt;
  const long sy = nx, sz = sy * ny, st = sz * nz;
  const long s0 = x + y0 * sy + z * sz + t * st;
  const long stride[4] = {1, sy, sz, st};
  const int n[4] = {nx, ny, nz, nt};
  T u[LR], v[6];
#pragma unroll
  for (int j = 0; j < TY; ++j) {
    const int y = y0 + j;
    if (y >= ny)
      break;
    const long s = s0 + j * sy;
    const int cc[4] = {x, y, z, t};
    T acc[6];
    load_vec<T, FV>(v, in, s);
#pragma unroll
    for (int q = 0; q < 6; ++q)
      acc[q] = diag * v[q];
#pragma unroll
    for (int mu = 0; mu < DIMS; ++mu) {
      const long sm = s + (wrap(cc[mu] - 1, n[mu]) - cc[mu]) * stride[mu];
      const long sp = s + (wrap(cc[mu] + 1, n[mu]) - cc[mu]) * stride[mu];
      load_link<T, ORDER, DIMS>(u, links, sm, mu, sites);
      load_vec<T, FV>(v, in, sm);
      sub_link_times<true>(acc, u, v);
      load_link<T, ORDER, DIMS>(u, links, s, mu, sites);
      load_vec<T, FV>(v, in, sp);
      sub_link_times<false>(acc, u, v);
    }
    T *o = out + s * 6;
#pragma unroll
    for (int q = 0; q < 6; ++q) {
      if (NT)
        __stcs(o + q, acc[q]);
      else
        o[q] = acc[q];
    }
  }
}

// The reference: one thread per site, links site-major ([site][mu][18]),
// scalar loads, in double.
template <typename T, int DIMS>
__global__ void naive(double *out, const T *in, const T *links, Ext e,
                      double diag) {
  const long sites = (long)e.n[0] * e.n[1] * e.n[2] * (DIMS == 4 ? e.n[3] : 1);
  const long s = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (s >= sites)
    return;
  int c[4];
  long r = s;
  for (int mu = 0; mu < DIMS; ++mu) {
    c[mu] = int(r % e.n[mu]);
    r /= e.n[mu];
  }
  auto index = [&](const int *cc) {
    long i = 0;
    for (int mu = DIMS - 1; mu >= 0; --mu)
      i = i * e.n[mu] + cc[mu];
    return i;
  };
  double acc[6];
  for (int q = 0; q < 6; ++q)
    acc[q] = diag * in[s * 6 + q];
  for (int mu = 0; mu < DIMS; ++mu) {
    for (int d = -1; d <= 1; d += 2) {
      int cc[4] = {c[0], c[1], c[2], c[3]};
      cc[mu] = wrap(cc[mu] + d, e.n[mu]);
      const long nb = index(cc);
      const T *U = links + ((d > 0 ? s : nb) * DIMS + mu) * LR;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double ur, ui;
          if (d > 0) {
            ur = U[2 * (i * 3 + j)];
            ui = U[2 * (i * 3 + j) + 1];
          } else {
            ur = U[2 * (j * 3 + i)];
            ui = -U[2 * (j * 3 + i) + 1];
          }
          const double vr = in[nb * 6 + 2 * j], vi = in[nb * 6 + 2 * j + 1];
          acc[2 * i] -= ur * vr - ui * vi;
          acc[2 * i + 1] -= ur * vi + ui * vr;
        }
    }
  }
  for (int q = 0; q < 6; ++q)
    out[s * 6 + q] = acc[q];
}

__global__ void stream_copy(const float4 *__restrict__ in,
                            float4 *__restrict__ out, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

template <typename F> float median_ms(int runs, F f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < runs + 3; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float m;
    CHECK(cudaEventElapsedTime(&m, a, b));
    if (i >= 3)
      ms.push_back(m);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

static bool g_profile = false;
static double g_peak = 0;

// A problem: random field and links (site-major on the host, reordered per
// variant), the naive result, and the unique bytes per application.
template <typename T, int DIMS> struct Problem {
  Ext e;
  long sites;
  std::vector<T> field, links_site_major;
  T *d_in = nullptr, *d_out = nullptr, *d_links = nullptr;
  double *d_ref = nullptr;
  std::vector<double> ref;
  double bytes;
  const char *label;

  Problem(const char *name, std::vector<int> n) : label(name) {
    sites = 1;
    for (int mu = 0; mu < 4; ++mu) {
      e.n[mu] = mu < (int)n.size() ? n[mu] : 1;
      sites *= e.n[mu];
    }
    std::mt19937_64 gen(1234);
    std::uniform_real_distribution<double> dist(-1, 1);
    field.resize(sites * 6);
    for (auto &v : field)
      v = T(dist(gen));
    // Random SU(3)-like links: entries of unit-order magnitude suffice to
    // check the index arithmetic and the arithmetic of the products.
    links_site_major.resize(sites * DIMS * LR);
    for (auto &v : links_site_major)
      v = T(dist(gen) * 0.5);
    CHECK(cudaMalloc(&d_in, sites * 6 * sizeof(T)));
    CHECK(cudaMalloc(&d_out, sites * 6 * sizeof(T)));
    CHECK(cudaMalloc(&d_links, sites * DIMS * LR * sizeof(T)));
    CHECK(cudaMalloc(&d_ref, sites * 6 * sizeof(double)));
    CHECK(cudaMemcpy(d_in, field.data(), sites * 6 * sizeof(T),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_links, links_site_major.data(),
                     sites * DIMS * LR * sizeof(T), cudaMemcpyHostToDevice));
    naive<T, DIMS><<<(sites + 127) / 128, 128>>>(d_ref, d_in, d_links, e, 2.0 * DIMS + 0.1);
    CHECK(cudaGetLastError());
    ref.resize(sites * 6);
    CHECK(cudaMemcpy(ref.data(), d_ref, sites * 6 * sizeof(double),
                     cudaMemcpyDeviceToHost));
    bytes = double(sites) * (12 + DIMS * LR) * sizeof(T);
  }

  void upload_links(int order) {
    std::vector<T> l(links_site_major.size());
    for (long s = 0; s < sites; ++s)
      for (int mu = 0; mu < DIMS; ++mu)
        for (int k = 0; k < LR; ++k) {
          const T v = links_site_major[(s * DIMS + mu) * LR + k];
          long i = order == SOA   ? link_elem<SOA, DIMS>(s, mu, k, sites)
                   : order == BLK ? link_elem<BLK, DIMS>(s, mu, k, sites)
                                  : link_elem<BLK2, DIMS>(s, mu, k, sites);
          l[i] = v;
        }
    CHECK(cudaMemcpy(d_links, l.data(), l.size() * sizeof(T),
                     cudaMemcpyHostToDevice));
  }

  template <int ORDER, int FV, int BX, int BY, int TY, int MINB, bool NT>
  void run(const char *what) {
    upload_links(ORDER);
    auto kernel = covlap<T, DIMS, ORDER, FV, BX, BY, TY, MINB, NT>;
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, kernel));
    const dim3 block(BX, BY);
    const dim3 grid((e.n[0] + BX - 1) / BX,
                    (e.n[1] + BY * TY - 1) / (BY * TY), e.n[2] * e.n[3]);
    CHECK(cudaMemset(d_out, 0xff, sites * 6 * sizeof(T))); // NaN poison
    const T diag = T(2.0 * DIMS + 0.1);
    kernel<<<grid, block>>>(d_out, d_in, d_links, e, diag);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<T> got(sites * 6);
    CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(T),
                     cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (long i = 0; i < sites * 6; ++i) {
      const double d = double(got[i]) - ref[i];
      err = std::isnan(got[i]) ? INFINITY : std::max(err, std::fabs(d));
      norm = std::max(norm, std::fabs(ref[i]));
      if (std::isnan(got[i]))
        break;
    }
    if (g_profile)
      return;
    const float ms = median_ms(50, [&] {
      kernel<<<grid, block>>>(d_out, d_in, d_links, e, diag);
    });
    const double gbs = bytes / ms * 1e-6;
    std::printf("%-10s %-44s %3d regs %8.4f ms %7.1f GB/s %5.1f%%  err %.1e\n",
                label, what, attr.numRegs, ms, gbs, 100 * gbs / g_peak,
                err / norm);
  }
};

#define RUN(P, ORDER, FV, BX, BY, TY, MINB, NT)                               \
  P.template run<ORDER, FV, BX, BY, TY, MINB, NT>(                             \
      #ORDER " fv" #FV " " #BX "x" #BY " ty" #TY " minb" #MINB " nt" #NT)

int main(int argc, char **argv) {
  g_profile = argc > 1 && std::string(argv[1]) == "profile";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  {
    const long n = 1l << 27; // 2 GiB in, 2 GiB out
    float4 *a, *b;
    CHECK(cudaMalloc(&a, n * 16));
    CHECK(cudaMalloc(&b, n * 16));
    CHECK(cudaMemset(a, 1, n * 16));
    const float ms = median_ms(20, [&] {
      stream_copy<<<prop.multiProcessorCount * 8, 256>>>(a, b, n);
    });
    g_peak = 2.0 * n * 16 / ms * 1e-6;
    std::printf("copy peak %.1f GB/s\n", g_peak);
    // The same copy at the 3-D 64^3 problem's unique bytes (69 MB).
    const long m = 262144l * 264 / 32;
    const float ms2 = median_ms(50, [&] {
      stream_copy<<<prop.multiProcessorCount * 8, 256>>>(a, b, m);
    });
    std::printf("copy of 69 MB: %.4f ms %.1f GB/s %.1f%%\n", ms2,
                2.0 * m * 16 / ms2 * 1e-6, 100 * 2.0 * m * 16 / ms2 * 1e-6 / g_peak);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  {
    Problem<float, 3> p("3d f32 64", {64, 64, 64});
    RUN(p, SOA, 1, 64, 4, 2, 1, true); // the shipped spec's options
    RUN(p, SOA, 2, 64, 4, 2, 1, true);
    RUN(p, BLK, 1, 64, 4, 2, 1, true);
    RUN(p, BLK2, 2, 64, 4, 2, 1, true);
    RUN(p, BLK2, 2, 32, 4, 1, 1, true);
    RUN(p, BLK2, 2, 64, 2, 1, 1, true);
    RUN(p, BLK2, 2, 32, 4, 2, 1, true);
    RUN(p, BLK2, 2, 32, 2, 2, 1, true);
    RUN(p, SOA, 2, 32, 4, 1, 1, true);
    RUN(p, BLK, 2, 32, 4, 1, 1, true);
    RUN(p, BLK2, 2, 32, 4, 1, 4, true);
    RUN(p, BLK2, 2, 32, 4, 1, 8, true);
    RUN(p, SOA, 1, 32, 4, 1, 4, true);
  }
  {
    Problem<float, 3> p("3d f32 256", {256, 256, 256});
    RUN(p, SOA, 1, 64, 4, 2, 1, true);
    RUN(p, SOA, 1, 64, 4, 1, 1, true);
    RUN(p, BLK2, 2, 64, 4, 2, 1, true);
    RUN(p, BLK2, 2, 32, 4, 1, 1, true);
    RUN(p, BLK2, 2, 64, 2, 1, 1, true);
    RUN(p, BLK2, 2, 32, 4, 1, 4, true);
  }
  {
    Problem<double, 4> p("4d f64", {32, 32, 32, 64});
    RUN(p, BLK, 1, 32, 4, 2, 1, false); // the shipped spec's options
    RUN(p, BLK, 2, 32, 4, 2, 1, false);
    RUN(p, BLK2, 2, 32, 4, 2, 1, false);
    RUN(p, BLK2, 2, 32, 4, 1, 1, false);
    RUN(p, BLK2, 2, 32, 4, 1, 4, false);
    RUN(p, BLK2, 2, 64, 2, 1, 1, false);
    RUN(p, BLK2, 2, 32, 2, 1, 1, false);
    RUN(p, SOA, 2, 32, 4, 1, 1, false);
    RUN(p, BLK2, 2, 32, 4, 2, 3, false);
    RUN(p, BLK2, 2, 32, 4, 1, 8, false);
    RUN(p, BLK, 1, 32, 4, 1, 4, false);
  }
  {
    Problem<float, 4> p("4d f32", {32, 32, 32, 64});
    RUN(p, SOA, 1, 64, 2, 1, 1, false); // the shipped spec's options
    RUN(p, BLK2, 2, 64, 2, 1, 1, false);
    RUN(p, BLK2, 2, 32, 4, 1, 1, false);
  }
  return 0;
}
