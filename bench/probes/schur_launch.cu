// schur_launch.cu - a probe, not part of the build: how much of one
// application of the even/odd Schur complement S = D_e - A_eo D_o^-1 A_oe
// of the 24-float 4-D vector Laplacian (laplacian4d_vec24_eo: AoSoA(32)
// halves, 12 of a site's 24 components per thread, blocks of 256 threads,
// as its 16^3 x 32 tuning entry) goes to launching and draining its two
// hopping kernels, and which launch removes it (issue 20, item 3):
//   streams   the two kernels back to back, as SchurComplement::apply
//   graph     N applications captured in one CUDA graph
//   PDL       the second kernel launched early (programmatic dependent
//             launch, Hopper): its blocks wait at cudaGridDependencySynchronize
//   fused     one cooperative launch per application: both hops in one
//             persistent kernel, a grid-wide barrier between them
// Every variant's result is compared with the streams' (the same arithmetic
// in the same order, up to the compiler's choice of FMAs). Time: CUDA events around one application
// (median of 50) and around 50 back to back; beside them a copy kernel of
// the same bytes.
//   nvcc -O3 -arch=sm_90 -o schur_launch schur_launch.cu && ./schur_launch
#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

constexpr int NC = 24, B = 32, K = 12, THREADS = 256;

__device__ __forceinline__ long elem(long site, int c) {
  return (site / B) * (NC * B) + c * B + site % B;
}
__device__ __forceinline__ int wrap(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}
__device__ __forceinline__ long eo(int x, int y, int z, int t, int nx, int ny,
                                   int nz) {
  return ((((long)t * nz + z) * ny + y) * nx + x) >> 1;
}

enum { kInverseDiagonal, kDiagonalPlus };

/// One virtual block `vb` of a hop into parity `P`: as the generated
/// kernel's body, blockIdx.x replaced by vb.
template <int P, int MODE, bool PDL, bool COHERENT = false>
__device__ __forceinline__ void hop(float *__restrict__ out,
                                    const float *__restrict__ in,
                                    const float *__restrict__ same, float alpha,
                                    float beta, int nx, int ny, int nz, int nt,
                                    float mass, unsigned vb) {
  const unsigned site32 = (vb / 2u) * THREADS + threadIdx.x;
  const int c0 = static_cast<int>(vb % 2u) * K;
  if (site32 >= unsigned(nx / 2) * ny * nz * nt)
    return;
  unsigned rest = site32;
  const int xh = rest % unsigned(nx / 2);
  rest /= unsigned(nx / 2);
  const int y = rest % unsigned(ny);
  rest /= unsigned(ny);
  const int z = rest % unsigned(nz);
  const int t = rest / unsigned(nz);
  const int x = 2 * xh + ((y + z + t + P) & 1);
  const long half = (long)nx * ny * nz * nt / 2;
  const long site = site32;
  const int xm = wrap(x - 1, nx), xp = wrap(x + 1, nx), ym = wrap(y - 1, ny),
            yp = wrap(y + 1, ny), zm = wrap(z - 1, nz), zp = wrap(z + 1, nz),
            tm = wrap(t - 1, nt), tp = wrap(t + 1, nt);
  const long u[8] = {eo(x, y, z, tm, nx, ny, nz), eo(x, y, zm, t, nx, ny, nz),
                     eo(x, ym, z, t, nx, ny, nz), eo(xm, y, z, t, nx, ny, nz),
                     eo(xp, y, z, t, nx, ny, nz), eo(x, yp, z, t, nx, ny, nz),
                     eo(x, y, zp, t, nx, ny, nz), eo(x, y, z, tp, nx, ny, nz)};
  const float diag = 8.0f + mass;
  if (PDL) // the previous kernel's results are visible past this point
    cudaGridDependencySynchronize();
  // `in` written earlier in the same kernel (the fused one) must not be
  // read through the read-only (non-coherent) path that __restrict__ allows.
  auto load = [&](long i) { return COHERENT ? __ldcg(in + i) : in[i]; };
  float acc[K];
#pragma unroll
  for (int c = 0; c < K; ++c)
    acc[c] = -load(elem(u[0], c0 + c));
#pragma unroll
  for (int j = 1; j < 8; ++j)
#pragma unroll
    for (int c = 0; c < K; ++c)
      acc[c] += -load(elem(u[j], c0 + c));
  if (MODE == kInverseDiagonal) {
    const float scale = beta / diag;
#pragma unroll
    for (int c = 0; c < K; ++c)
      acc[c] *= scale;
  } else {
    const float s = alpha * diag;
#pragma unroll
    for (int c = 0; c < K; ++c)
      acc[c] = acc[c] * beta + s * same[elem(site, c0 + c)];
  }
#pragma unroll
  for (int c = 0; c < K; ++c)
    out[elem(site, c0 + c)] = acc[c];
  (void)half;
}

