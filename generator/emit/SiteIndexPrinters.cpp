//===- SiteIndexPrinters.cpp - One printer per SiteIndexing kind ----------===//
#include "emit/EmitText.h"
#include "emit/KernelParts.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>

namespace stencilc {

void SiteIndexPrinter::roomDeclarations(CodePrinter &p) const {
  const SiteIndexing &ix = plan.indexing;
  if (ix.declaresRoom)
    p.emit({{"axis", axisName(ix.roomAxis)},
            {"extent", extentName(ix.roomAxis)}},
           R"(
             // Farthest row along $axis$ inside the array, relative to this tile.
             const int room = $extent$ - 1 - $axis$;
           )");
  if (ix.declaresXRoom)
    p.emit(R"(
      // Farthest site along x inside the array, relative to this group.
      const int xroom = nx - 1 - x;
    )");
}

void SiteIndexPrinter::coordinateDeclarations(CodePrinter &p,
                                              Coordinates which) const {
  std::vector<Coordinate> coordinates;
  for (const Coordinate &c : plan.indexing.coordinates)
    if (which == Coordinates::All ||
        (c.axis == plan.tileAxis) == (which == Coordinates::MarchAxis))
      coordinates.push_back(c);
  if (coordinates.empty())
    return;
  bool wraps = false;
  for (const Coordinate &c : coordinates)
    wraps |= c.kind == CoordinateKind::Wrap;
  const std::string whose = which == Coordinates::MarchAxis
                                ? "// The loaded plane's coordinate"
                                : "// Neighbours' coordinates";
  p.line(wraps ? whose + ", wrapped where the lattice wraps around."
               : whose + ".");
  for (const Coordinate &c : coordinates) {
    const std::string axis = axisName(c.axis);
    const std::string shifted = axis + (c.delta < 0 ? " - " : " + ") +
                                std::to_string(std::abs(c.delta));
    std::string value;
    switch (c.kind) {
    case CoordinateKind::Shift:
      value = shifted;
      break;
    case CoordinateKind::Wrap:
      value = "stencil::wrap(" + shifted + ", " + extentName(c.axis) + ")";
      break;
    case CoordinateKind::ClampAbove:
      value = axis + " + stencil::clamp_above(" + std::to_string(c.delta) +
              ", room)";
      break;
    case CoordinateKind::ClampXAbove:
      value = "x + stencil::clamp_above(" + std::to_string(c.delta) +
              ", xroom)";
      break;
    case CoordinateKind::ClampXBelow:
      value = "x + stencil::clamp_below(" + std::to_string(c.delta) + ", -x)";
      break;
    }
    p.line("const int " + wrappedName(c.axis, c.delta) + " = " + value + ";");
    if (c.flipsSign) {
      const std::string d = std::to_string(std::abs(c.delta));
      std::string crosses =
          c.delta < 0 ? axis + " < " + d
                      : axis + " >= " + extentName(c.axis) + " - " + d;
      // A march starts 2R planes before its chunk: its plane R ahead may
      // lie before 0 and cross the boundary backwards.
      if (plan.march && c.axis == plan.tileAxis && c.delta > 0)
        crosses = axis + " < -" + d + " || " + crosses;
      p.line("const value_type " + wrappedName(c.axis, c.delta) +
             "_sign = " + crosses +
             " ? static_cast<value_type>(-1) : static_cast<value_type>(1);");
    }
  }
}

void SiteIndexPrinter::columnDeclarations(CodePrinter &) const {
  llvm::report_fatal_error("column offsets need plain site-major indexing");
}
void SiteIndexPrinter::planeDeclarations(CodePrinter &) const {
  llvm::report_fatal_error("column offsets need plain site-major indexing");
}
std::string SiteIndexPrinter::inPlaneIndex(const PlannedLoad &) const {
  llvm::report_fatal_error("column offsets need plain site-major indexing");
}
std::string SiteIndexPrinter::loadedPlane() const {
  llvm::report_fatal_error("column offsets need plain site-major indexing");
}
std::string SiteIndexPrinter::planeSites() const {
  llvm::report_fatal_error("column offsets need plain site-major indexing");
}

namespace {

std::string strideName(int axis) { return std::string("s") + axisName(axis); }

/// `a + b - c`: the non-empty terms summed ("0" when none).
std::string sumOfTerms(const std::vector<std::string> &terms) {
  std::string text;
  for (const std::string &term : terms) {
    if (term.empty())
      continue;
    if (text.empty())
      text = term;
    else if (term[0] == '-')
      text += " - " + term.substr(1);
    else
      text += " + " + term;
  }
  return text.empty() ? "0" : text;
}

/// `k * s` with k an integer: "", "s", "-s", "3 * s", "-3 * s".
std::string scaledStride(int k, const std::string &stride) {
  if (k == 0)
    return "";
  if (k == 1)
    return stride;
  if (k == -1)
    return "-" + stride;
  return std::to_string(k) + " * " + stride;
}

/// The product of the extents of `dims` axes but `skipAxis`, in 64 bits:
/// `static_cast<stencil::index_t>(nx) * ny * ...`.
std::string extentProduct(int dims, int skipAxis = -1) {
  std::vector<std::string> factors;
  for (int axis = 0; axis < dims; ++axis)
    if (axis != skipAxis)
      factors.push_back(factors.empty() ? "static_cast<stencil::index_t>(" +
                                              extentName(axis) + ")"
                                        : extentName(axis));
  return join(factors, " * ");
}

/// `sites`, for per-site arrays placed by a layout (links).
void siteCountDeclaration(CodePrinter &p, int dims) {
  p.line("const stencil::index_t sites = " + extentProduct(dims) + ";");
}

/// Plain site-major storage: strides sy, sz, st.
void strideDeclarations(CodePrinter &p, int dims) {
  for (int axis = 1; axis < dims; ++axis) {
    std::string previous =
        axis == 1 ? "static_cast<stencil::index_t>(nx)"
                  : strideName(axis - 1) + " * " + extentName(axis - 1);
    p.line("const stencil::index_t " + strideName(axis) + " = " + previous +
           ";");
  }
}

/// `name` = the site index x + y * sy + ..., without `skipAxis`'s term.
void siteDeclaration(CodePrinter &p, int dims, const std::string &name,
                     int skipAxis = -1) {
  std::vector<std::string> terms;
  for (int axis = 0; axis < dims; ++axis)
    if (axis != skipAxis)
      terms.push_back(axis == 0 ? std::string("x")
                                : std::string(axisName(axis)) + " * " +
                                      strideName(axis));
  p.line("const stencil::index_t " + name + " = " + sumOfTerms(terms) + ";");
}

/// `site` plus each axis' offset times its stride.
std::string offsetFromSite(const Offset &offset, int dims) {
  std::vector<std::string> terms = {"site"};
  for (int axis = 0; axis < dims; ++axis)
    terms.push_back(axis == 0 ? (offset[0] ? std::to_string(offset[0]) : "")
                              : scaledStride(offset[axis], strideName(axis)));
  return sumOfTerms(terms);
}

/// Dirichlet plain storage: offsets from `site`, clamped inline where a
/// load may pass the array's end.
class PlainOffsets : public SiteIndexPrinter {
public:
  using SiteIndexPrinter::SiteIndexPrinter;

