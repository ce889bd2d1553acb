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
#include "import/Symbolic.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace clang;
using llvm::Twine;

namespace stencilc {
namespace import {
namespace {

constexpr const char *kAxisNames[] = {"x", "y", "z", "t"};
constexpr int kMaxAxes = 4;
/// Sites enumerated per sample lattice, at most.
constexpr int64_t kMaxSites = 50'000'000;

struct ArrayValue {
  const ValueDecl *decl = nullptr;
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
  SourceRange range;
};

struct Guard {
  ConditionRef condition;
  bool skipWhenTrue = true;
  SourceRange range;
};

struct Loop {
  int coordinate = -1;
  Poly low, high; ///< the variable runs over [low, high)
  SourceRange range;
};

struct Store {
  ArrayValue access;
  FloatValue value;
  std::vector<Guard> guards;
  std::vector<Loop> loops;
  SourceRange range;
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

class Lifter {
public:
  Lifter(ASTContext &context, const FunctionDecl &function,
         const ImportOptions &options)
      : context(context), function(function), options(options),
        diags(context.getDiagnostics()), sources(context.getSourceManager()) {}

  std::optional<ImportedStencil> run();

private:
  // --- diagnostics --------------------------------------------------------
  bool error(SourceRange range, const Twine &message) {
    unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
    diags.Report(range.getBegin(), id)
        << message.str() << CharSourceRange::getTokenRange(range);
    failed = true;
    return false;
  }
  void note(SourceRange range, const Twine &message) {
    unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
    diags.Report(range.getBegin(), id)
        << message.str() << CharSourceRange::getTokenRange(range);
  }
  std::string text(SourceRange range) const {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(range), sources,
                                context.getLangOpts())
        .str();
  }
  std::string where(SourceLocation location) const {
    PresumedLoc p = sources.getPresumedLoc(sources.getFileLoc(location));
    if (p.isInvalid())
      return "?";
    return std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) +
           ":" + std::to_string(p.getColumn());
  }

  // --- evaluation ---------------------------------------------------------
  bool bindParameters();
  std::optional<Value> eval(const Expr *e);
  std::optional<Value> evalCast(const Expr *sub, QualType type, bool load,
                                const Expr *whole);
  std::optional<Value> evalDeclRef(const DeclRefExpr *ref);
  std::optional<Value> evalMember(const MemberExpr *member);
  std::optional<Value> evalBinary(const BinaryOperator *op);
  std::optional<Value> evalUnary(const UnaryOperator *op);
  std::optional<Value> evalConditional(const ConditionalOperator *op);
  std::optional<Value> evalCall(const CallExpr *call);
  /// a * b: at most one factor reads data, and the product stays linear in
  /// the parameters.
  std::optional<FloatValue> multiply(const FloatValue &a, const FloatValue &b,
                                     SourceRange range);
  std::optional<Poly> evalInt(const Expr *e);
  std::optional<FloatValue> asFloat(const Value &v, const Expr *e);
  std::optional<ConditionRef> asCondition(const Value &v, const Expr *e);
  std::optional<Poly> modulo(const Poly &p, const Poly &m, const Expr *e);
  std::optional<Poly> conditionalWrap(const ConditionRef &c, const Poly &a,
                                      const Poly &b, const Expr *e);
  int arrayRank(const ValueDecl *decl) const;
  QualType elementType(const ValueDecl *decl) const;

  // --- statements ---------------------------------------------------------
  bool walk(const Stmt *s);
  bool walkCompound(const CompoundStmt *block);
  bool walkIf(const IfStmt *s, bool &addedGuard);
  bool walkFor(const ForStmt *s);
  bool walkDecl(const DeclStmt *s);
  bool assign(const BinaryOperator *op);
  bool store(const BinaryOperator *op, const ArrayValue &target);

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
                                      SourceRange range);
  std::optional<ImportedStencil> infer();
  std::optional<Extent> topExtent(int coordinate);

  ASTContext &context;
  const FunctionDecl &function;
  const ImportOptions &options;
  DiagnosticsEngine &diags;
  const SourceManager &sources;
  bool failed = false;