template <int P, int MODE, bool PDL>
__global__ void __launch_bounds__(THREADS)
    hop_kernel(float *__restrict__ out, const float *__restrict__ in,
               const float *__restrict__ same, float alpha, float beta, int nx,
               int ny, int nz, int nt, float mass) {
  if (PDL) // let the next kernel's blocks start arriving
    cudaTriggerProgrammaticLaunchCompletion();
  hop<P, MODE, PDL>(out, in, same, alpha, beta, nx, ny, nz, nt, mass,
                    blockIdx.x);
}

/// Both hops, `blocks` virtual blocks each, over a grid that fits the GPU at
/// once: S in = D_e in - A_eo D_o^-1 A_oe in.
__global__ void __launch_bounds__(THREADS)
    schur_fused(float *__restrict__ out, const float *__restrict__ in,
                float *__restrict__ odd, int nx, int ny, int nz, int nt,
                float mass, unsigned blocks) {
  for (unsigned vb = blockIdx.x; vb < blocks; vb += gridDim.x)
    hop<1, kInverseDiagonal, false>(odd, in, nullptr, 0.f, 1.f, nx, ny, nz, nt,
                                    mass, vb);
  cooperative_groups::this_grid().sync();
  for (unsigned vb = blockIdx.x; vb < blocks; vb += gridDim.x)
    hop<0, kDiagonalPlus, false, true>(out, odd, in, 1.f, -1.f, nx, ny, nz, nt,
                                       mass, vb);
}

