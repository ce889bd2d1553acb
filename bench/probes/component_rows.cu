// component_rows.cu - a probe, not part of the build: how fast can the
// 24-float 4-D periodic vector Laplacian run in component-major storage
// (soa, aosoa:32) when each thread takes an aligned group of W sites along x
// for K of the 24 components (a site's shares by block) and TY sites along
// y? Written to decide whether kernel.vector_width should group sites along
// each component's row (issue 20; docs/performance.md, "Groups along x for
// component-major vector fields"). Every variant is checked against a
// one-thread-per-value reference on random input; poisoned output first.
//   nvcc -O3 -arch=sm_90 -o component_rows component_rows.cu && ./component_rows
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr int NC = 24;

template <bool AOSOA>
__device__ __forceinline__ long elem(long s, int c, long S) {
  if (AOSOA)
    return (s >> 5) * (32 * NC) + c * 32 + (s & 31);
  return c * S + s;
}
__device__ __forceinline__ int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

template <bool AOSOA>
__global__ void reference(float *out, const float *in, int nx, int ny, int nz,
                          int nt, float mass) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long S = (long)nx * ny * nz * nt;
  if (i >= S * NC)
    return;
  int c = i / S;
  long s = i % S;
  int x = s % nx, y = (s / nx) % ny, z = (s / nx / ny) % nz,
      t = s / nx / ny / nz;
  auto at = [&](int xx, int yy, int zz, int tt) {
    long ss = (((long)tt * nz + zz) * ny + yy) * nx + xx;
    return in[elem<AOSOA>(ss, c, S)];
  };
  float r = (8.0f + mass) * at(x, y, z, t);
  r -= at(wrap(x - 1, nx), y, z, t) + at(wrap(x + 1, nx), y, z, t);
  r -= at(x, wrap(y - 1, ny), z, t) + at(x, wrap(y + 1, ny), z, t);
  r -= at(x, y, wrap(z - 1, nz), t) + at(x, y, wrap(z + 1, nz), t);
  r -= at(x, y, z, wrap(t - 1, nt)) + at(x, y, z, wrap(t + 1, nt));
  out[elem<AOSOA>(s, c, S)] = r;
}

template <int W> struct V;
template <> struct V<1> { using T = float; };
template <> struct V<2> { using T = float2; };
template <> struct V<4> { using T = float4; };

template <int W>
__device__ __forceinline__ void ld(float (&v)[W], const float *p) {
  using T = typename V<W>::T;
  T t = *reinterpret_cast<const T *>(p);
  const float *f = reinterpret_cast<const float *>(&t);
#pragma unroll
  for (int l = 0; l < W; ++l)
    v[l] = f[l];
}

