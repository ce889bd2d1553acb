//===- Lifter.h - The evaluator behind liftStencil --------------*- C++ -*-===//
//
// Internal to generator/import: the Lifter class and the values it computes,
// shared by the files that implement its phases (Lift.cpp: the entry point
// and shared helpers; LiftEval.cpp: expressions; LiftWrap.cpp: wrap-around
// indices; LiftWalk.cpp: statements; LiftAccess.cpp: indices split per axis;
// LiftInfer.cpp: the lattice and the taps; LiftSplit.cpp: coordinates
// split off a flattened index; LiftCall.cpp: helpers, lambdas and library
// types; LiftComponents.cpp: several values per site).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_IMPORT_LIFTER_H
#define STENCILC_IMPORT_LIFTER_H

#include "import/Lift.h"
#include "import/Symbolic.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/OperationKinds.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <map>
#include <memory>
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
class FieldDecl;
class RecordDecl;
class WhileStmt;
class CXXForRangeStmt;
class ForStmt;
class IfStmt;
class InitListExpr;
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

/// An array, a pointer into one, or one element. A pointer is `open`: its
/// last subscript is where it points and still moves with `p + k` or
/// `p[k]`; `in + j * nx + i` and `&u[k][j][0]` are such pointers.
struct ArrayValue {
  const clang::ValueDecl *decl = nullptr;
  int rank = 1; ///< subscripts that name one element
  std::vector<Poly> subscripts;
  bool open = false;
  /// The struct argument whose member this array is (`f.in`), so that the
  /// same member of two arguments are two arrays.
  const clang::ValueDecl *owner = nullptr;
  std::string name; ///< as written: `u`, `f.in`
  /// The member of a struct element (`u[i].y`): its index among the
  /// struct's fields, which are the site's components; -1 otherwise.
  int component = -1;

  bool sameArray(const ArrayValue &other) const {
    return decl == other.decl && owner == other.owner;
  }
  bool isElement() const {
    return !open && static_cast<int>(subscripts.size()) == rank;
  }
};

struct Value;
/// A struct's members by field, for parameters such as `const Grid &g`.
using RecordValue = std::map<const clang::FieldDecl *, Value>;
/// A lambda's copies of the variables it captures by value.
using Captures = std::vector<std::pair<const clang::VarDecl *, Value>>;

