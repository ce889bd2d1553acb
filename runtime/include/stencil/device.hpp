// stencil/device.hpp - the runtime calls the project makes, for all three
// backends. Every call is checked: a failure returns a Status naming the
// backend call, the file and line, and the backend's own error string.
#ifndef STENCIL_DEVICE_HPP
#define STENCIL_DEVICE_HPP

#include "stencil/types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace stencil {

/// "host", "cuda" or "hip", and the device's name ("NVIDIA H100 80GB HBM3",
/// or the CPU thread count for the host backend).
std::string backend_name();
std::string device_name();
/// The current device's L2 cache in bytes (0 on the host backend, or when
/// the backend cannot tell): what stencil::hop_slab() weighs the hopping
/// kernels' reuse against. One attribute query, cheap enough per launch.
std::int64_t device_l2_bytes();

Status device_allocate(void **pointer, std::size_t bytes);
void device_free(void *pointer);
/// A device allocation's handle for another process on the same node
/// (CUDA/HIP IPC): that process opens it and copies into the memory
/// directly (over NVLink or PCIe peer access where the GPUs differ).
struct IpcHandle {
  unsigned char bytes[64];
};
/// Whether this backend shares device memory between processes (false on
/// the host backend).
bool have_ipc();
Status ipc_handle(void *device_pointer, IpcHandle &handle);
/// Maps another process's allocation (peer access enabled as needed).
Status ipc_open(const IpcHandle &handle, void **pointer);
void ipc_close(void *pointer);
/// This process's current GPU (0 on the host backend).
int current_device();

/// Page-locked host memory (fast transfers to and from the device; plain
/// memory on the host backend).
Status host_allocate_pinned(void **pointer, std::size_t bytes);
void host_free_pinned(void *pointer);
/// Page-locked host memory that kernels write directly: `device` is its
/// address for kernels (the same memory; `host` on the host backend). Free
/// with host_free_pinned(host).
Status host_allocate_mapped(void **host, void **device, std::size_t bytes);
Status copy_to_device(void *device, const void *host, std::size_t bytes);
Status copy_to_host(void *host, const void *device, std::size_t bytes);
Status copy_device_to_device(void *to, const void *from, std::size_t bytes);
Status device_zero(void *pointer, std::size_t bytes);
/// Waits for all work on the device.
Status device_synchronize();
/// A stream that runs apart from the default one (non-blocking: the halo
/// exchange's, so that its copies proceed while kernels run), at the
/// device's greatest priority (its kernels start ahead of blocks queued on
/// other streams); null on the host backend, whose launches complete before
/// returning.
Status stream_create(Stream &stream);
void stream_destroy(Stream stream);
/// Waits for the work queued on `stream` (null: the default stream).
Status stream_synchronize(Stream stream);
/// Copies `bytes` between any two of host, pinned and device memory on
/// `stream` (asynchronous for pinned and device memory).
Status copy_async(void *to, const void *from, std::size_t bytes,
                  Stream stream);
/// Makes GPU `local_rank` modulo the node's GPUs current (`device` says
/// which); nothing on the host backend.
Status select_device_for_local_rank(int local_rank, int &device);

/// Device graphs (CUDA and HIP graphs): the kernel launches made on a
/// stream, recorded once and replayed with one launch, which spares the
/// GPU the gap between dependent kernels (stencil/launch_graph.hpp keeps
/// them). False on the host backend, whose launches run as they are made.
bool have_graphs();
/// Starts recording the work queued on `stream` (one from stream_create:
/// the default stream cannot record) instead of running it; recording is
/// local to the calling thread.
Status graph_begin_capture(Stream stream);
/// Ends the recording begun on `stream` and makes it launchable: `graph`
/// owns it until graph_destroy. On failure (a call the recording cannot
/// hold, or `record_failed` true: the caller's launches failed) the
/// recording is discarded and `graph` stays null.
Status graph_end_capture(Stream stream, bool record_failed, void *&graph);
/// Runs a recorded graph on `stream` after the work queued there.
Status graph_launch(void *graph, Stream stream);
void graph_destroy(void *graph);

/// A point in a stream's work that the host can wait for (a GPU event;
/// nothing to wait for on the host backend, whose work completes as it is
/// queued). CG's pipelined loop waits for an iteration's sums this way while
/// the next iteration runs.
class DeviceEvent {
public:
  DeviceEvent() = default;
  ~DeviceEvent();
  DeviceEvent(const DeviceEvent &) = delete;
  DeviceEvent &operator=(const DeviceEvent &) = delete;
  /// Marks the work queued on `stream` so far.
  Status record(Stream stream = nullptr);
  /// Waits until the work before the last record() has run.
  Status synchronize();

private:
  void *event_ = nullptr;
};

/// Elapsed time of device work: events on GPUs, the host clock on the host
/// backend (whose launches complete before returning).
class DeviceTimer {
public:
  DeviceTimer();
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer &) = delete;
  DeviceTimer &operator=(const DeviceTimer &) = delete;
  Status start(Stream stream = nullptr);
  Status stop(Stream stream = nullptr);
  /// Milliseconds between start() and stop(); waits for stop().
  Status elapsed_ms(double &milliseconds);

private:
  void *begin_ = nullptr;
  void *end_ = nullptr;
  [[maybe_unused]] double host_begin_ = 0.0; // host backend only
  [[maybe_unused]] double host_end_ = 0.0;
};

} // namespace stencil

/// Returns from the enclosing function when `call` (a Status) failed.
#define STENCIL_TRY(call)                                                      \
  do {                                                                         \
    ::stencil::Status stencil_try_status_ = (call);                            \
    if (!stencil_try_status_.ok())                                             \
      return stencil_try_status_;                                              \
  } while (0)

#endif
