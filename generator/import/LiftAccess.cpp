//===- LiftAccess.cpp - Array indices split per axis ----------------------===//
//
// Subscripts and pointer offsets build an index; an index, flattened (one
// polynomial) or multi-dimensional (one subscript per axis), becomes one
// coordinate, offset and stride per lattice axis.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

using namespace clang;

namespace stencilc {
namespace import {
namespace lift {

std::optional<Value> Lifter::subscript(const Value &base, const Poly &index,
                                       const Expr *whole) {
  if (base.kind != Value::Kind::Array) {
    error(whole->getSourceRange(),
          "subscripts something that is not an array argument or a pointer "
          "into one");
    return std::nullopt;
  }
  ArrayValue array = base.array;
  if (array.open) {
    // p[k] with p pointing into a dimension: that dimension's subscript + k.
    array.subscripts.back() = canonical(array.subscripts.back() + index);
    array.open = false;
    return Value::ofArray(array);
  }
  if (static_cast<int>(array.subscripts.size()) >= array.rank) {
    error(whole->getSourceRange(), "too many subscripts");
    return std::nullopt;
  }
  array.subscripts.push_back(canonical(index)); // std::array's operator[]
  return Value::ofArray(array);
}

std::optional<Value> Lifter::pointerOffset(const Value &pointer,
                                           const Poly &delta,
                                           const Expr *whole) {
  if (!pointer.array.open) {
    error(whole->getSourceRange(),
          "adds to an array element's value as if it were a pointer");
    return std::nullopt;
  }
  ArrayValue array = pointer.array;
  array.subscripts.back() = canonical(array.subscripts.back() + delta);
  return Value::ofArray(array);
}

int Lifter::rootCoordinate(int atom) const {
  atom = coordinateOf(atom);
  for (bool moved = true; moved;) {
    moved = false;
    for (const Split &s : splits)
      if (s.quotient == atom || s.remainder == atom) {
        atom = s.whole;
        moved = true;
      }
  }
  return atom;
}

bool Lifter::checkThreadAxes(const Poly &index, SourceRange range) {
  for (const auto &[mono, c] : index.terms())
    for (int atom : mono) {
      if (!isCoordinateLike(atom))
        continue;
      int root = rootCoordinate(atom);
      int axis = atoms[root].threadAxis;
      if (axis < 0 || root != threadCoordinates[axis] ||
          !gridStrideAxes[axis].var)
        continue;
      const VarDecl *loop = gridStrideAxes[axis].var;
      // Unnamed, the atom is "the global thread index along x".
      std::string other = atoms[root].decl ? "'" + atoms[root].name + "'"
                                           : atoms[root].name;
      error(range, other + " and the grid-stride loop over '" +
                       loop->getNameAsString() +
                       "' both run along the thread axis " +
                       "xyz"[axis] +
                       ": on a launch they visit other sites than the loop "
                       "nest written; take one of them along another axis "
                       "(y, z) or use one flattened index");
      note(gridStrideAxes[axis].start,
           "the loop over '" + loop->getNameAsString() + "' starts here");
      return false;
    }
  return true;
}

std::optional<Decomposed> Lifter::decompose(const ArrayValue &access,
                                            SourceRange range) {
  Decomposed out;
  std::string array = access.name;
  for (const Poly &p : access.subscripts)
    if (!checkThreadAxes(p, range))
      return std::nullopt;
  for (const Poly &p : access.subscripts)
    for (const auto &[mono, c] : p.terms())
      for (int atom : mono)
        if (atoms[atom].kind == Atom::Kind::Thread) {
          error(range, "uses " + atoms[atom].name +
                           " other than in the global index " + "threadIdx." +
                           "xyz"[atoms[atom].threadAxis] + " + blockIdx." +
                           "xyz"[atoms[atom].threadAxis] + " * blockDim." +
                           "xyz"[atoms[atom].threadAxis] +
                           " (a thread that updates several sites is a "
                           "tiling choice: the spec's kernel.tile)");
          return std::nullopt;
        }
  auto nonAffine = [&](const Poly &p) {
    error(range, "the index of '" + array + "' (" + atoms.text(p) +
                     ") is not affine in the lattice coordinates");
  };
  if (access.rank == 1) {
    const Poly &p = access.subscripts.front();
    std::map<int, Poly> strides; // coordinate -> stride
    std::map<int, int> form;     // coordinate -> the atom used (plain/wrapped)
    Poly rest;
    for (const auto &[mono, c] : p.terms()) {
      int found = -1, count = 0;
      for (int atom : mono)
        if (isCoordinateLike(atom))
          found = atom, ++count;
      if (count == 0) {
        rest = rest + Poly::term(mono, c);
        continue;
      }
      if (count > 1) {
        nonAffine(p);
        return std::nullopt;
      }
      int coordinate = coordinateOf(found);
      auto seen = form.find(coordinate);
      if (seen != form.end() && seen->second != found) {
        error(range, "the index of '" + array + "' uses " +
                         atoms[coordinate].name +
                         " in two ways (wrapped and not, or wrapped twice)");
        return std::nullopt;
      }
      form[coordinate] = found;
      Monomial others;
      for (int atom : mono)
        if (atom != found)
          others.push_back(atom);
      strides[coordinate] = strides[coordinate] + Poly::term(others, c);
    }
    Binding big = sample(2);
    for (const auto &[coordinate, stride] : strides) {
      AxisAccess axis;
      axis.coordinate = coordinate;
      axis.stride = stride;
      int atom = form[coordinate];
      if (atoms[atom].kind == Atom::Kind::Wrapped) {
        axis.wrapped = true;
        axis.offset = atoms[atom].offset;
        axis.modulus = atoms.modulus(atoms[atom].modulus);
      }
      if (big.evaluate(stride) <= 0) {
        error(range, "the index of '" + array + "' steps by " +
                         atoms.text(stride) + " along " +
                         atoms[coordinate].name +
                         "; strides must be positive");
        return std::nullopt;
      }
      out.axes.push_back(axis);
    }
    std::sort(out.axes.begin(), out.axes.end(),
              [&](const AxisAccess &a, const AxisAccess &b) {
                return big.evaluate(a.stride) < big.evaluate(b.stride);
              });
    // Offsets: the coordinate-free part as a whole number of strides.
    int64_t remainder = big.evaluate(rest);
    std::vector<int64_t> steps(out.axes.size(), 0);
    for (size_t a = out.axes.size(); a-- > 0;) {
      int64_t s = big.evaluate(out.axes[a].stride);
      int64_t q = remainder >= 0 ? (remainder + s / 2) / s
                                 : -((-remainder + s / 2) / s);
      steps[a] = q;
      remainder -= q * s;
    }
    Poly check;
    for (size_t a = 0; a < out.axes.size(); ++a)
      check = check + Poly::number(steps[a]) * out.axes[a].stride;
    if (out.axes.empty() || check != rest) {
      error(range, "the index of '" + array + "' adds " + atoms.text(rest) +
                       ", which is not a whole number of steps along the "
                       "lattice's axes");
      return std::nullopt;
    }
    for (size_t a = 0; a < out.axes.size(); ++a) {
      if (out.axes[a].wrapped && steps[a] != 0) {
        error(range, "the index of '" + array + "' shifts " +
                         atoms[out.axes[a].coordinate].name +
                         " outside its wrap-around");
        return std::nullopt;
      }
      out.axes[a].offset += steps[a];
    }
    return out;
  }
  // Multi-dimensional: one coordinate per subscript, the last one x.
  QualType type = storageType(access.decl);
  std::vector<std::optional<int64_t>> dims;
  while (true) {
    type = type.getCanonicalType();
    if (const auto *pointer = type->getAs<PointerType>()) {
      dims.push_back(std::nullopt);
      type = pointer->getPointeeType();
    } else if (const auto *array = context.getAsConstantArrayType(type)) {
      dims.push_back(array->getSize().getSExtValue());
      type = array->getElementType();
    } else if (const ArrayType *other = context.getAsArrayType(type)) {
      dims.push_back(std::nullopt);
      type = other->getElementType();
    } else if (auto inner = stdContainer(type)) {
      dims.push_back(inner->second);
      type = inner->first;
    } else {
      break;
    }
  }
  out.flat = false;
  for (size_t level = access.subscripts.size(); level-- > 0;) {
    const Poly &p = access.subscripts[level];
    AxisAccess axis;
    Poly rest;
    for (const auto &[mono, c] : p.terms()) {
      bool hasCoordinate = llvm::any_of(
          mono, [&](int atom) { return isCoordinateLike(atom); });
      if (!hasCoordinate) {
        rest = rest + Poly::term(mono, c);
        continue;
      }
      if (mono.size() != 1 || c != 1 || axis.coordinate >= 0) {
        error(range, "subscript " + std::to_string(level + 1) + " of '" +
                         array + "' (" + atoms.text(p) +
                         ") is not one lattice coordinate plus a constant");
        return std::nullopt;
      }
      int atom = mono.front();
      axis.coordinate = coordinateOf(atom);
      if (atoms[atom].kind == Atom::Kind::Wrapped) {
        axis.wrapped = true;
        axis.offset = atoms[atom].offset;
        axis.modulus = atoms.modulus(atoms[atom].modulus);
      }
    }
    if (axis.coordinate < 0 || !rest.isNumber() ||
        (axis.wrapped && !rest.isZero())) {
      error(range, "subscript " + std::to_string(level + 1) + " of '" + array +
                       "' (" + atoms.text(p) +
                       ") is not one lattice coordinate plus a constant");
      return std::nullopt;
    }
    axis.offset += rest.numberValue();
    out.axes.push_back(axis);
    out.dims.push_back(level < dims.size() ? dims[level] : std::nullopt);
  }
  return out;
}

} // namespace lift
} // namespace import
} // namespace stencilc
