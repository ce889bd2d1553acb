// The runtime calls for each backend. Compiled by the backend's compiler
// (hipcc, nvcc or the C++ compiler), which selects the backend through
// stencil/platform.hpp.
#include "stencil/device.hpp"

#include "stencil/platform.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

namespace stencil {
namespace {

#if defined(STENCIL_BACKEND_HIP)
#define STENCIL_API(name) hip##name
using ApiError = hipError_t;
using DeviceProperties = hipDeviceProp_t;
constexpr ApiError kApiSuccess = hipSuccess;
const char *error_string(ApiError error) { return hipGetErrorString(error); }
#elif defined(STENCIL_BACKEND_CUDA)
#define STENCIL_API(name) cuda##name
using ApiError = cudaError_t;
using DeviceProperties = cudaDeviceProp;
constexpr ApiError kApiSuccess = cudaSuccess;
const char *error_string(ApiError error) { return cudaGetErrorString(error); }
#endif

#if !defined(STENCIL_BACKEND_HOST)
Status checked(ApiError error, const char *call, const char *file, int line) {
  if (error == kApiSuccess)
    return Status();
  return Status::failure(std::string(call) + " failed at " + file + ":" +
                         std::to_string(line) + ": " + error_string(error));
}
// Stringified after expansion, so that messages name hipMalloc, cudaMemcpy...
#define STENCIL_STRINGIFY_(text) #text
#define STENCIL_STRINGIFY(text) STENCIL_STRINGIFY_(text)
#define STENCIL_CHECKED(call)                                                  \
  checked((call), STENCIL_STRINGIFY(call), __FILE__, __LINE__)
#endif

#if defined(STENCIL_BACKEND_HOST)
double host_seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
#endif

} // namespace

std::string backend_name() {
#if defined(STENCIL_BACKEND_HIP)
  return "hip";
#elif defined(STENCIL_BACKEND_CUDA)
  return "cuda";
#else
  return "host";
#endif
}

std::string device_name() {
#if defined(STENCIL_BACKEND_HOST)
  return "CPU, " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads";
#else
  int device = 0;
  DeviceProperties properties;
  if (STENCIL_API(GetDevice)(&device) != kApiSuccess ||
      STENCIL_API(GetDeviceProperties)(&properties, device) != kApiSuccess)
    return "unknown device";
  return properties.name;
#endif
}

std::int64_t device_l2_bytes() {
#if defined(STENCIL_BACKEND_HOST)
  return 0;
#else
  int device = 0, bytes = 0;
#if defined(STENCIL_BACKEND_HIP)
  const ApiError error =
      STENCIL_API(GetDevice)(&device) != kApiSuccess
          ? hipErrorInvalidDevice
          : hipDeviceGetAttribute(&bytes, hipDeviceAttributeL2CacheSize, device);
#else
  const ApiError error =
      STENCIL_API(GetDevice)(&device) != kApiSuccess
          ? cudaErrorInvalidDevice
          : cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device);
#endif
  return error == kApiSuccess && bytes > 0 ? bytes : 0;
#endif
}

Status device_allocate(void **pointer, std::size_t bytes) {
  *pointer = nullptr;
  if (bytes == 0)
    return Status();
#if defined(STENCIL_BACKEND_HOST)
  // 64-byte alignment, as device allocations have at least that.
  *pointer = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!*pointer)
    return Status::failure("aligned_alloc(" + std::to_string(bytes) +
                           " bytes) failed at " __FILE__ ": out of memory");
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(Malloc)(pointer, bytes));
#endif
}

void device_free(void *pointer) {
  if (!pointer)
    return;
#if defined(STENCIL_BACKEND_HOST)
  std::free(pointer);
#else
  (void)STENCIL_API(Free)(pointer);
#endif
}

bool have_ipc() {
#if defined(STENCIL_BACKEND_HOST)
  return false;
#else
  return true;
#endif
}

