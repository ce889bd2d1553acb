// The halo exchange (stencil/halo_exchange.hpp). Plain C++ on every
// backend: it packs and unpacks through the generated box copies and moves
// bytes with the device API and MPI.
#include "stencil/halo_exchange.hpp"

#include "stencil/box_copy.hpp"
#include "stencil/device.hpp"

#include <cstdlib>
#include <cstring>

#if defined(STENCIL_HAVE_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace stencil {

const char *exchange_policy_name(ExchangePolicy policy) {
  switch (policy) {
  case ExchangePolicy::Host:
    return "host";
  case ExchangePolicy::Staged:
    return "staged";
  case ExchangePolicy::GpuAware:
    return "gpu-aware";
  case ExchangePolicy::Peer:
    return "peer";
  }
  return "?";
}

bool mpi_gpu_aware() {
  if (backend_name() == "host")
    return false;
#if defined(STENCIL_HAVE_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) &&         \
    MPIX_CUDA_AWARE_SUPPORT
  if (backend_name() == "cuda")
    return MPIX_Query_cuda_support() == 1;
#endif
#if defined(STENCIL_HAVE_MPI) && defined(MPIX_ROCM_AWARE_SUPPORT) &&         \
    MPIX_ROCM_AWARE_SUPPORT
  if (backend_name() == "hip")
    return MPIX_Query_rocm_support() == 1;
#endif
  return false;
}

/// Per side (0 low, 1 high), what is sent and what arrives: device (or, on
/// the host backend, host) buffers, and pinned host copies for Staged.
struct HaloExchange::Buffers {
  std::size_t capacity = 0;
  void *send[2] = {nullptr, nullptr};
  void *recv[2] = {nullptr, nullptr};
  void *host_send[2] = {nullptr, nullptr};
  void *host_recv[2] = {nullptr, nullptr};
  /// The peer path, per axis and side: whether the neighbour there shares
  /// this node, this rank's receive buffer it writes into, and its
  /// receive buffer this rank writes into (opened from its IPC handle).
  bool peer[kMaxDims][2] = {};
  std::size_t peer_capacity = 0;
  void *peer_recv[kMaxDims][2] = {};
  void *remote[kMaxDims][2] = {};
  ~Buffers() {
    release();
    for (int a = 0; a < kMaxDims; ++a)
      for (int s = 0; s < 2; ++s) {
        ipc_close(remote[a][s]);
        device_free(peer_recv[a][s]);
      }
  }
  bool any_peer() const {
    for (int a = 0; a < kMaxDims; ++a)
      if (peer[a][0] || peer[a][1])
        return true;
    return false;
  }
  void release() {
    for (int s = 0; s < 2; ++s) {
      device_free(send[s]);
      device_free(recv[s]);
      host_free_pinned(host_send[s]);
      host_free_pinned(host_recv[s]);
      send[s] = recv[s] = host_send[s] = host_recv[s] = nullptr;
    }
    capacity = 0;
  }
};

HaloExchange::~HaloExchange() {
  stream_destroy(stream_);
  if (!buffers_ || !buffers_->any_peer())
    return;
  // A neighbour's mapping of this rank's receive buffers must be closed
  // before they are freed: every rank closes its mappings, then all wait.
  for (int a = 0; a < kMaxDims; ++a)
    for (int s = 0; s < 2; ++s) {
      ipc_close(buffers_->remote[a][s]);
      buffers_->remote[a][s] = nullptr;
    }
  (void)decomposition_->comm.barrier();
}

bool HaloExchange::stages() const {
  // Peer: faces to other nodes, and arrays too large for the peer buffers
  // (links, coefficient fields), go through MPI like GpuAware or Staged.
  return policy_ == ExchangePolicy::Staged ||
         (policy_ == ExchangePolicy::Peer && !mpi_gpu_aware());
}