  AtomTable atoms;
  std::map<const VarDecl *, Value> env;
  struct Scope {
    int loopDepth = 0;
    int conditionDepth = 0;
  };
  std::map<const VarDecl *, Scope> declaredAt;
  std::vector<Read> reads;
  std::optional<Store> written;
  std::vector<Guard> guards;
  std::vector<Loop> loops;
  int conditionDepth = 0;
  int inlineDepth = 0;
  int threadCoordinates[3] = {-1, -1, -1};
  const CompoundStmt *functionBody = nullptr;
  std::vector<const Stmt *> loopBodies;
};

// ===--------------------------------------------------------------------===//
// Values
// ===--------------------------------------------------------------------===//

int Lifter::arrayRank(const ValueDecl *decl) const {
  QualType type = decl->getType();
  if (auto *param = dyn_cast<ParmVarDecl>(decl))
    type = param->getOriginalType();
  int rank = 0;
  while (true) {
    type = type.getCanonicalType();
    if (const auto *pointer = type->getAs<PointerType>()) {
      type = pointer->getPointeeType();
      ++rank;
    } else if (const ArrayType *array = context.getAsArrayType(type)) {
      type = array->getElementType();
      ++rank;
    } else {
      return rank;
    }
  }
}

QualType Lifter::elementType(const ValueDecl *decl) const {
  QualType type = decl->getType();
  while (true) {
    type = type.getCanonicalType();
    if (const auto *pointer = type->getAs<PointerType>())
      type = pointer->getPointeeType();
    else if (const ArrayType *array = context.getAsArrayType(type))
      type = array->getElementType();
    else
      return type.getUnqualifiedType();
  }
}

bool Lifter::bindParameters() {
  for (const ParmVarDecl *param : function.parameters()) {
    QualType type = param->getType().getCanonicalType();
    if (type->isPointerType() || type->isArrayType()) {
      ArrayValue array;
      array.decl = param;
      array.rank = arrayRank(param);
      env[param] = Value::ofArray(array);
    } else if (type->isIntegerType() && !type->isBooleanType()) {
      env[param] = Value::ofInt(
          Poly::atom(atoms.size(param, param->getNameAsString(), {})));
    } else if (type->isRealFloatingType()) {
      FloatValue f;
      f.constant = LinearForm::parameter(param->getNameAsString());
      env[param] = Value::ofFloat(f);
    }
    // Anything else is reported where it is used.
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
      (a.threadKind == 0 ? tid : a.threadKind == 1 ? bid : dim) = id;
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

std::optional<Value> Lifter::eval(const Expr *e) {
  e = e->IgnoreParens();
  if (const auto *cast = dyn_cast<ImplicitCastExpr>(e))
    return evalCast(cast->getSubExpr(), cast->getType(),
                    cast->getCastKind() == CK_LValueToRValue, e);
  if (const auto *cast = dyn_cast<ExplicitCastExpr>(e))
    return evalCast(cast->getSubExpr(), cast->getType(), false, e);
  if (const auto *x = dyn_cast<ExprWithCleanups>(e))
    return eval(x->getSubExpr());
  if (const auto *x = dyn_cast<MaterializeTemporaryExpr>(e))
    return eval(x->getSubExpr());
  if (const auto *x = dyn_cast<ConstantExpr>(e))
    return eval(x->getSubExpr());
  if (const auto *x = dyn_cast<SubstNonTypeTemplateParmExpr>(e))
    return eval(x->getReplacement());
  if (const auto *x = dyn_cast<CXXDefaultArgExpr>(e))
    return eval(x->getExpr());
  if (const auto *literal = dyn_cast<IntegerLiteral>(e))
    return Value::ofInt(
        Poly::number(static_cast<int64_t>(literal->getValue().getZExtValue())));
  if (const auto *literal = dyn_cast<FloatingLiteral>(e)) {
    FloatValue f;
    f.constant = LinearForm::number(literal->getValueAsApproximateDouble());
    return Value::ofFloat(f);
  }
  if (const auto *literal = dyn_cast<CXXBoolLiteralExpr>(e))
    return Value::ofBool(Condition::compare(
        literal->getValue() ? Condition::Kind::True : Condition::Kind::False,
        {}, {}));
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    return evalDeclRef(ref);
  if (const auto *member = dyn_cast<MemberExpr>(e))
    return evalMember(member);
  if (const auto *subscript = dyn_cast<ArraySubscriptExpr>(e)) {
    std::optional<Value> base = eval(subscript->getBase());
    if (!base)
      return std::nullopt;
    if (base->kind != Value::Kind::Array) {
      error(subscript->getBase()->getSourceRange(),
            "subscripts something that is not a parameter array");
      return std::nullopt;
    }
    std::optional<Poly> index = evalInt(subscript->getIdx());
    if (!index)
      return std::nullopt;
    ArrayValue array = base->array;
    if (static_cast<int>(array.subscripts.size()) >= array.rank) {
      error(subscript->getSourceRange(), "too many subscripts");
      return std::nullopt;
    }
    array.subscripts.push_back(canonical(*index));
    return Value::ofArray(array);
  }
  if (const auto *op = dyn_cast<BinaryOperator>(e))
    return evalBinary(op);
  if (const auto *op = dyn_cast<UnaryOperator>(e))
    return evalUnary(op);
  if (const auto *op = dyn_cast<ConditionalOperator>(e))
    return evalConditional(op);
  if (const auto *call = dyn_cast<CallExpr>(e))
    return evalCall(call);
  error(e->getSourceRange(), Twine("stencilc import cannot evaluate this "
                                   "expression (") +
                                 e->getStmtClassName() + ")");
  return std::nullopt;
}

std::optional<Value> Lifter::evalCast(const Expr *sub, QualType type, bool load,
                                      const Expr *whole) {
  std::optional<Value> v = eval(sub);
  if (!v)
    return std::nullopt;
  if (load && v->kind == Value::Kind::Array && !v->array.subscripts.empty()) {
    const ArrayValue &array = v->array;
    if (static_cast<int>(array.subscripts.size()) != array.rank) {
      error(whole->getSourceRange(),
            "reads part of a multi-dimensional array; index every dimension");
      return std::nullopt;
    }
    reads.push_back({array, whole->getSourceRange()});
    FloatValue f;
    f.reads.emplace_back(static_cast<int>(reads.size()) - 1,
                         LinearForm::number(1.0));
    return Value::ofFloat(f);
  }
  type = type.getCanonicalType();
  if (type->isRealFloatingType()) {
    if (v->kind == Value::Kind::Int) {
      if (!v->poly.isNumber()) {
        error(sub->getSourceRange(),
              "uses the integer value '" + atoms.text(v->poly) +
                  "' as a coefficient; a coefficient is a number or a "
                  "floating-point parameter");
        return std::nullopt;
      }
      FloatValue f;
      f.constant = LinearForm::number(static_cast<double>(v->poly.numberValue()));
      return Value::ofFloat(f);
    }
    if (v->kind == Value::Kind::Float)
      return v;
  } else if (type->isIntegerType()) {
    if (v->kind == Value::Kind::Float) {
      error(whole->getSourceRange(),
            "converts a floating-point value to an integer; indices must "
            "not depend on data");
      return std::nullopt;
    }
    if (v->kind == Value::Kind::Bool && !type->isBooleanType()) {
      error(whole->getSourceRange(), "uses a condition as an integer");
      return std::nullopt;
    }
    return v;
  }
  return v; // pointer decay, qualification: the value is unchanged
}

std::optional<Value> Lifter::evalDeclRef(const DeclRefExpr *ref) {
  const ValueDecl *decl = ref->getDecl();
  if (const auto *constant = dyn_cast<EnumConstantDecl>(decl))
    return Value::ofInt(Poly::number(constant->getInitVal().getExtValue()));
  const auto *var = dyn_cast<VarDecl>(decl);
  if (!var) {
    error(ref->getSourceRange(),
          "uses '" + decl->getNameAsString() + "' as a value");
    return std::nullopt;
  }
  auto it = env.find(var);
  if (it != env.end()) {
    if (it->second.kind == Value::Kind::Unset) {
      error(ref->getSourceRange(),
            "reads '" + var->getNameAsString() + "' before it is set");
      return std::nullopt;
    }
    return it->second;
  }
  if (const auto *param = dyn_cast<ParmVarDecl>(var)) {
    error(ref->getSourceRange(),
          "parameter '" + param->getNameAsString() + "' of type '" +
              param->getType().getAsString() +
              "' is neither an array, an integer size nor a floating-point "
              "coefficient");
    return std::nullopt;
  }
  // Constants from outside the function: integer ones stay symbolic (they
  // read as sizes, e.g. NX in a stride), floating ones are numbers.
  QualType type = var->getType().getCanonicalType();
  if (type.isConstQualified() && var->getAnyInitializer()) {
    if (const APValue *value = var->evaluateValue()) {
      if (type->isIntegerType() && value->isInt())
        return Value::ofInt(Poly::atom(atoms.size(
            var, var->getNameAsString(), value->getInt().getExtValue())));
      if (type->isRealFloatingType() && value->isFloat()) {
        FloatValue f;
        f.constant = LinearForm::number(
            value->getFloat().convertToDouble());
        return Value::ofFloat(f);
      }
    }
  }
  if (var->hasGlobalStorage() && (type->isPointerType() || type->isArrayType())) {
    error(ref->getSourceRange(),
          "reads the global array '" + var->getNameAsString() +
              "'; pass the fields as parameters");
    return std::nullopt;
  }
  error(ref->getSourceRange(),
        "reads '" + var->getNameAsString() +
            "', a variable outside the function whose value stencilc import "
            "cannot know; make it a constant or a parameter");
  return std::nullopt;
}

std::optional<Value> Lifter::evalMember(const MemberExpr *member) {
  const Expr *base = member->getBase()->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(base);
  std::string field = member->getMemberDecl()->getNameAsString();
  if (ref && field.size() == 1 && field[0] >= 'x' && field[0] <= 'z') {
    std::string name = ref->getDecl()->getNameAsString();
    int axis = field[0] - 'x';
    int kind = name == "threadIdx" ? 0 : name == "blockIdx" ? 1
               : name == "blockDim" ? 2 : -1;
    if (kind >= 0)
      return Value::ofInt(Poly::atom(atoms.thread(kind, axis)));
    if (name == "gridDim") {
      error(member->getSourceRange(),
            "uses gridDim: the sites a kernel updates must not depend on "
            "the launch's grid");
      return std::nullopt;
    }
  }
  error(member->getSourceRange(),
        "reads the member '" + field +
            "'; stencilc import follows scalars, arrays and thread indices");
  return std::nullopt;
}

std::optional<Poly> Lifter::evalInt(const Expr *e) {
  std::optional<Value> v = eval(e);
  if (!v)
    return std::nullopt;
  if (v->kind != Value::Kind::Int) {
    error(e->getSourceRange(),
          v->kind == Value::Kind::Float
              ? "an index depends on a floating-point value; indices must be "
                "integers affine in the lattice coordinates"
              : "expected an integer here");
    return std::nullopt;
  }
  return v->poly;
}

std::optional<FloatValue> Lifter::asFloat(const Value &v, const Expr *e) {
  if (v.kind == Value::Kind::Float)
    return v.number;
  if (v.kind == Value::Kind::Int && v.poly.isNumber()) {
    FloatValue f;
    f.constant = LinearForm::number(static_cast<double>(v.poly.numberValue()));
    return f;
  }
  error(e->getSourceRange(), "expected a floating-point value here");
  return std::nullopt;
}

std::optional<ConditionRef> Lifter::asCondition(const Value &v, const Expr *e) {
  if (v.kind == Value::Kind::Bool)
    return v.condition;
  if (v.kind == Value::Kind::Int)
    return Condition::compare(Condition::Kind::NotEqual, v.poly,
                              Poly::number(0));
  if (v.kind == Value::Kind::Float && !v.number.readsNothing()) {
    const Read &read = reads[v.number.reads.front().first];
    error(read.range, "a condition depends on the data read here; the sites "
                      "updated must not depend on the field's values");
    return std::nullopt;
  }
  error(e->getSourceRange(), "stencilc import follows conditions on integer "
                             "indices only");
  return std::nullopt;
}

std::optional<Value> Lifter::evalBinary(const BinaryOperator *op) {
  BinaryOperatorKind kind = op->getOpcode();
  if (op->isAssignmentOp() || kind == BO_Comma) {
    error(op->getSourceRange(), "assigns inside an expression; write one "
                                "assignment per statement");
    return std::nullopt;
  }
  std::optional<Value> lhs = eval(op->getLHS());
  if (!lhs)
    return std::nullopt;
  std::optional<Value> rhs = eval(op->getRHS());
  if (!rhs)
    return std::nullopt;

  if (kind == BO_LAnd || kind == BO_LOr) {
    std::optional<ConditionRef> a = asCondition(*lhs, op->getLHS());
    if (!a)
      return std::nullopt;
    std::optional<ConditionRef> b = asCondition(*rhs, op->getRHS());
    if (!b)
      return std::nullopt;
    return Value::ofBool(Condition::combine(
        kind == BO_LAnd ? Condition::Kind::And : Condition::Kind::Or, *a, *b));
  }
  if (op->isComparisonOp()) {
    for (const auto &[v, e] : {std::pair{&*lhs, op->getLHS()},
                               std::pair{&*rhs, op->getRHS()}})
      if (v->kind != Value::Kind::Int) {
        asCondition(*v, e); // reports data-dependent conditions
        if (!failed)
          error(op->getSourceRange(),
                "compares non-integer values; stencilc import follows "
                "conditions on integer indices only");
        return std::nullopt;
      }
    Condition::Kind c = kind == BO_LT   ? Condition::Kind::Less
                        : kind == BO_LE ? Condition::Kind::LessEqual
                        : kind == BO_GT ? Condition::Kind::Greater
                        : kind == BO_GE ? Condition::Kind::GreaterEqual
                        : kind == BO_EQ ? Condition::Kind::Equal
                                        : Condition::Kind::NotEqual;
    return Value::ofBool(Condition::compare(c, canonical(lhs->poly),
                                            canonical(rhs->poly)));
  }

  if (lhs->kind == Value::Kind::Int && rhs->kind == Value::Kind::Int) {
    const Poly &a = lhs->poly, &b = rhs->poly;
    switch (kind) {
    case BO_Add:
      return Value::ofInt(canonical(a + b));
    case BO_Sub:
      return Value::ofInt(canonical(a - b));
    case BO_Mul:
      return Value::ofInt(canonical(a * b));
    case BO_Div:
      if (a.isNumber() && b.isNumber() && b.numberValue() != 0)
        return Value::ofInt(Poly::number(a.numberValue() / b.numberValue()));
      error(op->getSourceRange(),
            "divides '" + atoms.text(a) + "' by '" + atoms.text(b) +
                "': an index must be affine in the lattice coordinates");
      return std::nullopt;
    case BO_Rem:
      if (std::optional<Poly> r = modulo(canonical(a), canonical(b), op))
        return Value::ofInt(*r);
      return std::nullopt;
    default:
      if (a.isNumber() && b.isNumber()) {
        int64_t x = a.numberValue(), y = b.numberValue();
        switch (kind) {
        case BO_Shl:
          return Value::ofInt(Poly::number(x << y));
        case BO_Shr:
          return Value::ofInt(Poly::number(x >> y));
        case BO_And:
          return Value::ofInt(Poly::number(x & y));
        case BO_Or:
          return Value::ofInt(Poly::number(x | y));
        case BO_Xor:
          return Value::ofInt(Poly::number(x ^ y));
        default:
          break;
        }
      }
      error(op->getSourceRange(),
            "uses operator '" + BinaryOperator::getOpcodeStr(kind).str() +
                "' on an index: an index must be affine in the lattice "
                "coordinates");
      return std::nullopt;
    }
  }

  std::optional<FloatValue> a = asFloat(*lhs, op->getLHS());
  if (!a)
    return std::nullopt;
  std::optional<FloatValue> b = asFloat(*rhs, op->getRHS());
  if (!b)
    return std::nullopt;
  switch (kind) {
  case BO_Add:
    return Value::ofFloat(*a + *b);
  case BO_Sub:
    return Value::ofFloat(*a + b->scaled(LinearForm::number(-1.0)));
  case BO_Mul:
    if (std::optional<FloatValue> product =
            multiply(*a, *b, op->getSourceRange()))
      return Value::ofFloat(*product);
    return std::nullopt;
  case BO_Div: {
    if (!b->readsNothing()) {
      error(reads[b->reads.front().first].range,
            "divides by data read from an array: a tap's coefficient cannot "
            "depend on data");
      return std::nullopt;
    }
    if (!b->constant.isNumber() || b->constant.constant == 0.0) {
      error(op->getRHS()->getSourceRange(),
            b->constant.isNumber()
                ? Twine("divides by zero")
                : "divides by '" + Twine(b->constant.text()) +
                      "': a spec's coefficients are linear in the parameters "
                      "(pass the reciprocal as the parameter)");
      return std::nullopt;
    }
    return Value::ofFloat(
        a->scaled(LinearForm::number(1.0 / b->constant.constant)));
  }
  default:
    error(op->getSourceRange(),
          "uses operator '" + BinaryOperator::getOpcodeStr(kind).str() +
              "' on floating-point values; a stencil is a weighted sum");
    return std::nullopt;
  }
}

std::optional<FloatValue> Lifter::multiply(const FloatValue &a,
                                           const FloatValue &b,
                                           SourceRange range) {
  if (!a.readsNothing() && !b.readsNothing()) {
    const Read &first = reads[a.reads.front().first];
    const Read &second = reads[b.reads.front().first];
    error(second.range,
          "multiplies '" + text(first.range) + "' by '" + text(second.range) +
              "': a tap's coefficient cannot depend on data read from an "
              "array");
    note(first.range, "the other factor is read here");
    return std::nullopt;
  }
  const FloatValue &value = a.readsNothing() ? b : a;
  const FloatValue &factor = a.readsNothing() ? a : b;
  bool valueIsNumeric =
      value.constant.isNumber() &&
      llvm::all_of(value.reads,
                   [](const auto &r) { return r.second.isNumber(); });
  if (!factor.constant.isNumber() && !valueIsNumeric) {
    error(range,
          "multiplies '" + factor.constant.text() + "' by a value that "
          "already has parameter '" +
              (value.constant.isNumber()
                   ? llvm::find_if(value.reads,
                                   [](const auto &r) {
                                     return !r.second.isNumber();
                                   })
                         ->second.terms.front()
                         .first
                   : value.constant.terms.front().first) +
              "' in it: a spec's coefficients are linear in the "
              "parameters (pass the product as one parameter)");
    return std::nullopt;
  }
  // One side is numeric here, which is what scaled() needs.
  return value.scaled(factor.constant);
}

std::optional<Value> Lifter::evalUnary(const UnaryOperator *op) {
  UnaryOperatorKind kind = op->getOpcode();
  if (kind == UO_Plus)
    return eval(op->getSubExpr());
  if (kind == UO_Minus || kind == UO_LNot) {
    std::optional<Value> v = eval(op->getSubExpr());
    if (!v)
      return std::nullopt;
    if (kind == UO_LNot) {
      std::optional<ConditionRef> c = asCondition(*v, op->getSubExpr());
      if (!c)
        return std::nullopt;
      return Value::ofBool(
          Condition::combine(Condition::Kind::Not, *c, nullptr));
    }
    if (v->kind == Value::Kind::Int)
      return Value::ofInt(-v->poly);
    if (v->kind == Value::Kind::Float)
      return Value::ofFloat(v->number.scaled(LinearForm::number(-1.0)));
  }
  error(op->getSourceRange(),
        "stencilc import cannot follow operator '" +
            UnaryOperator::getOpcodeStr(kind).str() + "' here");
  return std::nullopt;
}

std::optional<Value> Lifter::evalConditional(const ConditionalOperator *op) {
  std::optional<Value> cv = eval(op->getCond());
  if (!cv)
    return std::nullopt;
  std::optional<ConditionRef> c = asCondition(*cv, op->getCond());
  if (!c)
    return std::nullopt;
  std::optional<Value> a = eval(op->getTrueExpr());
  if (!a)
    return std::nullopt;
  std::optional<Value> b = eval(op->getFalseExpr());
  if (!b)
    return std::nullopt;
  if (a->kind == Value::Kind::Int && b->kind == Value::Kind::Int) {
    if (std::optional<Poly> r = conditionalWrap(*c, a->poly, b->poly, op))
      return Value::ofInt(*r);
    return std::nullopt;
  }
  error(op->getSourceRange(),
        "chooses a value with a condition; a tap's coefficient must be the "
        "same at every site");
  return std::nullopt;
}

std::optional<Value> Lifter::evalCall(const CallExpr *call) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee) {
    error(call->getSourceRange(),
          "calls through a pointer or an overloaded operator, which stencilc "
          "import cannot see into");
    return std::nullopt;
  }
  std::string name = callee->getQualifiedNameAsString();
  if ((name == "fma" || name == "fmaf" || name == "std::fma" ||
       name == "__builtin_fma" || name == "__builtin_fmaf") &&
      call->getNumArgs() == 3) {
    std::optional<Value> a = eval(call->getArg(0)), b, c;
    if (!a || !(b = eval(call->getArg(1))) || !(c = eval(call->getArg(2))))
      return std::nullopt;
    // fma(a, b, c) = a * b + c, the product by the operator's rules.
    std::optional<FloatValue> fa = asFloat(*a, call->getArg(0)),
                              fb = fa ? asFloat(*b, call->getArg(1))
                                      : std::nullopt,
                              fc = fb ? asFloat(*c, call->getArg(2))
                                      : std::nullopt;
    if (!fc)
      return std::nullopt;
    // A parameter factor is refused here (write a * b + c instead).
    if ((fa->readsNothing() || fb->readsNothing()) &&
        !(fa->readsNothing() ? *fa : *fb).constant.isNumber()) {
      error(call->getSourceRange(),
            "fma with a parameter factor: write it as a * b + c");
      return std::nullopt;
    }
    std::optional<FloatValue> product =
        multiply(*fa, *fb, call->getSourceRange());
    if (!product)
      return std::nullopt;
    return Value::ofFloat(*product + *fc);
  }
  const FunctionDecl *definition = callee->getDefinition();
  if (!definition || !definition->hasBody()) {
    error(call->getSourceRange(),
          "calls '" + name +
              "', whose body stencilc import cannot see; define it in the "
              "file (inline) or write the expression out");
    return std::nullopt;
  }
  if (inlineDepth >= 16 || definition == &function) {
    error(call->getSourceRange(), "calls '" + name + "' recursively");
    return std::nullopt;
  }
  const auto *body = dyn_cast<CompoundStmt>(definition->getBody());
  const ReturnStmt *result = nullptr;
  for (const Stmt *s : body->body())
    if (!isa<DeclStmt>(s))
      result = dyn_cast<ReturnStmt>(s) && s == body->body_back()
                   ? cast<ReturnStmt>(s)
                   : nullptr;
  if (!result || !result->getRetValue() || body->body_empty()) {
    error(call->getSourceRange(),
          "calls '" + name +
              "', which does more than declare constants and return one "
              "expression; stencilc import follows only such functions");
    return std::nullopt;
  }
  std::vector<std::pair<const VarDecl *, Value>> bound;
  for (unsigned i = 0; i < call->getNumArgs() && i < definition->getNumParams();
       ++i) {
    std::optional<Value> arg = eval(call->getArg(i));
    if (!arg)
      return std::nullopt;
    bound.emplace_back(definition->getParamDecl(i), *arg);
  }
  for (auto &[param, value] : bound)
    env[param] = value;
  ++inlineDepth;
  bool ok = true;
  for (const Stmt *s : body->body())
    if (const auto *decl = dyn_cast<DeclStmt>(s))
      ok = ok && walkDecl(decl);
  std::optional<Value> value;
  if (ok)
    value = eval(result->getRetValue());
  --inlineDepth;
  return value;
}

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

// ===--------------------------------------------------------------------===//
// Statements
// ===--------------------------------------------------------------------===//

bool Lifter::walk(const Stmt *s) {
  if (!s || isa<NullStmt>(s))
    return true;
  if (const auto *block = dyn_cast<CompoundStmt>(s))
    return walkCompound(block);
  if (const auto *decl = dyn_cast<DeclStmt>(s))
    return walkDecl(decl);
  if (const auto *loop = dyn_cast<ForStmt>(s))
    return walkFor(loop);
  if (const auto *branch = dyn_cast<IfStmt>(s)) {
    bool addedGuard = false;
    bool ok = walkIf(branch, addedGuard);
    if (addedGuard)
      return error(branch->getSourceRange(),
                   "skips sites from inside a nested block; put 'if (...) "
                   "return;' at the top of the function or 'if (...) "
                   "continue;' at the top of the loop body");
    return ok;
  }
  if (const auto *e = dyn_cast<Expr>(s)) {
    // `(void)x;` silences unused-variable warnings and does nothing.
    if (const auto *cast = dyn_cast<CStyleCastExpr>(e->IgnoreParens()))
      if (cast->getType()->isVoidType() && !cast->HasSideEffects(context))
        return true;
    const Expr *inner = e->IgnoreParenImpCasts();
    if (const auto *x = dyn_cast<ExprWithCleanups>(inner))
      inner = x->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *op = dyn_cast<BinaryOperator>(inner))
      if (op->isAssignmentOp())
        return assign(op);
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(inner))
      return error(op->getSourceRange(),
                   "calls an overloaded operator, which stencilc import "
                   "cannot see into");
    if (const auto *call = dyn_cast<CallExpr>(inner)) {
      const FunctionDecl *callee = call->getDirectCallee();
      return error(call->getSourceRange(),
                   "calls '" +
                       (callee ? callee->getQualifiedNameAsString()
                               : std::string("a function")) +
                       "' for its effects, which stencilc import cannot "
                       "follow");
    }
    if (const auto *op = dyn_cast<UnaryOperator>(inner))
      if (op->isIncrementDecrementOp())
        return error(op->getSourceRange(),
                     "increments a variable outside a loop header; stencilc "
                     "import follows straight-line code");
    return error(e->getSourceRange(), "this statement has no effect that "
                                      "stencilc import can follow");
  }
  if (isa<WhileStmt>(s) || isa<DoStmt>(s))
    return error(s->getSourceRange(),
                 "stencilc import follows 'for' loops over lattice "
                 "coordinates only");
  if (isa<ReturnStmt>(s))
    return error(s->getSourceRange(),
                 "returns here; stencilc import follows 'if (...) return;' "
                 "at the top of a kernel only");
  return error(s->getSourceRange(),
               Twine("stencilc import cannot follow this statement (") +
                   s->getStmtClassName() + ")");
}