Status ipc_handle(void *device_pointer, IpcHandle &handle) {
#if defined(STENCIL_BACKEND_HOST)
  (void)device_pointer;
  (void)handle;
  return Status::failure("IPC handles need a GPU backend");
#else
  static_assert(sizeof(STENCIL_API(IpcMemHandle_t)) <= sizeof(IpcHandle),
                "IpcHandle holds the backend's handle");
  STENCIL_API(IpcMemHandle_t) h;
  STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(IpcGetMemHandle)(&h, device_pointer)));
  std::memset(handle.bytes, 0, sizeof handle.bytes);
  std::memcpy(handle.bytes, &h, sizeof h);
  return Status();
#endif
}

Status ipc_open(const IpcHandle &handle, void **pointer) {
  *pointer = nullptr;
#if defined(STENCIL_BACKEND_HOST)
  (void)handle;
  return Status::failure("IPC handles need a GPU backend");
#else
  STENCIL_API(IpcMemHandle_t) h;
  std::memcpy(&h, handle.bytes, sizeof h);
  return STENCIL_CHECKED(STENCIL_API(IpcOpenMemHandle)(
      pointer, h, STENCIL_API(IpcMemLazyEnablePeerAccess)));
#endif
}

void ipc_close(void *pointer) {
#if !defined(STENCIL_BACKEND_HOST)
  if (pointer)
    (void)STENCIL_API(IpcCloseMemHandle)(pointer);
#else
  (void)pointer;
#endif
}

int current_device() {
#if defined(STENCIL_BACKEND_HOST)
  return 0;
#else
  int device = 0;
  (void)STENCIL_API(GetDevice)(&device);
  return device;
#endif
}

Status host_allocate_pinned(void **pointer, std::size_t bytes) {
  *pointer = nullptr;
  if (bytes == 0)
    return Status();
#if defined(STENCIL_BACKEND_HOST)
  return device_allocate(pointer, bytes);
#elif defined(STENCIL_BACKEND_HIP)
  return STENCIL_CHECKED(hipHostMalloc(pointer, bytes, hipHostMallocDefault));
#else
  return STENCIL_CHECKED(cudaMallocHost(pointer, bytes));
#endif
}

Status host_allocate_mapped(void **host, void **device, std::size_t bytes) {
  *host = nullptr;
  *device = nullptr;
  if (bytes == 0)
    return Status();
#if defined(STENCIL_BACKEND_HOST)
  STENCIL_TRY(device_allocate(host, bytes));
  *device = *host;
  return Status();
#else
#if defined(STENCIL_BACKEND_HIP)
  STENCIL_TRY(STENCIL_CHECKED(hipHostMalloc(host, bytes, hipHostMallocMapped)));
  Status mapped = STENCIL_CHECKED(hipHostGetDevicePointer(device, *host, 0));
#else
  STENCIL_TRY(STENCIL_CHECKED(cudaHostAlloc(host, bytes, cudaHostAllocMapped)));
  Status mapped = STENCIL_CHECKED(cudaHostGetDevicePointer(device, *host, 0));
#endif
  if (!mapped.ok()) {
    host_free_pinned(*host);
    *host = nullptr;
    *device = nullptr;
  }
  return mapped;
#endif
}

void host_free_pinned(void *pointer) {
  if (!pointer)
    return;
#if defined(STENCIL_BACKEND_HOST)
  device_free(pointer);
#elif defined(STENCIL_BACKEND_HIP)
  (void)hipHostFree(pointer);
#else
  (void)cudaFreeHost(pointer);
#endif
}

Status copy_to_device(void *device, const void *host, std::size_t bytes) {
#if defined(STENCIL_BACKEND_HOST)
  if (bytes)
    std::memcpy(device, host, bytes);
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(Memcpy)(device, host, bytes,
                                             STENCIL_API(MemcpyHostToDevice)));
#endif
}

Status copy_to_host(void *host, const void *device, std::size_t bytes) {
#if defined(STENCIL_BACKEND_HOST)
  if (bytes)
    std::memcpy(host, device, bytes);
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(Memcpy)(host, device, bytes,
                                             STENCIL_API(MemcpyDeviceToHost)));
#endif
}

