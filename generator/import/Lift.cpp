//===- Lift.cpp - Symbolic evaluation of one function into taps -----------===//
//
// The evaluator walks the function body once, in order. Integer locals are
// polynomials, floating locals linear forms in the elements read, loops bind
// their variable as a lattice coordinate, and `if (c) return;` / `if (c)
// continue;` / `if (c) { ... }` become guards on the single store. The
// lattice (axes, extents, boundary) is then inferred from the store's index
// and checked by enumerating the sites the guards and loop bounds let through
// on two sample lattices: the updated sites must form a box, and a box
// narrower than the lattice by exactly the stencil's reach is a Dirichlet
// boundary, the whole lattice with wrapped reads a periodic one.
//
//===----------------------------------------------------------------------===//
#include "import/Lift.h"
#include "import/Lifter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace clang;
using llvm::Twine;

namespace stencilc {
namespace import {
namespace lift {

// ===--------------------------------------------------------------------===//
// Diagnostics
// ===--------------------------------------------------------------------===//

bool Lifter::error(SourceRange range, const Twine &message) {
  unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  diags.Report(range.getBegin(), id)
      << message.str() << CharSourceRange::getTokenRange(range);
  failed = true;
  return false;
}

void Lifter::note(SourceRange range, const Twine &message) {
  unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
  diags.Report(range.getBegin(), id)
      << message.str() << CharSourceRange::getTokenRange(range);
}

std::string Lifter::text(SourceRange range) const {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(range), sources,
                              context.getLangOpts())
      .str();
}

std::string Lifter::where(SourceLocation location) const {
  PresumedLoc p = sources.getPresumedLoc(sources.getFileLoc(location));
  if (p.isInvalid())
    return "?";
  return std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) +
         ":" + std::to_string(p.getColumn());
}

// ===--------------------------------------------------------------------===//
// Values
// ===--------------------------------------------------------------------===//

QualType Lifter::storageType(const ValueDecl *decl) const {
  QualType type = decl->getType();
  if (auto *param = dyn_cast<ParmVarDecl>(decl))
    type = param->getOriginalType();
  return type.getNonReferenceType().getCanonicalType();
}

std::optional<std::pair<QualType, std::optional<int64_t>>>
Lifter::stdContainer(QualType type) const {
  const auto *record = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      type.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (!record || !record->isInStdNamespace())
    return std::nullopt;
  const TemplateArgumentList &args = record->getTemplateArgs();
  if (args.size() < 1 || args[0].getKind() != TemplateArgument::Type)
    return std::nullopt;
  std::optional<int64_t> size;
  if (record->getName() == "array" && args.size() == 2 &&
      args[1].getKind() == TemplateArgument::Integral)
    size = args[1].getAsIntegral().getExtValue();
  else if (record->getName() != "vector")
    return std::nullopt;
  return std::pair{args[0].getAsType(), size};
}

int Lifter::arrayRank(const ValueDecl *decl) const {
  QualType type = storageType(decl);
  int rank = 0;
  while (true) {
    type = type.getCanonicalType();
    if (const auto *pointer = type->getAs<PointerType>()) {
      type = pointer->getPointeeType();
      ++rank;
    } else if (const ArrayType *array = context.getAsArrayType(type)) {
      type = array->getElementType();
      ++rank;
    } else if (auto inner = stdContainer(type)) {
      type = inner->first;
      ++rank;
    } else {
      return rank;
    }
  }
}

QualType Lifter::elementType(const ValueDecl *decl) const {
  QualType type = storageType(decl);
  while (true) {
    type = type.getCanonicalType();
    if (const auto *pointer = type->getAs<PointerType>())
      type = pointer->getPointeeType();
    else if (const ArrayType *array = context.getAsArrayType(type))
      type = array->getElementType();
    else if (auto inner = stdContainer(type))
      type = inner->first;
    else
      return type;
  }
}

bool Lifter::isComponentStruct(QualType type) const {
  const RecordDecl *record = type->getAsRecordDecl();
  if (!record || !record->getDefinition() || record->field_empty())
    return false;
  QualType first = record->field_begin()->getType().getCanonicalType();
  return first->isRealFloatingType() &&
         llvm::all_of(record->fields(), [&](const FieldDecl *f) {
           return f->getType().getCanonicalType() == first;
         });
}

std::optional<Value> Lifter::bindValue(QualType type, const ValueDecl *decl,
                                       const std::string &name,
                                       const std::string &parameterName,
                                       const ValueDecl *owner, int depth) {
  type = type.getNonReferenceType().getCanonicalType();
  QualType pointee =
      type->isPointerType() ? type->getPointeeType().getCanonicalType() : type;
  // A pointer to structs whose members are all one floating-point type is
  // an array of sites (`const Velocity *v`); other structs hold arguments
  // (`const Grid &g`, `const Grid *g`).
  bool structure = pointee->isRecordType() && !stdContainer(pointee) &&
                   !isComplex(pointee) &&
                   !(type->isPointerType() && isComponentStruct(pointee));
  if ((type->isPointerType() && !structure) || type->isArrayType() ||
      stdContainer(type)) {
    ArrayValue array;
    array.decl = decl;
    array.owner = owner;
    array.name = name;
    array.rank = arrayRank(decl);
    if (type->isPointerType()) {
      // A pointer points at element 0 of its first dimension.
      array.subscripts.push_back(Poly::number(0));
      array.open = true;
    }
    return Value::ofArray(array);
  }
  if (type->isIntegerType() && !type->isBooleanType()) {
    if (isa<ParmVarDecl>(decl))
      return Value::ofInt(Poly::atom(atoms.size(decl, name, {})));
    Atom atom; // a struct member: one size per argument and member
    atom.kind = Atom::Kind::Size;
    atom.name = name;
    return Value::ofInt(Poly::atom(atoms.intern(atom)));
  }
  if (type->isRealFloatingType()) {
    FloatValue f;
    f.constant = LinearForm::parameter(parameterName);
    if (!isa<ParmVarDecl>(decl))
      memberParameters.push_back(parameterName);
    return Value::ofFloat(f);
  }
  if (structure && depth < 4) {
    const RecordDecl *record = pointee->getAsRecordDecl()->getDefinition();
    if (!record)
      return std::nullopt;
    RecordValue members;
    for (const FieldDecl *field : record->fields()) {
      std::string member = field->getNameAsString();
      if (std::optional<Value> v =
              bindValue(field->getType(), field, name + "." + member,
                        parameterName + "_" + member, owner ? owner : decl,
                        depth + 1))
        members[field] = *v;
    }
    return Value::ofRecord(std::move(members));
  }
  return std::nullopt;
}

bool Lifter::bindParameters() {
  for (const ParmVarDecl *param : function.parameters()) {
    std::string name = param->getNameAsString();
    // Anything else is reported where it is used.
    if (std::optional<Value> v = bindValue(param->getType(), param, name, name))
      env[param] = *v;
  }
  return true;
}

int Lifter::threadCoordinate(int axis) {
  if (threadCoordinates[axis] < 0) {
    Atom atom;
    atom.kind = Atom::Kind::Coordinate;
    atom.threadAxis = axis;
    atom.name = std::string("the global thread index along ") + "xyz"[axis];
    threadCoordinates[axis] = atoms.intern(atom);
  }
  return threadCoordinates[axis];
}

/// Folds threadIdx.a + blockIdx.a * blockDim.a into the coordinate of axis a.
Poly Lifter::canonical(const Poly &p) {
  Poly r = p;
  for (int axis = 0; axis < 3; ++axis) {
    int tid = -1, bid = -1, dim = -1;
    for (int id = 0; id < atoms.count(); ++id) {
      const Atom &a = atoms[id];
      if (a.kind != Atom::Kind::Thread || a.threadAxis != axis)
        continue;
      if (a.threadKind == 0)
        tid = id;
      else if (a.threadKind == 1)
        bid = id;
      else if (a.threadKind == 2)
        dim = id; // gridDim (3) is no part of a thread's index
    }
    if (tid < 0 || bid < 0 || dim < 0)
      continue;
    auto coefficient = [&](Monomial m) {
      std::sort(m.begin(), m.end());
      auto it = r.terms().find(m);
      return it == r.terms().end() ? 0 : it->second;
    };
    int64_t c = coefficient({tid});
    if (c == 0 || coefficient({bid, dim}) != c)
      continue;
    Poly global = Poly::atom(tid) + Poly::atom(bid) * Poly::atom(dim);
    r = r - Poly::number(c) * global +
        Poly::number(c) * Poly::atom(threadCoordinate(axis));
  }
  return r;
}

Binding Lifter::sample(int which) const {
  // Distinct sizes per atom, so that swapped axes or extents show up.
  static const int64_t bases[] = {12, 17, 1000};
  static const int64_t steps[] = {1, 2, 7};
  Binding b(atoms);
  int ordinal = 0;
  for (int id = 0; id < atoms.count(); ++id)
    if (atoms[id].kind == Atom::Kind::Size && !atoms[id].value)
      b.set(id, bases[which] + steps[which] * ordinal++);
  return b;
}

// ===--------------------------------------------------------------------===//
// Entry point
// ===--------------------------------------------------------------------===//

std::optional<ImportedStencil> Lifter::run() {
  functionBody = dyn_cast_or_null<CompoundStmt>(function.getBody());
  if (!functionBody) {
    error(function.getSourceRange(), "the function has no body");
    return std::nullopt;
  }
  bindParameters();
  if (!walk(functionBody) || failed)
    return std::nullopt;
  if (!written) {
    error(function.getSourceRange(), "the function writes no array element");
    return std::nullopt;
  }
  std::optional<ImportedStencil> result = infer();
  if (failed)
    return std::nullopt;
  return result;
}

} // namespace lift

std::optional<ImportedStencil> liftStencil(ASTContext &context,
                                           const FunctionDecl &function,
                                           const ImportOptions &options) {
  lift::Lifter lifter(context, function, options);
  return lifter.run();
}

} // namespace import
} // namespace stencilc