bool Lifter::walkCompound(const CompoundStmt *block) {
  size_t mark = guards.size();
  for (const Stmt *s : block->body()) {
    if (const auto *branch = dyn_cast<IfStmt>(s)) {
      bool addedGuard = false;
      if (!walkIf(branch, addedGuard))
        return false;
      if (addedGuard) {
        bool atTop = block == functionBody && loops.empty();
        bool inLoopBody = !loopBodies.empty() && block == loopBodies.back();
        const Stmt *exit = branch->getThen();
        if (const auto *c = dyn_cast<CompoundStmt>(exit))
          exit = c->body_front();
        if ((isa<ReturnStmt>(exit) && !atTop) ||
            (isa<ContinueStmt>(exit) && !inLoopBody))
          return error(branch->getSourceRange(),
                       isa<ReturnStmt>(exit)
                           ? "returns from inside a loop or a nested block; "
                             "stencilc import follows 'if (...) return;' at "
                             "the top level of the function"
                           : "continues from a nested block; put 'if (...) "
                             "continue;' directly in the loop body");
      }
      continue;
    }
    if (const auto *ret = dyn_cast<ReturnStmt>(s)) {
      if (block == functionBody && loops.empty() && !ret->getRetValue())
        break; // the rest is unreachable
    }
    if (!walk(s))
      return false;
  }
  guards.resize(mark);
  return true;
}

