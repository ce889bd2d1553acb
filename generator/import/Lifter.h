//===- Lifter.h - The evaluator behind liftStencil --------------*- C++ -*-===//
//
// Internal to generator/import: the Lifter class and the values it computes,
// shared by the files that implement its phases (Lift.cpp: the entry point
// and shared helpers; LiftEval.cpp: expressions; LiftWrap.cpp: wrap-around
// indices; LiftWalk.cpp: statements; LiftAccess.cpp: indices split per axis;
// LiftInfer.cpp: the lattice and the taps).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_IMPORT_LIFTER_H
#define STENCILC_IMPORT_LIFTER_H

#include "import/Lift.h"
#include "import/Symbolic.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class BinaryOperator;
class CallExpr;
class CompoundStmt;
class ConditionalOperator;
class DeclRefExpr;
class DeclStmt;
class DiagnosticsEngine;
class Expr;
class ForStmt;
class IfStmt;
class MemberExpr;
class SourceManager;
class Stmt;
class UnaryOperator;
class ValueDecl;
class VarDecl;
} // namespace clang

namespace stencilc {
namespace import {
namespace lift {

struct ArrayValue {
  const clang::ValueDecl *decl = nullptr;
  int rank = 1; ///< subscripts that name one element
  std::vector<Poly> subscripts;
};

struct Value {
  enum class Kind { Unset, Int, Float, Array, Bool };
  Kind kind = Kind::Unset;
  Poly poly;
  FloatValue number;
  ArrayValue array;
  ConditionRef condition;

  static Value ofInt(Poly p) {
    Value v;
    v.kind = Kind::Int;
    v.poly = std::move(p);
    return v;
  }
  static Value ofFloat(FloatValue f) {
    Value v;
    v.kind = Kind::Float;
    v.number = std::move(f);
    return v;
  }
  static Value ofArray(ArrayValue a) {
    Value v;
    v.kind = Kind::Array;
    v.array = std::move(a);
    return v;
  }
  static Value ofBool(ConditionRef c) {
    Value v;
    v.kind = Kind::Bool;
    v.condition = std::move(c);
    return v;
  }
};

struct Read {
  ArrayValue access;
  clang::SourceRange range;
};

struct Guard {
  ConditionRef condition;
  bool skipWhenTrue = true;
  clang::SourceRange range;
};

struct Loop {
  int coordinate = -1;
  Poly low, high; ///< the variable runs over [low, high)
  clang::SourceRange range;
};

struct Store {
  ArrayValue access;
  FloatValue value;
  std::vector<Guard> guards;
  std::vector<Loop> loops;
  clang::SourceRange range;
};

/// An access split per axis (x first).
struct AxisAccess {
  int coordinate = -1;
  int64_t offset = 0;
  bool wrapped = false;
  Poly modulus;
  Poly stride; ///< flattened indices only
};

struct Decomposed {
  bool flat = true;
  std::vector<AxisAccess> axes;
  std::vector<std::optional<int64_t>> dims; ///< multi-dimensional arrays
};

/// A lattice extent: num / den, exact on every sample.
struct Extent {
  Poly num, den = Poly::number(1);
};

/// One neighbour, the sum of every read of it.
struct Tap {
  std::vector<int> offset;
  std::vector<bool> wrapped;
  LinearForm coefficient;
  int firstRead; ///< reads are numbered in source order
};

/// What the phases of Lifter::infer() have found so far, in the order they
/// find it.
struct Inference {
  Decomposed out; ///< the store's index
  int dims = 0;
  std::string outName;
  std::vector<Extent> extents;
  std::vector<Binding> samples;            ///< the two sample lattices
  std::vector<std::vector<int64_t>> sizes; ///< extents on each sample
  std::vector<Tap> taps;
  const clang::ValueDecl *input = nullptr;
  clang::SourceRange inputRange;
  std::vector<Tap> kept; ///< the taps of the spec, in source order
  std::vector<int> lowSkip, highSkip;
  bool skips = false;
  std::string precision;
};

class Lifter {
public:
  Lifter(clang::ASTContext &context, const clang::FunctionDecl &function,
         const ImportOptions &options)
      : context(context), function(function), options(options),
        diags(context.getDiagnostics()), sources(context.getSourceManager()) {}

  std::optional<ImportedStencil> run();

private:
  // --- diagnostics --------------------------------------------------------
  bool error(clang::SourceRange range, const llvm::Twine &message);
  void note(clang::SourceRange range, const llvm::Twine &message);
  std::string text(clang::SourceRange range) const;
  std::string where(clang::SourceLocation location) const;

