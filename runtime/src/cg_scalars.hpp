// cg_scalars.hpp - CG's scalars kept on the device, so that an iteration
// is queued whole (stencil pass, alpha, update, beta) without the host
// waiting for its sums; the host reads each iteration's p.Ap and ||r||^2
// one iteration later, while the next one runs (docs/performance.md, "CG's
// scalars on the device"). Internal to the runtime's solvers.
#ifndef STENCIL_SRC_CG_SCALARS_HPP
#define STENCIL_SRC_CG_SCALARS_HPP

#include "stencil/device.hpp"
#include "stencil/types.hpp"

#include <cstdint>

namespace stencil {

/// What the host learns of one iteration.
struct CgSums {
  double pq = 0.0; ///< p . A p of the iteration's direction
  double rr = 0.0; ///< ||r||^2 after its update
};

class CgScalars {
public:
  /// Iterations whose sums may be in flight at once (the host reads slot
  /// iteration % kSlots).
  static constexpr int kSlots = 2;

  CgScalars() = default;
  ~CgScalars();
  CgScalars(const CgScalars &) = delete;
  CgScalars &operator=(const CgScalars &) = delete;

  /// Allocates the device state and the host's pinned slots (start() does
  /// when they are not yet): a solver calls it before starting its clock.
  Status prepare();
  /// Starts a recurrence at ||r||^2 = rr with beta = 0 (so that the first
  /// folded pass makes p' = r). Waits for the device.
  Status start(double rr);
  /// Sets ||r||^2 and beta between iterations (a reliable update's true
  /// residual); waits for the device.
  Status restart(double rr, double beta);

  /// Device memory the kernels read.
  const double *alpha() const;
  const double *beta() const;

  /// Queues pq = the sum of `count` partials and alpha = rr / pq (0 when pq
  /// is not positive, so that a broken-down iteration changes nothing) on
  /// `stream`.
  Status finish_alpha(const double *partials, std::int64_t count,
                      Stream stream = nullptr);
  /// Queues rr' = the sum of `count` partials, beta = rr' / rr, rr = rr',
  /// with iteration `iteration`'s sums written to the host by the same
  /// kernel, on `stream` (a launch graph's while it records: the slot the
  /// sums go to, iteration % kSlots, is then part of the graph).
  Status finish_beta(const double *partials, std::int64_t count,
                     int iteration, Stream stream = nullptr);
  /// Marks iteration `iteration`'s sums as queued behind the work on the
  /// default stream so far (its finish_beta, or a graph replaying it), for
  /// sums().
  Status sent(int iteration);
  /// Waits for iteration `iteration`'s sums (the last one queued in its
  /// slot) and returns them.
  Status sums(int iteration, CgSums &out);

private:

  void *device_ = nullptr;   ///< DeviceState
  CgSums *host_ = nullptr;   ///< pinned and mapped, kSlots entries
  CgSums *hostMapped_ = nullptr; ///< host_ as the kernels address it
  DeviceEvent copied_[kSlots];
  int slotIteration_[kSlots] = {-1, -1};
};

} // namespace stencil

#endif
