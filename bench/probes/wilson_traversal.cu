// wilson_traversal.cu - a probe, not part of the build: does the order in
// which a hopping kernel's threads walk the half lattice decide whether the
// double Wilson hop reaches the copy bandwidth at 48^3 x 64?
//
// The generated even-to-odd Wilson hop (wilson4d_eo_* as they were then:
// spinors aos in even/odd halves, links aosoa:32 with pairs, 16-byte spinor
// loads, ascending loads) maps thread number v to the site v of the output half
// in storage order (x fastest, then y, z, t). A t-neighbour's spinor is
// read twice, as the t+1 neighbour of time slice t and as the t-1
// neighbour of slice t + 2: two slices of traffic apart (170 MB at 48^3 in
// double, 50 MB at 32^3; the H100's L2 holds 50 MB). Walking t in tiles of
// TT slices inside z (v -> x, y, t mod TT, z, t / TT) brings the t-reuse
// to two x-y planes and the z-reuse to 2 TT planes.
//
// Every variant's output is compared bit for bit with TT = 1's (the same
// arithmetic at every site, only the thread that does it changes), and
// TT = 1 with a plain host loop over a small lattice.
// clang-format off
//   nvcc -O3 -arch=sm_90 -std=c++17 -I runtime/include -o wt bench/probes/wilson_traversal.cu
// clang-format on
//   ./wt            timing table
//   ./wt profile    one launch per variant at 48^3 x 64, for ncu
//   ./wt sweep      slabs of 1 and 8 slices from 32^3 to 48^3 (x 64)
#include "stencil/dirac.hpp"
#include "stencil/layout.hpp"
#include "stencil/link_algebra.hpp"
#include "stencil/platform.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr stencil::Layout kLinkLayout = {2, 32, {1, 1, 1, 1}, 1, 2};

// Decomposes thread number v of a half lattice: x fastest, then y, then
// t mod TT, z, t / TT (TT divides nt; TT = 1 is the storage order).
template <int TT>
__device__ inline void walk(unsigned v, int nxh, int ny, int nz, int &xh,
                            int &y, int &z, int &t) {
  xh = static_cast<int>(v % nxh);
  v /= nxh;
  y = static_cast<int>(v % ny);
  v /= ny;
  if constexpr (TT == 1) {
    z = static_cast<int>(v % nz);
    t = static_cast<int>(v / nz);
  } else {
    const int tin = static_cast<int>(v % TT);
    v /= TT;
    z = static_cast<int>(v % nz);
    t = static_cast<int>(v / nz) * TT + tin;
  }
}

template <typename T> struct Wide {
  static constexpr int V = 16 / sizeof(T);
  using type = stencil::vec<T, V>;
};

template <typename T, int Mu, int Sign, bool First, bool Dagger>
__device__ inline void tap(T *acc, T w, const T *in, const T *links,
                           stencil::index_t spinor_site,
                           stencil::index_t link_site, stencil::index_t sites) {
  using W = Wide<T>;
  constexpr stencil::Layout link_layout = {2, 32, {1, 1, 1, 1}, 1, 2};
  stencil::LinkMatrix<T, 3> l;
  stencil::load_link<3, 18>(l, links, link_layout, link_site, Mu, 4, sites);
  T u[24];
  const auto *from = reinterpret_cast<const typename W::type *>(in + spinor_site * 24);
#pragma unroll
  for (int j = 0; j < 24 / W::V; ++j) {
    const auto v = from[j];
#pragma unroll
    for (int k = 0; k < W::V; ++k)
      u[j * W::V + k] = v.v[k];
  }
  stencil::spin_link_times<First, Dagger, Mu, Sign>(acc, w, l, u);
}

