//===- LiftWrap.cpp - Wrap-around indices ---------------------------------===//
//
// A periodic stencil wraps its neighbours' indices with % or with a
// conditional; both become one Wrapped atom (coordinate, shift, modulus), so
// that the inference sees the same access either way.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Expr.h"

#include <algorithm>
#include <cstdlib>

using namespace clang;

namespace stencilc {
namespace import {
namespace lift {

std::optional<Poly> Lifter::modulo(const Poly &p, const Poly &m, const Expr *e) {
  if (p.isNumber() && m.isNumber() && m.numberValue() != 0)
    return Poly::number(p.numberValue() % m.numberValue());
  int coordinate = -1;
  for (const auto &[mono, c] : p.terms())
    for (int atom : mono)
      if (isCoordinateLike(atom)) {
        if (atoms[atom].kind == Atom::Kind::Wrapped || coordinate >= 0 ||
            mono.size() != 1 || c != 1) {
          error(e->getSourceRange(),
                "wraps '" + atoms.text(p) +
                    "': stencilc import recognises (c + d) % n and (c + d + "
                    "n) % n for one coordinate c and a constant d");
          return std::nullopt;
        }
        coordinate = atom;
      }
  for (const auto &[mono, c] : m.terms())
    for (int atom : mono)
      if (isCoordinateLike(atom) || atoms[atom].kind == Atom::Kind::Thread) {
        error(e->getSourceRange(), "the modulus depends on a coordinate");
        return std::nullopt;
      }
  if (coordinate < 0) {
    error(e->getSourceRange(),
          "takes '" + atoms.text(p) + "' modulo '" + atoms.text(m) +
              "' without a lattice coordinate in it");
    return std::nullopt;
  }
  Poly rest = p - Poly::atom(coordinate);
  int64_t multiple = 0;
  if (!m.isNumber()) {
    // rest = d + k*m: read k off m's leading term.
    const auto &lead = *std::max_element(
        m.terms().begin(), m.terms().end(),
        [](const auto &x, const auto &y) { return x.first.size() < y.first.size(); });
    auto it = rest.terms().find(lead.first);
    if (it != rest.terms().end() && it->second % lead.second == 0)
      multiple = it->second / lead.second;
  }
  Poly d = rest - Poly::number(multiple) * m;
  if (!d.isNumber()) {
    error(e->getSourceRange(),
          "wraps '" + atoms.text(p) + "' modulo '" + atoms.text(m) +
              "': the shift must be a constant plus a multiple of the "
              "modulus");
    return std::nullopt;
  }
  int64_t shift = d.numberValue();
  if (m.isNumber()) {
    int64_t n = m.numberValue();
    if (n <= 0) {
      error(e->getSourceRange(), "wraps modulo a non-positive number");
      return std::nullopt;
    }
    if (shift < 0) {
      multiple = 0; // reported below
    } else {
      multiple = shift / n;
      shift -= multiple * n;
      if (shift > n / 2)
        shift -= n, ++multiple;
    }
  }
  if (multiple < 0 || (multiple == 0 && shift < 0)) {
    std::string c = atoms[coordinate].name;
    error(e->getSourceRange(),
          "'" + atoms.text(p) + "' % '" + atoms.text(m) + "' is negative at " +
              c + " = 0 (C's % keeps the sign); write (" + atoms.text(p) +
              " + " + atoms.text(m) + ") % " + atoms.text(m));
    return std::nullopt;
  }
  return Poly::atom(atoms.wrapped(coordinate, shift, m));
}

std::optional<Poly> Lifter::conditionalWrap(const ConditionRef &c, const Poly &a,
                                            const Poly &b, const Expr *e) {
  if (a == b)
    return a;
  auto fail = [&]() -> std::optional<Poly> {
    error(e->getSourceRange(),
          "this conditional is not a wrap-around that stencilc import "
          "recognises (for example 'x + 1 == nx ? 0 : x + 1' or 'x == 0 ? nx "
          "- 1 : x - 1')");
    return std::nullopt;
  };
  std::vector<int> mentioned;
  c->atoms(mentioned);
  for (const Poly *p : {&a, &b})
    for (const auto &[mono, k] : p->terms())
      mentioned.insert(mentioned.end(), mono.begin(), mono.end());
  int coordinate = -1;
  for (int atom : mentioned)
    if (isCoordinateLike(atom) || atoms[atom].kind == Atom::Kind::Thread) {
      if (atoms[atom].kind != Atom::Kind::Coordinate ||
          (coordinate >= 0 && coordinate != atom))
        return fail();
      coordinate = atom;
    }
  if (coordinate < 0)
    return fail();
  // Candidate moduli: the size part of everything compared or chosen.
  std::vector<Poly> candidates;
  auto sizePart = [&](const Poly &p) {
    Poly r;
    for (const auto &[mono, k] : p.terms())
      if (!mono.empty() &&
          std::find(mono.begin(), mono.end(), coordinate) == mono.end()) {
        r = r + Poly::term(mono, k);
      }
    return r;
  };
  std::vector<const Condition *> stack{c.get()};
  std::vector<Poly> compared;
  while (!stack.empty()) {
    const Condition *node = stack.back();
    stack.pop_back();
    if (node->a)
      stack.push_back(node->a.get());
    if (node->b)
      stack.push_back(node->b.get());
    if (!node->a)
      compared.push_back(node->lhs - node->rhs);
  }
  compared.push_back(a - b);
  compared.push_back(a);
  compared.push_back(b);
  for (const Poly &p : compared) {
    Poly s = sizePart(p);
    if (s.isZero())
      continue;
    for (const Poly &candidate : {s, -s})
      if (std::find(candidates.begin(), candidates.end(), candidate) ==
          candidates.end())
        candidates.push_back(candidate);
  }
  for (const Poly *wrappedBranch : {&a, &b}) {
    Poly d = *wrappedBranch - Poly::atom(coordinate);
    if (!d.isNumber())
      continue;
    int64_t shift = d.numberValue();
    for (const Poly &m : candidates) {
      bool matches = true;
      for (int which = 0; which < 2 && matches; ++which) {
        Binding binding = sample(which);
        int64_t n = binding.evaluate(m);
        if (n <= std::abs(shift) || n > 100000) {
          matches = false;
          break;
        }
        for (int64_t v = 0; v < n && matches; ++v) {
          binding.set(coordinate, v);
          int64_t got = binding.evaluate(c->evaluate(binding) ? a : b);
          int64_t want = ((v + shift) % n + n) % n;
          matches = got == want;
        }
      }
      if (matches)
        return Poly::atom(atoms.wrapped(coordinate, shift, m));
    }
  }
  return fail();
}

} // namespace lift
} // namespace import
} // namespace stencilc
