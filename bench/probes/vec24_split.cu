// vec24_split.cu - a probe, not part of the build: how fast can the 24-float
// 4-D vector Laplacian (AoSoA, blocks of 32 sites) run on this GPU when a
// site's components are split over several threads (CPT components per
// thread) and each thread updates TT sites along t? Written to decide what
// the generator should emit (issue 6); compared with a one-thread-per-
// component reference kernel on random input.
//   nvcc -O3 -arch=sm_90 -o vec24_split vec24_split.cu && ./vec24_split
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

constexpr int NC = 24, B = 32;

__device__ __forceinline__ long elem(long site, int c) {
  return (site / B) * (NC * B) + c * B + site % B;
}
__device__ __forceinline__ int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

__global__ void reference(float *out, const float *in, int nx, int ny, int nz,
                          int nt, float mass) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long sites = (long)nx * ny * nz * nt;
  if (i >= sites * NC)
    return;
  int c = i % NC;
  long s = i / NC;
  int x = s % nx, y = (s / nx) % ny, z = (s / nx / ny) % nz,
      t = s / nx / ny / nz;
  auto at = [&](int xx, int yy, int zz, int tt) {
    long ss = (((long)tt * nz + zz) * ny + yy) * nx + xx;
    return in[elem(ss, c)];
  };
  float r = (8.0f + mass) * at(x, y, z, t);
  r -= at(wrap(x - 1, nx), y, z, t) + at(wrap(x + 1, nx), y, z, t);
  r -= at(x, wrap(y - 1, ny), z, t) + at(x, wrap(y + 1, ny), z, t);
  r -= at(x, y, wrap(z - 1, nz), t) + at(x, y, wrap(z + 1, nz), t);
  r -= at(x, y, z, wrap(t - 1, nt)) + at(x, y, z, wrap(t + 1, nt));
  out[elem(s, c)] = r;
}

// CPT components per thread (24/CPT threads per site), TT sites along t.
// Component group g is the fastest grid index (gfast) or the slowest.
template <int CPT, int TT, bool NT>
__global__ void __launch_bounds__(256)
split(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
      int nz, int nt, int bz, unsigned zblocks, unsigned tblocks, int gfast,
      float mass) {
  constexpr int S = NC / CPT;
  int g, xb, zt;
  if (gfast) {
    g = blockIdx.x % S;
    xb = blockIdx.x / S;
    zt = blockIdx.z;
  } else {
    g = blockIdx.z / (zblocks * tblocks);
    xb = blockIdx.x;
    zt = blockIdx.z % (zblocks * tblocks);
  }
  const int bt = blockDim.z / bz;
  const int x = xb * 32 + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = (zt % zblocks) * bz + threadIdx.z % bz;
  const int t0 = ((zt / zblocks) * bt + threadIdx.z / bz) * TT;
  if (x >= nx || y >= ny || z >= nz || t0 >= nt)
    return;
  const int c0 = g * CPT;
  const float w0 = 8.0f + mass, w1 = -1.0f;
  // Unsigned site numbers: the block split is a shift and a mask.
  auto site = [&](int xx, int yy, int zz, int tt) -> size_t {
    return ((size_t(unsigned(tt) * unsigned(nz) + unsigned(zz)) * unsigned(ny) +
             unsigned(yy)) * unsigned(nx)) + unsigned(xx);
  };
  auto row = [&](size_t s) { return in + (s >> 5) * (NC * B) + (s & 31) + c0 * B; };
  // Stream along t: site k's accumulators start with its six neighbours in
  // x, y, z, then each plane t0+p (p = -1 .. TT) feeds sites p-1, p, p+1;
  // site p-1 is complete after plane p and is stored at once, so only three
  // sites' accumulators are live.
  float acc[TT][CPT];
  const int xm = wrap(x - 1, nx), xp = wrap(x + 1, nx);
  const int ym = wrap(y - 1, ny), yp = wrap(y + 1, ny);
  const int zm = wrap(z - 1, nz), zp = wrap(z + 1, nz);
#pragma unroll
  for (int p = -1; p <= TT; ++p) {
    if (p + 1 < TT) {
      const int k = p + 1, t = t0 + k;
      const size_t u[6] = {site(x, ym, z, t), site(x, y, zm, t),
                         site(x, yp, z, t), site(x, y, zp, t),
                         site(xm, y, z, t), site(xp, y, z, t)};
#pragma unroll
      for (int c = 0; c < CPT; ++c)
        acc[k][c] = w1 * __ldg(row(u[0]) + c * B);
#pragma unroll
      for (int n = 1; n < 6; ++n)
#pragma unroll
        for (int c = 0; c < CPT; ++c)
          acc[k][c] += w1 * __ldg(row(u[n]) + c * B);
    }
    const float *u = row(site(x, y, z, wrap(t0 + p, nt)));
#pragma unroll
    for (int c = 0; c < CPT; ++c) {
      const float v = __ldg(u + c * B);
      if (p - 1 >= 0)
        acc[p - 1][c] += w1 * v;
      if (p >= 0 && p < TT)
        acc[p][c] += w0 * v;
      if (p + 1 < TT)
        acc[p + 1][c] += w1 * v;
    }
    if (p - 1 >= 0) {
      const size_t s = site(x, y, z, t0 + p - 1);
      float *o = out + (s >> 5) * (NC * B) + (s & 31) + c0 * B;
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float *q = o + c * B;
        if (NT)
          __stcs(q, acc[p - 1][c]);
        else
          *q = acc[p - 1][c];
      }
    }
  }
}