  void declarations(CodePrinter &p) const override {
    strideDeclarations(p, plan.indexing.dims);
    siteDeclaration(p, plan.indexing.dims, "site");
    if (plan.indexing.declaresSiteCount)
      siteCountDeclaration(p, plan.indexing.dims);
    roomDeclarations(p);
  }

  void columnDeclarations(CodePrinter &p) const override {
    strideDeclarations(p, plan.indexing.dims);
    siteDeclaration(p, plan.indexing.dims, "column", plan.tileAxis);
    if (plan.indexing.declaresSiteCount)
      siteCountDeclaration(p, plan.indexing.dims);
    roomDeclarations(p);
  }
  void planeDeclarations(CodePrinter &p) const override {
    siteDeclaration(p, plan.indexing.dims, "site");
  }
  std::string inPlaneIndex(const PlannedLoad &load) const override {
    return offsetIndex(load, "column", plan.tileAxis);
  }
  /// No coordinates here: the plane R ahead, never past the extent (a
  /// Dirichlet march's chunk ends R before it).
  std::string loadedPlane() const override {
    const std::string axis = axisName(plan.tileAxis);
    return plan.marchReach == 0
               ? axis
               : "(" + axis + " + " + std::to_string(plan.marchReach) + ")";
  }
  std::string planeSites() const override { return strideName(plan.tileAxis); }

