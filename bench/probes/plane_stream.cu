// plane_stream.cu - a probe, not part of the build: does the streaming
// shared-memory form reach issue 20's targets where the register kernels
// stop (the 27-point stencil at 83-84% of the copy, target 90%; the 7-point
// Laplacian at 512^3, 93% float, target 97%)?
//
// A block owns a BX x BY column of output sites over ZC planes along z. It
// slides along z one plane at a time: each plane of its box (the column plus
// a one-site halo in x and y) is copied into a ring of shared-memory buffers
// D planes ahead of the one being read, so D planes of loads are in flight
// without registers holding them. Each thread reads its 3x3 neighbourhood of
// the plane from shared memory and adds it into three accumulators, the
// outputs at z - 1, z and z + 1 (every tap of the plane feeds the output it
// belongs to), and stores the output whose last plane this was.
//
// Copies: `Async4` (cp.async of 4 bytes a value, zero-filled outside the
// array), `Async16` (16-byte cp.async of rows widened to 4-value groups;
// needs nx % 4 == 0) and `Registers` (plain loads of the next plane into
// registers while the current one is read, stored to shared memory after:
// what a GPU without asynchronous copies can do).
//
// Dirichlet update region as the generated kernels: sites 1..n-2 on every
// axis, read from 0..n-1. Every variant is checked against a naive kernel in
// double on random input, with the output poisoned first.
//   nvcc -O3 -arch=sm_90 -o plane_stream plane_stream.cu && ./plane_stream 512
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

/// Tap weight by neighbour class (nonzero offsets): the shipped specs'
/// compact 27-point stencil, or the 7-point Laplacian.
template <bool Box> __host__ __device__ constexpr float weight(int n) {
  if (Box)
    return n == 0 ? 128.f / 30 : n == 1 ? -14.f / 30 : n == 2 ? -0.1f : -1.f / 30;
  return n == 0 ? 6.f : n == 1 ? -1.f : 0.f;
}
__host__ __device__ constexpr int cls(int dx, int dy, int dz) {
  return (dx != 0) + (dy != 0) + (dz != 0);
}

// --- the reference and the baseline -----------------------------------------

template <bool Box>
__global__ void naive(float *out, const float *in, int nx, int ny, int nz) {
  const int x = 1 + blockIdx.x * blockDim.x + threadIdx.x;
  const int y = 1 + blockIdx.y * blockDim.y + threadIdx.y;
  const int z = 1 + blockIdx.z;
  if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
    return;
  const Index sy = nx, sz = sy * ny, site = x + y * sy + z * sz;
  float acc = 0.f;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx)
        if (weight<Box>(cls(dx, dy, dz)) != 0.f)
          acc += weight<Box>(cls(dx, dy, dz)) *
                 __ldg(&in[site + dx + dy * sy + dz * sz]);
  __stcs(&out[site], acc);
}

// --- the streaming kernels --------------------------------------------------

enum class Copy { Async4, Async16, Registers };

__device__ inline void async4(float *dst, const float *src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d),
               "l"(src), "r"(valid ? 4 : 0));
}
__device__ inline void async16(float *dst, const float *src, int bytes) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
               "l"(src), "r"(bytes));
}
__device__ inline void commit() { asm volatile("cp.async.commit_group;\n"); }
template <int N> __device__ inline void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int BX, int BY, Copy C> struct Box {
  // Row width in shared memory: the column plus the halo (from x0 - 1,
  // 16-byte aligned when BX % 4 == 0), widened to whole 16-byte groups for
  // Async16.
  static constexpr int width = C == Copy::Async16 ? BX + 4 : BX + 2;
  static constexpr int rows = BY + 2;
  static constexpr int size = width * rows;
  static constexpr int threads = BX * BY;
  static constexpr int perThread = (size + threads - 1) / threads;
};

