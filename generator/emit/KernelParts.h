//===- KernelParts.h - Printers of a kernel's node kinds --------*- C++ -*-===//
//
// Internal to generator/emit. The kernel printer (KernelPrinter.cpp) walks
// a KernelPlan; the node kinds that vary by layout and access width are
// spelled by one printer class each, chosen by a factory from the node's
// kind:
//   SiteIndexPrinter  a SiteIndexing kind: declarations, and the storage
//                     index of a load, a per-site value or a store;
//   AccessPrinter     a FieldAccess kind: a load with its accumulations,
//                     a store (with the dot term or the hop modes' value).
// Adding a layout or an access width means adding one such class.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_KERNELPARTS_H
#define STENCILC_EMIT_KERNELPARTS_H

#include "emit/CodePrinter.h"
#include "plan/Plan.h"

#include <memory>
#include <string>

namespace stencilc {

class SiteIndexPrinter {
public:
  explicit SiteIndexPrinter(const KernelPlan &plan) : plan(plan) {}
  virtual ~SiteIndexPrinter() = default;
  /// Strides or layout, site counts, `site`, rooms, neighbour coordinates.
  virtual void declarations(CodePrinter &p) const = 0;
  /// The storage index of the load's (first) site.
  virtual std::string loadIndex(const PlannedLoad &load) const = 0;
  /// The index of a per-site value (site parameters).
  virtual std::string siteIndex(const SiteRef &at) const = 0;
  /// The storage index of a stored tile site.
  virtual std::string storeIndex(const PlannedStore &store) const = 0;
  /// The sites of the whole lattice (per-site arrays span both parities).
  virtual std::string siteCount() const { return "sites"; }

  /// A march with column offsets (KernelPlan::gathersPlane: plain storage,
  /// or subdomains one site deep along the march) splits declarations() in
  /// two. Before the walk: strides or the layout, rooms, the in-plane
  /// coordinates and (plain Dirichlet storage) `column`, the column's site
  /// within a plane.
  virtual void columnDeclarations(CodePrinter &p) const;
  /// In the walk, each plane: `site` and the march axis' coordinates.
  virtual void planeDeclarations(CodePrinter &p) const;
  /// The load's site within its plane (the march axis' term left out).
  virtual std::string inPlaneIndex(const PlannedLoad &load) const;
  /// The march axis' coordinate of the plane the walk loads.
  virtual std::string loadedPlane() const;
  /// The sites of a plane of the march (the march axis' stride).
  virtual std::string planeSites() const;

protected:
  /// Which of the plan's coordinates coordinateDeclarations() declares.
  enum class Coordinates { All, InPlane, MarchAxis };
  /// `room` and `xroom`, when the plan declares them.
  void roomDeclarations(CodePrinter &p) const;
  /// The plan's neighbour coordinates, one `const int` each.
  void coordinateDeclarations(CodePrinter &p,
                              Coordinates which = Coordinates::All) const;

