// stencil/exchange_choice.hpp - which halo-exchange policy a distributed
// operator runs: the transport (peer copies, MPI staged through pinned host
// memory, MPI on device memory) and whether the interior is computed while
// the halos travel.
//
// Like kernel options, the policy comes from the spec (grid.exchange), or
// from a tuning-cache entry the solver programs' --tune-exchange recorded
// for this stencil, device, lattice and process grid:
//
//   spec <TAB> fingerprint <TAB> device <TAB> NxNxN <TAB>
//       grid=1x1x2; transport=peer; overlap=on <TAB> ms <TAB> GB/s
//
// select_exchange() chooses, in this order:
//   1. STENCILC_TUNING=off: the spec's grid.exchange;
//   2. STENCILC_TUNE_CACHE=FILE: the file's last such entry;
//   3. the entry `stencilc generate --tune-cache` compiled in;
//   4. otherwise the spec's grid.exchange;
// then STENCILC_EXCHANGE (peer, staged, gpu-aware) and STENCILC_OVERLAP
// (on, off), where set, override the transport and the overlap.
#ifndef STENCIL_EXCHANGE_CHOICE_HPP
#define STENCIL_EXCHANGE_CHOICE_HPP

#include "stencil/kernel_info.hpp"
#include "stencil/types.hpp"

#include <string>

namespace stencil {

/// "auto", "peer", "staged", "gpu-aware"
const char *exchange_transport_name(ExchangeTransport transport);

/// "grid=1x1x2; transport=peer; overlap=on": a cache entry's options.
std::string exchange_options_text(const int *grid, int dims,
                                  const ExchangeOptions &options);
/// Parses exchange_options_text() for a `dims`-D lattice; the error names
/// the item.
Status parse_exchange_options(const std::string &text, int dims, int *grid,
                              ExchangeOptions &out);

struct ExchangeSelection {
  ExchangeOptions options{ExchangeTransport::Auto, true};
  std::string description; ///< which, and why, for reports
};

/// STENCILC_EXCHANGE and STENCILC_OVERLAP, where set, hold values they
/// take (peer, staged or gpu-aware; on or off).
Status check_exchange_environment();

/// Chooses the policy for `spec` (which has grid.split) on `device` with
/// the whole lattice's `extents` divided by `grid` (ranks per axis), as
/// above. Fails on an unreadable or malformed cache file or environment
/// value, and on a request for gpu-aware where the MPI library does not
/// move GPU memory (naming where the request came from).
Status select_exchange(const KernelInfo &spec, const int *extents,
                       const int *grid, const std::string &device,
                       ExchangeSelection &out);

} // namespace stencil

#endif
