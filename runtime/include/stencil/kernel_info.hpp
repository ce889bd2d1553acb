// stencil/kernel_info.hpp - a type-erased description of one generated
// stencil, so that tools, tests and the runtime can drive any spec's kernels
// through one interface. Every generated NAME.hpp defines `info()`.
#ifndef STENCIL_KERNEL_INFO_HPP
#define STENCIL_KERNEL_INFO_HPP

#include "stencil/launch_config.hpp"
#include "stencil/layout.hpp"
#include "stencil/types.hpp"

namespace stencil {

/// out = A in (or A^T in), with `extents` (dims entries) and, per parameter
/// in declaration order, its value in `params` (scalar parameters) or its
/// device array of one value per site in `fields` (site parameters; `fields`
/// may be null when there are none).
using GenericApply = Status (*)(void *out, const void *in, const int *extents,
                                const double *params,
                                const void *const *fields, Stream stream);

struct KernelInfo {
  const char *name;
  const char *spec_file;
  const char *value_type; ///< "float" or "double"
  int element_bytes;
  int components;
  StencilShape shape;
  Layout layout;
  int num_taps;
  const int (*tap_offsets)[kMaxDims];
  /// Tap i's coefficient: tap_constants[i] plus the sum over parameters p of
  /// tap_factors[i * num_params + p] * params[p] (null when num_params is 0).
  const double *tap_constants;
  const double *tap_factors;
  int num_params;
  const char *const *param_names;
  const double *param_defaults;
  const bool *param_is_site; ///< site parameters: an array per call
  int centre_tap;            ///< index of the (0,...,0) tap, or -1
  bool symmetric;            ///< A == A^T: apply_adjoint is apply
  const char *solver;        ///< the spec's choice: "none", "cg", "cgnr"
  int loads_per_tile;
  int bytes_per_site;
  int flops_per_site;
  GenericApply apply;
  GenericApply apply_adjoint;
};

} // namespace stencil

#endif