// The even-to-odd hop of wilson4d_eo (parity-1 outputs), antiperiodic in t,
// loads in ascending address order (t-1, z-1, y-1, x-1, x+1, y+1, z+1, t+1).
template <typename T, int TT, int MinBlocks>
__global__ void __launch_bounds__(128, MinBlocks)
hop(T *__restrict__ out, const T *__restrict__ in, const T *__restrict__ U,
    int nx, int ny, int nz, int nt) {
  const unsigned v = blockIdx.x * 128u + threadIdx.x;
  const int nxh = nx / 2;
  if (v >= static_cast<unsigned>(nxh) * ny * nz * nt)
    return;
  int xh, y, z, t;
  walk<TT>(v, nxh, ny, nz, xh, y, z, t);
  const int x = 2 * xh + ((y + z + t + 1) & 1);
  const stencil::index_t half = static_cast<stencil::index_t>(nx) * ny * nz * nt / 2;
  const stencil::index_t site = stencil::even_odd_site(x, y, z, t, nx, ny, nz);
  const int xm = stencil::wrap(x - 1, nx), xp = stencil::wrap(x + 1, nx);
  const int ym = stencil::wrap(y - 1, ny), yp = stencil::wrap(y + 1, ny);
  const int zm = stencil::wrap(z - 1, nz), zp = stencil::wrap(z + 1, nz);
  const int tm = stencil::wrap(t - 1, nt), tp = stencil::wrap(t + 1, nt);
  const T w = static_cast<T>(-0.5);
  const T wtm = t < 1 ? -w : w, wtp = t >= nt - 1 ? -w : w;
  T acc[24];
  using stencil::even_odd_site;
  const auto s_tm = even_odd_site(x, y, z, tm, nx, ny, nz);
  const auto s_zm = even_odd_site(x, y, zm, t, nx, ny, nz);
  const auto s_ym = even_odd_site(x, ym, z, t, nx, ny, nz);
  const auto s_xm = even_odd_site(xm, y, z, t, nx, ny, nz);
  tap<T, 3, 1, true, true>(acc, wtm, in, U, s_tm, s_tm, 2 * half);
  tap<T, 2, 1, false, true>(acc, w, in, U, s_zm, s_zm, 2 * half);
  tap<T, 1, 1, false, true>(acc, w, in, U, s_ym, s_ym, 2 * half);
  tap<T, 0, 1, false, true>(acc, w, in, U, s_xm, s_xm, 2 * half);
  tap<T, 0, -1, false, false>(acc, w, in, U, even_odd_site(xp, y, z, t, nx, ny, nz), half + site, 2 * half);
  tap<T, 1, -1, false, false>(acc, w, in, U, even_odd_site(x, yp, z, t, nx, ny, nz), half + site, 2 * half);
  tap<T, 2, -1, false, false>(acc, w, in, U, even_odd_site(x, y, zp, t, nx, ny, nz), half + site, 2 * half);
  tap<T, 3, -1, false, false>(acc, wtp, in, U, even_odd_site(x, y, z, tp, nx, ny, nz), half + site, 2 * half);
  using W = Wide<T>;
  auto *to = reinterpret_cast<typename W::type *>(out + site * 24);
#pragma unroll
  for (int j = 0; j < 24 / W::V; ++j) {
    typename W::type r;
#pragma unroll
    for (int k = 0; k < W::V; ++k)
      r.v[k] = acc[j * W::V + k];
    to[j] = r;
  }
}

// Fills a[i] with a value in [-1, 1) from a hash of (seed, i).
template <typename T>
__global__ void fill(T *a, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (seed * 0xBF58476D1CE4E5B9ull);
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    a[i] = static_cast<T>(static_cast<double>(h >> 11) / 4503599627370496.0 - 1.0);
  }
}

template <typename T> struct Problem {
  int n[4];
  size_t half, spinor, links;
  T *in = nullptr, *out = nullptr, *U = nullptr;
  Problem(int nx, int ny, int nz, int nt) : n{nx, ny, nz, nt} {
    half = size_t(nx) * ny * nz * nt / 2;
    spinor = half * 24;
    links = 2 * half * 4 * 18;
    CHECK(cudaMalloc(&in, spinor * sizeof(T)));
    CHECK(cudaMalloc(&out, spinor * sizeof(T)));
    CHECK(cudaMalloc(&U, links * sizeof(T)));
    fill<<<1024, 256>>>(in, spinor, 1);
    fill<<<1024, 256>>>(U, links, 2);
    CHECK(cudaGetLastError());
  }
  ~Problem() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(U);
  }
  double unique_bytes() const { return double(half) * (2 * 24 + 8 * 18) * sizeof(T); }
};

