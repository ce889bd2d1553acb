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
  }
  return "?";
}

bool mpi_gpu_aware() {
  if (backend_name() == "host")
    return false;
#if defined(STENCIL_HAVE_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) &&         \
    MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

/// Per side (0 low, 1 high), what is sent and what arrives: device (or, on
/// the host backend, host) buffers, and pinned host copies for Staged.
struct HaloExchange::Buffers {
  std::size_t capacity = 0;
  void *send[2] = {nullptr, nullptr};
  void *recv[2] = {nullptr, nullptr};
  void *host_send[2] = {nullptr, nullptr};
  void *host_recv[2] = {nullptr, nullptr};
  ~Buffers() { release(); }
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

HaloExchange::~HaloExchange() = default;

Status HaloExchange::create(std::shared_ptr<const Decomposition> decomposition,
                            bool corners, std::unique_ptr<HaloExchange> &out) {
  auto e = std::make_unique<HaloExchange>();
  e->decomposition_ = std::move(decomposition);
  e->corners_ = corners;
  e->buffers_ = std::make_unique<Buffers>();
  if (backend_name() == "host") {
    e->policy_ = ExchangePolicy::Host;
  } else {
    e->policy_ = mpi_gpu_aware() ? ExchangePolicy::GpuAware
                                 : ExchangePolicy::Staged;
    if (const char *asked = std::getenv("STENCILC_EXCHANGE")) {
      const std::string value = asked;
      if (value == "staged")
        e->policy_ = ExchangePolicy::Staged;
      else if (value == "gpu-aware" && mpi_gpu_aware())
        e->policy_ = ExchangePolicy::GpuAware;
      else if (value == "gpu-aware")
        return Status::failure("STENCILC_EXCHANGE=gpu-aware, but the MPI "
                               "library does not move GPU memory "
                               "(MPIX_Query_cuda_support)");
      else
        return Status::failure("STENCILC_EXCHANGE='" + value +
                               "': expected staged or gpu-aware");
    }
  }
  out = std::move(e);
  return Status();
}

Status HaloExchange::buffers_for(std::size_t bytes) const {
  Buffers &b = *buffers_;
  if (bytes <= b.capacity)
    return Status();
  b.release();
  for (int s = 0; s < 2; ++s) {
    STENCIL_TRY(device_allocate(&b.send[s], bytes));
    STENCIL_TRY(device_allocate(&b.recv[s], bytes));
    if (policy_ == ExchangePolicy::Staged) {
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
    // Diagonal reads: the layers already filled (axes exchanged before,
    // and Dirichlet halos, which never change) travel too.
    if (corners && b != axis && (b < axis || !d.exchanged[b])) {
      lo = 0;
      hi = n;
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

#if defined(STENCIL_HAVE_MPI)
Status mpi_ok(int code, const char *call) {
  if (code == MPI_SUCCESS)
    return Status();
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::failure(std::string(call) + " failed: " +
                         std::string(text, length));
}
#endif

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
  STENCIL_TRY(buffers_for(bytes));
  Buffers &b = *buffers_;
  const int me = d.comm.rank();
  // The rank is its own neighbour along an axis that wraps unsplit: its
  // low ghost zone takes its high face and the other way round.
  if (d.neighbour[axis][0] == me && d.neighbour[axis][1] == me) {
    for (int s = 0; s < 2; ++s) {
      STENCIL_TRY(copy(data, b.send[s], pack[1 - s], stream));
      STENCIL_TRY(copy(data, b.send[s], unpack[s], stream));
    }
    return Status();
  }
#if defined(STENCIL_HAVE_MPI)
  const bool staged = policy_ == ExchangePolicy::Staged;
  MPI_Request requests[4];
  int count = 0;
  // Side s receives what the neighbour there sent from its face 1 - s.
  for (int s = 0; s < 2; ++s) {
    const int from = d.neighbour[axis][s];
    if (from < 0)
      continue;
    void *into = staged ? b.host_recv[s] : b.recv[s];
    STENCIL_TRY(mpi_ok(MPI_Irecv(into, static_cast<int>(bytes), MPI_BYTE,
                                 from, 2 * axis + (1 - s), d.comm.mpi(),
                                 &requests[count++]),
                       "MPI_Irecv"));
  }
  for (int s = 0; s < 2; ++s) {
    const int to = d.neighbour[axis][s];
    if (to < 0)
      continue;
    STENCIL_TRY(copy(data, b.send[s], pack[s], stream));
    void *from = b.send[s];
    if (staged) {
      STENCIL_TRY(copy_to_host(b.host_send[s], b.send[s], bytes));
      from = b.host_send[s];
    } else if (policy_ == ExchangePolicy::GpuAware) {
      STENCIL_TRY(device_synchronize());
    }
    STENCIL_TRY(mpi_ok(MPI_Isend(from, static_cast<int>(bytes), MPI_BYTE, to,
                                 2 * axis + s, d.comm.mpi(),
                                 &requests[count++]),
                       "MPI_Isend"));
    bytes_sent_ += static_cast<double>(bytes);
  }
  STENCIL_TRY(mpi_ok(MPI_Waitall(count, requests, MPI_STATUSES_IGNORE),
                     "MPI_Waitall"));
  for (int s = 0; s < 2; ++s) {
    if (d.neighbour[axis][s] < 0)
      continue;
    if (staged)
      STENCIL_TRY(copy_to_device(b.recv[s], b.host_recv[s], bytes));
    STENCIL_TRY(copy(data, b.recv[s], unpack[s], stream));
  }
  return Status();
#else
  return Status::failure("halo exchange between ranks without MPI");
#endif
}

Status HaloExchange::fill(void *data, const Lattice &lattice, int components,
                          BoxCopy copy, bool signs, Stream stream) const {
  if (!copy)
    return Status::failure("halo exchange: no box copy for this array");
  for (int axis = 0; axis < lattice.dims; ++axis)
    STENCIL_TRY(exchange_axis(data, lattice, components, copy, signs, axis,
                              stream));
  return Status();
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