struct Value {
  /// Callable: a lambda, whose calls Clang resolves to its operator().
  enum class Kind { Unset, Int, Float, Array, Bool, Record, Callable };
  Kind kind = Kind::Unset;
  Poly poly;
  FloatValue number;
  ArrayValue array;
  ConditionRef condition;
  std::shared_ptr<const RecordValue> record;
  std::shared_ptr<const Captures> captures; ///< Callable

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
  static Value ofRecord(RecordValue r) {
    Value v;
    v.kind = Kind::Record;
    v.record = std::make_shared<const RecordValue>(std::move(r));
    return v;
  }
  static Value ofCallable(Captures copies) {
    Value v;
    v.kind = Kind::Callable;
    v.captures = std::make_shared<const Captures>(std::move(copies));
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
  /// The variable's value once split into coordinates (`q * nx + r`).
  std::optional<Poly> value;
};

/// A flattened index split into coordinates: whole = quotient * divisor +
/// remainder, 0 <= remainder < divisor (`i = idx % nx; j = idx / nx;`).
struct Split {
  int whole = -1;
  Poly divisor;
  int quotient = -1, remainder = -1;
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
  ArrayValue inputArray; ///< input's identity and name
  clang::SourceRange inputRange;
  std::vector<Tap> kept; ///< the taps of the spec, in source order
  std::vector<int> lowSkip, highSkip;
  bool skips = false;
  std::string precision;
  int64_t interleaved = 1; ///< stores per site (`out[3 * s + c]`, c = 0..2)
  int components = 1;      ///< values per site
  bool complexValues = false;
  std::string componentsNote; ///< how the components were found
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
  /// The value an argument or a struct member of this type stands for:
  /// arrays and pointers, integer sizes, floating-point parameters
  /// (`parameterName`), structs member by member; nullopt for other types.
  std::optional<Value> bindValue(clang::QualType type,
                                 const clang::ValueDecl *decl,
                                 const std::string &name,
                                 const std::string &parameterName,
                                 const clang::ValueDecl *owner = nullptr,
                                 int depth = 0);
  std::optional<Value> subscript(const Value &base, const Poly &index,
                                 const clang::Expr *whole);
  /// `u[i].y` for an array of structs whose fields are the components.
  std::optional<Value> memberOfElement(const Value &element,
                                       const clang::MemberExpr *member);
  std::optional<Value> pointerOffset(const Value &pointer, const Poly &delta,
                                     const clang::Expr *whole);
  /// evalExpression, then foldedAs() the expression's type.
  std::optional<Value> eval(const clang::Expr *e);
  /// A floating-point `value` as C++ holds it in `type`: a numeric constant
  /// of a type narrower than double (float, _Float16, __bf16,
  /// std::complex<float>) rounded to it. False, with an error naming `range`,
  /// for a value that is not finite.
  bool foldedAs(clang::QualType type, Value &value, clang::SourceRange range);
  std::optional<Value> evalExpression(const clang::Expr *e);
  std::optional<Value> evalCast(const clang::Expr *sub, clang::QualType type,
                                bool load, const clang::Expr *whole);
  std::optional<Value> evalDeclRef(const clang::DeclRefExpr *ref);
  std::optional<Value> evalMember(const clang::MemberExpr *member);
  std::optional<Value> evalBinary(const clang::BinaryOperator *op);
  std::optional<Value> evalUnary(const clang::UnaryOperator *op);
  std::optional<Value> evalConditional(const clang::ConditionalOperator *op);
  std::optional<Value> evalCall(const clang::CallExpr *call);
  /// std::complex's +, -, * and / (with real factors): the same linear
  /// forms as on real values. nullopt without an error: not such a call.
  std::optional<Value> complexArithmetic(const clang::CallExpr *call,
                                         const clang::FunctionDecl *callee);
  std::optional<Value> evalConstruct(const clang::CXXConstructExpr *e);
  std::optional<Value> evalInitList(const clang::InitListExpr *list);
  /// Registers the read of one array element.
  FloatValue readElement(const ArrayValue &element, clang::SourceRange range);
  std::string describeCallee(const clang::FunctionDecl *f) const;
  /// What an expression the evaluator does not follow is, in words.
  std::string describeExpression(const clang::Expr *e) const;
  bool isComplex(clang::QualType type) const;
  /// A struct of one floating-point type throughout: a site's components.
  bool isComponentStruct(clang::QualType type) const;
  /// a * b: at most one factor reads data, and the product stays linear in
  /// the parameters.
  /// A size divided by a size: a size of its own.
  std::optional<Poly> sizeQuotient(const Poly &a, const Poly &b);
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
  /// The declared type without references (`float (&u)[NZ][NY][NX]`).
  clang::QualType storageType(const clang::ValueDecl *decl) const;
  /// The element type and size of a std::array (a std::vector's size is
  /// not in its type), nullopt for other types.
  std::optional<std::pair<clang::QualType, std::optional<int64_t>>>
  stdContainer(clang::QualType type) const;

  // --- statements ---------------------------------------------------------
  bool walk(const clang::Stmt *s);
  bool walkCompound(const clang::CompoundStmt *block);
  bool walkIf(const clang::IfStmt *s, bool &addedGuard);
  bool walkFor(const clang::ForStmt *s);
  bool walkWhile(const clang::WhileStmt *s);
  bool walkRangeFor(const clang::CXXForRangeStmt *s);
  /// The end of a loop over `var` from its condition (`c < n`: n).
  std::optional<Poly> loopEnd(const clang::Expr *condition,
                              const clang::VarDecl *var,
                              const llvm::Twine &form);
  /// Runs the loop body over coordinate `var` in [low, high).
  bool walkLoopBody(const clang::VarDecl *var, const Poly &low,
                    const Poly &high, clang::SourceRange range,
                    const clang::Stmt *body,
                    const clang::Stmt *skip = nullptr);
  /// A grid-stride loop's start and step, if `s` is one.
  std::optional<bool> gridStride(const clang::ForStmt *s,
                                 const clang::VarDecl *var, const Poly &start,
                                 Poly &low);
  /// A call made for its effects: a helper or lambda that writes the output.
  bool callForEffects(const clang::CallExpr *call);
  /// Binds a callee's parameters to the call's arguments, and a lambda's
  /// copies of what it captured by value in place of the variables (the
  /// variables' values now go to `saved`, for restoreCaptures).
  bool bindArguments(const clang::CallExpr *call,
                     const clang::FunctionDecl *definition, Captures &saved);
  void restoreCaptures(const Captures &saved);
  bool walkDecl(const clang::DeclStmt *s);
  /// `lhs op rhs`, from a built-in assignment or a class's operator=.
  struct Assignment {
    const clang::Expr *lhs, *rhs;
    clang::BinaryOperatorKind opcode;
    clang::SourceRange range;
  };
  bool assign(const clang::BinaryOperator *op);
  bool assign(const Assignment &op);
  bool store(const Assignment &op, const ArrayValue &target);
  /// gridDim, allowed in locals for a grid-stride step, bounds nothing.
  bool checkNoGridDim();

