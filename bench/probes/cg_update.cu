// cg_update.cu - a probe, not part of the build: how fast can CG's update
// pass (x += alpha p, r -= alpha q, and sum r^2 per block) run at 256^3 in
// float and double, and what does the runtime's reduce kernel need? Written
// to decide between one term per grid-stride step (as the runtime had it),
// four terms a stride apart with all loads first, and 16-byte vector loads
// (issue 20, item 4: mixed-precision CG's float iterations).
// Every variant is checked against a host loop on random input.
//   nvcc -O3 -arch=sm_90 -o cg_update cg_update.cu && ./cg_update
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

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;
using Index = long long;

/// The block's sum into partials[blockIdx.x] (shared-memory tree).
__device__ void block_total(double sum, double *partials) {
  __shared__ double shared[kThreads];
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

template <typename T>
__global__ void one_term(T alpha, const T *p, const T *q, T *x, T *r, Index n,
                         double *partials) {
  double sum = 0.0;
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x) {
    x[i] += alpha * p[i];
    const T ri = r[i] - alpha * q[i];
    r[i] = ri;
    sum += static_cast<double>(ri) * ri;
  }
  block_total(sum, partials);
}

template <typename T>
__global__ void four_terms(T alpha, const T *p, const T *q, T *x, T *r,
                           Index n, double *partials) {
  double sum = 0.0;
  const Index s = static_cast<Index>(blockDim.x) * gridDim.x;
  Index i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * s < n; i += 4 * s) {
    T pv[4], qv[4], xv[4], rv[4];
    for (int k = 0; k < 4; ++k) {
      pv[k] = p[i + k * s];
      qv[k] = q[i + k * s];
      xv[k] = x[i + k * s];
      rv[k] = r[i + k * s];
    }
    for (int k = 0; k < 4; ++k) {
      xv[k] += alpha * pv[k];
      rv[k] -= alpha * qv[k];
      x[i + k * s] = xv[k];
      r[i + k * s] = rv[k];
      sum += static_cast<double>(rv[k]) * rv[k];
    }
  }
  for (; i < n; i += s) {
    x[i] += alpha * p[i];
    const T ri = r[i] - alpha * q[i];
    r[i] = ri;
    sum += static_cast<double>(ri) * ri;
  }
  block_total(sum, partials);
}

template <typename T, int W> struct alignas(sizeof(T) * W) Vec {
  T v[W];
};

/// W consecutive values per access (16 bytes), `groups` accesses a stride
/// apart per step with all loads first; n must be a multiple of W.
template <typename T, int groups>
__global__ void vector_terms(T alpha, const T *p, const T *q, T *x, T *r,
                             Index n, double *partials) {
  constexpr int W = 16 / sizeof(T);
  using V = Vec<T, W>;
  const V *pv = reinterpret_cast<const V *>(p);
  const V *qv = reinterpret_cast<const V *>(q);
  V *xv = reinterpret_cast<V *>(x);
  V *rv = reinterpret_cast<V *>(r);
  const Index m = n / W;
  double sum = 0.0;
  const Index s = static_cast<Index>(blockDim.x) * gridDim.x;
  Index i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (groups - 1) * s < m; i += groups * s) {
    V a[groups], b[groups], c[groups], d[groups];
    for (int g = 0; g < groups; ++g) {
      a[g] = pv[i + g * s];
      b[g] = qv[i + g * s];
      c[g] = xv[i + g * s];
      d[g] = rv[i + g * s];
    }
    for (int g = 0; g < groups; ++g) {
      for (int l = 0; l < W; ++l) {
        c[g].v[l] += alpha * a[g].v[l];
        d[g].v[l] -= alpha * b[g].v[l];
        sum += static_cast<double>(d[g].v[l]) * d[g].v[l];
      }
      xv[i + g * s] = c[g];
      rv[i + g * s] = d[g];
    }
  }
  for (; i < m; i += s) {
    V a = pv[i], b = qv[i], c = xv[i], d = rv[i];
    for (int l = 0; l < W; ++l) {
      c.v[l] += alpha * a.v[l];
      d.v[l] -= alpha * b.v[l];
      sum += static_cast<double>(d.v[l]) * d.v[l];
    }
    xv[i] = c;
    rv[i] = d;
  }
  block_total(sum, partials);
}

template <typename T>
using Kernel = void (*)(T, const T *, const T *, T *, T *, Index, double *);

template <typename T> struct Variant {
  const char *name;
  Kernel<T> kernel;
  int blocks; ///< 0: as many as the grid stride needs, at most kMaxBlocks
};

