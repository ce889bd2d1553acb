// stencil/exchange_tuning.hpp - timing a distributed operator's application
// under every halo-exchange policy the machine offers, and recording the
// fastest in a tuning cache (stencil/exchange_choice.hpp reads it back).
#ifndef STENCIL_EXCHANGE_TUNING_HPP
#define STENCIL_EXCHANGE_TUNING_HPP

#include "stencil/comm.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/operator.hpp"
#include "stencil/types.hpp"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace stencil {

struct ExchangeTiming {
  ExchangeOptions options;
  std::string policy; ///< what ran: exchange_policy_name() of the exchange
  double ms = 0.0;    ///< per application: slowest rank, median of batches
  double halo_bytes = 0.0; ///< sent by all ranks to others per application
  /// The exchange alone (fill and clear the ghost zones of `halos`, no
  /// kernel), like `ms`; 0 when tune_exchange() had no `halos` field.
  double exchange_ms = 0.0;
};

struct ExchangeTuneResult {
  std::vector<ExchangeTiming> timings; ///< in the order timed
  int best = -1;                       ///< index of the fastest
  int repetitions = 0;                 ///< applications per batch
};

/// Times `apply` (one collective application using A: A itself, or what
/// the solver applies most, e.g. the Schur complement) with A's exchange
/// set to each policy in turn: the transports this machine offers (on GPUs
/// peer where a neighbour shares the node, staged, and gpu-aware where the
/// MPI library moves device memory; on the host backend its one), each
/// with the overlap on and off. After two warm-up applications each policy
/// runs three batches of the same number of applications (chosen from the
/// first policy's time: about 50 ms a batch, 3 to 200); a batch's time is
/// the slowest rank's. With `halos` (the field `apply` exchanges), the
/// exchange alone is timed the same way (StencilOperator::exchange_halos),
/// for its achieved bandwidth. Leaves A with the fastest policy. `progress`
/// (rank 0 only; null: quiet) gets a line per policy. Collective.
Status tune_exchange(StencilOperator &A, const std::function<Status()> &apply,
                     ExchangeTuneResult &out, std::FILE *progress = nullptr,
                     const Field *halos = nullptr);

/// Appends the fastest policy of `result` to the tuning cache `path` as an
/// entry for `spec` (the stencil as its spec declares it), `device`, the
/// whole lattice's `extents` and `grid`; `bytes_per_apply` (all ranks')
/// gives the GB/s column. Rank 0 writes; the outcome is agreed on.
Status record_exchange(const KernelInfo &spec, const int *extents,
                       const ProcessGrid &grid, const std::string &device,
                       const ExchangeTuneResult &result,
                       double bytes_per_apply, const Communicator &comm,
                       const std::string &path);

} // namespace stencil

#endif