Status copy_device_to_device(void *to, const void *from, std::size_t bytes) {
#if defined(STENCIL_BACKEND_HOST)
  if (bytes)
    std::memcpy(to, from, bytes);
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(Memcpy)(
      to, from, bytes, STENCIL_API(MemcpyDeviceToDevice)));
#endif
}

Status device_zero(void *pointer, std::size_t bytes) {
#if defined(STENCIL_BACKEND_HOST)
  if (bytes)
    std::memset(pointer, 0, bytes);
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(Memset)(pointer, 0, bytes));
#endif
}

Status device_synchronize() {
#if defined(STENCIL_BACKEND_HOST)
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(DeviceSynchronize)());
#endif
}

Status stream_create(Stream &stream) {
  stream = nullptr;
#if defined(STENCIL_BACKEND_HOST)
  return Status();
#else
  // The greatest priority the device offers: the exchange's pack and
  // unpack kernels are queued while a rank's interior kernel fills the GPU,
  // and at equal priority their blocks would start only as the interior's
  // last ones retire, so the halos would travel after the interior rather
  // than beside it.
  int least = 0, greatest = 0;
  STENCIL_TRY(STENCIL_CHECKED(
      STENCIL_API(DeviceGetStreamPriorityRange)(&least, &greatest)));
  STENCIL_API(Stream_t) s = nullptr;
  STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(StreamCreateWithPriority)(
      &s, STENCIL_API(StreamNonBlocking), greatest)));
  stream = s;
  return Status();
#endif
}

void stream_destroy(Stream stream) {
#if !defined(STENCIL_BACKEND_HOST)
  if (stream)
    (void)STENCIL_API(StreamDestroy)(static_cast<STENCIL_API(Stream_t)>(stream));
#else
  (void)stream;
#endif
}

bool have_graphs() {
#if defined(STENCIL_BACKEND_HOST)
  return false;
#else
  return true;
#endif
}

Status graph_begin_capture(Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  return Status::failure("graph_begin_capture: the host backend has no "
                         "device graphs");
#else
  if (!stream)
    return Status::failure("graph_begin_capture: the default stream cannot "
                           "record a graph; use one from stream_create");
  return STENCIL_CHECKED(STENCIL_API(StreamBeginCapture)(
      static_cast<STENCIL_API(Stream_t)>(stream),
      STENCIL_API(StreamCaptureModeThreadLocal)));
#endif
}

Status graph_end_capture(Stream stream, bool record_failed, void *&graph) {
  graph = nullptr;
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  (void)record_failed;
  return Status::failure("graph_end_capture: the host backend has no "
                         "device graphs");
#else
  STENCIL_API(Graph_t) recorded = nullptr;
  // Ended even when the launches failed: the stream must leave recording.
  const Status ended = STENCIL_CHECKED(STENCIL_API(StreamEndCapture)(
      static_cast<STENCIL_API(Stream_t)>(stream), &recorded));
  if (!ended.ok() || record_failed) {
    if (recorded)
      (void)STENCIL_API(GraphDestroy)(recorded);
    return ended;
  }
  STENCIL_API(GraphExec_t) exec = nullptr;
#if defined(STENCIL_BACKEND_HIP)
  const Status made = STENCIL_CHECKED(
      hipGraphInstantiate(&exec, recorded, nullptr, nullptr, 0));
#else
  const Status made =
      STENCIL_CHECKED(cudaGraphInstantiate(&exec, recorded, 0));
#endif
  (void)STENCIL_API(GraphDestroy)(recorded);
  STENCIL_TRY(made);
  graph = exec;
  return Status();
#endif
}

Status graph_launch(void *graph, Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)graph;
  (void)stream;
  return Status::failure("graph_launch: the host backend has no device "
                         "graphs");