/// Copies plane z of the box whose first output site is (x0, y0) into buf.
template <int BX, int BY, Copy C>
__device__ inline void copy_plane(float *buf, const float *in, int nx, int ny,
                                  int nz, int x0, int y0, int z) {
  using B = Box<BX, BY, C>;
  const int tid = threadIdx.x + threadIdx.y * BX;
  const Index plane = static_cast<Index>(z) * nx * ny;
  const bool zin = z >= 0 && z < nz;
  if (C == Copy::Async16) {
    constexpr int groups = B::width / 4;
    for (int g = tid; g < groups * B::rows; g += B::threads) {
      const int row = g / groups, col = (g % groups) * 4;
      const int gx = x0 - 1 + col, gy = y0 - 1 + row;
      const bool ok = zin && gy < ny && gx < nx;
      const float *src = ok ? in + plane + static_cast<Index>(gy) * nx + gx : in;
      async16(buf + row * B::width + col, src, ok ? 16 : 0);
    }
  } else {
    for (int e = tid; e < B::size; e += B::threads) {
      const int row = e / B::width, col = e % B::width;
      const int gx = x0 - 1 + col, gy = y0 - 1 + row;
      const bool ok = zin && gy < ny && gx < nx;
      const float *src = ok ? in + plane + static_cast<Index>(gy) * nx + gx : in;
      async4(buf + e, src, ok);
    }
  }
}

template <int BX, int BY, int ZC, int D, Copy C, bool BoxStencil>
__global__ void __launch_bounds__(BX *BY)
    stream(float *out, const float *in, int nx, int ny, int nz) {
  using B = Box<BX, BY, C>;
  constexpr int buffers = C == Copy::Registers ? 2 : D + 1;
  __shared__ __align__(16) float ring[buffers][B::size];
  const int x0 = 1 + blockIdx.x * BX, y0 = 1 + blockIdx.y * BY;
  const int z0 = 1 + blockIdx.z * ZC;
  const int z1 = min(z0 + ZC, nz - 1); // one past this block's last output
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = x0 + tx, y = y0 + ty;
  const bool mine = x < nx - 1 && y < ny - 1;
  const Index sy = nx, sz = sy * ny;
  float a0 = 0.f, a1 = 0.f, a2 = 0.f; // outputs at p - 1, p, p + 1

  // Registers: the next plane's values, loaded a plane ahead.
  float staged[B::perThread];
  const int tid = tx + ty * BX;
  auto loadRegisters = [&](int z) {
    const bool zin = z >= 0 && z < nz;
#pragma unroll
    for (int k = 0; k < B::perThread; ++k) {
      const int e = tid + k * B::threads;
      const int row = e / B::width, col = e % B::width;
      const int gx = x0 - 1 + col, gy = y0 - 1 + row;
      staged[k] = (e < B::size && zin && gy < ny && gx < nx)
                      ? __ldg(&in[z * sz + gy * sy + gx])
                      : 0.f;
    }
  };
  auto storeRegisters = [&](float *buf) {
#pragma unroll
    for (int k = 0; k < B::perThread; ++k)
      if (tid + k * B::threads < B::size)
        buf[tid + k * B::threads] = staged[k];
  };

  const int first = z0 - 1, last = z1; // planes read
  if (C == Copy::Registers) {
    loadRegisters(first);
  } else {
#pragma unroll
    for (int k = 0; k < D; ++k) {
      if (first + k <= last)
        copy_plane<BX, BY, C>(ring[k], in, nx, ny, nz, x0, y0, first + k);
      commit();
    }
  }
  for (int p = first; p <= last; ++p) {
    const int i = p - first;
    float *buf;
    if (C == Copy::Registers) {
      // Buffer i & 1 was last read in iteration i - 2, which every thread
      // finished before the barrier of iteration i - 1.
      buf = ring[i & 1];
      storeRegisters(buf);
      __syncthreads();
      if (p < last)
        loadRegisters(p + 1);
    } else {
      wait_pending<D - 1>();
      __syncthreads(); // every copy of plane p landed; plane p - 1 is read
      if (p + D <= last)
        copy_plane<BX, BY, C>(ring[(i + D) % buffers], in, nx, ny, nz, x0, y0,
                              p + D);
      commit();
      buf = ring[i % buffers];
    }
    float v[3][3];
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx)
        v[dy][dx] = buf[(ty + dy) * B::width + tx + dx];
    // Plane p holds the taps dz = +1 of output p - 1, dz = 0 of p, dz = -1
    // of p + 1.
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx) {
        const float u = v[dy][dx];
        const float wm = weight<BoxStencil>(cls(dx - 1, dy - 1, 1));
        const float w0 = weight<BoxStencil>(cls(dx - 1, dy - 1, 0));
        if (wm != 0.f) {
          a0 += wm * u;
          a2 += wm * u;
        }
        if (w0 != 0.f)
          a1 += w0 * u;
      }
    if (p - 1 >= z0 && mine)
      __stcs(&out[(p - 1) * sz + y * sy + x], a0);
    a0 = a1;
    a1 = a2;
    a2 = 0.f;
  }
}