  // --- evaluation ---------------------------------------------------------
  bool bindParameters();
  std::optional<Value> eval(const clang::Expr *e);
  std::optional<Value> evalCast(const clang::Expr *sub, clang::QualType type,
                                bool load, const clang::Expr *whole);
  std::optional<Value> evalDeclRef(const clang::DeclRefExpr *ref);
  std::optional<Value> evalMember(const clang::MemberExpr *member);
  std::optional<Value> evalBinary(const clang::BinaryOperator *op);
  std::optional<Value> evalUnary(const clang::UnaryOperator *op);
  std::optional<Value> evalConditional(const clang::ConditionalOperator *op);
  std::optional<Value> evalCall(const clang::CallExpr *call);
  /// a * b: at most one factor reads data, and the product stays linear in
  /// the parameters.
  std::optional<FloatValue> multiply(const FloatValue &a, const FloatValue &b,
                                     clang::SourceRange range);
  std::optional<Poly> evalInt(const clang::Expr *e);
  std::optional<FloatValue> asFloat(const Value &v, const clang::Expr *e);
  std::optional<ConditionRef> asCondition(const Value &v, const clang::Expr *e);
  std::optional<Poly> modulo(const Poly &p, const Poly &m,
                             const clang::Expr *e);
  std::optional<Poly> conditionalWrap(const ConditionRef &c, const Poly &a,
                                      const Poly &b, const clang::Expr *e);
  int arrayRank(const clang::ValueDecl *decl) const;
  clang::QualType elementType(const clang::ValueDecl *decl) const;

  // --- statements ---------------------------------------------------------
  bool walk(const clang::Stmt *s);
  bool walkCompound(const clang::CompoundStmt *block);
  bool walkIf(const clang::IfStmt *s, bool &addedGuard);
  bool walkFor(const clang::ForStmt *s);
  bool walkDecl(const clang::DeclStmt *s);
  bool assign(const clang::BinaryOperator *op);
  bool store(const clang::BinaryOperator *op, const ArrayValue &target);

  // --- polynomials --------------------------------------------------------
  Poly canonical(const Poly &p);
  int threadCoordinate(int axis);
  bool isCoordinateLike(int atom) const {
    Atom::Kind k = atoms[atom].kind;
    return k == Atom::Kind::Coordinate || k == Atom::Kind::Wrapped;
  }
  int coordinateOf(int atom) const {
    return atoms[atom].kind == Atom::Kind::Wrapped ? atoms[atom].coordinate
                                                    : atom;
  }
  Binding sample(int which) const;

  // --- inference ----------------------------------------------------------
  std::optional<Decomposed> decompose(const ArrayValue &access,
                                      clang::SourceRange range);
  std::optional<ImportedStencil> infer();
  // The phases of infer(), in order; each reports what it finds wrong and
  // returns false.
  bool decomposeOutput(Inference &inference);
  bool inferExtents(Inference &inference);
  std::optional<Extent> topExtent(int coordinate);
  bool collectTaps(Inference &inference);
  /// The tap one read of the input contributes, checked against the output.
  std::optional<Tap> readTap(Inference &inference, int readId,
                             const LinearForm &coefficient);
  /// A read that wraps around must wrap at the lattice's extent.
  bool checkWrapAtExtent(const Inference &inference, const Read &read,
                         const AxisAccess &r, int a);
  bool keepTaps(Inference &inference);
  bool checkUpdatedSites(Inference &inference);
  /// The number of sites updated on sample `which`, and their bounds.
  std::optional<int64_t> countUpdatedSites(Inference &inference, int which,
                                           std::vector<int64_t> &minSite,
                                           std::vector<int64_t> &maxSite);
  /// Whether the store's loop bounds and guards let through the site bound
  /// in `b`.
  bool updatesSite(const Binding &b) const;
  bool checkBoundary(Inference &inference);
  /// The guard or loop bound that limits axis `a`, to point at.
  clang::SourceRange guardFor(const Inference &inference, int a) const;
  bool inferPrecision(Inference &inference);
  ImportedStencil buildResult(const Inference &inference) const;

  clang::ASTContext &context;
  const clang::FunctionDecl &function;
  const ImportOptions &options;
  clang::DiagnosticsEngine &diags;
  const clang::SourceManager &sources;
  bool failed = false;

  AtomTable atoms;
  std::map<const clang::VarDecl *, Value> env;
  struct Scope {
    int loopDepth = 0;
    int conditionDepth = 0;
  };
  std::map<const clang::VarDecl *, Scope> declaredAt;
  std::vector<Read> reads;
  std::optional<Store> written;
  std::vector<Guard> guards;
  std::vector<Loop> loops;
  int conditionDepth = 0;
  int inlineDepth = 0;
  int threadCoordinates[3] = {-1, -1, -1};
  const clang::CompoundStmt *functionBody = nullptr;
  std::vector<const clang::Stmt *> loopBodies;
};

} // namespace lift
} // namespace import
} // namespace stencilc

#endif