  std::string loadIndex(const PlannedLoad &load) const override {
    return offsetIndex(load, "site");
  }

  std::string siteIndex(const SiteRef &at) const override {
    PlannedLoad load;
    load.offset = at.offset;
    load.clampTileAxis = at.clampTileAxis;
    load.clampX = at.clampX;
    return loadIndex(load);
  }

  std::string storeIndex(const PlannedStore &store) const override {
    return offsetFromSite(store.offset, plan.indexing.dims);
  }

private:
  /// `base` plus the load's offset along each axis but `skipAxis`.
  std::string offsetIndex(const PlannedLoad &load, const std::string &base,
                          int skipAxis = -1) const {
    std::vector<std::string> terms = {base};
    for (int axis = 0; axis < plan.indexing.dims; ++axis) {
      if (axis == skipAxis)
        continue;
      const int delta = load.offset[axis];
      if (axis == plan.tileAxis && load.clampTileAxis) {
        std::string clamped =
            "stencil::clamp_above(" + std::to_string(delta) + ", room)";
        terms.push_back(axis == 0 ? clamped
                                  : clamped + " * " + strideName(axis));
      } else if (axis == 0 && load.clampX) {
        terms.push_back(delta > 0 ? "stencil::clamp_above(" +
                                        std::to_string(delta) + ", xroom)"
                                  : "stencil::clamp_below(" +
                                        std::to_string(delta) + ", -x)");
      } else if (axis == 0) {
        terms.push_back(delta == 0 ? "" : std::to_string(delta));
      } else {
        terms.push_back(scaledStride(delta, strideName(axis)));
      }
    }
    return sumOfTerms(terms);
  }
};

/// Plain storage with wrapped neighbours: each load from its coordinates.
class PlainCoordinates : public SiteIndexPrinter {
public:
  using SiteIndexPrinter::SiteIndexPrinter;

  void declarations(CodePrinter &p) const override {
    strideDeclarations(p, plan.indexing.dims);
    siteDeclaration(p, plan.indexing.dims, "site");
    if (plan.indexing.declaresSiteCount)
      siteCountDeclaration(p, plan.indexing.dims);
    roomDeclarations(p);
    coordinateDeclarations(p);
  }

  void columnDeclarations(CodePrinter &p) const override {
    strideDeclarations(p, plan.indexing.dims);
    if (plan.indexing.declaresSiteCount)
      siteCountDeclaration(p, plan.indexing.dims);
    roomDeclarations(p);
    coordinateDeclarations(p, Coordinates::InPlane);
  }
  void planeDeclarations(CodePrinter &p) const override {
    siteDeclaration(p, plan.indexing.dims, "site");
    coordinateDeclarations(p, Coordinates::MarchAxis);
  }
  std::string inPlaneIndex(const PlannedLoad &load) const override {
    return coordinateIndex(load, plan.tileAxis);
  }
  /// The plane R ahead, as the coordinates declare it.
  std::string loadedPlane() const override {
    return wrappedName(plan.tileAxis, plan.marchReach);
  }
  std::string planeSites() const override { return strideName(plan.tileAxis); }