template <typename T> void probe(Index n, double peak) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> host[4];
  for (auto &h : host) {
    h.resize(n);
    for (T &v : h)
      v = static_cast<T>(u(rng));
  }
  T *dev[4];
  T *fresh[4];
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaMalloc(&dev[k], n * sizeof(T)));
    CHECK(cudaMalloc(&fresh[k], n * sizeof(T)));
    CHECK(cudaMemcpy(fresh[k], host[k].data(), n * sizeof(T),
                     cudaMemcpyHostToDevice));
  }
  double *partials;
  CHECK(cudaMalloc(&partials, 65536 * sizeof(double)));
  const T alpha = static_cast<T>(0.375);
  // The host's result: p, q, x, r = host[0..3].
  std::vector<T> xRef(host[2]), rRef(host[3]);
  double rrRef = 0.0;
  for (Index i = 0; i < n; ++i) {
    xRef[i] += alpha * host[0][i];
    rRef[i] = rRef[i] - alpha * host[1][i];
    rrRef += static_cast<double>(rRef[i]) * rRef[i];
  }
  const Variant<T> variants[] = {
      {"one term per step (1024 blocks)", one_term<T>, kMaxBlocks},
      {"four terms, loads first (1024 blocks)", four_terms<T>, kMaxBlocks},
      {"16-byte vectors, 1 per step (1024 blocks)", vector_terms<T, 1>,
       kMaxBlocks},
      {"16-byte vectors, 2 per step (1024 blocks)", vector_terms<T, 2>,
       kMaxBlocks},
      {"16-byte vectors, 4 per step (1024 blocks)", vector_terms<T, 4>,
       kMaxBlocks},
      {"16-byte vectors, 1 per step (one per value group)",
       vector_terms<T, 1>, 0},
  };
  const double bytes = 6.0 * n * sizeof(T);
  std::printf("%s, %lld values, %.1f MB per pass:\n",
              sizeof(T) == 4 ? "float" : "double", n, bytes / 1e6);
  for (const Variant<T> &v : variants) {
    const Index groups = n / (16 / sizeof(T));
    const int blocks =
        v.blocks ? v.blocks
                 : static_cast<int>(std::min<Index>(
                       65535, (groups + kThreads - 1) / kThreads));
    // Correctness on fresh copies, outputs poisoned first where written.
    for (int k = 0; k < 4; ++k)
      CHECK(cudaMemcpy(dev[k], fresh[k], n * sizeof(T),
                       cudaMemcpyDeviceToDevice));
    CHECK(cudaMemset(partials, 0xff, 65536 * sizeof(double)));
    v.kernel<<<blocks, kThreads>>>(alpha, dev[0], dev[1], dev[2], dev[3], n,
                                   partials);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<T> x(n), r(n);
    std::vector<double> parts(blocks);
    CHECK(cudaMemcpy(x.data(), dev[2], n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r.data(), dev[3], n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(parts.data(), partials, blocks * sizeof(double),
                     cudaMemcpyDeviceToHost));
    double rr = 0.0;
    for (double part : parts)
      rr += part;
    // The device may contract a * b + c into one rounding (fma).
    const double eps = sizeof(T) == 4 ? 1e-6 : 1e-14;
    Index bad = 0;
    for (Index i = 0; i < n; ++i)
      bad += std::abs(double(x[i]) - xRef[i]) > eps * (1 + std::abs(xRef[i])) ||
             std::abs(double(r[i]) - rRef[i]) > eps * (1 + std::abs(rRef[i]));
    const double relative = std::abs(rr - rrRef) / rrRef;
    // Timing: the values drift with each pass (alpha is applied again), which
    // changes nothing about the traffic.
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int rep = 0; rep < 23; ++rep) {
      CHECK(cudaEventRecord(start));
      v.kernel<<<blocks, kThreads>>>(alpha, dev[0], dev[1], dev[2], dev[3], n,
                                     partials);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaGetLastError());
      float t = 0.0f;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (rep >= 3)
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    const double gbs = bytes / (median * 1e-3) / 1e9;
    std::printf("  %-50s %8.4f ms %8.1f GB/s %5.1f%%  %s (%lld wrong values, "
                "sum off by %.1e)\n",
                v.name, median, gbs, 100.0 * gbs / peak,
                bad == 0 && relative < 1e-6 ? "ok" : "WRONG", bad, relative);
  }
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaFree(dev[k]));
    CHECK(cudaFree(fresh[k]));
  }
  CHECK(cudaFree(partials));
}

/// The copy peak: cudaMemcpy device to device of 1 GiB, bytes read plus
/// written, median of 10.
double copy_peak() {
  const size_t bytes = size_t(1) << 30;
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int rep = 0; rep < 13; ++rep) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0.0f;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (rep >= 3)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const double peak = copy_peak();
  std::printf("%s: copy peak %.1f GB/s (cudaMemcpy, 1 GiB)\n", prop.name,
              peak);
  const Index n = Index(256) * 256 * 256;
  probe<float>(n, peak);
  probe<double>(n, peak);
  return 0;
}
