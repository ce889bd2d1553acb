// stencil/halo_exchange.hpp - filling a rank's ghost zones from its
// neighbours (docs/distributed.md).
//
// Along each exchanged axis in turn (x first), a rank sends the owned sites
// next to each face, `layer` deep, to the neighbour on that side, and
// receives the neighbour's into its ghost zone; values that cross an
// antiperiodic boundary of the lattice change sign as they are unpacked.
// Along an axis that wraps and is not split the rank is its own neighbour
// (a local copy). The boxes span the owned sites of the other axes, or,
// when the stencil reads diagonal neighbours, also the layers of the axes
// exchanged before and of the Dirichlet halos, so that edges and corners
// arrive too. Half fields (even/odd storage) move their parity's sites
// only. Packing and unpacking are the stencil's generated box copies
// (stencil::BoxCopy); between them the bytes travel: to a neighbour on the
// same node by a device copy straight into its receive buffer (CUDA/HIP
// IPC handles exchanged once through MPI, as QUDA's peer-to-peer policy
// does; MPI carries only the small ready and done tokens), and otherwise
// through MPI: on the host backend from the arrays' own memory, on GPUs on
// device memory where the MPI library is GPU-aware, else staged through
// pinned host buffers.
#ifndef STENCIL_HALO_EXCHANGE_HPP
#define STENCIL_HALO_EXCHANGE_HPP

#include "stencil/comm.hpp"
#include "stencil/field.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/types.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace stencil {

/// How the exchange moves bytes between ranks.
enum class ExchangePolicy {
  Host,     ///< host backend: MPI on the buffers directly
  Staged,   ///< GPU buffers copied to and from pinned host buffers
  GpuAware, ///< MPI on GPU buffers (a GPU-aware MPI library)
  Peer,     ///< same-node neighbours: IPC device copies; others: GpuAware
            ///< where the MPI library is, else Staged
};
const char *exchange_policy_name(ExchangePolicy policy);

/// Whether the MPI library moves GPU memory itself (Open MPI's
/// MPIX_Query_cuda_support); false without MPI or on the host backend.
bool mpi_gpu_aware();

class HaloExchange {
public:
  HaloExchange() = default;
  /// With peer buffers, collective (the ranks close their mappings of each
  /// other's buffers before any frees them): destroy distributed operators
  /// on every rank at the same point, before MPI ends.
  ~HaloExchange();
  HaloExchange(const HaloExchange &) = delete;
  HaloExchange &operator=(const HaloExchange &) = delete;

  /// For the fields of one rank's block `decomposition`; `corners` when the
  /// stencil reads diagonal neighbours (DistributedInfo::corners);
  /// `face_bytes`: the largest face of the fields exchanged every
  /// application (what the peer path's receive buffers hold; larger arrays,
  /// exchanged once when an operator is given them, go through MPI). On
  /// GPUs, with `transport` Auto or Peer, the policy is Peer when some
  /// neighbour shares the node, else GpuAware where mpi_gpu_aware() says
  /// so, else Staged; Staged and GpuAware ask for that one (GpuAware fails
  /// without such an MPI). The host backend's policy is Host whatever the
  /// transport. Collective.
  static Status create(std::shared_ptr<const Decomposition> decomposition,
                       bool corners, std::size_t face_bytes,
                       ExchangeTransport transport,
                       std::unique_ptr<HaloExchange> &out);

  /// Fills the ghost zones of `data`, an array on `lattice` (the rank's
  /// local lattice or one parity's half of it) with `components` reals per
  /// site placed by `copy`'s layout. `signs`: values crossing an
  /// antiperiodic boundary change sign (fields; not coefficient fields or
  /// links, which are periodic). `data` must be complete when it is called
  /// (synchronise the stream that wrote it); the exchange runs on a stream
  /// of its own and returns with the ghost zones filled, while kernels
  /// launched before on other streams run on. Collective over the
  /// neighbours.
  Status fill(void *data, const Lattice &lattice, int components,
              BoxCopy copy, bool signs) const;
  /// Zeroes the ghost zones fill() writes (not the Dirichlet halo of the
  /// lattice's own boundary), so that reductions over the stored values
  /// count each site once.
  Status clear(void *data, const Lattice &lattice, int components,
               BoxCopy copy, Stream stream = nullptr) const;

  ExchangePolicy policy() const { return policy_; }
  const Decomposition &decomposition() const { return *decomposition_; }
  /// Bytes this rank sent to other ranks in all fills so far.
  double bytes_sent() const { return bytes_sent_; }

private:
  struct Buffers;
  Status buffers_for(std::size_t bytes) const;
  /// Whether MPI transfers go through pinned host buffers.
  bool stages() const;
  /// The peer path: receive buffers per face, their handles traded with
  /// the neighbours that write into them.
  Status open_peers(std::size_t face_bytes);
  Status exchange_axis(void *data, const Lattice &lattice, int components,
                       BoxCopy copy, bool signs, int axis,
                       Stream stream) const;
  /// The peer path of exchange_axis() for the sides `viaPeer` marks.
  Status exchange_peers(void *data, BoxCopy copy, int axis,
                        const bool *viaPeer, const BoxCopyArgs *pack,
                        const BoxCopyArgs *unpack, std::size_t bytes,
                        Stream stream) const;

  std::shared_ptr<const Decomposition> decomposition_;
  bool corners_ = false;
  ExchangePolicy policy_ = ExchangePolicy::Host;
  std::unique_ptr<Buffers> buffers_;
  Stream stream_ = nullptr; ///< the exchange's own (null on the host)
  mutable double bytes_sent_ = 0.0;
};

} // namespace stencil

#endif