template <typename T, int TT, int MB>
void launch(const Problem<T> &p) {
  const unsigned blocks = unsigned((p.half + 127) / 128);
  hop<T, TT, MB><<<blocks, 128>>>(p.out, p.in, p.U, p.n[0], p.n[1], p.n[2], p.n[3]);
}

using Launcher = void (*)(const void *);

template <typename F> float median_ms(F f, int runs = 20) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float m;
    CHECK(cudaEventElapsedTime(&m, a, b));
    ms.push_back(m);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double copy_peak() {
  const size_t n = size_t(1) << 30; // 1 GiB each way
  void *a, *b;
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  CHECK(cudaMemset(a, 1, n));
  const float ms = median_ms([&] { CHECK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice)); });
  cudaFree(a);
  cudaFree(b);
  return 2.0 * n / (ms * 1e6);
}

template <typename T>
std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// A plain host loop for the even-to-odd hop on a small lattice: dense
// projectors from stencil::gamma_entry, full link products.
template <typename T>
double host_check(int nx, int ny, int nz, int nt) {
  Problem<T> p(nx, ny, nz, nt);
  launch<T, 1, 1>(p);
  CHECK(cudaDeviceSynchronize());
  const auto in = download(p.in, p.spinor), U = download(p.U, p.links),
             out = download(p.out, p.spinor);
  const int n[4] = {nx, ny, nz, nt};
  double worst = 0.0, scale = 0.0;
  for (int t = 0; t < nt; ++t)
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          if (((x + y + z + t) & 1) != 1)
            continue;
          const int c[4] = {x, y, z, t};
          const auto site = stencil::even_odd_site(x, y, z, t, nx, ny, nz);
          double acc[24] = {};
          for (int mu = 0; mu < 4; ++mu)
            for (int dir = -1; dir <= 1; dir += 2) {
              int d[4] = {c[0], c[1], c[2], c[3]};
              d[mu] = (d[mu] + dir + n[mu]) % n[mu];
              double sign = 1.0;
              if (mu == 3 && (c[3] + dir < 0 || c[3] + dir >= nt))
                sign = -1.0;
              const auto nb = stencil::even_odd_site(d[0], d[1], d[2], d[3], nx, ny, nz);
              // link U_mu(x) for dir +1 (stored with parity 1 at site), U_mu(x - mu)^dagger for -1
              const bool back = dir < 0;
              const auto lsite = back ? nb : p.half + site;
              double L[18];
              for (int k = 0; k < 18; ++k)
                L[k] = U[stencil::layout_element(kLinkLayout, lsite, mu * 18 + k, 72, 2 * p.half)];
              // projector 1 - gamma (forward) or 1 + gamma (backward), dense
              const double s = back ? 1.0 : -1.0;
              double g[4][4][2] = {};
              for (int r = 0; r < 4; ++r) {
                const stencil::GammaEntry e = stencil::gamma_entry(mu, r);
                double re = 1, im = 0;
                for (int q = 0; q < e.phase; ++q) { const double tre = -im; im = re; re = tre; }
                g[r][e.column][0] = re;
                g[r][e.column][1] = im;
              }
              for (int r = 0; r < 4; ++r)
                for (int a = 0; a < 3; ++a) {
                  double sr = 0, si = 0;
                  for (int q = 0; q < 4; ++q) {
                    const double pr = (r == q ? 1.0 : 0.0) + s * g[r][q][0];
                    const double pi = s * g[r][q][1];
                    for (int b = 0; b < 3; ++b) {
                      double lr = L[2 * (a * 3 + b)], li = L[2 * (a * 3 + b) + 1];
                      if (back) { lr = L[2 * (b * 3 + a)]; li = -L[2 * (b * 3 + a) + 1]; }
                      const double vr = in[nb * 24 + 2 * (q * 3 + b)], vi = in[nb * 24 + 2 * (q * 3 + b) + 1];
                      const double mr = lr * vr - li * vi, mi = lr * vi + li * vr;
                      sr += pr * mr - pi * mi;
                      si += pr * mi + pi * mr;
                    }
                  }
                  acc[2 * (r * 3 + a)] += -0.5 * sign * sr;
                  acc[2 * (r * 3 + a) + 1] += -0.5 * sign * si;
                }
            }
          for (int k = 0; k < 24; ++k) {
            worst = std::max(worst, std::abs(acc[k] - double(out[site * 24 + k])));
            scale = std::max(scale, std::abs(acc[k]));
          }
        }
  return worst / scale;
}