bool Lifter::walkIf(const IfStmt *s, bool &addedGuard) {
  if (s->getInit() || s->getConditionVariable() || s->isConstexpr())
    return error(s->getSourceRange(),
                 "stencilc import follows plain 'if (condition)' only");
  std::optional<Value> cv = eval(s->getCond());
  if (!cv)
    return false;
  std::optional<ConditionRef> c = asCondition(*cv, s->getCond());
  if (!c)
    return false;
  const Stmt *then = s->getThen();
  const Stmt *exit = then;
  if (const auto *block = dyn_cast<CompoundStmt>(then))
    exit = block->size() == 1 ? block->body_front() : nullptr;
  bool isExit = exit && ((isa<ReturnStmt>(exit) &&
                          !cast<ReturnStmt>(exit)->getRetValue()) ||
                         isa<ContinueStmt>(exit));
  if (s->getElse())
    return error(s->getElse()->getBeginLoc(),
                 "has an 'else' branch; stencilc import follows guards that "
                 "skip sites ('if (...) return;', 'if (...) continue;' or "
                 "'if (...) { ... }')");
  if (isExit) {
    guards.push_back({*c, true, s->getCond()->getSourceRange()});
    addedGuard = true;
    return true;
  }
  guards.push_back({*c, false, s->getCond()->getSourceRange()});
  ++conditionDepth;
  bool ok = walk(then);
  --conditionDepth;
  guards.pop_back();
  return ok;
}