  // --- flattened indices (LiftSplit.cpp) ----------------------------------
  /// `a / b` or `a % b` on a flattened index: the coordinates split off
  /// it. nullopt without an error: not such a division.
  std::optional<Poly> divideIndex(const Poly &a, const Poly &b, bool remainder,
                                  const clang::Expr *e);
  /// Splits coordinate `whole` by `divisor`; -1 and an error if it cannot.
  int splitCoordinate(int whole, const Poly &divisor, const clang::Expr *e);
  void substituteEverywhere(int atom, const Poly &value);
  /// The constraints of the splits: 0 <= remainder < divisor, indices >= 0.
  bool splitsAllow(const Binding &b) const;
  /// The extent of a split quotient that is the outermost axis: the
  /// index's bound over the inner extents (an error only if `report`).
  std::optional<Extent> splitExtent(int coordinate, bool report);

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
  /// The coordinate a wrapped or split coordinate comes from.
  int rootCoordinate(int atom) const;
  /// Refuses an index using the thread index along an axis that a
  /// grid-stride loop already runs along.
  bool checkThreadAxes(const Poly &index, clang::SourceRange range);

  // --- inference ----------------------------------------------------------
  std::optional<Decomposed> decompose(const ArrayValue &access,
                                      clang::SourceRange range);
  std::optional<ImportedStencil> infer();
  // The phases of infer(), in order; each reports what it finds wrong and
  // returns false.
  /// Several stores to one array, `out[K * s + c]` for c = 0..K-1: the
  /// components of an interleaved site.
  bool splitInterleavedStores(Inference &inference);
  bool decomposeOutput(Inference &inference);
  bool inferExtents(Inference &inference);
  std::optional<Extent> topExtent(int coordinate);
  /// The element count of a one-dimensional array of fixed size.
  std::optional<int64_t> flatExtent(const ArrayValue &access) const;
  bool collectTaps(Inference &inference);
  /// The tap one read of the input contributes, checked against the output.
  std::optional<Tap> readTap(Inference &inference, int readId,
                             const LinearForm &coefficient);
  /// A read that wraps around must wrap at the lattice's extent.
  bool checkWrapAtExtent(const Inference &inference, const Read &read,
                         const AxisAccess &r, int a);
  bool keepTaps(Inference &inference);
  bool checkUpdatedSites(Inference &inference);
  /// Every coefficient finite, a float function's within float's range.
  bool checkCoefficientRange(const Inference &inference);
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
  /// An array of structs: every component computed with the same taps.
  bool checkComponentStores(Inference &inference);
  /// An innermost axis that is a full loop over a constant range with no
  /// taps along it (`u[site * 3 + c]`) is the site's components.
  void foldComponentAxis(Inference &inference);
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
  /// The stores of the other components of an array of structs
  /// (`out[i].y = ...` after `out[i].x = ...`).
  std::vector<Store> componentStores;
  std::vector<Guard> guards;
  std::vector<Loop> loops;
  int conditionDepth = 0;
  int inlineDepth = 0;
  int threadCoordinates[3] = {-1, -1, -1};
  /// gridDim may appear only in a grid-stride loop's step.
  bool allowGridDim = false;
  bool gridStrideLoops = false; ///< for the spec's header
  /// The grid-stride loop that took each thread axis (its variable and
  /// start): a launch gives one global index per axis, so a second
  /// coordinate along it computes other sites than the loop nest written.
  struct AxisClaim {
    const clang::VarDecl *var = nullptr;
    clang::SourceRange start;
  };
  AxisClaim gridStrideAxes[3];
  /// Floating-point struct members used as parameters (`g.dt` as g_dt).
  std::vector<std::string> memberParameters;
  const clang::CompoundStmt *functionBody = nullptr;
  std::vector<const clang::Stmt *> loopBodies;
  std::vector<Split> splits;
  /// The size() of each container argument, one size each.
  std::map<const clang::ValueDecl *, int> containerSizes;
  /// Sizes divided by sizes (`in.size() / nx`), by their text.
  std::map<std::string, int> quotientSizes;
  /// Integer members of constant structs (`grid.nx`), by their text.
  std::map<std::string, int> constantMembers;
  /// A split thread index or loop variable and its value in the coordinates
  /// split off it.
  std::map<int, Poly> splitRoots;
  const clang::Stmt *skipStatement = nullptr;
  /// The body of the helper or lambda called for its effects, where
  /// `if (...) return;` skips the rest of the helper.
  std::vector<const clang::CompoundStmt *> helperBodies;
};

/// T of std::complex<T>; a null type for any other type.
clang::QualType complexElementType(clang::QualType type);

} // namespace lift
} // namespace import
} // namespace stencilc

#endif
