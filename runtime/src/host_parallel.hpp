//===- host_parallel.hpp - Site ranges split over the host's threads -----===//
//
// The runtime's host-side preparation (layout permutations of fields,
// links and the clover term; the clover term itself) is independent per
// site and, at production sizes (10^7 sites, 72 reals each), takes tens
// of seconds on one core. This splits a range of sites into contiguous
// pieces, one per hardware thread, small ranges on the calling thread.
//
//===----------------------------------------------------------------------===//
#ifndef STENCIL_SRC_HOST_PARALLEL_HPP
#define STENCIL_SRC_HOST_PARALLEL_HPP

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace stencil {

/// Calls body(begin, end) on disjoint pieces covering [0, count), in
/// parallel; returns when all have finished. `grain`: the fewest items
/// worth a thread of their own.
template <typename Body>
void parallel_ranges(std::int64_t count, Body body,
                     std::int64_t grain = 4096) {
  const std::int64_t threads = std::clamp<std::int64_t>(
      std::thread::hardware_concurrency(), 1,
      std::max<std::int64_t>(1, count / grain));
  std::vector<std::thread> workers;
  for (std::int64_t t = 1; t < threads; ++t)
    workers.emplace_back(body, count * t / threads, count * (t + 1) / threads);
  body(std::int64_t{0}, count / threads);
  for (std::thread &worker : workers)
    worker.join();
}

} // namespace stencil

#endif