bool Lifter::walkDecl(const DeclStmt *s) {
  for (const Decl *d : s->decls()) {
    const auto *var = dyn_cast<VarDecl>(d);
    if (!var)
      continue; // typedefs, using-declarations
    QualType type = var->getType().getCanonicalType();
    if (type->isArrayType())
      return error(var->getSourceRange(),
                   "declares the local array '" + var->getNameAsString() +
                       "'; stencilc import follows scalar locals only");
    declaredAt[var] = {static_cast<int>(loops.size()), conditionDepth};
    if (!var->getInit()) {
      env[var] = Value{};
      continue;
    }
    std::optional<Value> v = eval(var->getInit());
    if (!v)
      return false;
    if (v->kind == Value::Kind::Int && v->poly.terms().size() == 1) {
      // Name a thread coordinate after the variable that holds it.
      const auto &[mono, c] = *v->poly.terms().begin();
      if (mono.size() == 1 && c == 1) {
        Atom &atom = atoms[mono.front()];
        if (atom.kind == Atom::Kind::Coordinate && atom.threadAxis >= 0 &&
            atom.decl == nullptr) {
          atom.name = var->getNameAsString();
          atom.decl = var;
        }
      }
    }
    if (v->kind == Value::Kind::Int && type->isRealFloatingType()) {
      std::optional<FloatValue> f = asFloat(*v, var->getInit());
      if (!f)
        return false;
      v = Value::ofFloat(*f);
    }
    env[var] = *v;
  }
  return true;
}

