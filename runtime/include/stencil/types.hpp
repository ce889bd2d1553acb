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
  /// A failure that every rank of a collective call returns alike: agreed
  /// on (Communicator::agree), or decided by values every rank holds the
  /// same bits of (a sum over the ranks).
  static Status failure_on_every_rank(std::string message) {
    Status status = failure(std::move(message));
    status.everyRank = true;
    return status;
  }
  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return text; }
  /// Whether every rank returns this failure (failure_on_every_rank); a
  /// plain failure may be this rank's alone.
  bool on_every_rank() const { return everyRank; }

private:
  bool failed = false;
  bool everyRank = false;
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
