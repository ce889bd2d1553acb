//===- LiftSplit.cpp - Coordinates split off a flattened index ------------===//
//
// A kernel or loop that runs one index over every site and recovers the
// coordinates with `/` and `%` (`i = idx % nx; j = idx / nx;`, or
// `(idx / nx) % ny` and `idx / (nx * ny)` in 3-D) is read as a lattice: the
// index becomes quotient * divisor + remainder with 0 <= remainder <
// divisor, everywhere it has been used so far, and later divisions of that
// polynomial by the same divisors give the parts back. The outermost
// extent is the index's bound divided by the inner extents.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

using namespace clang;

namespace stencilc {
namespace import {
namespace lift {

std::optional<Poly> Lifter::divideIndex(const Poly &a, const Poly &b,
                                        bool remainder, const Expr *e) {
  auto mentionsCoordinate = [&](const Poly &p) {
    for (const auto &[mono, c] : p.terms())
      for (int atom : mono)
        if (isCoordinateLike(atom))
          return true;
    return false;
  };
  // Divisors are extents, named (`nx`, `NX`): `i / 2` is no lattice.
  if (!mentionsCoordinate(a) || mentionsCoordinate(b) || b.isNumber() ||
      b.terms().size() != 1)
    return std::nullopt;
  for (int which = 0; which < 2; ++which)
    if (sample(which).evaluate(b) <= 0)
      return std::nullopt;
  // A whole index: split it.
  if (a.terms().size() == 1 && a.terms().begin()->second == 1 &&
      a.terms().begin()->first.size() == 1) {
    int whole = a.terms().begin()->first.front();
    if (atoms[whole].kind != Atom::Kind::Coordinate)
      return std::nullopt;
    bool isLoop = false, isLoopOverDivisor = false;
    for (const Loop &loop : loops)
      if (loop.coordinate == whole && !loop.value) {
        isLoop = true;
        isLoopOverDivisor = loop.high == b;
      }
    bool isQuotient = llvm::any_of(
        splits, [&](const Split &s) { return s.quotient == whole; });
    // `x % nx` with x < nx is no flattened index: leave it to the wrap.
    if ((!isLoop && !isQuotient && atoms[whole].threadAxis < 0) ||
        isLoopOverDivisor)
      return std::nullopt;
    int part = splitCoordinate(whole, b, e);
    if (part < 0)
      return std::nullopt;
    return Poly::atom(remainder ? splits.back().remainder
                                : splits.back().quotient);
  }
  // quotient * b + rest, the rest within [0, b): its parts.
  const auto &[divisorAtoms, divisorFactor] = *b.terms().begin();
  Poly quotient, rest;
  for (const auto &[mono, c] : a.terms()) {
    std::multiset<int> have(mono.begin(), mono.end());
    bool divisible = c % divisorFactor == 0;
    for (int atom : divisorAtoms) {
      auto it = have.find(atom);
      if (it == have.end())
        divisible = false;
      else
        have.erase(it);
    }
    if (divisible)
      quotient = quotient + Poly::term(Monomial(have.begin(), have.end()),
                                       c / divisorFactor);
    else
      rest = rest + Poly::term(mono, c);
  }
  if (quotient.isZero())
    return std::nullopt;
  // Every part non-negative, the rest below b at its largest.
  std::set<int> remainders;
  for (const Split &s : splits)
    remainders.insert(s.remainder);
  for (const Poly *part : {&quotient, &rest})
    for (const auto &[mono, c] : part->terms()) {
      if (c <= 0)
        return std::nullopt;
      for (int atom : mono)
        if (isCoordinateLike(atom) && part == &rest && !remainders.count(atom))
          return std::nullopt;
    }
  for (int which = 0; which < 2; ++which) {
    Binding largest = sample(which);
    for (const Split &s : splits)
      largest.set(s.remainder, largest.evaluate(s.divisor) - 1);
    if (largest.evaluate(rest) >= largest.evaluate(b))
      return std::nullopt;
  }
  return remainder ? rest : quotient;
}

int Lifter::splitCoordinate(int whole, const Poly &divisor, const Expr *e) {
  for (int id = 0; id < atoms.count(); ++id)
    if (atoms[id].kind == Atom::Kind::Wrapped && atoms[id].coordinate == whole) {
      error(e->getSourceRange(),
            "splits " + atoms[whole].name + " with '/' or '%' after wrapping "
            "it around; split the flattened index first");
      return -1;
    }
  for (const Loop &loop : loops)
    if (loop.coordinate == whole &&
        (!loop.low.isNumber() || loop.low.numberValue() < 0)) {
      error(e->getSourceRange(),
            "splits " + atoms[whole].name + ", whose loop starts at " +
                atoms.text(loop.low) +
                "; a flattened index must start at a non-negative number");
      return -1;
    }
  std::string name = atoms[whole].name, by = atoms.text(divisor);
  Atom part;
  part.kind = Atom::Kind::Coordinate;
  part.provisionalName = true;
  part.name = "(" + name + " / " + by + ")";
  int quotient = atoms.intern(part);
  part.name = "(" + name + " % " + by + ")";
  int remainder = atoms.intern(part);
  Poly value = Poly::atom(quotient) * divisor + Poly::atom(remainder);
  bool isQuotient = llvm::any_of(
      splits, [&](const Split &s) { return s.quotient == whole; });
  substituteEverywhere(whole, value);
  if (!isQuotient)
    splitRoots[whole] = value;
  splits.push_back({whole, divisor, quotient, remainder});
  return quotient;
}

void Lifter::substituteEverywhere(int atom, const Poly &value) {
  auto inPoly = [&](Poly &p) { p = p.substitute(atom, value); };
  auto inArray = [&](ArrayValue &a) {
    for (Poly &p : a.subscripts)
      inPoly(p);
  };
  auto inGuards = [&](std::vector<Guard> &list) {
    for (Guard &g : list)
      g.condition = substitute(g.condition, atom, value);
  };
  auto inLoops = [&](std::vector<Loop> &list) {
    for (Loop &loop : list) {
      inPoly(loop.low);
      inPoly(loop.high);
      if (loop.value)
        inPoly(*loop.value);
      else if (loop.coordinate == atom)
        loop.value = value;
    }
  };
  for (auto &[var, v] : env) {
    if (v.kind == Value::Kind::Int)
      inPoly(v.poly);
    else if (v.kind == Value::Kind::Array)
      inArray(v.array);
    else if (v.kind == Value::Kind::Bool)
      v.condition = substitute(v.condition, atom, value);
  }
  for (Read &read : reads)
    inArray(read.access);
  inGuards(guards);
  inLoops(loops);
  std::vector<Store *> stores;
  if (written)
    stores.push_back(&*written);
  for (Store &s : componentStores)
    stores.push_back(&s);
  for (Store *s : stores) {
    inArray(s->access);
    inGuards(s->guards);
    inLoops(s->loops);
  }
  for (auto &[root, v] : splitRoots)
    inPoly(v);
}

bool Lifter::splitsAllow(const Binding &b) const {
  for (const Split &s : splits) {
    int64_t r = b.get(s.remainder);
    if (r < 0 || r >= b.evaluate(s.divisor))
      return false;
  }
  for (const auto &[root, value] : splitRoots)
    if (atoms[root].threadAxis >= 0 && b.evaluate(value) < 0)
      return false;
  return true;
}

std::optional<Extent> Lifter::splitExtent(int coordinate, bool report) {
  // Up the chain of splits to the index, multiplying the divisors.
  Poly inner = Poly::number(1);
  int whole = coordinate;
  for (bool found = true; found;) {
    found = false;
    for (const Split &s : splits)
      if (s.quotient == whole) {
        inner = inner * s.divisor;
        whole = s.whole;
        found = true;
      }
  }
  const Poly &value = splitRoots[whole];
  std::vector<Poly> bounds;
  for (const Loop &loop : written->loops)
    if (loop.coordinate == whole && loop.low == Poly::number(0))
      bounds.push_back(loop.high);
  std::vector<const Condition *> stack;
  for (const Guard &g : written->guards)
    stack.push_back(g.condition.get());
  while (!stack.empty()) {
    const Condition *node = stack.back();
    stack.pop_back();
    for (const auto &child : {node->a, node->b})
      if (child)
        stack.push_back(child.get());
    if (node->a)
      continue;
    bool left = node->lhs == value, right = node->rhs == value;
    if (!left && !right)
      continue;
    const Poly &bound = left ? node->rhs : node->lhs;
    using K = Condition::Kind;
    K k = node->kind;
    if (right) // bound ? value: flip
      k = k == K::Less ? K::Greater : k == K::LessEqual ? K::GreaterEqual
          : k == K::Greater ? K::Less : k == K::GreaterEqual ? K::LessEqual : k;
    if (k == K::Less || k == K::GreaterEqual)
      bounds.push_back(bound);
    else if (k == K::LessEqual || k == K::Greater)
      bounds.push_back(bound + Poly::number(1));
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  if (bounds.size() == 1)
    return Extent{bounds.front(), inner};
  if (!report)
    return std::nullopt;
  error(written->range,
        "cannot tell the lattice's extent along the axis of " +
            atoms[coordinate].name + ": compare the flattened index " +
            atoms[whole].name + " with the number of sites once (e.g. 'if (" +
            atoms[whole].name + " >= nx * ny) return;')");
  return std::nullopt;
}

} // namespace lift
} // namespace import
} // namespace stencilc