// Largest |a - b| (as ordered bits of a non-negative float) and NaN count.
__global__ void max_diff(const float *a, const float *b, long n,
                         unsigned *maxbits, unsigned *nans) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x) {
    const float d = fabsf(a[i] - b[i]);
    if (d != d)
      atomicAdd(nans, 1u);
    else
      atomicMax(maxbits, __float_as_uint(d));
  }
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
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Block { int y, z, t; };

int main(int argc, char **argv) {
  const int nx = 32, ny = 32, nz = 32, nt = 64;
  const int runs = 30;
  const bool profile = argc > 1; // ncu: one launch of the chosen variants
  const long sites = (long)nx * ny * nz * nt, n = sites * NC;
  const double bytes = 2.0 * n * sizeof(float);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  float *in, *out, *ref;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&out, n * 4));
  CHECK(cudaMalloc(&ref, n * 4));
  std::vector<float> h(n), r(n);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto &v : h)
    v = dist(gen);
  CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  const float mass = 0.1f;
  reference<<<(n + 255) / 256, 256>>>(ref, in, nx, ny, nz, nt, mass);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost));

  double peak = 0;
  if (!profile) {
    const long cn = 1l << 28; // 1 GiB per buffer
    float *a, *b;
    CHECK(cudaMalloc(&a, cn * 4));
    CHECK(cudaMalloc(&b, cn * 4));
    CHECK(cudaMemset(a, 1, cn * 4));
    float ms = median_ms(runs, [&] {
      stream_copy<<<prop.multiProcessorCount * 8, 512>>>(
          (const float4 *)a, (float4 *)b, cn / 4);
    });
    peak = 2.0 * cn * 4 / ms / 1e6;
    ms = median_ms(runs, [&] {
      CHECK(cudaMemcpyAsync(b, a, cn * 4, cudaMemcpyDeviceToDevice));
    });
    peak = std::max(peak, 2.0 * cn * 4 / ms / 1e6);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf("device %s, peak %.1f GB/s\n", prop.name, peak);
  }

  unsigned *flags;
  CHECK(cudaMalloc(&flags, 2 * sizeof(unsigned)));
  float norm = 0;
  for (float v : r)
    norm = std::max(norm, std::fabs(v));

  struct Result { int cpt, tt, nt, gfast, l1; Block b; float ms; double err; };
  std::vector<Result> results;
  bool bad = false;
  auto run = [&](auto kernel, int cpt, int tt, int ntstore, Block b,
                 int gfast, int l1) {
    const int S = NC / cpt;
    if (nt % (b.t * tt) || ny % b.y || nz % b.z || 32 * b.y * b.z * b.t > 256)
      return;
    // l1: all of the unified cache as L1 (no shared-memory carve-out).
    CHECK(cudaFuncSetAttribute(kernel,
                               cudaFuncAttributePreferredSharedMemoryCarveout,
                               l1 ? 0 : -1));
    unsigned zb = nz / b.z, tb = nt / (b.t * tt);
    dim3 block(32, b.y, b.z * b.t);
    dim3 grid(gfast ? S : 1, ny / b.y, zb * tb * (gfast ? 1 : S));
    CHECK(cudaMemset(out, 0xff, n * 4)); // NaN: unwritten shows
    auto launch = [&] {
      kernel<<<grid, block>>>(out, in, nx, ny, nz, nt, b.z, zb, tb, gfast,
                              mass);
    };
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(flags, 0, 2 * sizeof(unsigned)));
    max_diff<<<1024, 256>>>(out, ref, n, flags, flags + 1);
    unsigned hf[2];
    CHECK(cudaMemcpy(hf, flags, sizeof hf, cudaMemcpyDeviceToHost));
    float maxd;
    std::memcpy(&maxd, &hf[0], 4);
    const double err = hf[1] ? INFINITY : maxd / norm;
    float ms = profile ? 0.0f : median_ms(runs, launch);
    Result x{cpt, tt, ntstore, gfast, l1, b, ms, err};
    results.push_back(x);
    bad |= !(err < 1e-5);
    if (!profile)
      std::printf("%-4d %-3d %-3d %-6d %-3d 32x%dx%dx%d %9.4f %9.1f %7.1f %9.2e\n",
                  x.cpt, x.tt, x.nt, x.gfast, x.l1, x.b.y, x.b.z, x.b.t, x.ms,
                  bytes / x.ms / 1e6, 100 * bytes / x.ms / 1e6 / peak, x.err);
  };
  std::vector<Block> blocks = {{4, 2, 1}, {2, 2, 2}, {8, 1, 1}, {4, 1, 2},
                               {2, 4, 1}, {1, 2, 4}, {2, 1, 4}, {1, 4, 2}};
  if (profile) {
    Block b{4, 2, 1};
    run(split<24, 1, true>, 24, 1, 1, b, 1, 0);
    run(split<12, 8, true>, 12, 8, 1, b, 1, 0);
    run(split<8, 8, true>, 8, 8, 1, b, 1, 0);
    run(split<6, 8, true>, 6, 8, 1, Block{8, 1, 1}, 1, 0);
    return bad ? 3 : 0;
  }
  std::printf("%-4s %-3s %-3s %-6s %-3s %-9s %9s %9s %7s %9s\n", "cpt", "tt",
              "nt", "gfast", "l1", "block", "ms", "GB/s", "%peak", "relerr");
  for (Block b : blocks)
    for (int l1 = 0; l1 <= 1; ++l1) {
      run(split<24, 1, true>, 24, 1, 1, b, 1, l1);
      run(split<24, 1, false>, 24, 1, 0, b, 1, l1);
      run(split<12, 1, true>, 12, 1, 1, b, 1, l1);
      run(split<12, 1, true>, 12, 1, 1, b, 0, l1);
      run(split<8, 1, true>, 8, 1, 1, b, 1, l1);
      run(split<6, 1, true>, 6, 1, 1, b, 1, l1);
      run(split<24, 2, true>, 24, 2, 1, b, 1, l1);
      run(split<12, 2, true>, 12, 2, 1, b, 1, l1);
      run(split<12, 4, true>, 12, 4, 1, b, 1, l1);
      run(split<8, 2, true>, 8, 2, 1, b, 1, l1);
      run(split<8, 4, true>, 8, 4, 1, b, 1, l1);
      run(split<8, 8, true>, 8, 8, 1, b, 1, l1);
      run(split<6, 2, true>, 6, 2, 1, b, 1, l1);
      run(split<6, 4, true>, 6, 4, 1, b, 1, l1);
      run(split<6, 8, true>, 6, 8, 1, b, 1, l1);
      run(split<6, 8, true>, 6, 8, 1, b, 0, l1);
      run(split<4, 8, true>, 4, 8, 1, b, 1, l1);
      run(split<6, 16, true>, 6, 16, 1, b, 1, l1);
      run(split<12, 8, true>, 12, 8, 1, b, 1, l1);
      run(split<12, 16, true>, 12, 16, 1, b, 1, l1);
      run(split<8, 16, true>, 8, 16, 1, b, 1, l1);
      run(split<24, 4, true>, 24, 4, 1, b, 1, l1);
    }
  std::sort(results.begin(), results.end(),
            [](const Result &a, const Result &b) { return a.ms < b.ms; });
  std::printf("\nbest 12:\n");
  for (size_t i = 0; i < results.size() && i < 12; ++i) {
    const Result &x = results[i];
    std::printf("%-4d %-3d %-3d %-6d %-3d 32x%dx%dx%d %9.4f %9.1f %7.1f %9.2e\n",
                x.cpt, x.tt, x.nt, x.gfast, x.l1, x.b.y, x.b.z, x.b.t, x.ms,
                bytes / x.ms / 1e6, 100 * bytes / x.ms / 1e6 / peak, x.err);
  }
  if (bad)
    std::printf("ERROR: a variant differs from the reference\n");
  return bad ? 3 : 0;
}