#else
  return STENCIL_CHECKED(STENCIL_API(GraphLaunch)(
      static_cast<STENCIL_API(GraphExec_t)>(graph),
      static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

void graph_destroy(void *graph) {
#if !defined(STENCIL_BACKEND_HOST)
  if (graph)
    (void)STENCIL_API(GraphExecDestroy)(
        static_cast<STENCIL_API(GraphExec_t)>(graph));
#else
  (void)graph;
#endif
}

Status stream_synchronize(Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  return Status();
#else
  return STENCIL_CHECKED(
      STENCIL_API(StreamSynchronize)(static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

Status copy_async(void *to, const void *from, std::size_t bytes,
                  Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  if (bytes)
    std::memcpy(to, from, bytes);
  return Status();
#else
  return STENCIL_CHECKED(STENCIL_API(MemcpyAsync)(
      to, from, bytes, STENCIL_API(MemcpyDefault),
      static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

Status select_device_for_local_rank(int local_rank, int &device) {
  device = 0;
#if defined(STENCIL_BACKEND_HOST)
  (void)local_rank;
  return Status();
#else
  int count = 0;
  STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(GetDeviceCount)(&count)));
  if (count < 1)
    return Status::failure("no GPU for local rank " +
                           std::to_string(local_rank));
  device = local_rank % count;
  return STENCIL_CHECKED(STENCIL_API(SetDevice)(device));
#endif
}

DeviceEvent::~DeviceEvent() {
#if !defined(STENCIL_BACKEND_HOST)
  if (event_)
    (void)STENCIL_API(EventDestroy)(static_cast<STENCIL_API(Event_t)>(event_));
#endif
}

Status DeviceEvent::record(Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  return Status();
#else
  if (!event_) {
    STENCIL_API(Event_t) event;
    STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(EventCreateWithFlags)(
        &event, STENCIL_API(EventDisableTiming))));
    event_ = event;
  }
  return STENCIL_CHECKED(STENCIL_API(EventRecord)(
      static_cast<STENCIL_API(Event_t)>(event_),
      static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

Status DeviceEvent::synchronize() {
#if defined(STENCIL_BACKEND_HOST)
  return Status();
#else
  if (!event_)
    return Status::failure("DeviceEvent::synchronize() called before record()");
  return STENCIL_CHECKED(STENCIL_API(EventSynchronize)(
      static_cast<STENCIL_API(Event_t)>(event_)));
#endif
}

DeviceTimer::DeviceTimer() = default;

DeviceTimer::~DeviceTimer() {
#if !defined(STENCIL_BACKEND_HOST)
  if (begin_)
    (void)STENCIL_API(EventDestroy)(static_cast<STENCIL_API(Event_t)>(begin_));
  if (end_)
    (void)STENCIL_API(EventDestroy)(static_cast<STENCIL_API(Event_t)>(end_));
#endif
}

Status DeviceTimer::start(Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  host_begin_ = host_seconds();
  return Status();
#else
  if (!begin_) {
    STENCIL_API(Event_t) begin, end;
    STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(EventCreate)(&begin)));
    STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(EventCreate)(&end)));
    begin_ = begin;
    end_ = end;
  }
  return STENCIL_CHECKED(STENCIL_API(EventRecord)(
      static_cast<STENCIL_API(Event_t)>(begin_),
      static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

Status DeviceTimer::stop(Stream stream) {
#if defined(STENCIL_BACKEND_HOST)
  (void)stream;
  host_end_ = host_seconds();
  return Status();
#else
  if (!end_)
    return Status::failure("DeviceTimer::stop() called before start()");
  return STENCIL_CHECKED(STENCIL_API(EventRecord)(
      static_cast<STENCIL_API(Event_t)>(end_),
      static_cast<STENCIL_API(Stream_t)>(stream)));
#endif
}

Status DeviceTimer::elapsed_ms(double &milliseconds) {
#if defined(STENCIL_BACKEND_HOST)
  milliseconds = (host_end_ - host_begin_) * 1e3;
  return Status();
#else
  if (!end_)
    return Status::failure("DeviceTimer::elapsed_ms() called before start()");
  auto end = static_cast<STENCIL_API(Event_t)>(end_);
  STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(EventSynchronize)(end)));
  float ms = 0.0f;
  STENCIL_TRY(STENCIL_CHECKED(STENCIL_API(EventElapsedTime)(
      &ms, static_cast<STENCIL_API(Event_t)>(begin_), end)));
  milliseconds = ms;
  return Status();
#endif
}

} // namespace stencil
