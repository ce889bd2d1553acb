// Empirical memory bandwidth of the GPU, bytes read plus bytes written over
// time, median of 20 after 5 warm-ups, 2 GiB each way: a device-to-device
// cudaMemcpy, and a streaming copy kernel (16-byte loads and stores).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__,        \
                   __LINE__, cudaGetErrorString(e));                           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__global__ void stream_copy(const float4 *__restrict__ in,
                            float4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(blockDim.x) * gridDim.x)
    out[i] = in[i];
}

int main() {
  const size_t bytes = size_t(2) << 30; // 2 GiB each way
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  // Median milliseconds of 20 runs of `copy` after 5 warm-ups; < 0 on error.
  auto median_ms = [&](auto copy) -> double {
    std::vector<float> ms;
    for (int i = 0; i < 25; ++i) {
      if (cudaEventRecord(start) != cudaSuccess || copy() != cudaSuccess ||
          cudaEventRecord(stop) != cudaSuccess ||
          cudaEventSynchronize(stop) != cudaSuccess)
        return -1.0;
      float t;
      if (cudaEventElapsedTime(&t, start, stop) != cudaSuccess)
        return -1.0;
      if (i >= 5)
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  double median = median_ms(
      [&] { return cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); });
  if (median < 0) {
    std::fprintf(stderr, "device-to-device copy failed: %s\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("device-to-device copy: %.1f GB/s (2 x %.2f GB in %.3f ms, "
              "median of 20)\n",
              2.0 * bytes / (median * 1e6), bytes / 1e9, median);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t n = bytes / sizeof(float4);
  median = median_ms([&] {
    stream_copy<<<sms * 8, 256>>>(static_cast<const float4 *>(a),
                                  static_cast<float4 *>(b), n);
    return cudaGetLastError();
  });
  if (median < 0) {
    std::fprintf(stderr, "streaming copy kernel failed: %s\n",
                 cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("streaming copy kernel: %.1f GB/s (2 x %.2f GB in %.3f ms, "
              "median of 20)\n",
              2.0 * bytes / (median * 1e6), bytes / 1e9, median);
  return 0;
}