Status HaloExchange::create(std::shared_ptr<const Decomposition> decomposition,
                            bool corners, std::size_t face_bytes,
                            ExchangeTransport transport,
                            std::unique_ptr<HaloExchange> &out) {
  auto e = std::make_unique<HaloExchange>();
  e->decomposition_ = std::move(decomposition);
  e->corners_ = corners;
  e->buffers_ = std::make_unique<Buffers>();
  // Agreed on before the collective set-up below.
  STENCIL_TRY(e->decomposition_->comm.agree(stream_create(e->stream_)));
  if (backend_name() == "host") {
    e->policy_ = ExchangePolicy::Host;
    out = std::move(e);
    return Status();
  }
  // Auto and Peer: peer copies to neighbours on this node, MPI (on device
  // memory where it moves it) to the others; Staged and GpuAware: MPI only.
  bool peer = e->decomposition_->comm.distributed() && have_ipc() &&
              (transport == ExchangeTransport::Auto ||
               transport == ExchangeTransport::Peer);
  e->policy_ = mpi_gpu_aware() && transport != ExchangeTransport::Staged
                   ? ExchangePolicy::GpuAware
                   : ExchangePolicy::Staged;
  if (transport == ExchangeTransport::GpuAware && !mpi_gpu_aware())
    return Status::failure("halo exchange: the gpu-aware transport needs an "
                           "MPI library that moves GPU memory "
                           "(MPIX_Query_cuda_support)");
  // Collective: every rank takes part whether or not it finds a peer (the
  // failures are agreed on inside).
  if (peer)
    STENCIL_TRY(e->open_peers(face_bytes));
  bool any = false;
  for (int a = 0; a < kMaxDims; ++a)
    any |= e->buffers_->peer[a][0] || e->buffers_->peer[a][1];
  if (any)
    e->policy_ = ExchangePolicy::Peer;
  out = std::move(e);
  return Status();
}