bool Lifter::walkFor(const ForStmt *s) {
  auto fail = [&](SourceRange r, const Twine &why) {
    return error(r, "stencilc import follows loops 'for (int c = low; c < "
                    "high; ++c)' over lattice coordinates: " +
                        why);
  };
  const VarDecl *var = nullptr;
  const Expr *lowExpr = nullptr;
  if (const auto *init = dyn_cast_or_null<DeclStmt>(s->getInit())) {
    if (init->isSingleDecl())
      if ((var = dyn_cast<VarDecl>(init->getSingleDecl())))
        lowExpr = var->getInit();
  }
  if (!var || !lowExpr || !var->getType()->isIntegerType())
    return fail(s->getInit() ? s->getInit()->getSourceRange()
                             : s->getSourceRange(),
                "the loop must declare one integer variable with a start "
                "value");
  std::optional<Poly> low = evalInt(lowExpr);
  if (!low)
    return false;
  const auto *cond =
      dyn_cast_or_null<BinaryOperator>(s->getCond() ? s->getCond()->IgnoreParenImpCasts() : nullptr);
  auto isVar = [&](const Expr *e) {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == var;
  };
  if (!cond || !cond->isComparisonOp())
    return fail(s->getCond() ? s->getCond()->getSourceRange()
                             : s->getSourceRange(),
                "the condition must compare the variable with a bound");
  bool varOnLeft = isVar(cond->getLHS());
  if (!varOnLeft && !isVar(cond->getRHS()))
    return fail(cond->getSourceRange(),
                "the condition must compare '" + var->getNameAsString() +
                    "' with a bound");
  std::optional<Poly> bound =
      evalInt(varOnLeft ? cond->getRHS() : cond->getLHS());
  if (!bound)
    return false;
  BinaryOperatorKind k = cond->getOpcode();
  if (!varOnLeft)
    k = k == BO_GT ? BO_LT : k == BO_GE ? BO_LE : k;
  Poly high;
  if (k == BO_LT || k == BO_NE)
    high = canonical(*bound);
  else if (k == BO_LE)
    high = canonical(*bound) + Poly::number(1);
  else
    return fail(cond->getSourceRange(), "the loop must count upwards");
  const Expr *inc = s->getInc() ? s->getInc()->IgnoreParenImpCasts() : nullptr;
  bool stepOne = false;
  if (const auto *u = dyn_cast_or_null<UnaryOperator>(inc))
    stepOne = u->isIncrementOp() && isVar(u->getSubExpr());
  else if (const auto *b = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
    const auto *one = dyn_cast<IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts());
    stepOne = b->getOpcode() == BO_AddAssign && isVar(b->getLHS()) && one &&
              one->getValue() == 1;
  }
  if (!stepOne)
    return fail(inc ? inc->getSourceRange() : s->getSourceRange(),
                "the loop must step by 1 (every site is updated once)");

  Atom atom;
  atom.kind = Atom::Kind::Coordinate;
  atom.name = var->getNameAsString();
  atom.decl = var;
  int coordinate = atoms.intern(atom);
  env[var] = Value::ofInt(Poly::atom(coordinate));
  declaredAt[var] = {static_cast<int>(loops.size()) + 1, conditionDepth};
  loops.push_back({coordinate, canonical(*low), high, cond->getSourceRange()});
  const Stmt *body = s->getBody();
  loopBodies.push_back(body);
  bool ok = walk(body);
  loopBodies.pop_back();
  loops.pop_back();
  return ok;
}

bool Lifter::assign(const BinaryOperator *op) {
  const Expr *target = op->getLHS()->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(target)) {
    const auto *var = dyn_cast<VarDecl>(ref->getDecl());
    if (!var || !declaredAt.count(var))
      return error(op->getSourceRange(),
                   "assigns to '" + ref->getDecl()->getNameAsString() +
                       "', which is not a local variable of the function");
    const Scope &scope = declaredAt[var];
    if (scope.loopDepth < static_cast<int>(loops.size()))
      return error(op->getSourceRange(),
                   "updates '" + var->getNameAsString() +
                       "' across iterations of the loop over '" +
                       atoms[loops.back().coordinate].name +
                       "'; each site's value must be computed on its own");
    if (scope.conditionDepth < conditionDepth)
      return error(op->getSourceRange(),
                   "assigns '" + var->getNameAsString() +
                       "' under a condition; stencilc import needs the same "
                       "formula at every site");
    std::optional<Value> rhs = eval(op->getRHS());
    if (!rhs)
      return false;
    Value value = *rhs;
    if (op->getOpcode() != BO_Assign) {
      Value current = env[var];
      if (current.kind == Value::Kind::Unset)
        return error(ref->getSourceRange(),
                     "reads '" + var->getNameAsString() + "' before it is set");
      BinaryOperatorKind k = op->getOpcode();
      if (current.kind == Value::Kind::Float) {
        std::optional<FloatValue> r = asFloat(*rhs, op->getRHS());
        if (!r)
          return false;
        if (k == BO_AddAssign)
          value = Value::ofFloat(current.number + *r);
        else if (k == BO_SubAssign)
          value = Value::ofFloat(current.number +
                                 r->scaled(LinearForm::number(-1.0)));
        else if ((k == BO_MulAssign || k == BO_DivAssign) && r->readsNothing() &&
                 r->constant.isNumber() && r->constant.constant != 0.0)
          value = Value::ofFloat(current.number.scaled(LinearForm::number(
              k == BO_MulAssign ? r->constant.constant
                                : 1.0 / r->constant.constant)));
        else
          return error(op->getSourceRange(),
                       "stencilc import follows +=, -= and scaling by a "
                       "number on floating-point locals");
      } else if (current.kind == Value::Kind::Int &&
                 rhs->kind == Value::Kind::Int &&
                 (k == BO_AddAssign || k == BO_SubAssign || k == BO_MulAssign)) {
        value = Value::ofInt(canonical(
            k == BO_AddAssign   ? current.poly + rhs->poly
            : k == BO_SubAssign ? current.poly - rhs->poly
                                : current.poly * rhs->poly));
      } else {
        return error(op->getSourceRange(),
                     "stencilc import cannot follow this compound assignment");
      }
    }
    QualType type = var->getType().getCanonicalType();
    if (value.kind == Value::Kind::Int && type->isRealFloatingType()) {
      std::optional<FloatValue> f = asFloat(value, op->getRHS());
      if (!f)
        return false;
      value = Value::ofFloat(*f);
    }
    env[var] = value;
    return true;
  }
  std::optional<Value> lhs = eval(op->getLHS());
  if (!lhs)
    return false;
  if (lhs->kind != Value::Kind::Array)
    return error(op->getLHS()->getSourceRange(),
                 "assigns to something that is neither a local nor an array "
                 "element");
  if (static_cast<int>(lhs->array.subscripts.size()) != lhs->array.rank)
    return error(op->getLHS()->getSourceRange(),
                 "assigns to part of a multi-dimensional array");
  if (op->getOpcode() != BO_Assign)
    return error(op->getSourceRange(),
                 "updates '" + text(op->getLHS()->getSourceRange()) +
                     "' in place ('" +
                     BinaryOperator::getOpcodeStr(op->getOpcode()).str() +
                     "'); a stencil writes its output with '=' (out = A in)");
  return store(op, lhs->array);
}

bool Lifter::store(const BinaryOperator *op, const ArrayValue &target) {
  if (written) {
    const ArrayValue &first = written->access;
    if (first.decl != target.decl) {
      error(op->getLHS()->getSourceRange(),
            "writes a second array, '" + target.decl->getNameAsString() +
                "'; a stencil has one output field");
    } else {
      error(op->getLHS()->getSourceRange(),
            "writes '" + target.decl->getNameAsString() +
                "' a second time; a stencil writes each site once");
    }
    note(written->range, "'" + first.decl->getNameAsString() +
                             "' is written here");
    return false;
  }
  if (const auto *param = dyn_cast<ParmVarDecl>(target.decl))
    if (elementType(param).isConstQualified())
      return error(op->getLHS()->getSourceRange(), "writes a const array");
  std::optional<Value> rhs = eval(op->getRHS());
  if (!rhs)
    return false;
  std::optional<FloatValue> value = asFloat(*rhs, op->getRHS());
  if (!value)
    return false;
  Store s;
  s.access = target;
  s.value = *value;
  s.guards = guards;
  s.loops = loops;
  s.range = op->getLHS()->getSourceRange();
  written = s;
  return true;
}