  std::string loadIndex(const PlannedLoad &load) const override {
    return coordinateIndex(load);
  }

  std::string siteIndex(const SiteRef &at) const override {
    PlannedLoad load;
    load.offset = at.offset;
    return loadIndex(load);
  }

  std::string storeIndex(const PlannedStore &store) const override {
    return offsetFromSite(store.offset, plan.indexing.dims);
  }

private:
  /// The load's site from its coordinates, without `skipAxis`'s term.
  std::string coordinateIndex(const PlannedLoad &load,
                              int skipAxis = -1) const {
    std::vector<std::string> terms;
    for (int axis = 0; axis < plan.indexing.dims; ++axis) {
      if (axis == skipAxis)
        continue;
      std::string coordinate = wrappedName(axis, load.offset[axis]);
      terms.push_back(axis == 0 ? coordinate
                                : coordinate + " * " + strideName(axis));
    }
    return sumOfTerms(terms);
  }
};

/// Any stencil::Layout: stencil::layout_site() of the coordinates, which
/// the compiler folds for the constexpr layout.
class LayoutSites : public SiteIndexPrinter {
public:
  using SiteIndexPrinter::SiteIndexPrinter;

  void declarations(CodePrinter &p) const override {
    layoutDeclarations(p);
    p.line("const stencil::index_t site = " + layoutSite(Offset{}) + ";");
    coordinateDeclarations(p);
  }

  // A march over subdomains one site deep along its axis (the slowest):
  // plane k's sites are stored from k x the plane's sites on, in the same
  // order in every plane, so a load's offset within its plane is its
  // layout_site() with the march coordinate 0, and the thread's own site
  // is `column` (its site in plane 0) plus k planes. (Its layout_site()
  // recomputed each plane kept that call's terms live through the walk:
  // laplacian4d_vec24_sub's kernels spilled on sm_90.)
  void columnDeclarations(CodePrinter &p) const override {
    layoutDeclarations(p);
    p.line("const stencil::index_t column = " +
           layoutSite(Offset{}, plan.tileAxis) + ";");
    coordinateDeclarations(p, Coordinates::InPlane);
  }
  void planeDeclarations(CodePrinter &p) const override {
    p.line("const stencil::index_t site = column + " +
           std::string(axisName(plan.tileAxis)) + " * (" + planeSites() + ");");
    coordinateDeclarations(p, Coordinates::MarchAxis);
  }
  std::string inPlaneIndex(const PlannedLoad &load) const override {
    return layoutSite(load.offset, plan.tileAxis);
  }
  std::string loadedPlane() const override {
    return wrappedName(plan.tileAxis, plan.marchReach);
  }
  std::string planeSites() const override {
    return extentProduct(plan.indexing.dims, plan.tileAxis);
  }

  std::string loadIndex(const PlannedLoad &load) const override {
    return layoutSite(load.offset);
  }
  std::string siteIndex(const SiteRef &at) const override {
    return layoutSite(at.offset);
  }
  std::string storeIndex(const PlannedStore &store) const override {
    return store.offset == Offset{} ? "site" : layoutSite(store.offset);
  }

private:
  void layoutDeclarations(CodePrinter &p) const {
    const SiteIndexing &ix = plan.indexing;
    const FieldLayout &l = ix.layout;
    p.line("// Storage: " + orderDescription(l) +
           (l.hasSubdomains() ? ", subdomains of " +
                                    std::to_string(l.subdomain[0]) + "x" +
                                    std::to_string(l.subdomain[1]) + "x" +
                                    std::to_string(l.subdomain[2]) + "x" +
                                    std::to_string(l.subdomain[3]) + " sites"
                              : std::string()) +
           (l.evenOdd ? ", even sites then odd sites" : "") +
           " (stencil/layout.hpp).");
    p.line("constexpr stencil::Layout layout = " + layoutInitializer(l) + ";");
    if (ix.declaresSiteCount)
      siteCountDeclaration(p, ix.dims);
    roomDeclarations(p);
  }