Status HaloExchange::open_peers(std::size_t face_bytes) {
#if defined(STENCIL_HAVE_MPI)
  const Decomposition &d = *decomposition_;
  const Communicator &comm = d.comm;
  Buffers &b = *buffers_;
  // Which node each rank is on: the lowest rank among those sharing its
  // memory.
  MPI_Comm node;
  if (MPI_Comm_split_type(comm.mpi(), MPI_COMM_TYPE_SHARED, comm.rank(),
                          MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return Status::failure("halo exchange: MPI_Comm_split_type failed");
  int leader = comm.rank();
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> nodes(comm.size());
  MPI_Allgather(&leader, 1, MPI_INT, nodes.data(), 1, MPI_INT, comm.mpi());
  b.peer_capacity = face_bytes;
  // Local steps first, agreed on before the handles travel, so that no
  // rank leaves while a neighbour waits for its handle.
  IpcHandle mine[kMaxDims][2] = {};
  Status local;
  for (int a = 0; a < d.dims && local.ok(); ++a)
    for (int s = 0; s < 2 && local.ok(); ++s) {
      const int n = d.neighbour[a][s];
      b.peer[a][s] = d.exchanged[a] && n >= 0 && n != comm.rank() &&
                     nodes[n] == leader && face_bytes > 0;
      if (b.peer[a][s]) {
        local = device_allocate(&b.peer_recv[a][s], face_bytes);
        if (local.ok())
          local = ipc_handle(b.peer_recv[a][s], mine[a][s]);
      }
    }
  STENCIL_TRY(comm.agree(local));
  // The rank on side s writes into this rank's buffer of side s: it gets
  // the handle; this rank gets the handle of the buffer it writes into,
  // its neighbour's on side 1 - s, tagged by that buffer's side.
  IpcHandle theirs[kMaxDims][2] = {};
  int failed = 0;
  for (int a = 0; a < d.dims; ++a)
    for (int s = 0; s < 2; ++s) {
      const int to = b.peer[a][s] ? d.neighbour[a][s] : MPI_PROC_NULL;
      const int from =
          b.peer[a][1 - s] ? d.neighbour[a][1 - s] : MPI_PROC_NULL;
      failed |= MPI_Sendrecv(mine[a][s].bytes, sizeof mine[a][s].bytes,
                             MPI_BYTE, to, 900 + 2 * a + s,
                             theirs[a][1 - s].bytes,
                             sizeof theirs[a][1 - s].bytes, MPI_BYTE, from,
                             900 + 2 * a + s, comm.mpi(),
                             MPI_STATUS_IGNORE) != MPI_SUCCESS;
    }
  if (failed)
    local = Status::failure("halo exchange: MPI_Sendrecv of IPC handles "
                            "failed");
  for (int a = 0; a < d.dims && local.ok(); ++a)
    for (int s = 0; s < 2 && local.ok(); ++s)
      if (b.peer[a][s])
        local = ipc_open(theirs[a][s], &b.remote[a][s]);
  return comm.agree(local);
#else
  (void)face_bytes;
  return Status();
#endif
}

Status HaloExchange::buffers_for(std::size_t bytes) const {
  Buffers &b = *buffers_;
  if (bytes <= b.capacity)
    return Status();
  b.release();
  for (int s = 0; s < 2; ++s) {
    STENCIL_TRY(device_allocate(&b.send[s], bytes));
    STENCIL_TRY(device_allocate(&b.recv[s], bytes));
    if (stages()) {
      STENCIL_TRY(host_allocate_pinned(&b.host_send[s], bytes));
      STENCIL_TRY(host_allocate_pinned(&b.host_recv[s], bytes));
    }
  }
  b.capacity = bytes;
  return Status();
}

namespace {

/// The boxes of one exchange along `axis`: per side, the owned sites sent
/// and the ghost sites filled, in the lattice's stored coordinates.
struct FaceBoxes {
  int send_lo[2][kMaxDims], send_hi[2][kMaxDims];
  int recv_lo[2][kMaxDims], recv_hi[2][kMaxDims];
};

FaceBoxes face_boxes(const Decomposition &d, const Lattice &lattice,
                     bool corners, int axis) {
  FaceBoxes f;
  for (int b = 0; b < kMaxDims; ++b) {
    const int n = b < lattice.dims ? lattice.extents[b] : 1;
    const int layer = b < lattice.dims ? d.layer[b] : 0;
    int lo = layer, hi = n - layer;
    // Diagonal reads: the layers already filled travel too: those of the
    // axes exchanged before, and Dirichlet halos, which never change (an
    // unexchanged axis', or a split axis' on a side where the lattice
    // ends).
    if (corners && b != axis && b < lattice.dims) {
      if (b < axis || !d.exchanged[b]) {
        lo = 0;
        hi = n;
      } else {
        if (d.neighbour[b][0] < 0)
          lo = 0;
        if (d.neighbour[b][1] < 0)
          hi = n;
      }
    }
    for (int s = 0; s < 2; ++s) {
      f.send_lo[s][b] = f.recv_lo[s][b] = lo;
      f.send_hi[s][b] = f.recv_hi[s][b] = hi;
    }
  }
  const int n = lattice.extents[axis];
  const int layer = d.layer[axis];
  f.send_lo[0][axis] = layer;
  f.send_hi[0][axis] = 2 * layer;
  f.send_lo[1][axis] = n - 2 * layer;
  f.send_hi[1][axis] = n - layer;
  f.recv_lo[0][axis] = 0;
  f.recv_hi[0][axis] = layer;
  f.recv_lo[1][axis] = n - layer;
  f.recv_hi[1][axis] = n;
  return f;
}


} // namespace

Status HaloExchange::exchange_axis(void *data, const Lattice &lattice,
                                   int components, BoxCopy copy, bool signs,
                                   int axis, Stream stream) const {
  const Decomposition &d = *decomposition_;
  if (!d.exchanged[axis] || d.layer[axis] == 0)
    return Status();
  const FaceBoxes f = face_boxes(d, lattice, corners_, axis);
  BoxCopyArgs pack[2], unpack[2];
  for (int s = 0; s < 2; ++s) {
    STENCIL_TRY(prepare_box(lattice.layout, lattice.dims, lattice.extents,
                            f.send_lo[s], f.send_hi[s], components, 0,
                            components, lattice.parity, kPackBox, 1.0,
                            pack[s]));
    STENCIL_TRY(prepare_box(lattice.layout, lattice.dims, lattice.extents,
                            f.recv_lo[s], f.recv_hi[s], components, 0,
                            components, lattice.parity, kUnpackBox,
                            signs && d.flips[axis][s] ? -1.0 : 1.0,
                            unpack[s]));
  }
  const std::size_t bytes = static_cast<std::size_t>(pack[0].sites) *
                            components * lattice.element_bytes;
  if (bytes == 0)
    return Status();
  // The rank is its own neighbour along an axis that wraps unsplit: its
  // low ghost zone takes its high face and the other way round, straight
  // from the face on the exchange's stream (no buffer).
  const int me = d.comm.rank();
  if (d.neighbour[axis][0] == me && d.neighbour[axis][1] == me) {
    for (int s = 0; s < 2; ++s) {
      BoxCopyArgs move;
      STENCIL_TRY(prepare_box_move(
          lattice.layout, lattice.dims, lattice.extents, f.recv_lo[s],
          f.recv_hi[s], f.send_lo[1 - s], components, lattice.parity,
          unpack[s].scale, move));
      STENCIL_TRY(copy(data, nullptr, move, stream));
    }
    return Status();
  }
  // The buffers are reused axis after axis: the last axis' unpacks must be
  // done with them.
  STENCIL_TRY(stream_synchronize(stream));
  STENCIL_TRY(buffers_for(bytes));
  Buffers &b = *buffers_;
#if defined(STENCIL_HAVE_MPI)
  // Faces to ranks of this node go by the peer path (when this array fits
  // its buffers); the others through MPI.
  bool viaPeer[2];
  for (int s = 0; s < 2; ++s)
    viaPeer[s] = b.peer[axis][s] && bytes <= b.peer_capacity;
  // A local failure (a copy, say) is kept, not returned at once: the
  // messages the neighbours wait for still go, and the exchange fails after.
  Status local;
  if (viaPeer[0] || viaPeer[1])
    local = exchange_peers(data, copy, axis, viaPeer, pack, unpack, bytes,
                           stream);
  const bool staged = stages();
  MPI_Request requests[4];
  int count = 0, failed = 0;
  // Side s receives what the neighbour there sent from its face 1 - s.
  for (int s = 0; s < 2; ++s) {
    const int from = d.neighbour[axis][s];
    if (from < 0 || viaPeer[s])
      continue;
    void *into = staged ? b.host_recv[s] : b.recv[s];
    failed |= MPI_Irecv(into, static_cast<int>(bytes), MPI_BYTE, from,
                        2 * axis + (1 - s), d.comm.mpi(),
                        &requests[count++]) != MPI_SUCCESS;
  }
  for (int s = 0; s < 2; ++s) {
    const int to = d.neighbour[axis][s];
    if (to < 0 || viaPeer[s])
      continue;
    if (local.ok())
      local = copy(data, b.send[s], pack[s], stream);
    if (local.ok())
      local = stream_synchronize(stream); // the pack is done
    void *from = b.send[s];
    if (staged) {
      if (local.ok())
        local = copy_async(b.host_send[s], b.send[s], bytes, stream);
      if (local.ok())
        local = stream_synchronize(stream);
      from = b.host_send[s];
    }
    failed |= MPI_Isend(from, static_cast<int>(bytes), MPI_BYTE, to,
                        2 * axis + s, d.comm.mpi(),
                        &requests[count++]) != MPI_SUCCESS;
    bytes_sent_ += static_cast<double>(bytes);
  }
  failed |= MPI_Waitall(count, requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
  if (failed)
    return Status::failure("halo exchange along " +
                           std::string(axis_name(axis)) +
                           ": an MPI send or receive failed");
  STENCIL_TRY(local);
  for (int s = 0; s < 2; ++s) {
    if (d.neighbour[axis][s] < 0 || viaPeer[s])
      continue;
    if (staged)
      STENCIL_TRY(copy_async(b.recv[s], b.host_recv[s], bytes, stream));
    STENCIL_TRY(copy(data, b.recv[s], unpack[s], stream));
  }
  return Status();
#else
  return Status::failure("halo exchange between ranks without MPI");
#endif
}

#if defined(STENCIL_HAVE_MPI)
Status HaloExchange::exchange_peers(void *data, BoxCopy copy, int axis,
                                    const bool *viaPeer,
                                    const BoxCopyArgs *pack,
                                    const BoxCopyArgs *unpack,
                                    std::size_t bytes, Stream stream) const {
  const Decomposition &d = *decomposition_;
  Buffers &b = *buffers_;
  MPI_Comm comm = d.comm.mpi();
  // Tokens, tagged by the receiving buffer's axis and side: ready (its
  // last unpack is done, so it may be written) and done (written). Every
  // token is sent whatever fails locally, so that no neighbour waits.
  auto ready = [&](int s) { return 1000 + 2 * axis + s; };
  auto done = [&](int s) { return 1100 + 2 * axis + s; };
  static const char token = 1;
  char got[4] = {};
  Status local = stream_synchronize(stream); // the last unpack is done
  MPI_Request requests[8];
  int count = 0, failed = 0;
  for (int s = 0; s < 2; ++s)
    if (viaPeer[s]) {
      failed |= MPI_Isend(&token, 1, MPI_CHAR, d.neighbour[axis][s],
                          ready(s), comm, &requests[count++]) != MPI_SUCCESS;
      failed |= MPI_Irecv(&got[2 + s], 1, MPI_CHAR, d.neighbour[axis][s],
                          done(s), comm, &requests[count++]) != MPI_SUCCESS;
    }
  // This rank's face s goes into its neighbour's buffer of side 1 - s.
  for (int s = 0; s < 2; ++s) {
    if (!viaPeer[s])
      continue;
    if (local.ok())
      local = copy(data, b.send[s], pack[s], stream);
    failed |= MPI_Recv(&got[s], 1, MPI_CHAR, d.neighbour[axis][s],
                       ready(1 - s), comm, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    if (local.ok())
      local = copy_async(b.remote[axis][s], b.send[s], bytes, stream);
    if (local.ok())
      local = stream_synchronize(stream);
    failed |= MPI_Isend(&token, 1, MPI_CHAR, d.neighbour[axis][s],
                        done(1 - s), comm, &requests[count++]) != MPI_SUCCESS;
    bytes_sent_ += static_cast<double>(bytes);
  }
  failed |= MPI_Waitall(count, requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
  if (failed)
    return Status::failure("halo exchange along " +
                           std::string(axis_name(axis)) +
                           ": an MPI token failed to travel");
  STENCIL_TRY(local);
  for (int s = 0; s < 2; ++s)
    if (viaPeer[s])
      STENCIL_TRY(copy(data, b.peer_recv[axis][s], unpack[s], stream));
  return Status();
}
#endif

Status HaloExchange::fill(void *data, const Lattice &lattice, int components,
                          BoxCopy copy, bool signs) const {
  if (!copy)
    return Status::failure("halo exchange: no box copy for this array");
  // On the exchange's own stream, so that kernels already launched on
  // others (a rank's interior) run meanwhile.
  for (int axis = 0; axis < lattice.dims; ++axis)
    STENCIL_TRY(exchange_axis(data, lattice, components, copy, signs, axis,
                              stream_));
  return stream_synchronize(stream_);
}

Status HaloExchange::clear(void *data, const Lattice &lattice, int components,
                           BoxCopy copy, Stream stream) const {
  const Decomposition &d = *decomposition_;
  for (int axis = 0; axis < lattice.dims; ++axis) {
    if (!d.exchanged[axis] || d.layer[axis] == 0)
      continue;
    const FaceBoxes f = face_boxes(d, lattice, corners_, axis);
    for (int s = 0; s < 2; ++s) {
      if (d.neighbour[axis][s] < 0)
        continue;
      BoxCopyArgs zero;
      STENCIL_TRY(prepare_box(lattice.layout, lattice.dims, lattice.extents,
                              f.recv_lo[s], f.recv_hi[s], components, 0,
                              components, lattice.parity, kZeroBox, 0.0,
                              zero));
      STENCIL_TRY(copy(data, nullptr, zero, stream));
    }
  }
  return Status();
}

} // namespace stencil