// ===--------------------------------------------------------------------===//
// Inference
// ===--------------------------------------------------------------------===//

std::optional<Decomposed> Lifter::decompose(const ArrayValue &access,
                                            SourceRange range) {
  Decomposed out;
  std::string array = access.decl->getNameAsString();
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
  QualType type = access.decl->getType();
  if (const auto *param = dyn_cast<ParmVarDecl>(access.decl))
    type = param->getOriginalType();
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

std::optional<Extent> Lifter::topExtent(int coordinate) {
  // The size this coordinate is compared with, in a loop bound or a guard.
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
    if (!node->a && (node->lhs.mentions(coordinate) || node->rhs.mentions(coordinate))) {
      collect(node->lhs);
      collect(node->rhs);
    }
  }
  if (sizes.size() == 1)
    return Extent{Poly::atom(*sizes.begin())};
  std::string name = atoms[coordinate].name;
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

std::optional<ImportedStencil> Lifter::infer() {
  const Store &s = *written;
  std::optional<Decomposed> out = decompose(s.access, s.range);
  if (!out)
    return std::nullopt;
  const int dims = static_cast<int>(out->axes.size());
  std::string outName = s.access.decl->getNameAsString();
  if (dims < 1 || dims > kMaxAxes) {
    error(s.range, "writes a " + std::to_string(dims) +
                       "-dimensional index; stencil specs have 1 to 4 axes");
    return std::nullopt;
  }
  if (out->flat && out->axes.front().stride != Poly::number(1)) {
    error(s.range, "no coordinate steps through '" + outName +
                       "' with stride 1 (the smallest stride is " +
                       atoms.text(out->axes.front().stride) + ")");
    return std::nullopt;
  }
  for (const AxisAccess &axis : out->axes)
    if (axis.wrapped) {
      error(s.range, "the output index wraps around; write the site itself");
      return std::nullopt;
    }
  for (const Loop &loop : s.loops)
    if (llvm::none_of(out->axes, [&](const AxisAccess &a) {
          return a.coordinate == loop.coordinate;
        })) {
      error(loop.range, "the loop over " + atoms[loop.coordinate].name +
                            " does not index '" + outName +
                            "'; every loop must run over a lattice axis");
      return std::nullopt;
    }

  // Extents: strides or array dimensions, the outermost from the bounds.
  std::vector<Extent> extents(dims);
  for (int a = 0; a < dims; ++a) {
    if (out->flat && a + 1 < dims) {
      extents[a] = {out->axes[a + 1].stride, out->axes[a].stride};
    } else if (!out->flat && out->dims[a]) {
      extents[a] = {Poly::number(*out->dims[a])};
    } else {
      std::optional<Extent> e = topExtent(out->axes[a].coordinate);
      if (!e)
        return std::nullopt;
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
                           atoms[out->axes[std::min(a + 1, dims - 1)].coordinate].name +
                           " (" + atoms.text(extents[a].num) +
                           ") is not a multiple of the stride of " +
                           atoms[out->axes[a].coordinate].name + " (" +
                           atoms.text(extents[a].den) + ")");
        return std::nullopt;
      }
      sizes[which][a] = num / den;
    }

  // Reads: one input array, indexed like the output plus constant offsets.
  /// One neighbour, the sum of every read of it.
  struct Tap {
    std::vector<int> offset;
    std::vector<bool> wrapped;
    LinearForm coefficient;
    int firstRead; ///< reads are numbered in source order
  };
  std::vector<Tap> taps;
  const ValueDecl *input = nullptr;
  SourceRange inputRange;
  for (const auto &[readId, coefficient] : s.value.reads) {
    const Read &read = reads[readId];
    if (read.access.decl == s.access.decl) {
      error(read.range, "reads the output array '" + outName +
                            "'; a stencil reads one field and writes "
                            "another (out = A in)");
      return std::nullopt;
    }
    if (input && read.access.decl != input) {
      error(read.range,
            "reads a second array, '" + read.access.decl->getNameAsString() +
                "'; a stencil has one input field (coefficients that vary by "
                "site are data-dependent)");
      note(inputRange, "'" + input->getNameAsString() + "' is read here");
      return std::nullopt;
    }
    input = read.access.decl;
    inputRange = read.range;
    std::optional<Decomposed> in = decompose(read.access, read.range);
    if (!in)
      return std::nullopt;
    if (in->flat != out->flat || in->axes.size() != out->axes.size()) {
      error(read.range, "'" + input->getNameAsString() +
                            "' is indexed differently from '" + outName +
                            "' (" + std::to_string(in->axes.size()) +
                            " coordinates here, " + std::to_string(dims) +
                            " there)");
      return std::nullopt;
    }
    Tap tap{std::vector<int>(dims, 0), std::vector<bool>(dims, false),
            coefficient, readId};
    for (int a = 0; a < dims; ++a) {
      const AxisAccess &o = out->axes[a];
      const AxisAccess &r = in->axes[a];
      bool sameStride = !out->flat || o.stride == r.stride;
      if (r.coordinate != o.coordinate || !sameStride ||
          (!out->flat && in->dims[a] != out->dims[a])) {
        error(read.range,
              "'" + input->getNameAsString() + "' is not indexed like '" +
                  outName + "': along " + kAxisNames[a] + " the output uses " +
                  atoms[o.coordinate].name +
                  (out->flat ? " with stride " + atoms.text(o.stride) : "") +
                  ", this read " + atoms[r.coordinate].name +
                  (out->flat ? " with stride " + atoms.text(r.stride) : ""));
        return std::nullopt;
      }
      if (r.wrapped)
        for (int which = 0; which < 2; ++which)
          if (samples[which].evaluate(r.modulus) != sizes[which][a]) {
            error(read.range, "wraps " + atoms[r.coordinate].name +
                                  " modulo " + atoms.text(r.modulus) +
                                  ", but the lattice's extent along " +
                                  kAxisNames[a] + " is " +
                                  atoms.text(extents[a].num) +
                                  (extents[a].den == Poly::number(1)
                                       ? ""
                                       : " / " + atoms.text(extents[a].den)));
            return std::nullopt;
          }
      tap.offset[a] = static_cast<int>(r.offset - o.offset);
      tap.wrapped[a] = r.wrapped;
    }
    auto same = std::find_if(taps.begin(), taps.end(), [&](const Tap &t) {
      return t.offset == tap.offset;
    });
    if (same == taps.end()) {
      taps.push_back(tap);
      continue;
    }
    for (int a = 0; a < dims; ++a)
      if (tap.wrapped[a] != same->wrapped[a] && tap.offset[a] != 0) {
        error(read.range, "reads the same neighbour wrapped and unwrapped");
        return std::nullopt;
      }
    same->coefficient = same->coefficient + coefficient;
    same->firstRead = std::min(same->firstRead, readId);
  }
  if (!s.value.constant.isZero()) {
    error(s.range, "the value written adds '" + s.value.constant.text() +
                       "', a term that reads nothing; a stencil is a "
                       "weighted sum of the input's values");
    return std::nullopt;
  }
  // In source order, without the neighbours whose coefficients cancel.
  std::vector<Tap> kept;
  for (const Tap &tap : taps)
    if (!tap.coefficient.isZero())
      kept.push_back(tap);
  std::stable_sort(kept.begin(), kept.end(), [](const Tap &a, const Tap &b) {
    return a.firstRead < b.firstRead;
  });
  if (kept.empty()) {
    error(s.range, input ? "the coefficients of every read cancel: the "
                           "function writes zero"
                         : "the value written reads no array");
    return std::nullopt;
  }

  // The sites updated, on both samples: a box [low, n - high) per axis.
  std::vector<int> lowSkip(dims), highSkip(dims);
  for (int which = 0; which < 2; ++which) {
    Binding &b = samples[which];
    std::vector<int64_t> lo(dims), hi(dims);
    int64_t total = 1;
    for (int a = 0; a < dims; ++a) {
      bool thread = atoms[out->axes[a].coordinate].threadAxis >= 0;
      lo[a] = (thread ? 0 : -3) - out->axes[a].offset;
      hi[a] = sizes[which][a] + 3 - out->axes[a].offset;
      total *= hi[a] - lo[a];
    }
    if (total > kMaxSites) {
      error(s.range, "the lattice is too large to check the sites updated "
                     "(" + std::to_string(total) + " sites); use smaller "
                     "constant extents");
      return std::nullopt;
    }
    std::vector<int64_t> v(lo), minSite(dims, INT64_MAX), maxSite(dims, INT64_MIN);
    int64_t updated = 0;
    for (int a = 0; a < dims; ++a)
      b.set(out->axes[a].coordinate, v[a]);
    while (true) {
      bool inside = true;
      for (const Loop &loop : s.loops) {
        int64_t c = b.get(loop.coordinate);
        if (c < b.evaluate(loop.low) || c >= b.evaluate(loop.high)) {
          inside = false;
          break;
        }
      }
      for (size_t g = 0; inside && g < s.guards.size(); ++g)
        inside = s.guards[g].condition->evaluate(b) != s.guards[g].skipWhenTrue;
      if (inside) {
        ++updated;
        for (int a = 0; a < dims; ++a) {
          int64_t site = v[a] + out->axes[a].offset;
          if (site < 0 || site >= sizes[which][a]) {
            std::string c = atoms[out->axes[a].coordinate].name;
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
          b.set(out->axes[a].coordinate, v[a]);
          break;
        }
        v[a] = lo[a];
        b.set(out->axes[a].coordinate, v[a]);
      }
      if (a == dims)
        break;
    }
    if (updated == 0) {
      error(s.range, "updates no site of a " + std::to_string(sizes[which][0]) +
                         "-wide lattice");
      return std::nullopt;
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
        return std::nullopt;
      }
      lowSkip[a] = low;
      highSkip[a] = high;
    }
    if (box != updated) {
      error(s.guards.empty() ? s.range : s.guards.front().range,
            "the sites the function updates do not form a box (" +
                std::to_string(updated) + " of the " + std::to_string(box) +
                " sites between the first and the last); stencilc updates "
                "every interior site");
      return std::nullopt;
    }
  }

  // Boundary: a skipped layer as wide as the reach, or wrap-around.
  std::vector<int> reach(dims, 0);
  for (const Tap &tap : kept)
    for (int a = 0; a < dims; ++a)
      reach[a] = std::max(reach[a], std::abs(tap.offset[a]));
  bool skips = false;
  for (int a = 0; a < dims; ++a)
    skips = skips || lowSkip[a] > 0 || highSkip[a] > 0;
  auto guardFor = [&](int a) -> SourceRange {
    int c = out->axes[a].coordinate;
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
  };
  for (const Tap &tap : kept)
    for (int a = 0; a < dims; ++a) {
      int d = tap.offset[a];
      if (d == 0)
        continue;
      std::string c = atoms[out->axes[a].coordinate].name;
      SourceRange r = reads[tap.firstRead].range;
      if (skips && tap.wrapped[a]) {
        error(r, "wraps around along " + std::string(kAxisNames[a]) +
                     " although the function skips boundary sites; a spec's "
                     "boundary is either Dirichlet or periodic on all axes");
        return std::nullopt;
      }
      if (!skips && !tap.wrapped[a]) {
        error(r, "reads " + c + (d > 0 ? " + " : " - ") +
                     std::to_string(std::abs(d)) +
                     " without wrapping around, but the function updates "
                     "every site: at " + c + " = " +
                     (d > 0 ? "the last site" : "0") +
                     " the read falls outside the array; skip the boundary "
                     "(Dirichlet) or wrap the index (periodic)");
        return std::nullopt;
      }
    }
  if (skips)
    for (int a = 0; a < dims; ++a)
      if (lowSkip[a] != reach[a] || highSkip[a] != reach[a]) {
        std::string c = atoms[out->axes[a].coordinate].name;
        error(guardFor(a),
              "skips " + std::to_string(lowSkip[a]) + " site(s) at the low end "
              "and " + std::to_string(highSkip[a]) + " at the high end along " +
                  kAxisNames[a] + " (" + c + "), but the stencil reaches " +
                  std::to_string(reach[a]) +
                  "; a Dirichlet boundary in a spec is a layer as wide as the "
                  "reach on each side");
        if (lowSkip[a] < reach[a] || highSkip[a] < reach[a])
          note(guardFor(a), "with this guard the reads fall outside the "
                            "array at the skipped layer's edge");
        return std::nullopt;
      }

  // Precision.
  auto precisionOf = [&](const ValueDecl *decl) -> std::string {
    QualType e = elementType(decl);
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
    return std::nullopt;
  }
  if (precisionOf(input) != precision) {
    error(input->getSourceRange(),
          "'" + input->getNameAsString() + "' holds '" +
              elementType(input).getAsString() + "' but '" + outName +
              "' holds " + precision + "; a spec has one precision");
    return std::nullopt;
  }

  ImportedStencil result;
  result.function = function.getNameAsString();
  result.name = options.name.empty() ? result.function : options.name;
  result.location = where(function.getLocation());
  result.dims = dims;
  result.periodic = !skips;
  result.precision = precision;
  result.outputArray = outName;
  result.inputArray = input->getNameAsString();
  bool anyThread = false, anyLoop = false;
  for (int a = 0; a < dims; ++a) {
    const Atom &c = atoms[out->axes[a].coordinate];
    result.coordinateNames.push_back(c.name);
    (c.threadAxis >= 0 ? anyThread : anyLoop) = true;
  }
  result.form = std::string(anyThread && anyLoop ? "kernel with loops"
                            : anyThread        ? "kernel"
                                               : "loop nest") +
                (out->flat ? ", flattened index" : ", multi-dimensional array");
  for (const Tap &tap : kept) {
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
  return result;
}

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

} // namespace

std::optional<ImportedStencil> liftStencil(ASTContext &context,
                                           const FunctionDecl &function,
                                           const ImportOptions &options) {
  Lifter lifter(context, function, options);
  return lifter.run();
}

} // namespace import
} // namespace stencilc