/// The same slide with a thread computing TY x 4 sites (4 along x): a
/// barrier then covers 4 TY outputs a thread instead of one, and each row of
/// the thread's neighbourhood is one 16-byte and one 8-byte shared load.
template <int BX, int BY, int TY, int ZC, int D, bool BoxStencil>
__global__ void __launch_bounds__(BX *BY)
    stream_wide(float *out, const float *in, int nx, int ny, int nz) {
  constexpr int SX = 4 * BX, SY = TY * BY; // the block's sites in a plane
  constexpr int width = SX + 4, rows = SY + 2, size = width * rows;
  constexpr int buffers = D + 1, threads = BX * BY, groups = width / 4;
  __shared__ __align__(16) float ring[buffers][size];
  const int x0 = 1 + blockIdx.x * SX, y0 = 1 + blockIdx.y * SY;
  const int z0 = 1 + blockIdx.z * ZC;
  const int z1 = min(z0 + ZC, nz - 1);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = tx + ty * BX;
  const Index sy = nx, sz = sy * ny;
  auto copy = [&](float *buf, int z) {
    const bool zin = z >= 0 && z < nz;
    const Index plane = static_cast<Index>(z) * sz;
    for (int g = tid; g < groups * rows; g += threads) {
      const int row = g / groups, col = (g % groups) * 4;
      const int gx = x0 - 1 + col, gy = y0 - 1 + row;
      const bool ok = zin && gy < ny && gx < nx;
      async16(buf + row * width + col,
              ok ? in + plane + static_cast<Index>(gy) * nx + gx : in,
              ok ? 16 : 0);
    }
  };
  float a[3][TY][4] = {};
  const int first = z0 - 1, last = z1;
#pragma unroll
  for (int k = 0; k < D; ++k) {
    if (first + k <= last)
      copy(ring[k], first + k);
    commit();
  }
  const int xs = x0 + 4 * tx, ys = y0 + TY * ty;
  for (int p = first; p <= last; ++p) {
    const int i = p - first;
    wait_pending<D - 1>();
    __syncthreads();
    if (p + D <= last)
      copy(ring[(i + D) % buffers], p + D);
    commit();
    const float *buf = ring[i % buffers];
#pragma unroll
    for (int r = 0; r < TY + 2; ++r) {
      const float *row = buf + (TY * ty + r) * width + 4 * tx;
      const float4 m = *reinterpret_cast<const float4 *>(row);
      const float2 e = *reinterpret_cast<const float2 *>(row + 4);
      const float u[6] = {m.x, m.y, m.z, m.w, e.x, e.y};
      // Row r of the box feeds the thread's output rows r - 2 .. r.
#pragma unroll
      for (int o = 0; o < TY; ++o) {
        const int dy = r - o - 1;
        if (dy < -1 || dy > 1)
          continue;
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int dx = -1; dx <= 1; ++dx) {
            const float wm = weight<BoxStencil>(cls(dx, dy, 1));
            const float w0 = weight<BoxStencil>(cls(dx, dy, 0));
            const float v = u[j + 1 + dx];
            if (wm != 0.f) {
              a[0][o][j] += wm * v;
              a[2][o][j] += wm * v;
            }
            if (w0 != 0.f)
              a[1][o][j] += w0 * v;
          }
      }
    }
    if (p - 1 >= z0) {
#pragma unroll
      for (int o = 0; o < TY; ++o) {
        const int y = ys + o;
        if (y >= ny - 1)
          continue;
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (xs + j < nx - 1)
            __stcs(&out[(p - 1) * sz + y * sy + xs + j], a[0][o][j]);
      }
    }
#pragma unroll
    for (int o = 0; o < TY; ++o)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        a[0][o][j] = a[1][o][j];
        a[1][o][j] = a[2][o][j];
        a[2][o][j] = 0.f;
      }
  }
}

