// stencil/types.hpp - host-side vocabulary shared by generated headers and
// the runtime. Plain C++: no GPU headers, so that code compiled by g++ can
// include a generated NAME.hpp whatever backend built the kernels.
#ifndef STENCIL_TYPES_HPP
#define STENCIL_TYPES_HPP

#include <string>
#include <utility>

namespace stencil {

/// The result of a runtime call: ok, or a message saying what went wrong.
class Status {
public:
  Status() = default;
  static Status failure(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }
  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return text; }

private:
  bool failed = false;
  std::string text;
};

/// A backend stream (hipStream_t, cudaStream_t), or null for the default
/// stream; the host backend ignores it.
using Stream = void *;

/// Grid or block dimensions of a launch.
struct LaunchDims {
  unsigned x = 1, y = 1, z = 1;
};

} // namespace stencil

#endif