template <typename T> struct Variant {
  const char *name;
  void (*f)(const Problem<T> &);
};

template <typename T>
void run(const char *precision, int nx, int ny, int nz, int nt, double peak,
         bool profile, bool sweep = false) {
  Problem<T> p(nx, ny, nz, nt);
  const Variant<T> sweepVariants[] = {{"TT=1 mb=1", launch<T, 1, 1>},
                                      {"TT=8 mb=1", launch<T, 8, 1>}};
  const Variant<T> allVariants[] = {
      {"TT=1 mb=1", launch<T, 1, 1>}, {"TT=2 mb=1", launch<T, 2, 1>},
      {"TT=4 mb=1", launch<T, 4, 1>}, {"TT=8 mb=1", launch<T, 8, 1>},
      {"TT=16 mb=1", launch<T, 16, 1>},
      {"TT=1 mb=3", launch<T, 1, 3>}, {"TT=4 mb=3", launch<T, 4, 3>},
      {"TT=8 mb=3", launch<T, 8, 3>},
  };
  std::vector<Variant<T>> variants(std::begin(allVariants), std::end(allVariants));
  if (sweep)
    variants.assign(std::begin(sweepVariants), std::end(sweepVariants));
  std::vector<T> reference;
  for (const Variant<T> &v : variants) {
    CHECK(cudaMemset(p.out, 0xff, p.spinor * sizeof(T))); // NaN poison
    v.f(p);
    CHECK(cudaDeviceSynchronize());
    const auto got = download(p.out, p.spinor);
    if (reference.empty())
      reference = got;
    const bool same = std::memcmp(got.data(), reference.data(), got.size() * sizeof(T)) == 0;
    if (profile)
      continue;
    const float ms = median_ms([&] { v.f(p); });
    const double gbs = p.unique_bytes() / (ms * 1e6);
    std::printf("%-6s %2dx%2dx%2dx%2d %-10s %8.4f ms %7.1f GB/s %5.1f%%  %s\n",
                precision, nx, ny, nz, nt, v.name, ms, gbs, 100 * gbs / peak,
                same ? "bitwise equal" : "DIFFERS");
  }
}

int main(int argc, char **argv) {
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, L2 %d MB\n", prop.name, prop.l2CacheSize >> 20);
  std::printf("host check of the TT=1 kernel at 6x4x4x6: double %.2e, float %.2e\n",
              host_check<double>(6, 4, 4, 6), host_check<float>(6, 4, 4, 6));
  const double peak = copy_peak();
  std::printf("device-to-device copy %.1f GB/s\n", peak);
  if (profile) {
    run<double>("double", 48, 48, 48, 64, peak, true);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "sweep") {
    // Where walking t in slabs starts to pay: lattices between 32^3 and
    // 48^3 (x 64), the traffic between a t-neighbour's two reads against
    // the L2.
    for (int s : {32, 36, 40, 44, 48}) {
      run<double>("double", s, s, s, 64, peak, false, true);
      run<float>("float", s, s, s, 64, peak, false, true);
    }
    std::printf("device-to-device copy %.1f GB/s (again)\n", copy_peak());
    return 0;
  }
  for (int s : {32, 48}) {
    run<double>("double", s, s, s, 64, peak, false);
    run<float>("float", s, s, s, 64, peak, false);
  }
  std::printf("device-to-device copy %.1f GB/s (again)\n", copy_peak());
  return 0;
}