  const KernelPlan &plan;
};

std::unique_ptr<SiteIndexPrinter> makeSiteIndexPrinter(const KernelPlan &plan);

class AccessPrinter {
public:
  AccessPrinter(const KernelPlan &plan, const SiteIndexPrinter &index)
      : plan(plan), access(plan.access), index(index) {}
  virtual ~AccessPrinter() = default;
  /// The step's load, named u<load>, and the accumulations it feeds.
  virtual void load(CodePrinter &p, const PlanStep &step) const = 0;
  /// The store of one tile site (its guard is the caller's), with the dot
  /// term or the hop modes' value as the plan says.
  virtual void store(CodePrinter &p, const PlannedStore &store) const = 0;
  /// Declarations every store of the tile shares (none by default).
  virtual void storesPrologue(CodePrinter &p) const {}
  /// A step whose accumulations work on (re, im) pairs: the load's values
  /// gathered into u<load> (an array or a pointer), then each accumulation,
  /// link taps as matrix-vector products per colour vector, complex weights
  /// as complex products per value.
  void pairStep(CodePrinter &p, const PlanStep &step) const;
  /// A march with column offsets: before the walk, each load's first
  /// value within its plane (`u<load>_at`, 32-bit) and a plane's values
  /// (`plane_values`).
  virtual void columnOffsets(CodePrinter &p) const;
  /// Declares `name`, this thread's values of the step's load, indexable
  /// from 0 (multi-component accesses only; site-major ones without a
  /// vector width declare a pointer).
  virtual void gather(CodePrinter &p, const PlanStep &step,
                      const std::string &name) const;
  /// A march that gathers rows (KernelPlan::gathersRows): each step's
  /// index (`u<load>_site`), then its values for this thread's components
  /// (`u<load>[c]`) in one loop over them, then the accumulations in
  /// another.
  virtual void gatherRows(CodePrinter &p,
                          const std::vector<PlanStep> &steps) const;
  /// The step's accumulations from `name`, its values as gather() declared
  /// them: plain taps in one loop over the components, complex weights,
  /// clover and link products.
  void accumulateGathered(CodePrinter &p, const PlanStep &step,
                          const std::string &name) const;

protected:
  /// "STENCIL_STORE" or "STENCIL_STORE_NT".
  const char *storeMacro() const;
  /// `acc<site>[index] (+)= weight * value;`.
  std::string accumulate(const PlannedAccumulation &acc,
                         const std::string &index,
                         const std::string &value) const;
  /// `value` of `load` times its antiperiodic signs, if any.
  std::string signedValue(const PlannedLoad &load,
                          const std::string &value) const;
  /// The index of the step's load: the index expression, or when the plan
  /// folds the direction a local it declares first (two arrays read there).
  std::string declareLoadIndex(CodePrinter &p, const PlanStep &step) const;
  /// The value of `in` at element `at`, read as CG's next direction
  /// `in[at] + beta * direction[at]` when the plan folds it
  /// (EpilogueKind::DirectionBlockSum).
  std::string inValue(const std::string &at) const;
  /// The same for a vector access at `in + at`: a vec_t expression.
  std::string inVector(const std::string &at) const;
  /// `value` (value_type, or vec_t) as the fields store it: narrowed to
  /// storage_type where storage is narrower.
  std::string stored(const std::string &value) const;
  /// The fold's deferred x += alpha direction at element `at` (x in the
  /// arithmetic type); none without x.
  std::string solutionUpdate(const std::string &at) const;
  /// CG's fold at element `at`, whose stored value is `acc`: p' (declared
  /// as `next`, as its store keeps it) to next_direction, the last step's
  /// x += alpha p, and dot += p' . acc.
  void foldElement(CodePrinter &p, const std::string &at,
                   const std::string &next, const std::string &acc) const;
  /// What groupStore() prints one group's stores with.
  struct GroupStore {
    std::string at;   ///< element index of the group's first value
    std::string lane; ///< lane `l`'s accumulator, e.g. "acc0[l]"
    std::string own;  ///< local: the group's input (p' where CG folds)
    std::string sum;  ///< local: x + alpha p where CG folds
    /// Dot kernels read the group's input as a vector before the stores
    /// (else value by value after them).
    bool dotReadsAhead;
  };
  /// The stores of an aligned group of `access.width` sites along x (the
  /// caller declares whole_group): one vector store when the whole group
  /// is inside the update region, else site by site; where CG folds, p'
  /// and x + alpha p, read as vectors before the stores; the dot term.
  void groupStore(CodePrinter &p, const PlannedStore &store,
                  const GroupStore &group) const;
  /// The vector type of a field access: vec_t, or svec_t (storage_type).
  std::string storedVector() const {
    return plan.narrowStorage ? "svec_t" : "vec_t";
  }
  /// The element type of a field's array: value_type, or storage_type.
  std::string storedScalar() const {
    return plan.narrowStorage ? "storage_type" : "value_type";
  }
  /// A stored vector (storedVector()) read as vec_t: widened where storage
  /// is narrower.
  std::string widened(const std::string &vector) const {
    return plan.narrowStorage ? "stencil::widen(" + vector + ")" : vector;
  }
  /// Before the stores of a tile's site when the fields are narrower than
  /// the arithmetic and the kernel also sums a dot term of the stored
  /// values: the `count` accumulators rounded as the store keeps them, so
  /// that alpha's q is the stored q.
  void roundStoredValues(CodePrinter &p, const PlannedStore &store,
                         int count) const;
  bool foldsDirection() const { return plan.foldsDirection(); }
  /// The component index of loop counter `c`: "c" or "c0 + c".
  std::string component() const { return access.split ? "c0 + c" : "c"; }

  const KernelPlan &plan;
  const FieldAccess &access;
  const SiteIndexPrinter &index;
};

std::unique_ptr<AccessPrinter>
makeAccessPrinter(const KernelPlan &plan, const SiteIndexPrinter &index);

/// `acc<site>[index] (+)= weight * value;`: an accumulation's statement.
std::string accumulationText(const PlannedAccumulation &acc,
                             const std::string &index,
                             const std::string &value);

/// A plan's SharedStaging node (StagingPrinter.cpp): the shared array, the
/// stage phase's cooperative load, the thread's first site in the box, and
/// the loads that read it (LoadSource::SharedBox).
class StagingPrinter {
public:
  explicit StagingPrinter(const KernelPlan &plan)
      : plan(plan), staging(*plan.staging) {}
  /// Before the phases: the array and its constexpr strides.
  void declarations(CodePrinter &p) const;
  /// The stage phase's body.
  void cooperativeLoad(CodePrinter &p) const;
  /// Inside its loop: element `e` from global memory into the box.
  void elementCopy(CodePrinter &p) const;
  /// In the compute phase: `box_site`, the thread's first site in the box.
  void boxSite(CodePrinter &p) const;
  /// A step whose load reads the box, and its accumulations.
  void load(CodePrinter &p, const PlanStep &step) const;

private:
  const KernelPlan &plan;
  const SharedStaging &staging;
};

/// `static_cast<value_type>(2)`: a constant in the kernel's precision.
std::string literal(double value);
/// A linear form over the scalar parameters, e.g. `-params.h`.
std::string linearFormText(const LinearForm &form);
/// `value` cut before each top-level " + " and " - " (the first piece
/// keeps no leading sign): the terms a long sum wraps between.
std::vector<std::string> splitSum(const std::string &value);
/// The site weight's value: "w0 + params.sigma[site]",
/// "-params.k[site - 1]", each field term at its own site; of a complex
/// weight its real part, "-params.a[2 * (site - 1)]".
std::string siteWeightText(const SiteWeight &w, const SiteIndexPrinter &index);
/// A complex site weight's imaginary part: its complex terms' imaginary
/// halves, negated where conjugated, "params.a[2 * site + 1]".
std::string siteWeightImagText(const SiteWeight &w,
                               const SiteIndexPrinter &index);
/// The names a complex weight's parts are declared as: NAME_re, NAME_im.
std::string realPartName(const std::string &weight);
std::string imagPartName(const std::string &weight);

} // namespace stencilc

#endif