template <int W, int K, int TY, bool AOSOA>
__global__ void __launch_bounds__(256)
groups(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
       int nz, int nt, float mass, int shares) {
  const int share = blockIdx.x % shares;
  const int x = W * ((blockIdx.x / shares) * blockDim.x + threadIdx.x);
  const int y0 = TY * (blockIdx.y * blockDim.y + threadIdx.y);
  const int zt = blockIdx.z * blockDim.z + threadIdx.z;
  const int z = zt % nz, t = zt / nz;
  if (x >= nx || y0 >= ny || t >= nt)
    return;
  const long S = (long)nx * ny * nz * nt;
  const long sy = nx, sz = (long)nx * ny, st = sz * nz;
  const int xm = wrap(x - 1, nx), xp = wrap(x + W, nx);
  const int zm = wrap(z - 1, nz), zp = wrap(z + 1, nz);
  const int tm = wrap(t - 1, nt), tp = wrap(t + 1, nt);
  const float w0 = 8.0f + mass;
  const int c0 = share * K;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int c = c0 + k;
    float acc[TY][W];
#pragma unroll
    for (int j = 0; j < TY; ++j)
#pragma unroll
      for (int l = 0; l < W; ++l)
        acc[j][l] = 0.0f;
    // rows y0-1 .. y0+TY: each loaded once, feeding every tile row it touches
#pragma unroll
    for (int r = -1; r <= TY; ++r) {
      const int y = wrap(y0 + r, ny);
      float v[W];
      ld<W>(v, in + elem<AOSOA>(x + y * sy + z * sz + t * st, c, S));
#pragma unroll
      for (int j = 0; j < TY; ++j) {
        if (r == j) {
#pragma unroll
          for (int l = 0; l < W; ++l) {
            acc[j][l] += w0 * v[l];
            if (l > 0) acc[j][l] -= v[l - 1];
            if (l < W - 1) acc[j][l] -= v[l + 1];
          }
        } else if (r == j - 1 || r == j + 1) {
#pragma unroll
          for (int l = 0; l < W; ++l)
            acc[j][l] -= v[l];
        }
      }
    }
#pragma unroll
    for (int j = 0; j < TY; ++j) {
      const long base = x + (long)(y0 + j) * sy;
      float v[W];
      ld<W>(v, in + elem<AOSOA>(base + zm * sz + t * st, c, S));
#pragma unroll
      for (int l = 0; l < W; ++l) acc[j][l] -= v[l];
      ld<W>(v, in + elem<AOSOA>(base + zp * sz + t * st, c, S));
#pragma unroll
      for (int l = 0; l < W; ++l) acc[j][l] -= v[l];
      ld<W>(v, in + elem<AOSOA>(base + z * sz + tm * st, c, S));
#pragma unroll
      for (int l = 0; l < W; ++l) acc[j][l] -= v[l];
      ld<W>(v, in + elem<AOSOA>(base + z * sz + tp * st, c, S));
#pragma unroll
      for (int l = 0; l < W; ++l) acc[j][l] -= v[l];
      const long yz = (long)(y0 + j) * sy + z * sz + t * st;
      acc[j][0] -= in[elem<AOSOA>(xm + yz, c, S)];
      acc[j][W - 1] -= in[elem<AOSOA>(xp + yz, c, S)];
      using T = typename V<W>::T;
      T o;
      float *f = reinterpret_cast<float *>(&o);
#pragma unroll
      for (int l = 0; l < W; ++l) f[l] = acc[j][l];
      *reinterpret_cast<T *>(out + elem<AOSOA>(base + z * sz + t * st, c, S)) = o;
    }
  }
}

__global__ void copy4(float4 *__restrict__ o, const float4 *__restrict__ i,
                      long n) {
  for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < n;
       k += (long)gridDim.x * blockDim.x)
    o[k] = i[k];
}

__global__ void maxdiff(const float *a, const float *b, long n,
                        unsigned *bits) {
  float m = 0;
  for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < n;
       k += (long)gridDim.x * blockDim.x) {
    float d = fabsf(a[k] - b[k]);
    if (!(d <= m)) m = isnan(d) ? 1e30f : d;
  }
  atomicMax(bits, __float_as_uint(m));
}

__global__ void poison(float *a, long n) {
  for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < n;
       k += (long)gridDim.x * blockDim.x)
    a[k] = __int_as_float(0x7fc00001);
}

struct Ctx {
  int nx, ny, nz, nt;
  float *in, *out, *ref;
  unsigned *bits;
  long n;
  double bytes;
  cudaEvent_t e0, e1;
};

