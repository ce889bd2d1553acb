//===- Spec.h - A stencil spec as written, with source ranges ---*- C++ -*-===//
//
// The parser fills these plain structs from YAML; every value keeps the
// source range it came from so that the checker can point at it. Nothing here
// is validated beyond YAML types: see check/Check.h for the validated model.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_SPEC_SPEC_H
#define STENCILC_SPEC_SPEC_H

#include "llvm/Support/SMLoc.h"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {

/// A value read from the spec and where it was written. `present` is false
/// when the key was absent or its value could not be read.
template <typename T> struct Located {
  T value{};
  llvm::SMRange range;
  bool present = false;

  void set(T v, llvm::SMRange r) {
    value = std::move(v);
    range = r;
    present = true;
  }
};

struct ParameterSpec {
  Located<std::string> name;
  Located<std::string> kind; ///< "scalar" (default) or "site"
  /// "real" (default) or "complex": a complex site parameter holds (re, im)
  /// per site.
  Located<std::string> type;
  Located<double> defaultValue;
  llvm::SMRange range;
};

/// One `factor * name` term of a coefficient; a coefficient field may be
/// read at a shifted site, `k@-x` (k one site back along x) or `k@+x-2y`,
/// and a complex one conjugated, `conj(k@-x)`.
struct CoefficientTermSpec {
  std::string name;
  double factor = 1.0;
  /// Lattice steps along x, y, z, t; all zero without `@`.
  std::array<int, 4> shift{};
  bool shifted = false;   ///< written with `@`
  bool conjugate = false; ///< written as `conj(...)`
};

/// A tap coefficient as written: a linear form over the parameters such as
/// `0.5`, `inv_hx2`, `-inv_hx2`, `8 + mass`, `2*inv_hx2 + 2*inv_hy2` or, with
/// coefficient fields, `k + k@-x`.
struct CoefficientSpec {
  double constant = 0.0;
  /// In the order written.
  std::vector<CoefficientTermSpec> terms;
  llvm::SMRange range;
  bool present = false;
};

struct TapSpec {
  Located<std::vector<int>> offset;
  CoefficientSpec coefficient;
  /// `link: U`: the tap multiplies by the link field U (forward taps by
  /// U_mu(x), backward taps by U_mu(x - mu)^dagger).
  Located<std::string> link;
  /// `spin: 1 - gamma` or `1 + gamma`: with a link, the tap also multiplies
  /// each spinor by the projector (1 -/+ gamma_mu) of its axis.
  Located<std::string> spin;
  /// `clover: A`: the centre tap of a Wilson-clover operator; its
  /// coefficient plus the clover field A's term form each site's diagonal.
  Located<std::string> clover;
  llvm::SMRange range;
};

/// The `links` section: an N x N complex matrix per site and direction.
struct LinksSpec {
  Located<std::string> name;
  Located<long long> colours;
  Located<std::string> compression; ///< "none" or "two_rows"
  Located<std::string> layoutOrder; ///< aos, soa, aosoa
  Located<long long> layoutBlock;
  Located<long long> layoutVector; ///< reals per load: 1, 2 or 4
  llvm::SMRange layoutRange;
  llvm::SMRange range;
  bool present = false;
};

/// The `clover` section: the Sheikholeslami-Wohlert term, computed by the
/// runtime from the links; two Hermitian 2N x 2N blocks per site.
struct CloverSpec {
  Located<std::string> name;
  CoefficientSpec csw;              ///< c_sw, a coefficient expression
  Located<std::string> layoutOrder; ///< aos, soa, aosoa
  Located<long long> layoutBlock;
  Located<long long> layoutVector; ///< reals per load: 1, 2 or 4
  llvm::SMRange layoutRange;
  llvm::SMRange range;
  bool present = false;
};

struct TileSpec {
  Located<std::string> axis;
  Located<long long> factor;
  llvm::SMRange range;
  bool present = false;
};

struct KernelSpec {
  Located<std::vector<long long>> block;
  Located<long long> launchBounds;
  Located<long long> minBlocksPerSm;
  TileSpec tile;
  Located<std::string> loadOrder;
  Located<bool> nontemporalStore;
  Located<long long> vectorWidth;
  Located<long long> componentsPerThread;
  /// kernel.slab: "auto" or a number of slices (checked by the checker).
  Located<std::string> slab;
  /// kernel.staging: "registers" (default) or "shared".
  Located<std::string> staging;
  /// kernel.march: each thread walks along the slowest axis (z or t) through
  /// a chunk of planes.
  Located<bool> march;
  llvm::SMRange range;
  bool present = false;
};

struct Spec {
  std::string path; ///< as given on the command line, for diagnostics
  std::string sha256; ///< of the file's bytes, lower-case hex
  Located<std::string> name;
  Located<std::string> description;

  Located<long long> dimensions;
  /// grid.boundary: one name for every axis, or a list with one per axis.
  Located<std::string> boundary;
  std::vector<Located<std::string>> axisBoundaries;
  llvm::SMRange boundaryListRange;
  /// grid.split: the axes a process grid may divide among ranks.
  std::vector<Located<std::string>> splitAxes;
  llvm::SMRange splitRange;
  /// grid.exchange: how ranks fill their ghost zones; `transport` (auto,
  /// peer, staged, gpu-aware) and `overlap` (the interior computed while
  /// the halos travel).
  Located<std::string> exchangeTransport;
  Located<bool> exchangeOverlap;
  llvm::SMRange exchangeRange;
  llvm::SMRange gridRange;

  Located<std::string> precision;
  Located<long long> components;
  /// field.type: "real" (default) or "complex"; field.shape: the site's
  /// values as an array, e.g. [3] (colour) or [4, 3] (spin x colour).
  Located<std::string> valueType;
  Located<std::vector<long long>> shape;
  /// field.layout: `aos`, `soa`, `aosoa`, or {order, block, vector,
  /// subdomain}.
  Located<std::string> layoutOrder;
  Located<long long> layoutBlock;
  Located<long long> layoutVector;
  Located<std::vector<long long>> subdomain;
  llvm::SMRange layoutRange;
  Located<bool> evenOdd; ///< field.even_odd: checkerboard storage
  llvm::SMRange fieldRange;

  Located<std::string> solver; ///< "none" (default), "cg" or "cgnr"
  /// inner_precision: the precision of mixed-precision CG's inner
  /// iterations ("float"), for which the generator adds the stencil's
  /// kernels in that precision.
  Located<std::string> innerPrecision;

  std::vector<ParameterSpec> parameters;
  LinksSpec links;
  CloverSpec clover;
  std::vector<TapSpec> taps;
  llvm::SMRange tapsRange;
  KernelSpec kernel;
  llvm::SMRange documentRange;
};

} // namespace stencilc

#endif
