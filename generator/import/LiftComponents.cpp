//===- LiftComponents.cpp - Several values per site ------------------------===//
//
// A site's components come from stores to the members of a struct element
// (`out[i].u`, `out[i].v`), from stores to the K values of an interleaved
// site (`q[0]`, `q[1]`, `q[2]`, their index's constant part modulo K naming
// the component), or from an innermost loop over a constant range with no
// taps along it (`out[site * NC + c]`). A spec applies one stencil to every
// component, so each must be computed from the same component of the
// input, with the same taps, under the same loops and guards.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <iterator>

using namespace clang;

namespace stencilc {
namespace import {
namespace lift {

bool Lifter::splitInterleavedStores(Inference &inference) {
  if (componentStores.empty() || written->access.component >= 0)
    return true;
  // K stores to one array: the components of an interleaved site, each
  // index's constant part modulo K naming its component.
  const int64_t count = static_cast<int64_t>(componentStores.size()) + 1;
  Binding first = sample(0), second = sample(2);
  auto split = [&](ArrayValue &access, SourceRange range) -> bool {
    Poly rest;
    for (const auto &[mono, c] : access.subscripts.front().terms())
      if (llvm::none_of(mono, [&](int atom) { return isCoordinateLike(atom); }))
        rest = rest + Poly::term(mono, c);
    auto component = [&](const Binding &b) {
      int64_t v = b.evaluate(rest) % count;
      return v < 0 ? v + count : v;
    };
    if (component(first) != component(second))
      return error(range, "cannot tell which of the " + std::to_string(count) +
                              " interleaved components '" + text(range) +
                              "' is: its offset (" + atoms.text(rest) +
                              ") is not a fixed multiple of " +
                              std::to_string(count) + " plus a constant");
    access.component = static_cast<int>(component(second));
    access.subscripts.front() =
        access.subscripts.front() - Poly::number(access.component);
    return true;
  };
  std::vector<Store *> stores = {&*written};
  for (Store &other : componentStores)
    stores.push_back(&other);
  // Components of one site share the index's coordinate terms.
  auto coordinateTerms = [&](const Store &store) {
    Poly terms;
    for (const auto &[mono, c] : store.access.subscripts.front().terms())
      if (llvm::any_of(mono, [&](int atom) { return isCoordinateLike(atom); }))
        terms = terms + Poly::term(mono, c);
    return terms;
  };
  for (const Store *store : stores)
    if (coordinateTerms(*store) != coordinateTerms(*written)) {
      error(store->range, "writes '" + store->access.name +
                              "' a second time, at another site; a stencil "
                              "writes each site once");
      note(written->range, "'" + written->access.name + "' is written here");
      return false;
    }
  std::vector<bool> done(reads.size(), false);
  std::vector<const Store *> byComponent(count, nullptr);
  for (Store *store : stores) {
    if (!split(store->access, store->range))
      return false;
    const Store *&seen = byComponent[store->access.component];
    if (seen) {
      error(store->range, "writes '" + store->access.name +
                              "' a second time; a stencil writes each site "
                              "once (or each of its interleaved components "
                              "once)");
      note(seen->range, "this store writes the same component");
      return false;
    }
    seen = store;
    for (const auto &[readId, coefficient] : store->value.reads)
      if (!done[readId] && reads[readId].access.rank == 1) {
        done[readId] = true;
        if (!split(reads[readId].access, reads[readId].range))
          return false;
      }
  }
  // The first component's store leads.
  std::stable_sort(stores.begin(), stores.end(), [](Store *a, Store *b) {
    return a->access.component < b->access.component;
  });
  std::vector<Store> ordered;
  for (Store *store : stores)
    ordered.push_back(*store);
  written = ordered.front();
  componentStores.assign(ordered.begin() + 1, ordered.end());
  inference.interleaved = count;
  return true;
}

bool Lifter::checkComponentStores(Inference &inference) {
  const Store first = *written;
  if (first.access.component < 0)
    return true;
  const RecordDecl *record = elementType(first.access.decl)->getAsRecordDecl();
  int fields = record ? static_cast<int>(std::distance(record->field_begin(),
                                                       record->field_end()))
                      : static_cast<int>(inference.interleaved);
  if (record && static_cast<int>(componentStores.size()) + 1 != fields) {
    error(first.range, "writes " +
                           std::to_string(componentStores.size() + 1) +
                           " of the " + std::to_string(fields) +
                           " members of '" + record->getNameAsString() +
                           "'; a stencil computes every component of a site");
    return false;
  }
  auto sameLoops = [](const Store &a, const Store &b) {
    if (a.loops.size() != b.loops.size() || a.guards.size() != b.guards.size())
      return false;
    for (size_t l = 0; l < a.loops.size(); ++l)
      if (a.loops[l].coordinate != b.loops[l].coordinate ||
          a.loops[l].low != b.loops[l].low ||
          a.loops[l].high != b.loops[l].high)
        return false;
    for (size_t g = 0; g < a.guards.size(); ++g)
      if (a.guards[g].condition != b.guards[g].condition ||
          a.guards[g].skipWhenTrue != b.guards[g].skipWhenTrue)
        return false;
    return true;
  };
  for (const Store &other : componentStores) {
    if (!sameLoops(first, other)) {
      error(other.range, "is written under other conditions than '" +
                             text(first.range) +
                             "'; every component of a site is updated "
                             "together");
      return false;
    }
    Inference own = inference;
    own.taps.clear();
    written = other;
    bool ok = collectTaps(own);
    written = first;
    if (!ok)
      return false;
    bool same = own.taps.size() == inference.taps.size();
    for (size_t t = 0; same && t < own.taps.size(); ++t) {
      const Tap &a = own.taps[t], &b = inference.taps[t];
      same = a.offset == b.offset && a.wrapped == b.wrapped &&
             a.coefficient.text() == b.coefficient.text();
    }
    if (!same) {
      error(other.range, "computes '" + text(other.range) +
                             "' with other taps or coefficients than '" +
                             text(first.range) +
                             "'; a spec applies the same taps to every "
                             "component");
      note(first.range, "the first component is written here");
      return false;
    }
  }
  inference.components = fields;
  inference.componentsNote =
      record ? "the members of a '" + record->getNameAsString() + "'"
             : "one store per interleaved component";
  return true;
}

void Lifter::foldComponentAxis(Inference &inference) {
  if (inference.dims < 2 || inference.components != 1)
    return;
  int coordinate = inference.out.axes[0].coordinate;
  const Loop *loop = nullptr;
  for (const Loop &l : written->loops)
    if (l.coordinate == coordinate)
      loop = &l;
  int64_t extent = inference.sizes[0][0];
  if (!loop || loop->low != Poly::number(0) ||
      inference.samples[0].evaluate(loop->high) != extent ||
      inference.sizes[1][0] != extent || inference.lowSkip[0] != 0 ||
      inference.highSkip[0] != 0 || inference.out.axes[0].offset != 0)
    return;
  for (const Tap &tap : inference.kept)
    if (tap.offset[0] != 0)
      return;
  // Constant extents only: the loop's bound is a number or a constant.
  for (const auto &[mono, c] : loop->high.terms())
    for (int atom : mono)
      if (!atoms[atom].value)
        return;
  inference.components = static_cast<int>(extent);
  inference.componentsNote = atoms[coordinate].name + " runs over the site's values";
  inference.out.axes.erase(inference.out.axes.begin());
  inference.dims -= 1;
  for (Tap &tap : inference.kept) {
    tap.offset.erase(tap.offset.begin());
    tap.wrapped.erase(tap.wrapped.begin());
  }
}

} // namespace lift
} // namespace import
} // namespace stencilc
