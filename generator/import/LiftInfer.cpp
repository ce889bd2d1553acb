//===- LiftInfer.cpp - The lattice and the taps of the store --------------===//
//
// After the walk, the single store and the reads in its value determine the
// stencil: the output index gives the axes, strides, array dimensions and
// bounds give the extents, each read a tap, and enumerating the sites the
// guards and loop bounds let through on two sample lattices gives the
// boundary. infer() runs these phases in order; each stops at the first
// problem it reports.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>

using namespace clang;

namespace stencilc {
namespace import {
namespace lift {
namespace {

constexpr const char *kAxisNames[] = {"x", "y", "z", "t"};
constexpr int kMaxAxes = 4;
/// Sites enumerated per sample lattice, at most.
constexpr int64_t kMaxSites = 50'000'000;

} // namespace

std::optional<ImportedStencil> Lifter::infer() {
  Inference inference;
  if (!splitInterleavedStores(inference) || !decomposeOutput(inference) || !inferExtents(inference) ||
      !collectTaps(inference) || !checkComponentStores(inference) ||
      !keepTaps(inference) || !checkUpdatedSites(inference) ||
      !checkBoundary(inference) || !inferPrecision(inference))
    return std::nullopt;
  foldComponentAxis(inference);
  return buildResult(inference);
}

bool Lifter::decomposeOutput(Inference &inference) {
  // The output index names the lattice's axes.
  const Store &s = *written;
  std::optional<Decomposed> out = decompose(s.access, s.range);
  if (!out)
    return false;
  const int dims = static_cast<int>(out->axes.size());
  std::string outName = s.access.name;
  if (dims < 1 || dims > kMaxAxes) {
    error(s.range, "writes a " + std::to_string(dims) +
                       "-dimensional index; stencil specs have 1 to 4 axes");
    return false;
  }
  if (out->flat && out->axes.front().stride !=
                       Poly::number(inference.interleaved)) {
    if (inference.interleaved > 1)
      error(s.range, "writes " + std::to_string(inference.interleaved) +
                         " values of '" + outName +
                         "' per site, but the sites are " +
                         atoms.text(out->axes.front().stride) +
                         " apart; interleaved components need a site "
                         "stride equal to their count");
    else
      error(s.range, "no coordinate steps through '" + outName +
                         "' with stride 1 (the smallest stride is " +
                         atoms.text(out->axes.front().stride) + ")");
    return false;
  }
  for (const AxisAccess &axis : out->axes)
    if (axis.wrapped) {
      error(s.range, "the output index wraps around; write the site itself");
      return false;
    }
  for (const Loop &loop : s.loops)
    if (!loop.value && llvm::none_of(out->axes, [&](const AxisAccess &a) {
          return a.coordinate == loop.coordinate;
        })) {
      error(loop.range, "the loop over " + atoms[loop.coordinate].name +
                            " does not index '" + outName +
                            "'; every loop must run over a lattice axis");
      return false;
    }
  inference.out = std::move(*out);
  inference.dims = dims;
  inference.outName = std::move(outName);
  return true;
}

bool Lifter::inferExtents(Inference &inference) {
  // Extents: strides or array dimensions, the outermost from the bounds.
  const Store &s = *written;
  const Decomposed &out = inference.out;
  const int dims = inference.dims;
  std::vector<Extent> extents(dims);
  for (int a = 0; a < dims; ++a) {
    if (out.flat && a + 1 < dims) {
      extents[a] = {out.axes[a + 1].stride, out.axes[a].stride};
    } else if (!out.flat && out.dims[a]) {
      extents[a] = {Poly::number(*out.dims[a])};
    } else if (std::optional<int64_t> n = flatExtent(s.access);
               n && a + 1 == dims) {
      // A flat index into a fixed-size array: its size over the inner
      // axes' stride.
      extents[a] = {Poly::number(*n), out.axes[a].stride};
    } else {
      std::optional<Extent> e = topExtent(out.axes[a].coordinate);
      if (!e)
        return false;
      extents[a] = *e;
    }
  }
  std::vector<Binding> samples = {sample(0), sample(1)};
  std::vector<std::vector<int64_t>> sizes(2, std::vector<int64_t>(dims));
  for (int which = 0; which < 2; ++which)
    for (int a = 0; a < dims; ++a) {
      int64_t num = samples[which].evaluate(extents[a].num);
      int64_t den = samples[which].evaluate(extents[a].den);
      if (den <= 0 || num % den != 0 || num / den < 1) {
        error(s.range, "the stride of " +
                           atoms[out.axes[std::min(a + 1, dims - 1)].coordinate].name +
                           " (" + atoms.text(extents[a].num) +
                           ") is not a multiple of the stride of " +
                           atoms[out.axes[a].coordinate].name + " (" +
                           atoms.text(extents[a].den) + ")");
        return false;
      }
      sizes[which][a] = num / den;
    }
  inference.extents = std::move(extents);
  inference.samples = std::move(samples);
  inference.sizes = std::move(sizes);
  return true;
}

std::optional<int64_t> Lifter::flatExtent(const ArrayValue &access) const {
  QualType type = storageType(access.decl);
  if (access.rank != 1)
    return std::nullopt;
  if (const auto *array = context.getAsConstantArrayType(type))
    return array->getSize().getSExtValue();
  if (auto inner = stdContainer(type))
    return inner->second;
  return std::nullopt;
}

std::optional<Extent> Lifter::topExtent(int coordinate) {
  bool quotient = llvm::any_of(
      splits, [&](const Split &s) { return s.quotient == coordinate; });
  if (quotient)
    if (std::optional<Extent> e = splitExtent(coordinate, false))
      return e;
  // The size this coordinate is compared with, in a loop bound or a guard
  // (for a split coordinate, only where it stands alone: `j >= ny`).
  std::set<int> sizes;
  auto collect = [&](const Poly &p) {
    for (const auto &[mono, c] : p.terms())
      for (int atom : mono)
        if (atoms[atom].kind == Atom::Kind::Size)
          sizes.insert(atom);
  };
  for (const Loop &loop : written->loops)
    if (loop.coordinate == coordinate)
      collect(loop.high);
  std::vector<const Condition *> stack;
  for (const Guard &g : written->guards)
    stack.push_back(g.condition.get());
  while (!stack.empty()) {
    const Condition *node = stack.back();
    stack.pop_back();
    if (node->a)
      stack.push_back(node->a.get());
    if (node->b)
      stack.push_back(node->b.get());
    if (node->a)
      continue;
    auto alone = [&](const Poly &p) {
      return (p - Poly::atom(coordinate)).isNumber();
    };
    if (quotient ? alone(node->lhs) || alone(node->rhs)
                 : node->lhs.mentions(coordinate) ||
                       node->rhs.mentions(coordinate)) {
      collect(node->lhs);
      collect(node->rhs);
    }
  }
  if (sizes.size() == 1)
    return Extent{Poly::atom(*sizes.begin())};
  if (quotient)
    return splitExtent(coordinate, true);
  std::string name = atoms[coordinate].name;
  for (const Loop &loop : written->loops)
    if (sizes.empty() && loop.coordinate == coordinate &&
        written->loops.size() >= 2 &&
        written->loops.front().coordinate == coordinate &&
        loop.low == Poly::number(0) && loop.high.isNumber()) {
      error(loop.range,
            "runs " + name + " over the constant range [0, " +
                std::to_string(loop.high.numberValue()) +
                ") as the outermost index: several components stored one "
                "after another (planar storage) cannot be imported; "
                "interleave them (u[site * " +
                std::to_string(loop.high.numberValue()) + " + " + name +
                "]) or import the function of one component");
      return std::nullopt;
    }
  if (sizes.empty()) {
    error(written->range,
          "cannot tell the lattice's extent along the outermost axis: no loop "
          "bound or guard compares " +
              name + " with a size (e.g. 'if (" + name +
              " >= nz - 1) return;' or 'for (int " + name + " = 1; " + name +
              " < nz - 1; ++" + name + ")')");
    return std::nullopt;
  }
  std::string list;
  for (int atom : sizes)
    list += (list.empty() ? "" : ", ") + atoms[atom].name;
  error(written->range, "cannot tell which of " + list +
                            " is the lattice's extent along the axis of " +
                            name);
  return std::nullopt;
}

bool Lifter::collectTaps(Inference &inference) {
  // Reads: one input array, indexed like the output plus constant offsets.
  const Store &s = *written;
  const int dims = inference.dims;
  std::vector<Tap> &taps = inference.taps;
  for (const auto &[readId, coefficient] : s.value.reads) {
    const Read &read = reads[readId];
    std::optional<Tap> tap = readTap(inference, readId, coefficient);
    if (!tap)
      return false;
    auto same = std::find_if(taps.begin(), taps.end(), [&](const Tap &t) {
      return t.offset == tap->offset;
    });
    if (same == taps.end()) {
      taps.push_back(*tap);
      continue;
    }
    for (int a = 0; a < dims; ++a)
      if (tap->wrapped[a] != same->wrapped[a] && tap->offset[a] != 0) {
        error(read.range, "reads the same neighbour wrapped and unwrapped");
        return false;
      }
    same->coefficient = same->coefficient + coefficient;
    same->firstRead = std::min(same->firstRead, readId);
  }
  if (!s.value.constant.isZero()) {
    error(s.range, "the value written adds '" + s.value.constant.text() +
                       "', a term that reads nothing; a stencil is a "
                       "weighted sum of the input's values");
    return false;
  }
  return true;
}

std::optional<Tap> Lifter::readTap(Inference &inference, int readId,
                                   const LinearForm &coefficient) {
  const Store &s = *written;
  const Decomposed &out = inference.out;
  const int dims = inference.dims;
  const std::string &outName = inference.outName;
  const ValueDecl *&input = inference.input;
  SourceRange &inputRange = inference.inputRange;
  const Read &read = reads[readId];
  if (read.access.sameArray(s.access)) {
    error(read.range, "reads the output array '" + outName +
                          "'; a stencil reads one field and writes "
                          "another (out = A in)");
    return std::nullopt;
  }
  if (input && !read.access.sameArray(inference.inputArray)) {
    error(read.range,
          "reads a second array, '" + read.access.name +
              "'; a stencil has one input field (coefficients that vary by "
              "site are data-dependent)");
    note(inputRange, "'" + inference.inputArray.name + "' is read here");
    return std::nullopt;
  }
  input = read.access.decl;
  inference.inputArray = read.access;
  inputRange = read.range;
  if (read.access.component != s.access.component) {
    auto name = [&](int c) {
      const RecordDecl *record = elementType(input)->getAsRecordDecl();
      int index = 0;
      if (record)
        for (const FieldDecl *f : record->fields())
          if (index++ == c)
            return "'" + f->getNameAsString() + "'";
      return c < 0 ? std::string("the whole element") : std::to_string(c);
    };
    error(read.range, "computes component " + name(s.access.component) +
                          " of '" + outName + "' from component " +
                          name(read.access.component) + " of '" +
                          inference.inputArray.name +
                          "'; a spec applies the same taps to each "
                          "component, without coupling components");
    return std::nullopt;
  }
  std::optional<Decomposed> in = decompose(read.access, read.range);
  if (!in)
    return std::nullopt;
  if (in->flat != out.flat) {
    error(read.range, "'" + inference.inputArray.name + "' is indexed " +
                          (in->flat ? "with one flattened index"
                                    : "with one subscript per dimension") +
                          " but '" + outName + "' " +
                          (out.flat ? "with one flattened index"
                                    : "with one subscript per dimension") +
                          "; stencilc import needs both indexed the same way");
    return std::nullopt;
  }
  if (in->axes.size() != out.axes.size()) {
    error(read.range, "'" + inference.inputArray.name +
                          "' is indexed differently from '" + outName +
                          "' (" + std::to_string(in->axes.size()) +
                          " coordinates here, " + std::to_string(dims) +
                          " there)");
    return std::nullopt;
  }
  Tap tap{std::vector<int>(dims, 0), std::vector<bool>(dims, false),
          coefficient, readId};
  for (int a = 0; a < dims; ++a) {
    const AxisAccess &o = out.axes[a];
    const AxisAccess &r = in->axes[a];
    bool sameStride = !out.flat || o.stride == r.stride;
    if (r.coordinate != o.coordinate || !sameStride ||
        (!out.flat && in->dims[a] != out.dims[a])) {
      error(read.range,
            "'" + inference.inputArray.name + "' is not indexed like '" +
                outName + "': along " + kAxisNames[a] + " the output uses " +
                atoms[o.coordinate].name +
                (out.flat ? " with stride " + atoms.text(o.stride) : "") +
                ", this read " + atoms[r.coordinate].name +
                (out.flat ? " with stride " + atoms.text(r.stride) : ""));
      return std::nullopt;
    }
    if (r.wrapped && !checkWrapAtExtent(inference, read, r, a))
      return std::nullopt;
    tap.offset[a] = static_cast<int>(r.offset - o.offset);
    tap.wrapped[a] = r.wrapped;
  }
  return tap;
}

bool Lifter::checkWrapAtExtent(const Inference &inference, const Read &read,
                               const AxisAccess &r, int a) {
  const std::vector<Extent> &extents = inference.extents;
  const std::vector<std::vector<int64_t>> &sizes = inference.sizes;
  for (int which = 0; which < 2; ++which)
    if (inference.samples[which].evaluate(r.modulus) != sizes[which][a]) {
      error(read.range, "wraps " + atoms[r.coordinate].name +
                            " modulo " + atoms.text(r.modulus) +
                            ", but the lattice's extent along " +
                            kAxisNames[a] + " is " +
                            atoms.text(extents[a].num) +
                            (extents[a].den == Poly::number(1)
                                 ? ""
                                 : " / " + atoms.text(extents[a].den)));
      return false;
    }
  return true;
}

bool Lifter::keepTaps(Inference &inference) {
  // In source order, without the neighbours whose coefficients cancel.
  const Store &s = *written;
  const ValueDecl *input = inference.input;
  std::vector<Tap> &kept = inference.kept;
  for (const Tap &tap : inference.taps)
    if (!tap.coefficient.isZero())
      kept.push_back(tap);
  std::stable_sort(kept.begin(), kept.end(), [](const Tap &a, const Tap &b) {
    return a.firstRead < b.firstRead;
  });
  if (kept.empty()) {
    error(s.range, input ? "the coefficients of every read cancel: the "
                           "function writes zero"
                         : "the value written reads no array");
    return false;
  }
  return true;
}

bool Lifter::checkUpdatedSites(Inference &inference) {
  // The sites updated, on both samples: a box [low, n - high) per axis.
  const Store &s = *written;
  const int dims = inference.dims;
  const std::vector<std::vector<int64_t>> &sizes = inference.sizes;
  std::vector<int> lowSkip(dims), highSkip(dims);
  for (int which = 0; which < 2; ++which) {
    std::vector<int64_t> minSite, maxSite;
    std::optional<int64_t> updated =
        countUpdatedSites(inference, which, minSite, maxSite);
    if (!updated)
      return false;
    if (*updated == 0) {
      error(s.range, "updates no site of a " + std::to_string(sizes[which][0]) +
                         "-wide lattice");
      return false;
    }
    int64_t box = 1;
    for (int a = 0; a < dims; ++a) {
      int low = static_cast<int>(minSite[a]);
      int high = static_cast<int>(sizes[which][a] - 1 - maxSite[a]);
      box *= maxSite[a] - minSite[a] + 1;
      if (which == 1 && (low != lowSkip[a] || high != highSkip[a])) {
        error(s.guards.empty() ? s.range : s.guards.front().range,
              "the boundary layer the function skips along " +
                  std::string(kAxisNames[a]) +
                  " depends on the lattice size; stencilc needs a fixed width");
        return false;
      }
      lowSkip[a] = low;
      highSkip[a] = high;
    }
    if (box != *updated) {
      error(s.guards.empty() ? s.range : s.guards.front().range,
            "the sites the function updates do not form a box (" +
                std::to_string(*updated) + " of the " + std::to_string(box) +
                " sites between the first and the last); stencilc updates "
                "every interior site");
      return false;
    }
  }
  inference.lowSkip = std::move(lowSkip);
  inference.highSkip = std::move(highSkip);
  return true;
}

std::optional<int64_t>
Lifter::countUpdatedSites(Inference &inference, int which,
                          std::vector<int64_t> &minSite,
                          std::vector<int64_t> &maxSite) {
  const Store &s = *written;
  const Decomposed &out = inference.out;
  const int dims = inference.dims;
  const std::string &outName = inference.outName;
  const std::vector<std::vector<int64_t>> &sizes = inference.sizes;
  Binding &b = inference.samples[which];
  std::vector<int64_t> lo(dims), hi(dims);
  int64_t total = 1;
  for (int a = 0; a < dims; ++a) {
    bool thread = atoms[out.axes[a].coordinate].threadAxis >= 0;
    lo[a] = (thread ? 0 : -3) - out.axes[a].offset;
    hi[a] = sizes[which][a] + 3 - out.axes[a].offset;
    total *= hi[a] - lo[a];
  }
  if (total > kMaxSites) {
    error(s.range, "the lattice is too large to check the sites updated "
                   "(" + std::to_string(total) + " sites); use smaller "
                   "constant extents");
    return std::nullopt;
  }
  std::vector<int64_t> v(lo);
  minSite.assign(dims, INT64_MAX);
  maxSite.assign(dims, INT64_MIN);
  int64_t updated = 0;
  for (int a = 0; a < dims; ++a)
    b.set(out.axes[a].coordinate, v[a]);
  while (true) {
    if (updatesSite(b)) {
      ++updated;
      for (int a = 0; a < dims; ++a) {
        int64_t site = v[a] + out.axes[a].offset;
        if (site < 0 || site >= sizes[which][a]) {
          std::string c = atoms[out.axes[a].coordinate].name;
          error(s.range,
                "writes '" + outName + "' outside the lattice along " +
                    kAxisNames[a] + ": at " + c + " = " +
                    std::to_string(v[a]) + " when the extent is " +
                    std::to_string(sizes[which][a]) +
                    " (add a guard or tighten the loop bound)");
          return std::nullopt;
        }
        minSite[a] = std::min(minSite[a], site);
        maxSite[a] = std::max(maxSite[a], site);
      }
    }
    int a = 0;
    for (; a < dims; ++a) {
      if (++v[a] < hi[a]) {
        b.set(out.axes[a].coordinate, v[a]);
        break;
      }
      v[a] = lo[a];
      b.set(out.axes[a].coordinate, v[a]);
    }
    if (a == dims)
      break;
  }
  return updated;
}

bool Lifter::updatesSite(const Binding &b) const {
  const Store &s = *written;
  bool inside = true;
  if (!splitsAllow(b))
    return false;
  for (const Loop &loop : s.loops) {
    int64_t c = loop.value ? b.evaluate(*loop.value) : b.get(loop.coordinate);
    if (c < b.evaluate(loop.low) || c >= b.evaluate(loop.high)) {
      inside = false;
      break;
    }
  }
  for (size_t g = 0; inside && g < s.guards.size(); ++g)
    inside = s.guards[g].condition->evaluate(b) != s.guards[g].skipWhenTrue;
  return inside;
}

bool Lifter::checkBoundary(Inference &inference) {
  // Boundary: a skipped layer as wide as the reach, or wrap-around.
  const Decomposed &out = inference.out;
  const int dims = inference.dims;
  const std::vector<Tap> &kept = inference.kept;
  const std::vector<int> &lowSkip = inference.lowSkip;
  const std::vector<int> &highSkip = inference.highSkip;
  std::vector<int> reach(dims, 0);
  for (const Tap &tap : kept)
    for (int a = 0; a < dims; ++a)
      reach[a] = std::max(reach[a], std::abs(tap.offset[a]));
  bool skips = false;
  for (int a = 0; a < dims; ++a)
    skips = skips || lowSkip[a] > 0 || highSkip[a] > 0;
  inference.skips = skips;
  for (const Tap &tap : kept)
    for (int a = 0; a < dims; ++a) {
      int d = tap.offset[a];
      if (d == 0)
        continue;
      std::string c = atoms[out.axes[a].coordinate].name;
      SourceRange r = reads[tap.firstRead].range;
      if (skips && tap.wrapped[a]) {
        error(r, "wraps around along " + std::string(kAxisNames[a]) +
                     " although the function skips boundary sites; a spec's "
                     "boundary is either Dirichlet or periodic on all axes");
        return false;
      }
      if (!skips && !tap.wrapped[a]) {
        error(r, "reads " + c + (d > 0 ? " + " : " - ") +
                     std::to_string(std::abs(d)) +
                     " without wrapping around, but the function updates "
                     "every site: at " + c + " = " +
                     (d > 0 ? "the last site" : "0") +
                     " the read falls outside the array; skip the boundary "
                     "(Dirichlet) or wrap the index (periodic)");
        return false;
      }
    }
  if (skips)
    for (int a = 0; a < dims; ++a)
      if (lowSkip[a] != reach[a] || highSkip[a] != reach[a]) {
        std::string c = atoms[out.axes[a].coordinate].name;
        error(guardFor(inference, a),
              "skips " + std::to_string(lowSkip[a]) + " site(s) at the low end "
              "and " + std::to_string(highSkip[a]) + " at the high end along " +
                  kAxisNames[a] + " (" + c + "), but the stencil reaches " +
                  std::to_string(reach[a]) +
                  "; a Dirichlet boundary in a spec is a layer as wide as the "
                  "reach on each side");
        if (lowSkip[a] < reach[a] || highSkip[a] < reach[a])
          note(guardFor(inference, a), "with this guard the reads fall "
                                       "outside the array at the skipped "
                                       "layer's edge");
        return false;
      }
  return true;
}

SourceRange Lifter::guardFor(const Inference &inference, int a) const {
  const Store &s = *written;
  int c = inference.out.axes[a].coordinate;
  for (const Guard &g : s.guards) {
    std::vector<int> mentioned;
    g.condition->atoms(mentioned);
    if (llvm::is_contained(mentioned, c))
      return g.range;
  }
  for (const Loop &loop : s.loops)
    if (loop.coordinate == c)
      return loop.range;
  return s.range;
}

bool Lifter::inferPrecision(Inference &inference) {
  // Precision.
  const Store &s = *written;
  const std::string &outName = inference.outName;
  const ValueDecl *input = inference.input;
  auto precisionOf = [&](const ValueDecl *decl) -> std::string {
    QualType e = elementType(decl);
    if (isComplex(e)) {
      inference.complexValues = true;
      e = cast<ClassTemplateSpecializationDecl>(e->getAsRecordDecl())
              ->getTemplateArgs()[0]
              .getAsType();
    } else if (const RecordDecl *record = e->getAsRecordDecl()) {
      if (record->field_empty())
        return "";
      e = record->field_begin()->getType(); // checked when read
    }
    e = e.getCanonicalType().getUnqualifiedType();
    if (e->isSpecificBuiltinType(BuiltinType::Float))
      return "float";
    if (e->isSpecificBuiltinType(BuiltinType::Double))
      return "double";
    return "";
  };
  std::string precision = precisionOf(s.access.decl);
  if (precision.empty()) {
    error(s.access.decl->getSourceRange(),
          "'" + outName + "' holds '" + elementType(s.access.decl).getAsString() +
              "'; stencil fields are float or double");
    return false;
  }
  bool complexOutput = inference.complexValues;
  inference.complexValues = false;
  if (precisionOf(input) != precision ||
      inference.complexValues != complexOutput) {
    error(input->getSourceRange(),
          "'" + inference.inputArray.name + "' holds '" +
              elementType(input).getAsString() + "' but '" + outName +
              "' holds " + precision + "; a spec has one precision");
    return false;
  }
  inference.precision = std::move(precision);
  return checkCoefficientRange(inference);
}

bool Lifter::checkCoefficientRange(const Inference &inference) {
  // The coefficients were folded in double, and the reads of one offset
  // added after that (which may overflow); a float function computes them
  // in float, where a larger value overflows to infinity.
  const bool inFloat = inference.precision == "float";
  const double largest = inFloat ? std::numeric_limits<float>::max()
                                 : std::numeric_limits<double>::max();
  for (const Tap &tap : inference.kept) {
    std::vector<double> numbers = {tap.coefficient.constant};
    for (const auto &term : tap.coefficient.terms)
      numbers.push_back(term.second);
    for (double number : numbers)
      if (!(std::fabs(number) <= largest)) {
        const Read &first = reads[tap.firstRead];
        if (!inFloat) {
          error(first.range, "the coefficients of the reads at the offset "
                             "of '" + text(first.range) + "' add up to " +
                                 formatNumber(number) +
                                 "; a tap's coefficient must be finite");
          return false;
        }
        error(first.range, "the coefficient of '" + text(first.range) +
                               "' is " + formatNumber(number) +
                               ", beyond float's range (" +
                               formatNumber(largest) +
                               "): the function computes in float, where it "
                               "overflows");
        return false;
      }
  }
  return true;
}

ImportedStencil Lifter::buildResult(const Inference &inference) const {
  // The spec, in the terms of the function it came from.
  const Decomposed &out = inference.out;
  const int dims = inference.dims;
  ImportedStencil result;
  result.function = function.getNameAsString();
  result.name = options.name.empty() ? result.function : options.name;
  result.location = where(function.getLocation());
  result.dims = dims;
  result.periodic = !inference.skips;
  result.precision = inference.precision;
  result.components = inference.components;
  result.complexValues = inference.complexValues;
  result.componentsNote = inference.componentsNote;
  if (result.componentsNote.empty() && inference.complexValues)
    result.componentsNote = "std::complex values";
  result.outputArray = inference.outName;
  result.inputArray = inference.inputArray.name;
  bool anyThread = false, anyLoop = false;
  for (int a = 0; a < dims; ++a) {
    const Atom &c = atoms[out.axes[a].coordinate];
    result.coordinateNames.push_back(c.name);
    anyThread = anyThread || c.threadAxis >= 0;
  }
  for (const auto &[root, value] : splitRoots)
    anyThread = anyThread || atoms[root].threadAxis >= 0;
  for (const Loop &loop : written->loops)
    anyLoop = anyLoop || !loop.value || atoms[loop.coordinate].threadAxis < 0;
  result.form = std::string(gridStrideLoops        ? "kernel, grid-stride loops"
                            : anyThread && anyLoop ? "kernel with loops"
                            : anyThread        ? "kernel"
                                               : "loop nest") +
                (splits.empty() ? "" : ", one index split with / and %") +
                (out.flat ? ", flattened index" : ", multi-dimensional array");
  for (const Tap &tap : inference.kept) {
    const Read &first = reads[tap.firstRead];
    result.taps.push_back({tap.offset, tap.coefficient.constant,
                           tap.coefficient.terms, where(first.range.getBegin()),
                           text(first.range)});
  }
  for (const ParmVarDecl *param : function.parameters()) {
    std::string name = param->getNameAsString();
    bool used = llvm::any_of(result.taps, [&](const ImportedTap &tap) {
      return llvm::any_of(tap.terms,
                          [&](const auto &t) { return t.first == name; });
    });
    if (used)
      result.parameters.push_back(name);
  }
  for (const std::string &name : memberParameters) {
    bool used = llvm::any_of(result.taps, [&](const ImportedTap &tap) {
      return llvm::any_of(tap.terms,
                          [&](const auto &t) { return t.first == name; });
    });
    if (used && !llvm::is_contained(result.parameters, name))
      result.parameters.push_back(name);
  }
  return result;
}

} // namespace lift
} // namespace import
} // namespace stencilc
