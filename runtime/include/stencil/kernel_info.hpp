// stencil/kernel_info.hpp - a type-erased description of one generated
// stencil, so that tools, tests and the runtime can drive any spec's kernels
// through one interface. Every generated NAME.hpp defines `info()`.
#ifndef STENCIL_KERNEL_INFO_HPP
#define STENCIL_KERNEL_INFO_HPP

#include "stencil/box_copy.hpp"
#include "stencil/device.hpp"
#include "stencil/launch_config.hpp"
#include "stencil/layout.hpp"
#include "stencil/region.hpp"
#include "stencil/types.hpp"

namespace stencil {

/// out = A in (or A^T in), with `extents` (dims entries) and, per parameter
/// in declaration order, its value in `params` (scalar parameters) or its
/// device array of one value per site in `fields` (site parameters; `fields`
/// may be null when there are none); for stencils with links,
/// fields[num_params] is the link array (KernelInfo::links).
using GenericApply = Status (*)(void *out, const void *in, const int *extents,
                                const double *params,
                                const void *const *fields, Stream stream);

/// out = A in, as GenericApply, and partials[b] = the sum of in . out over
/// the sites that launch block b stores (one double per block of the grid
/// make_launch_config gives).
using GenericApplyDot = Status (*)(void *out, const void *in,
                                   const int *extents, const double *params,
                                   const void *const *fields, double *partials,
                                   Stream stream);

/// GenericApplyDot with CG's direction update folded in: next_direction =
/// p' = in + beta direction, out = A p', partials of p' . out; beta is read
/// from device memory (*beta), where CG keeps its scalars. Where `solution`
/// is not null, also the last step's solution += *alpha direction on the
/// sites out gets (the solution in the kernels' arithmetic type).
using GenericApplyFoldDot = Status (*)(void *out, void *next_direction,
                                       const void *in, const void *direction,
                                       const double *beta, void *solution,
                                       const double *alpha, const int *extents,
                                       const double *params,
                                       const void *const *fields,
                                       double *partials, Stream stream);

/// The epilogue of an even/odd hopping kernel, chosen per launch. With H
/// the neighbour block into the output parity and D the centre tap's
/// coefficient there: kHop out = beta H in; kInverseDiagonalHop out =
/// beta D^-1 H in; kDiagonalPlusHop out = alpha D same + beta H in.
enum HopMode : int { kHop = 0, kInverseDiagonalHop = 1, kDiagonalPlusHop = 2 };

/// A hopping kernel on half fields (one parity's values each): `out` of the
/// output parity, `in` of the other, `same` of the output parity (only for
/// kDiagonalPlusHop, else may be null); parameters as for GenericApply.
using HopApply = Status (*)(void *out, const void *in, const void *same,
                            int mode, double alpha, double beta,
                            const int *extents, const double *params,
                            const void *const *fields, Stream stream);

/// The hopping kernels of a stencil with even/odd storage. The blocks of A
/// are written A_oe (odd rows, even columns: even_to_odd) and A_eo; the
/// adjoint entries apply the blocks of A^T, (A_eo)^T even-to-odd and
/// (A_oe)^T odd-to-even.
struct EvenOddKernels {
  HopApply even_to_odd;
  HopApply odd_to_even;
  HopApply even_to_odd_adjoint;
  HopApply odd_to_even_adjoint;
  int bytes_per_site; ///< kHop: input read once, output written once
  int flops_per_site; ///< kHop
  /// kernel.slab: 0 auto, 1 storage order, or slices per slab; what a
  /// launch uses is hop_slab(info, extents).
  int slab;
};

struct KernelInfo;

/// One coefficient-field term of a tap: tap `tap`'s coefficient at the
/// output site x gains factor * (site parameter `param`)[x + shift], the
/// complex conjugate of a complex parameter's value when `conjugate`.
struct FieldTerm {
  int tap;
  int param;
  double factor;
  int shift[kMaxDims];
  bool conjugate;
};

/// Which kernels a TunedChoice chooses: all of them (apply, the adjoint,
/// the fused dot and fold kernels, the hops), or only CG's stencil pass with
/// the direction update folded in (apply_fold_dot), which reads two fields
/// through the stencil and may want other options than apply (a tuning-cache
/// entry recorded by the timing program's --kernel fold).
enum class TunedKernels { All, FoldPass };

/// A kernel variant compiled into a stencil's code, and when to run it
/// (stencil/tuning.hpp): a tuning-cache entry (`x_multiple` 0), on `device`
/// (the name stencil::device_name() gives) with exactly these extents; or
/// a choice of the planner (extents 0) for every nx that is a multiple of
/// `x_multiple`, on any device (`device` null) or, where a known GPU's cost
/// model chose otherwise, on the GPU named `device`; a planner's choice for
/// large lattices only (`l2_percent` above 0) runs where two slices across
/// the slowest axis are too large for the L2 to keep
/// (stencil::slices_exceed_l2).
struct TunedChoice {
  const char *device;
  int extents[kMaxDims];
  const KernelInfo &(*info)();
  double gb_s;    ///< measured when tuned; 0 for the planner's choice
  int x_multiple; ///< the planner's choice: nx a multiple of it; else 0
  /// All unless said (tables written before fold-pass entries existed).
  TunedKernels kernels = TunedKernels::All;
  /// The planner's choice runs only where two slices across the slowest
  /// axis, at the stencil's bytes_per_site, exceed this percentage of the
  /// device's L2; 0: on any lattice.
  int l2_percent = 0;
};

/// How a site's values are organised: real, or complex (re, im adjacent),
/// as an array of `rank` extents (slowest first; rank 0: `components` reals
/// with no further shape).
struct ValueShape {
  bool complex;
  int rank;
  int extents[kMaxDims];
};

/// The link field of a gauge-covariant stencil (stencil/link_algebra.hpp):
/// per site `dims` N x N complex matrices, U_x first, each `reals_per_link`
/// reals (2 N^2, or 12: the first two rows of SU(3)), the array placed by
/// `layout`. Tap i with tap_link[i] multiplies each colour vector by
/// U_mu(x) (a forward step along mu) or U_mu(x - mu)^dagger (a backward one).
struct LinkInfo {
  const char *name;
  int colours;
  int reals_per_link;
  Layout layout;
  const bool *tap_link;
};

/// The clover kernel of an even/odd Wilson-clover stencil: on the sites of
/// `parity` (half fields, as HopApply's), out = beta A^-1 in
/// (kInverseDiagonalHop; the inverse array must be of that parity) or
/// alpha A same + beta in (kDiagonalPlusHop); kHop: out = beta in.
using CloverApply = Status (*)(void *out, const void *in, const void *same,
                               int mode, double alpha, double beta, int parity,
                               const int *extents, const double *params,
                               const void *const *fields, Stream stream);

/// The clover term of a Wilson-clover stencil (stencil/clover.hpp): the
/// centre tap `tap` carries it, and each site's diagonal is
///   A(x) = coefficient of `tap` + c_sw (i/4) sum sigma_mu,nu F_mu,nu(x),
/// c_sw = csw_constant + sum_p csw_factors[p] * params[p]. Its array (per
/// site two compact 2N x 2N Hermitian blocks, 8 N^2 reals, placed by
/// `layout`) is passed in fields[num_params + 1], the inverse on one
/// parity's half (the same component order, that half's site order) in
/// fields[num_params + 2].
struct CloverInfo {
  const char *name;
  int colours;
  int reals_per_site;
  Layout layout;
  int tap;
  double csw_constant;
  const double *csw_factors; ///< null when num_params is 0
  /// Even/odd storage: the clover kernel; null otherwise.
  CloverApply apply;
  int bytes_per_site; ///< the clover kernel with kInverseDiagonalHop
  int flops_per_site;
};

/// Copies a box of a field's sites to or from a contiguous buffer, or
/// zeroes it (stencil/box_copy.hpp): the halo exchange's pack and unpack,
/// compiled for one layout.
using BoxCopy = Status (*)(void *field, void *buffer, const BoxCopyArgs &args,
                           Stream stream);

/// The ranks' kernels restricted to a Region (stencil/region.hpp), so that
/// the interior can run while the halos travel: GenericApply,
/// GenericApplyDot and HopApply with the region before the stream.
using RegionApply = Status (*)(void *out, const void *in, const int *extents,
                               const double *params, const void *const *fields,
                               const Region &region, Stream stream);
using RegionApplyDot = Status (*)(void *out, const void *in,
                                  const int *extents, const double *params,
                                  const void *const *fields, double *partials,
                                  const Region &region, Stream stream);
using RegionHop = Status (*)(void *out, const void *in, const void *same,
                             int mode, double alpha, double beta,
                             const int *extents, const double *params,
                             const void *const *fields, const Region &region,
                             Stream stream);

/// A stencil whose lattice a process grid may divide among ranks (the
/// spec's grid.split; docs/distributed.md).
/// How ranks fill their ghost zones (grid.exchange; stencil/exchange_choice.hpp
/// chooses). Auto: peer copies between GPUs of one node, else MPI on device
/// memory where the MPI moves it, else staged through pinned host memory.
enum class ExchangeTransport { Auto, Peer, Staged, GpuAware };
struct ExchangeOptions {
  ExchangeTransport transport;
  bool overlap; ///< the interior computed while the halos travel
};

/// A halo-exchange policy the tuning cache recorded: on `device` with these
/// extents and this process grid (ranks per axis), `options` was fastest.
struct TunedExchange {
  const char *device;
  int extents[kMaxDims];
  int grid[kMaxDims];
  ExchangeOptions options;
  double ms; ///< per application, when tuned
};

struct DistributedInfo {
  /// The axes a process grid may split.
  bool split[kMaxDims];
  /// Whether a tap moves along two axes at once: then the exchange fills
  /// the ghost zones' edges and corners too.
  bool corners;
  /// The kernels the ranks run: along every splittable axis that wraps
  /// around they read a ghost zone `reach` sites wide (a halo, to them)
  /// instead of wrapping; the stencil's own when no such axis exists.
  const KernelInfo &(*kernels)();
  /// Box copies for fields (the field's layout, any number of reals per
  /// site), for the link array (its layout; null without links), and for
  /// site parameter arrays (a value or an (re, im) pair a site, together,
  /// in the field's site order; null without site parameters).
  BoxCopy copy_field;
  BoxCopy copy_links;
  BoxCopy copy_site_values;
  /// The ranks' kernels by region: apply and apply_adjoint; the fused
  /// stencil-and-dot (null without it); the hops (null without even/odd
  /// storage), in EvenOddKernels' order.
  RegionApply apply;
  RegionApply apply_adjoint;
  RegionApplyDot apply_dot;
  RegionHop even_to_odd;
  RegionHop odd_to_even;
  RegionHop even_to_odd_adjoint;
  RegionHop odd_to_even_adjoint;
  /// The spec's policy (grid.exchange), and those `stencilc generate
  /// --tune-cache` compiled in.
  ExchangeOptions exchange;
  int num_tuned_exchange;
  const TunedExchange *tuned_exchange;
};

struct KernelInfo {
  const char *name;
  const char *spec_file;
  /// "float", "double", or "bf16" (bfloat16 fields, float arithmetic)
  const char *value_type;
  int element_bytes;
  int components;
  StencilShape shape;
  Layout layout;
  int num_taps;
  const int (*tap_offsets)[kMaxDims];
  /// Tap i's coefficient at site x: tap_constants[i], plus the sum over the
  /// scalar parameters p of tap_factors[i * num_params + p] * params[p]
  /// (null when num_params is 0; 0 in the columns of site parameters), plus
  /// the field terms of tap i, each factor * field[x + shift].
  const double *tap_constants;
  const double *tap_factors;
  int num_params;
  const char *const *param_names;
  const double *param_defaults;
  const bool *param_is_site; ///< site parameters: an array per call
  int num_field_terms;
  const FieldTerm *field_terms; ///< null when there are none
  int centre_tap;            ///< index of the (0,...,0) tap, or -1
  bool symmetric;            ///< A == A^T: apply_adjoint is apply
  const char *solver;        ///< the spec's choice: "none", "cg", "cgnr"
  int loads_per_tile;
  int bytes_per_site;
  int flops_per_site;
  GenericApply apply;
  GenericApply apply_adjoint;
  /// Even/odd storage: the hopping kernels; null for other layouts.
  const EvenOddKernels *even_odd;
  /// apply() fused with in . out for CG (null unless the spec's solver is
  /// cg, its storage is not even/odd and its block is a multiple of 64
  /// threads).
  GenericApplyDot apply_dot;
  /// apply_dot() with CG's direction update p' = r + beta p folded into its
  /// loads (with apply_dot, except for the kernels only ranks run; null
  /// otherwise): an iteration of fused CG moves 10 fields instead of 11.
  GenericApplyFoldDot apply_fold_dot;
  /// What the stencil computes, hashed: tuning-cache entries apply only to
  /// stencils with the fingerprint they were recorded for.
  const char *fingerprint;
  /// The kernel options and layout, as the tuning cache writes them.
  const char *tuning_options;
  /// The variants `stencilc generate --tune-cache` compiled in.
  int num_tuned;
  const TunedChoice *tuned;
  ValueShape value_shape;
  /// Gauge-covariant stencils: the links, passed to the entry points in
  /// `fields[num_params]`; null for stencils without link taps.
  const LinkInfo *links;
  /// Complex site parameters: their arrays hold an (re, im) pair per site
  /// (see StencilOperator::site_lattice); null when every parameter is real.
  const bool *param_is_complex;
  /// Wilson-clover stencils: the clover term (fields[num_params + 1] and
  /// [num_params + 2]); null for other stencils.
  const CloverInfo *clover;
  /// Stencils whose spec declares grid.split: how ranks run them; null
  /// otherwise.
  const DistributedInfo *distributed;
  /// Double stencils whose spec declares inner_precision: the same stencil
  /// in that precision, for mixed-precision CG's inner iterations
  /// (StencilOperator::create_inner); null otherwise.
  const KernelInfo &(*inner)();
  /// Marching kernels (kernel.march, StencilShape::march): the device's
  /// resident blocks of one kernel (a MarchKernel), which size its chunks
  /// of planes. Every count of a kernel's blocks (the dot and fold kernels'
  /// partials) goes through launch_config(info, ..., kernel) so that it is
  /// the launch's own; null for other stencils.
  std::int64_t (*march_residency)(int kernel);
};

/// The kernels of a stencil whose residency sizes a march's chunks (their
/// registers differ, and so do the blocks a multiprocessor holds).
enum MarchKernel : int {
  kMarchApply = 0, ///< apply and apply_adjoint (the lesser of the two)
  kMarchDot = 1,   ///< apply_dot
  kMarchFold = 2,  ///< apply_fold_dot
};

/// make_launch_config for `info`'s kernel `kernel` on the current device,
/// with its residency where it marches: the grid its launches use.
inline Status launch_config(const KernelInfo &info, const int *extents,
                            LaunchConfig &config, int kernel = kMarchApply) {
  return make_launch_config(info.shape, extents, config,
                            info.march_residency
                                ? info.march_residency(kernel)
                                : 0);
}

/// Tap t's coefficient without its field terms: tap_constants[t] plus the
/// scalar parameters' share, with the parameter values `values`.
inline double scalar_coefficient(const KernelInfo &info, int t,
                                 const double *values) {
  double value = info.tap_constants[t];
  for (int p = 0; p < info.num_params; ++p)
    if (!info.param_is_site[p])
      value += info.tap_factors[t * info.num_params + p] * values[p];
  return value;
}

/// Whether site parameter `p` of `info` is complex.
inline bool is_complex_parameter(const KernelInfo &info, int p) {
  return info.param_is_complex && info.param_is_complex[p];
}

/// Values per site of site parameter `p`'s array: 2 for a complex one.
inline int site_parameter_reals(const KernelInfo &info, int p) {
  return is_complex_parameter(info, p) ? 2 : 1;
}

/// The slices per slab that `info`'s hopping kernels walk on `extents`, on
/// the current device (stencil::hop_slab); 1 without even/odd storage.
inline int hop_slab(const KernelInfo &info, const int *extents) {
  if (!info.even_odd)
    return 1;
  return hop_slab(info.even_odd->slab, info.shape.dims, extents,
                  info.even_odd->bytes_per_site, device_l2_bytes());
}

/// Whether some parameter of `info` is complex.
inline bool has_complex_parameters(const KernelInfo &info) {
  for (int p = 0; p < info.num_params; ++p)
    if (is_complex_parameter(info, p))
      return true;
  return false;
}

} // namespace stencil

#endif