__global__ void copy4(const float4 *__restrict__ in, float4 *__restrict__ out,
                      long n) {
  long i = blockIdx.x * 256L + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

struct Fields {
  float *in, *odd, *out;
};

int main(int argc, char **argv) {
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const int N = 50;
  std::vector<std::vector<int>> sizes = {{16, 16, 16, 32}, {32, 32, 32, 64}};
  if (argc == 5)
    sizes = {{atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4])}};
  for (const std::vector<int> &n : sizes) {
    const int nx = n[0], ny = n[1], nz = n[2], nt = n[3];
    const long half = (long)nx * ny * nz * nt / 2;
    const long values = half * NC;
    const float mass = 0.1f;
    // Both hops: in and out of the first, in, same and out of the second.
    const double bytes = 5.0 * values * sizeof(float);
    Fields f;
    CHECK(cudaMalloc(&f.in, values * sizeof(float)));
    CHECK(cudaMalloc(&f.odd, values * sizeof(float)));
    CHECK(cudaMalloc(&f.out, values * sizeof(float)));
    std::vector<float> host(values);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (float &v : host)
      v = u(rng);
    CHECK(cudaMemcpy(f.in, host.data(), values * sizeof(float),
                     cudaMemcpyHostToDevice));
    const unsigned blocks = unsigned((half + THREADS - 1) / THREADS) * 2u;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    auto streams = [&] {
      hop_kernel<1, kInverseDiagonal, false><<<blocks, THREADS, 0, stream>>>(
          f.odd, f.in, nullptr, 0.f, 1.f, nx, ny, nz, nt, mass);
      hop_kernel<0, kDiagonalPlus, false><<<blocks, THREADS, 0, stream>>>(
          f.out, f.odd, f.in, 1.f, -1.f, nx, ny, nz, nt, mass);
    };
    auto pdl = [&] {
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = blocks;
      cfg.blockDim = THREADS;
      cfg.stream = stream;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      CHECK(cudaLaunchKernelEx(&cfg, hop_kernel<1, kInverseDiagonal, true>,
                               f.odd, (const float *)f.in,
                               (const float *)nullptr, 0.f, 1.f, nx, ny, nz,
                               nt, mass));
      CHECK(cudaLaunchKernelEx(&cfg, hop_kernel<0, kDiagonalPlus, true>, f.out,
                               (const float *)f.odd, (const float *)f.in, 1.f,
                               -1.f, nx, ny, nz, nt, mass));
    };
    int perSM = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, schur_fused,
                                                        THREADS, 0));
    const unsigned fusedGrid =
        std::min<unsigned>(blocks, perSM * prop.multiProcessorCount);
    auto fused = [&] {
      void *args[] = {&f.out, &f.in, &f.odd, (void *)&nx, (void *)&ny,
                      (void *)&nz, (void *)&nt, (void *)&mass,
                      (void *)&blocks};
      CHECK(cudaLaunchCooperativeKernel((void *)schur_fused, fusedGrid,
                                        THREADS, args, 0, stream));
    };
    // Reference result: the streams.
    streams();
    CHECK(cudaStreamSynchronize(stream));
    std::vector<float> ref(values), got(values);
    CHECK(cudaMemcpy(ref.data(), f.out, values * sizeof(float),
                     cudaMemcpyDeviceToHost));
    auto same = [&](const char *name) {
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaMemcpy(got.data(), f.out, values * sizeof(float),
                       cudaMemcpyDeviceToHost));
      // Bitwise equal, or within rounding where the compiler contracted
      // other products into FMAs.
      long differ = 0, wrong = 0;
      double worst = 0.0;
      for (long i = 0; i < values; ++i) {
        const double d = std::fabs(double(got[i]) - ref[i]);
        differ += got[i] != ref[i];
        wrong += !(d <= 1e-5 * (1.0 + std::fabs(ref[i])));
        worst = std::max(worst, d);
      }
      if (differ)
        std::printf("  %s: %ld values differ from the streams', by at most "
                    "%.2e\n",
                    name, differ, worst);
      return wrong == 0;
    };
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    auto oneMs = [&](auto body) {
      std::vector<float> t;
      for (int i = 0; i < N + 3; ++i) {
        CHECK(cudaEventRecord(a, stream));
        body();
        CHECK(cudaEventRecord(b, stream));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 3)
          t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    // Per application, the median of 7 runs of N applications back to back
    // made by `calls` calls of `body` (N, or 1 for a graph of N).
    auto batchMs = [&](auto body, int calls) {
      std::vector<float> t;
      for (int r = 0; r < 7; ++r) {
        CHECK(cudaEventRecord(a, stream));
        for (int i = 0; i < calls; ++i)
          body();
        CHECK(cudaEventRecord(b, stream));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / N);
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    auto graphOf = [&](auto body, int count) {
      cudaGraph_t g;
      cudaGraphExec_t e;
      CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < count; ++i)
        body();
      CHECK(cudaStreamEndCapture(stream, &g));
      CHECK(cudaGraphInstantiate(&e, g, 0));
      CHECK(cudaGraphDestroy(g));
      return e;
    };
    std::printf("\n%dx%dx%dx%d: %.1f MB per application; the fused kernel "
                "runs %u blocks of %u (%d per SM)\n",
                nx, ny, nz, nt, bytes * 1e-6, fusedGrid, blocks, perSM);
    auto line = [&](const char *name, double one, double each) {
      std::printf("  %-28s one %.4f ms (%6.1f GB/s), each of %d %.4f ms "
                  "(%6.1f GB/s)\n",
                  name, one, bytes / (one * 1e6), N, each,
                  bytes / (each * 1e6));
    };
    line("streams", oneMs(streams), batchMs(streams, N));
    cudaMemset(f.out, 0xff, values * sizeof(float));
    const double pdlOne = oneMs(pdl), pdlEach = batchMs(pdl, N);
    if (same("PDL"))
      line("PDL", pdlOne, pdlEach);
    cudaMemset(f.out, 0xff, values * sizeof(float));
    const double fusedOne = oneMs(fused), fusedEach = batchMs(fused, N);
    if (same("fused"))
      line("fused (cooperative)", fusedOne, fusedEach);
    for (auto [name, body] :
         {std::pair<const char *, std::function<void()>>{"graph", streams},
          {"graph of PDL launches", pdl},
          {"graph of fused", fused}}) {
      cudaGraphExec_t one = graphOf(body, 1), many = graphOf(body, N);
      cudaMemset(f.out, 0xff, values * sizeof(float));
      const double o = oneMs([&] { CHECK(cudaGraphLaunch(one, stream)); });
      const double each =
          batchMs([&] { CHECK(cudaGraphLaunch(many, stream)); }, 1);
      if (same(name))
        line(name, o, each);
      CHECK(cudaGraphExecDestroy(one));
      CHECK(cudaGraphExecDestroy(many));
    }
    // A copy of the same bytes: half of them read, half written.
    {
      float *src, *dst;
      const long n4 = long(bytes / 2 / 16);
      CHECK(cudaMalloc(&src, n4 * 16));
      CHECK(cudaMalloc(&dst, n4 * 16));
      CHECK(cudaMemset(src, 1, n4 * 16));
      auto copy = [&] {
        copy4<<<unsigned((n4 + 255) / 256), 256, 0, stream>>>(
            (const float4 *)src, (float4 *)dst, n4);
      };
      line("copy of the same bytes", oneMs(copy), batchMs(copy, N));
      CHECK(cudaFree(src));
      CHECK(cudaFree(dst));
    }
    CHECK(cudaFree(f.in));
    CHECK(cudaFree(f.odd));
    CHECK(cudaFree(f.out));
    CHECK(cudaStreamDestroy(stream));
  }
  return 0;
}