// --- timing -----------------------------------------------------------------

__global__ void copy4(float4 *dst, const float4 *src, Index n) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x)
    dst[i] = src[i];
}

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

struct Setup {
  int nx, ny, nz;
  float *in, *out, *ref;
  double peak;
  int runs;
};

/// Relative L2 error against ref, and whether every update site was written.
bool check(const Setup &s, const char *name) {
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  std::vector<float> got(n), want(n);
  CHECK(cudaMemcpy(got.data(), s.out, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), s.ref, n * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  Index unwritten = 0;
  for (int z = 1; z < s.nz - 1; ++z)
    for (int y = 1; y < s.ny - 1; ++y)
      for (int x = 1; x < s.nx - 1; ++x) {
        const Index i = x + static_cast<Index>(s.nx) * (y + static_cast<Index>(s.ny) * z);
        if (std::isnan(got[i])) {
          ++unwritten;
          continue;
        }
        num += (got[i] - want[i]) * double(got[i] - want[i]);
        den += double(want[i]) * want[i];
      }
  const double err = std::sqrt(num / den);
  const bool ok = unwritten == 0 && err < 1e-5;
  if (!ok)
    std::printf("  %s: FAILED (relative error %.3g, %lld sites unwritten)\n",
                name, err, unwritten);
  return ok;
}

template <typename F> void row(const Setup &s, const char *name, F &&launch) {
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  CHECK(cudaMemset(s.out, 0xff, n * 4)); // NaN
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const bool ok = check(s, name);
  const double ms = median_ms(launch, s.runs);
  const double bytes = 8.0 * (s.nx - 2) * double(s.ny - 2) * (s.nz - 2);
  std::printf("%-44s %8.4f ms %7.1f GB/s %5.1f%% %s\n", name, ms,
              bytes / ms / 1e6, 100 * bytes / ms / 1e6 / s.peak,
              ok ? "ok" : "WRONG");
}

template <int BX, int BY, int ZC, int D, Copy C, bool BoxStencil>
void variant(const Setup &s) {
  const dim3 block(BX, BY), grid((s.nx - 2 + BX - 1) / BX,
                                 (s.ny - 2 + BY - 1) / BY,
                                 (s.nz - 2 + ZC - 1) / ZC);
  char name[96];
  std::snprintf(name, sizeof name, "%s %dx%d z%d %s D%d",
                BoxStencil ? "27pt" : "7pt", BX, BY, ZC,
                C == Copy::Async4    ? "async4"
                : C == Copy::Async16 ? "async16"
                                     : "registers",
                C == Copy::Registers ? 1 : D);
  row(s, name, [&] {
    stream<BX, BY, ZC, D, C, BoxStencil><<<grid, block>>>(s.out, s.in, s.nx,
                                                          s.ny, s.nz);
  });
}

template <int BX, int BY, int TY, int ZC, int D, bool BoxStencil>
void wide(const Setup &s) {
  const dim3 block(BX, BY), grid((s.nx - 2 + 4 * BX - 1) / (4 * BX),
                                 (s.ny - 2 + TY * BY - 1) / (TY * BY),
                                 (s.nz - 2 + ZC - 1) / ZC);
  char name[96];
  std::snprintf(name, sizeof name, "%s %dx%d threads, 4x%d sites, z%d wide D%d",
                BoxStencil ? "27pt" : "7pt", BX, BY, TY, ZC, D);
  row(s, name, [&] {
    stream_wide<BX, BY, TY, ZC, D, BoxStencil>
        <<<grid, block>>>(s.out, s.in, s.nx, s.ny, s.nz);
  });
}

template <bool BoxStencil> void stencil(Setup &s) {
  const dim3 nb(32, 4), ng((s.nx - 2 + 31) / 32, (s.ny - 2 + 3) / 4, s.nz - 2);
  const Index n = static_cast<Index>(s.nx) * s.ny * s.nz;
  CHECK(cudaMemset(s.ref, 0xff, n * 4));
  naive<BoxStencil><<<ng, nb>>>(s.ref, s.in, s.nx, s.ny, s.nz);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // The naive kernel against a host loop in double on a sample of sites.
  {
    std::vector<float> in(n), ref(n);
    CHECK(cudaMemcpy(in.data(), s.in, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ref.data(), s.ref, n * 4, cudaMemcpyDeviceToHost));
    std::mt19937 rng(7);
    double worst = 0;
    for (int k = 0; k < 100000; ++k) {
      const int x = 1 + rng() % (s.nx - 2), y = 1 + rng() % (s.ny - 2),
                z = 1 + rng() % (s.nz - 2);
      double acc = 0;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            acc += double(weight<BoxStencil>(cls(dx, dy, dz))) *
                   in[(x + dx) + Index(s.nx) * ((y + dy) + Index(s.ny) * (z + dz))];
      const Index i = x + Index(s.nx) * (y + Index(s.ny) * z);
      worst = std::max(worst, std::fabs(acc - ref[i]) / (1.0 + std::fabs(acc)));
    }
    std::printf("%s naive against the host in double: worst %.2e %s\n",
                BoxStencil ? "27pt" : "7pt", worst,
                worst < 1e-5 ? "ok" : "WRONG");
  }
  row(s, BoxStencil ? "27pt naive 32x4 one site" : "7pt naive 32x4 one site",
      [&] {
        naive<BoxStencil><<<ng, nb>>>(s.out, s.in, s.nx, s.ny, s.nz);
      });
  variant<32, 8, 64, 2, Copy::Async16, BoxStencil>(s);
  variant<64, 4, 64, 4, Copy::Async16, BoxStencil>(s);
  variant<64, 4, 64, 1, Copy::Registers, BoxStencil>(s);
  wide<16, 8, 1, 64, 2, BoxStencil>(s);
  wide<16, 8, 2, 64, 2, BoxStencil>(s);
  wide<16, 16, 1, 64, 2, BoxStencil>(s);
  wide<32, 4, 1, 64, 2, BoxStencil>(s);
  wide<32, 4, 2, 64, 2, BoxStencil>(s);
  wide<32, 4, 2, 64, 3, BoxStencil>(s);
  wide<32, 4, 4, 64, 2, BoxStencil>(s);
  wide<32, 8, 1, 64, 2, BoxStencil>(s);
  wide<32, 8, 2, 64, 2, BoxStencil>(s);
  wide<32, 8, 2, 128, 2, BoxStencil>(s);
  wide<32, 2, 4, 64, 3, BoxStencil>(s);
  wide<64, 4, 1, 64, 2, BoxStencil>(s);
  wide<64, 4, 2, 64, 2, BoxStencil>(s);
  wide<64, 2, 2, 64, 3, BoxStencil>(s);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  Setup s{n, n, n, nullptr, nullptr, nullptr, 0, 50};
  const Index sites = Index(n) * n * n;
  CHECK(cudaMalloc(&s.in, sites * 4));
  CHECK(cudaMalloc(&s.out, sites * 4));
  CHECK(cudaMalloc(&s.ref, sites * 4));
  {
    std::vector<float> h(sites);
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto &v : h)
      v = u(rng);
    CHECK(cudaMemcpy(s.in, h.data(), sites * 4, cudaMemcpyHostToDevice));
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // The copy peak: the same bytes as a stencil pass (one field read, one
  // written), float4 grid-stride copy.
  const Index quads = sites / 4;
  const float copy_ms = median_ms(
      [&] {
        copy4<<<(quads + 255) / 256, 256>>>(
            reinterpret_cast<float4 *>(s.out),
            reinterpret_cast<const float4 *>(s.in), quads);
      },
      s.runs);
  s.peak = 8.0 * sites / copy_ms / 1e6;
  std::printf("%s, %d^3 float; copy %.4f ms, peak %.1f GB/s\n", prop.name, n,
              copy_ms, s.peak);
  stencil<true>(s);
  stencil<false>(s);
  std::printf("copy again: %.1f GB/s\n",
              8.0 * sites /
                  median_ms(
                      [&] {
                        copy4<<<(quads + 255) / 256, 256>>>(
                            reinterpret_cast<float4 *>(s.out),
                            reinterpret_cast<const float4 *>(s.in), quads);
                      },
                      s.runs) /
                  1e6);
  return 0;
}
