// cg_finish.cu - a probe, not part of the build: what does CG's one-block
// finish (the sum of a pass's block partials into alpha or beta, on the
// device) cost an iteration, and would more blocks cut it? A bandwidth-bound
// pass over 256^3 doubles (r -= a q, one partial of r^2 per 256 threads:
// 32768 partials, as CG's update) runs 400 times, alone and each time
// followed by a finish:
//   one     - one block of 1024 threads, 16 loads in flight each (the
//             runtime's finish_beta_kernel), the sum written to device memory;
//   mapped  - the same, also writing the sum to mapped pinned host memory;
//   blocks  - B blocks of 1024 threads, each summing a fixed slice; the last
//             block to finish (a ticket from an atomic counter) adds the B
//             slice sums in order: the same sum on every run.
// Every variant's sum is checked against the host's.
//   nvcc -O3 -arch=sm_90 -o cg_finish cg_finish.cu && ./cg_finish
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
constexpr int kPassThreads = 256;
constexpr int kFinishThreads = 1024;
constexpr int kInFlight = 16;

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

/// The block's sum, valid in thread 0 (warps, then the warps' sums).
template <int Threads> __device__ double block_sum(double v) {
  __shared__ double warps[Threads / 32];
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0)
    warps[threadIdx.x / 32] = v;
  __syncthreads();
  double total = 0.0;
  if (threadIdx.x < 32) {
    total = threadIdx.x < Threads / 32 ? warps[threadIdx.x] : 0.0;
    total = warp_sum(total);
  }
  return total;
}

/// The pass: r -= a q over n values, one partial of r^2 per block.
__global__ void pass(double a, const double *q, double *r, Index n,
                     double *partials) {
  const Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
  double v = 0.0;
  if (i < n) {
    const double ri = r[i] - a * q[i];
    r[i] = ri;
    v = ri * ri;
  }
  const double total = block_sum<kPassThreads>(v);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

/// Thread t of `threads` adds values t, t + threads, ... of [begin, end),
/// kInFlight loads at a time.
__device__ double strided_sum(const double *values, Index begin, Index end,
                              unsigned threads) {
  double sums[kInFlight] = {};
  const Index round = Index{kInFlight} * threads;
  Index i = begin + threadIdx.x;
  for (; i + round - threads < end; i += round) {
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      sums[k] += values[i + k * threads];
  }
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
    if (i + k * threads < end)
      sums[k] += values[i + k * threads];
  double total = 0.0;
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
    total += sums[k];
  return total;
}

__global__ void __launch_bounds__(kFinishThreads)
    finish_one(const double *partials, Index count, double *result,
               double *host) {
  const double total =
      block_sum<kFinishThreads>(strided_sum(partials, 0, count, blockDim.x));
  if (threadIdx.x == 0) {
    *result = total;
    if (host)
      *host = total;
  }
}

__global__ void __launch_bounds__(kFinishThreads)
    finish_blocks(const double *partials, Index count, double *slices,
                  unsigned *ticket, double *result) {
  const Index per = (count + gridDim.x - 1) / gridDim.x;
  const Index begin = blockIdx.x * per;
  const Index end = begin + per < count ? begin + per : count;
  const double total =
      block_sum<kFinishThreads>(strided_sum(partials, begin, end, blockDim.x));
  __shared__ bool last;
  if (threadIdx.x == 0) {
    slices[blockIdx.x] = total;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence();
  // The slice sums in a fixed order: one warp, then its lanes in order.
  double v = 0.0;
  if (threadIdx.x < 32)
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 32)
      v += static_cast<volatile double *>(slices)[b];
  v = warp_sum(v);
  if (threadIdx.x == 0) {
    *result = v;
    *ticket = 0; // for the next launch, which the stream orders after
  }
}

int main() {
  const Index n = Index{256} * 256 * 256;
  const Index count = (n + kPassThreads - 1) / kPassThreads;
  double *q, *r, *partials, *result, *slices, *host, *hostMapped;
  unsigned *ticket;
  CHECK(cudaMalloc(&q, n * sizeof(double)));
  CHECK(cudaMalloc(&r, n * sizeof(double)));
  CHECK(cudaMalloc(&partials, count * sizeof(double)));
  CHECK(cudaMalloc(&result, sizeof(double)));
  CHECK(cudaMalloc(&slices, 1024 * sizeof(double)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  CHECK(cudaHostAlloc(&host, sizeof(double), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&hostMapped, host, 0));
  std::vector<double> values(n);
  for (Index i = 0; i < n; ++i)
    values[i] = std::sin(0.001 * static_cast<double>(i)) + 1.5;
  CHECK(cudaMemcpy(q, values.data(), n * sizeof(double),
                   cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(r, values.data(), n * sizeof(double),
                   cudaMemcpyHostToDevice));
  // a = 0: r stays as it is, and so does the sum checked.
  double want = 0.0;
  for (Index i = 0; i < n; ++i)
    want += values[i] * values[i];

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s; %lld values, %lld partials; per pass and finish, median "
              "of 5 runs of 400\n",
              prop.name, n, count);
  const unsigned passBlocks = static_cast<unsigned>(count);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  enum Finish { None, One, Mapped, Blocks };
  auto run = [&](Finish finish, unsigned blocks) {
    std::vector<float> times;
    for (int rep = 0; rep < 6; ++rep) {
      CHECK(cudaEventRecord(start));
      for (int it = 0; it < 400; ++it) {
        pass<<<passBlocks, kPassThreads>>>(0.0, q, r, n, partials);
        if (finish == One || finish == Mapped)
          finish_one<<<1, kFinishThreads>>>(
              partials, count, result, finish == Mapped ? hostMapped : nullptr);
        else if (finish == Blocks)
          finish_blocks<<<blocks, kFinishThreads>>>(partials, count, slices,
                                                    ticket, result);
      }
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (rep > 0)
        times.push_back(ms / 400);
    }
    std::sort(times.begin(), times.end());
    double got = want;
    if (finish != None)
      CHECK(cudaMemcpy(&got, result, sizeof got, cudaMemcpyDeviceToHost));
    const double error = std::abs(got - want) / want;
    return std::pair<double, double>{times[times.size() / 2] * 1e3, error};
  };
  const auto [alone, e0] = run(None, 0);
  std::printf("  pass alone                 %8.2f us\n", alone);
  for (int round = 0; round < 2; ++round) {
    for (Finish f : {One, Mapped}) {
      const auto [us, error] = run(f, 1);
      std::printf("  + one block%s %8.2f us  (finish %5.2f us, relative "
                  "error %.1e)\n",
                  f == Mapped ? ", mapped host" : "              ", us,
                  us - alone, error);
    }
    for (unsigned blocks : {8u, 16u, 32u, 64u, 132u}) {
      const auto [us, error] = run(Blocks, blocks);
      std::printf("  + %3u blocks, last adds   %8.2f us  (finish %5.2f us, "
                  "relative error %.1e)\n",
                  blocks, us, us - alone, error);
    }
  }
  return 0;
}