template <typename F> float timeit(Ctx &c, F f) {
  for (int i = 0; i < 3; ++i) f();
  CHECK(cudaGetLastError());
  std::vector<float> ms;
  for (int r = 0; r < 15; ++r) {
    CHECK(cudaEventRecord(c.e0));
    for (int i = 0; i < 10; ++i) f();
    CHECK(cudaEventRecord(c.e1));
    CHECK(cudaEventSynchronize(c.e1));
    float t;
    CHECK(cudaEventElapsedTime(&t, c.e0, c.e1));
    ms.push_back(t / 10);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <int W, int K, int TY, bool AOSOA>
void run(Ctx &c, int bx, int by, int bz, double peak) {
  const int shares = NC / K;
  if ((c.nx / W) % bx || c.ny % (by * TY) || (c.nz * c.nt) % bz)
    return;
  dim3 block(bx, by, bz);
  dim3 grid((c.nx / W / bx) * shares, c.ny / (by * TY), c.nz * c.nt / bz);
  poison<<<1024, 256>>>(c.out, c.n);
  groups<W, K, TY, AOSOA><<<grid, block>>>(c.out, c.in, c.nx, c.ny, c.nz,
                                            c.nt, 0.1f, shares);
  CHECK(cudaGetLastError());
  CHECK(cudaMemset(c.bits, 0, 4));
  maxdiff<<<1024, 256>>>(c.out, c.ref, c.n, c.bits);
  unsigned b;
  CHECK(cudaMemcpy(&b, c.bits, 4, cudaMemcpyDeviceToHost));
  float d;
  std::memcpy(&d, &b, 4);
  float ms = timeit(c, [&] {
    groups<W, K, TY, AOSOA><<<grid, block>>>(c.out, c.in, c.nx, c.ny, c.nz,
                                              c.nt, 0.1f, shares);
  });
  double gbs = c.bytes / (ms * 1e6);
  std::printf("%-5s W=%d K=%2d TY=%d block=%3dx%dx%d  %8.1f GB/s  %5.1f%%  "
              "maxdiff %.2e\n",
              AOSOA ? "aosoa" : "soa", W, K, TY, bx, by, bz, gbs,
              100 * gbs / peak, d);
}

template <bool AOSOA> void all(Ctx &c, double peak) {
  reference<AOSOA><<<(c.n + 255) / 256, 256>>>(c.ref, c.in, c.nx, c.ny, c.nz,
                                               c.nt, 0.1f);
  CHECK(cudaDeviceSynchronize());
  const int shapes[][3] = {{32, 4, 1}, {32, 2, 2}, {64, 2, 1}, {16, 8, 1},
                           {32, 8, 1}, {8, 8, 2}, {16, 4, 2}};
  for (auto &s : shapes) {
#define R(W, K, TY) run<W, K, TY, AOSOA>(c, s[0], s[1], s[2], peak)
    R(1, 12, 2); R(1, 6, 2); R(1, 2, 1);
    R(2, 1, 1); R(2, 2, 1); R(2, 4, 1); R(2, 6, 1); R(2, 2, 2); R(2, 4, 2);
    R(4, 1, 1); R(4, 2, 1); R(4, 4, 1); R(4, 6, 1); R(4, 1, 2); R(4, 2, 2);
    R(4, 4, 2);
#undef R
  }
}

int main() {
  Ctx c;
  c.nx = 32; c.ny = 32; c.nz = 32; c.nt = 64;
  c.n = (long)c.nx * c.ny * c.nz * c.nt * NC;
  c.bytes = 2.0 * c.n * 4;
  CHECK(cudaMalloc(&c.in, c.n * 4));
  CHECK(cudaMalloc(&c.out, c.n * 4));
  CHECK(cudaMalloc(&c.ref, c.n * 4));
  CHECK(cudaMalloc(&c.bits, 4));
  CHECK(cudaEventCreate(&c.e0));
  CHECK(cudaEventCreate(&c.e1));
  std::vector<float> h(c.n);
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto &v : h) v = u(g);
  CHECK(cudaMemcpy(c.in, h.data(), c.n * 4, cudaMemcpyHostToDevice));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  float ms = timeit(c, [&] {
    copy4<<<132 * 16, 256>>>((float4 *)c.out, (const float4 *)c.in, c.n / 4);
  });
  double peak = c.bytes / (ms * 1e6);
  std::printf("%s: copy of the same bytes %.1f GB/s\n", p.name, peak);
  all<false>(c, peak);
  all<true>(c, peak);
  return 0;
}