  /// stencil::layout_site() of the site at `offset`, with coordinate 0
  /// along `zeroAxis` (if any).
  std::string layoutSite(const Offset &offset, int zeroAxis = -1) const {
    std::vector<std::string> coordinates, extents;
    for (int axis = 0; axis < kMaxDims; ++axis) {
      const bool used = axis < plan.indexing.dims;
      coordinates.push_back(
          used && axis != zeroAxis ? wrappedName(axis, offset[axis]) : "0");
      extents.push_back(used ? extentName(axis) : "1");
    }
    return "stencil::layout_site(layout, " + join(coordinates, ", ") + ", " +
           join(extents, ", ") + ")";
  }
};

/// One parity's half of an even/odd field: the thread's own site is
/// `site`; neighbours, of the other parity, by stencil::even_odd_site().
class EvenOddHalf : public SiteIndexPrinter {
public:
  using SiteIndexPrinter::SiteIndexPrinter;

  void declarations(CodePrinter &p) const override {
    const SiteIndexing &ix = plan.indexing;
    p.line("// Storage: even/odd halves, " + orderDescription(ix.layout) +
           " within each (stencil/layout.hpp).");
    if (ix.declaresHalfSiteCount) {
      std::vector<std::string> factors = {"static_cast<stencil::index_t>(nx)"};
      for (int axis = 1; axis < ix.dims; ++axis)
        factors.push_back(extentName(axis));
      p.line("const stencil::index_t half_sites = " + join(factors, " * ") +
             " / 2;");
    }
    if (plan.threads.half.walksSlabs()) {
      PlannedLoad own;
      p.line("// The slab walk numbers threads in another order than storage.");
      p.line("const stencil::index_t site = " + loadIndex(own) + ";");
    } else {
      p.line("const stencil::index_t site = site32;");
    }
    coordinateDeclarations(p);
  }

  std::string loadIndex(const PlannedLoad &load) const override {
    std::vector<std::string> coordinates;
    for (int axis = 0; axis < 4; ++axis)
      coordinates.push_back(axis < plan.indexing.dims
                                ? wrappedName(axis, load.offset[axis])
                                : std::string("0"));
    for (int axis = 0; axis < 3; ++axis)
      coordinates.push_back(axis < plan.indexing.dims ? extentName(axis)
                                                      : std::string("1"));
    return "stencil::even_odd_site(" + join(coordinates, ", ") + ")";
  }

  /// Per-site arrays are whole-lattice: odd sites after the even half.
  std::string siteIndex(const SiteRef &at) const override {
    PlannedLoad neighbour;
    neighbour.offset = at.offset;
    const std::string inHalf =
        at.offset == Offset{} ? "site" : loadIndex(neighbour);
    return at.oddHalf ? "half_sites + " + inHalf : inHalf;
  }

  std::string storeIndex(const PlannedStore &) const override {
    return "site";
  }
  std::string siteCount() const override { return "2 * half_sites"; }
};

} // namespace

std::unique_ptr<SiteIndexPrinter> makeSiteIndexPrinter(const KernelPlan &plan) {
  switch (plan.indexing.kind) {
  case SiteIndexingKind::PlainOffsets:
    return std::make_unique<PlainOffsets>(plan);
  case SiteIndexingKind::PlainCoordinates:
    return std::make_unique<PlainCoordinates>(plan);
  case SiteIndexingKind::Layout:
    return std::make_unique<LayoutSites>(plan);
  case SiteIndexingKind::EvenOddHalf:
    return std::make_unique<EvenOddHalf>(plan);
  }
  return nullptr;
}

} // namespace stencilc
