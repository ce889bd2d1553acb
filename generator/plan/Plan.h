//===- Plan.h - KernelPlan: the IR between model and emitter ---*- C++ -*-===//
//
// One thread of a stencil kernel computes a tile of `tileFactor` consecutive
// sites along `tileAxis`. The plan is that thread's straight-line program:
// the ordered loads of its tile (each lattice value loaded once and reused by
// every site of the tile that needs it, as in the AMD lab note), the
// accumulations each load feeds, and the stores. Emitters print it as code;
// `stencilc plan` prints it as text; tests count it.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_PLAN_H
#define STENCILC_PLAN_PLAN_H

#include "check/Model.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace stencilc {

struct PlannedLoad {
  /// Lattice offset from the tile's first site.
  Offset offset{};
  /// Dirichlet only: this load lies past the reach of the tile's last site
  /// that can be stored, so near the array's far end it could leave the
  /// array; the emitter clamps its tile-axis coordinate. Only sites that are
  /// never stored consume a clamped value.
  bool clampTileAxis = false;
  /// Consecutive values along x this load reads with one instruction: the
  /// thread's own aligned group of sites (KernelPlan::xWidth) in one row.
  int width = 1;
  /// Dirichlet only: a halo value beside the thread's group along x; the
  /// emitter clamps its x coordinate into the array. Only sites that are
  /// never stored consume a clamped value.
  bool clampX = false;
};

/// acc[site] (+)= coefficient(tap) * load.
struct PlannedAccumulation {
  int site = 0; ///< position in the tile, 0 .. tileFactor-1
  int tap = 0;  ///< index into the model's taps
  bool first = false; ///< first contribution to this site: initialise
  int lane = 0;    ///< the site's position in the x group, 0 .. xWidth-1
  int element = 0; ///< which of the load's `width` values it reads
};

/// One load and the accumulations that consume it right away, so that each
/// loaded value is dead after its step.
struct PlanStep {
  int load = 0;
  std::vector<PlannedAccumulation> accumulations;
};

/// Which operator a kernel applies: A, or A^T (the transposed stencil,
/// emitted only when A is not symmetric).
enum class KernelRole { Apply, Adjoint };

/// Even/odd storage only: a hopping kernel applies the off-diagonal block of
/// its role's operator between the parities (the neighbour taps; the centre
/// tap is the diagonal D, used only in the kernel's epilogue). EvenToOdd
/// reads the even sites and writes the odd ones.
enum class Hop { None, EvenToOdd, OddToEven };

struct KernelPlan {
  KernelRole role = KernelRole::Apply;
  Hop hop = Hop::None;
  std::string kernelName;
  int tileAxis = 0;
  int tileFactor = 1;
  /// Aligned sites along x per thread (single-component fields with a
  /// vector width): the tile is xWidth x tileFactor sites, each row of it
  /// loaded and stored with one vector access.
  int xWidth = 1;
  std::vector<PlannedLoad> loads; ///< in issue order
  std::vector<PlanStep> steps;    ///< one per load, same order

  int sitesPerTile() const { return tileFactor * xWidth; }
  /// Load and store instructions (a vector access counts once).
  int loadsPerTile() const { return static_cast<int>(loads.size()); }
  int storesPerTile() const { return tileFactor; }
  double loadsPerSite() const {
    return static_cast<double>(loads.size()) / sitesPerTile();
  }
  /// Minimal traffic per site: the input read once and the output written
  /// once, all components.
  int bytesReadPerSite = 0;
  int bytesWrittenPerSite = 0;
  int bytesPerSite() const { return bytesReadPerSite + bytesWrittenPerSite; }
  /// One multiply per tap and one add per tap after the first, per component.
  int flopsPerSite = 0;
  double arithmeticIntensity() const {
    return static_cast<double>(flopsPerSite) / bytesPerSite();
  }
};

/// The linear-address order of two offsets on a lattice much larger than the
/// stencil: compare t, then z, then y, then x.
bool precedesInMemory(const Offset &a, const Offset &b);

/// Builds the plan of the kernel that applies A (or A^T) of `model`.
KernelPlan planKernel(const StencilModel &model,
                      KernelRole role = KernelRole::Apply);

/// Builds the plan of a hopping kernel of an even/odd model: one site per
/// thread, the neighbour taps only.
KernelPlan planHoppingKernel(const StencilModel &model, KernelRole role,
                             Hop hop);

/// The plans of every kernel the model needs: A, and A^T unless A is
/// symmetric (then A serves as its own adjoint); for even/odd storage then
/// the hopping kernels even-to-odd and odd-to-even of each of those roles.
std::vector<KernelPlan> planKernels(const StencilModel &model);

/// The plan of `role` and `hop` in `plans`, or null (no adjoint plans for a
/// symmetric model).
const KernelPlan *findPlan(const std::vector<KernelPlan> &plans,
                           KernelRole role, Hop hop = Hop::None);

/// "even-to-odd", "odd-to-even"; "" for None.
const char *hopName(Hop hop);

/// The model a plan of this role was built from: `model` itself, or its
/// transpose for the adjoint.
StencilModel modelForRole(const StencilModel &model, KernelRole role);

/// The human-readable listing printed by `stencilc plan`.
void printPlan(const StencilModel &model, const KernelPlan &plan,
               llvm::raw_ostream &os);

} // namespace stencilc

#endif
