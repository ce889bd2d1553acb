// CG's scalars on the device: one-block kernels finish the block partials
// of the stencil pass and of the update into alpha and beta, in a fixed
// order (the same result on every run); the host backend does the same in
// place.
#include "cg_scalars.hpp"

#include "stencil/platform.hpp"

namespace stencil {
namespace {

/// The recurrence's state in device memory, and the last iteration's sums
/// for the copy to the host.
struct DeviceState {
  double rr;    ///< ||r||^2 of the current residual
  double alpha; ///< rr / pq of the last stencil pass
  double beta;  ///< the next direction's rr' / rr
  CgSums sums;  ///< of the last finished iteration
};

/// alpha from pq, beta from rr': the finishing steps on known sums.
STENCIL_HOST_DEVICE void take_pq(DeviceState &s, double pq) {
  s.sums.pq = pq;
  s.alpha = pq > 0.0 ? s.rr / pq : 0.0;
}
STENCIL_HOST_DEVICE void take_rr(DeviceState &s, double rr) {
  s.sums.rr = rr;
  s.beta = s.rr > 0.0 ? rr / s.rr : 0.0;
  s.rr = rr;
}

#if defined(STENCIL_BACKEND_HOST)

double sum(const double *partials, std::int64_t count) {
  double total = 0.0;
  for (std::int64_t i = 0; i < count; ++i)
    total += partials[i];
  return total;
}

#else

// A CG iteration finishes two sums of one partial per block of its passes
// (32768 each for a 256^3 double lattice) with one block, so the sum is
// latency-bound: 1024 threads with 16 loads each in flight, rather than 256
// threads adding one partial after another.
constexpr unsigned kThreads = 1024;
constexpr int kInFlight = 16;

/// Thread t adds partials t, t + 1024, ... into kInFlight running sums, in a
/// fixed order; then the block's sum, valid in thread 0.
__device__ double block_sum_of(const double *partials, std::int64_t count) {
  double sums[kInFlight] = {};
  constexpr std::int64_t round = std::int64_t{kInFlight} * kThreads;
  std::int64_t i = threadIdx.x;
  for (; i + round - kThreads < count; i += round) {
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      sums[k] += partials[i + k * kThreads];
  }
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
    if (i + k * kThreads < count)
      sums[k] += partials[i + k * kThreads];
  double total = 0.0;
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
    total += sums[k];
  // Warps, then thread 0 over the warps' sums (stencil::block_sum, which
  // stores the block's sum at partials[block index]: here the only block).
  __shared__ double block;
  block_sum(total, &block);
  // Thread 0 wrote it; no other thread may read it without a barrier.
  return threadIdx.x == 0 ? block : 0.0;
}

__global__ void STENCIL_LAUNCH_BOUNDS(kThreads)
    finish_alpha_kernel(const double *partials, std::int64_t count,
                        DeviceState *state) {
  const double pq = block_sum_of(partials, count);
  if (threadIdx.x == 0)
    take_pq(*state, pq);
}

/// Also writes the iteration's sums to the host's slot (mapped pinned
/// memory): no copy queued behind the kernel.
__global__ void STENCIL_LAUNCH_BOUNDS(kThreads)
    finish_beta_kernel(const double *partials, std::int64_t count,
                       DeviceState *state, CgSums *to_host) {
  const double rr = block_sum_of(partials, count);
  if (threadIdx.x == 0) {
    take_rr(*state, rr);
    // Visible to the host once it has seen the kernel finish (the event
    // recorded behind it): no system-scope fence needed.
    *to_host = state->sums;
  }
}

#endif

} // namespace

CgScalars::~CgScalars() {
  device_free(device_);
  host_free_pinned(host_);
}

Status CgScalars::prepare() {
  if (device_)
    return Status();
  STENCIL_TRY(device_allocate(&device_, sizeof(DeviceState)));
  void *host = nullptr, *mapped = nullptr;
  STENCIL_TRY(host_allocate_mapped(&host, &mapped, kSlots * sizeof(CgSums)));
  host_ = static_cast<CgSums *>(host);
  hostMapped_ = static_cast<CgSums *>(mapped);
  return Status();
}

Status CgScalars::start(double rr) { return restart(rr, 0.0); }

Status CgScalars::restart(double rr, double beta) {
  STENCIL_TRY(prepare());
  STENCIL_TRY(device_synchronize());
  DeviceState state{};
  state.rr = rr;
  state.beta = beta;
  state.sums.rr = rr;
  return copy_to_device(device_, &state, sizeof state);
}

const double *CgScalars::alpha() const {
  return &static_cast<const DeviceState *>(device_)->alpha;
}

const double *CgScalars::beta() const {
  return &static_cast<const DeviceState *>(device_)->beta;
}

Status CgScalars::finish_alpha(const double *partials, std::int64_t count,
                               Stream stream) {
  if (!device_)
    return Status::failure("CgScalars: finish_alpha() before start()");
  auto *state = static_cast<DeviceState *>(device_);
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  take_pq(*state, sum(partials, count));
  return Status();
#else
  STENCIL_LAUNCH(finish_alpha_kernel, (LaunchDims{1, 1, 1}),
                 (LaunchDims{kThreads, 1, 1}), stream, partials, count,
                 state);
  return launch_status("CG alpha");
#endif
}

Status CgScalars::finish_beta(const double *partials, std::int64_t count,
                              int iteration, Stream stream) {
  if (!device_)
    return Status::failure("CgScalars: finish_beta() before start()");
  auto *state = static_cast<DeviceState *>(device_);
  const int slot = iteration % kSlots;
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  take_rr(*state, sum(partials, count));
  host_[slot] = state->sums;
  return Status();
#else
  STENCIL_LAUNCH(finish_beta_kernel, (LaunchDims{1, 1, 1}),
                 (LaunchDims{kThreads, 1, 1}), stream, partials, count,
                 state, hostMapped_ + slot);
  return launch_status("CG beta");
#endif
}

Status CgScalars::sent(int iteration) {
  if (iteration < 0)
    return Status::failure("CgScalars: no iteration " +
                           std::to_string(iteration));
  const int slot = iteration % kSlots;
  STENCIL_TRY(copied_[slot].record());
  slotIteration_[slot] = iteration;
  return Status();
}

Status CgScalars::sums(int iteration, CgSums &out) {
  const int slot = iteration % kSlots;
  if (iteration < 0 || slotIteration_[slot] != iteration)
    return Status::failure("CgScalars: the sums of iteration " +
                           std::to_string(iteration) +
                           " are not queued (or were overwritten)");
  STENCIL_TRY(copied_[slot].synchronize());
  out = host_[slot];
  return Status();
}

} // namespace stencil
