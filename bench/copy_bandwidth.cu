// Empirical memory bandwidth of the GPU: a large device-to-device copy
// (bytes read plus bytes written over time), median of 20 after warm-up.
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

int main() {
  const size_t bytes = size_t(2) << 30; // 2 GiB each way
  void *a, *b;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < 25; ++i) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 5)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  std::printf("device-to-device copy: %.1f GB/s (2 x %.2f GB in %.3f ms, "
              "median of 20)\n",
              2.0 * bytes / (median * 1e6), bytes / 1e9, median);
  return 0;
}
