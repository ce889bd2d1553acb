//===- LiftEval.cpp - Symbolic evaluation of expressions ------------------===//
//
// Integer expressions evaluate to polynomials in the lattice coordinates and
// sizes, floating-point ones to linear forms in the elements read, conditions
// to Condition trees. Calls to small inline functions are evaluated in place.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <limits>

using namespace clang;
using llvm::Twine;

namespace stencilc {
namespace import {
namespace lift {

namespace {

bool isFinite(const LinearForm &form) {
  return std::isfinite(form.constant) &&
         llvm::all_of(form.terms, [](const auto &term) {
           return std::isfinite(term.second);
         });
}

bool isFinite(const FloatValue &value) {
  return isFinite(value.constant) &&
         llvm::all_of(value.reads,
                      [](const auto &read) { return isFinite(read.second); });
}

/// The real type a value of `type` is held in where it is narrower than
/// double: float, _Float16 (half), __bf16, or the parts of a std::complex
/// of one; null for double and wider.
const BuiltinType *narrowRealType(QualType type) {
  if (QualType element = complexElementType(type); !element.isNull())
    type = element;
  const auto *builtin =
      type.getNonReferenceType().getCanonicalType()->getAs<BuiltinType>();
  if (!builtin)
    return nullptr;
  switch (builtin->getKind()) {
  case BuiltinType::Float:
  case BuiltinType::Half:
  case BuiltinType::Float16:
  case BuiltinType::BFloat16:
    return builtin;
  default:
    return nullptr;
  }
}

/// `value` as the nearest value of `type` (ties to even), infinite where
/// IEEE rounding overflows, as C++ computes an expression of that type.
double roundedTo(const BuiltinType *type, llvm::APFloat value,
                 const ASTContext &context) {
  bool inexact = false;
  value.convert(context.getFloatTypeSemantics(QualType(type, 0)),
                llvm::APFloat::rmNearestTiesToEven, &inexact);
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &inexact);
  return value.convertToDouble();
}

} // namespace

std::optional<Value> Lifter::eval(const Expr *e) {
  std::optional<Value> value = evalExpression(e);
  if (!value || !foldedAs(e->getType(), *value, e->getSourceRange()))
    return std::nullopt;
  return value;
}

bool Lifter::foldedAs(QualType type, Value &value, SourceRange range) {
  if (value.kind != Value::Kind::Float)
    return true;
  // Constant factors are folded in double, and a numeric constant of a
  // narrower type (float, _Float16, std::complex<float>) is rounded
  // to it, as C++ computes it there: 1e30f * 1e30f is infinite, not 1e60,
  // and (_Float16)0.1 is 0.0999755859375. A coefficient of reads or of a
  // parameter is left as it is: C++ rounds its product with the value read or
  // the parameter's value, which a spec's coefficient cannot say;
  // checkCoefficientRange() refuses one beyond float's range.
  FloatValue &number = value.number;
  const BuiltinType *narrow = narrowRealType(type);
  const bool rounded =
      narrow && number.readsNothing() && number.constant.isNumber();
  if (rounded)
    number.constant.constant =
        roundedTo(narrow, llvm::APFloat(number.constant.constant), context);
  // An overflow would reach the spec as 'inf' or, times the zero of a term
  // that reads nothing, as 'nan'. The innermost expression that overflows
  // is the one named.
  if (!isFinite(number)) {
    error(range, "'" + text(range) + "' is not a finite number " +
                     "(folded in " +
                     (rounded ? QualType(narrow, 0).getAsString()
                              : std::string("double")) +
                     ": an overflow, an infinity or a NaN); a tap's "
                     "coefficient must be finite");
    return false;
  }
  return true;
}

std::optional<Value> Lifter::evalExpression(const Expr *e) {
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
  if (const auto *x = dyn_cast<SubstNonTypeTemplateParmExpr>(e)) {
    // A template's extent keeps its name (NX), like a constexpr size.
    Expr::EvalResult value;
    const NonTypeTemplateParmDecl *param = x->getParameter();
    if (x->getType()->isIntegerType() && param &&
        x->getReplacement()->EvaluateAsInt(value, context))
      return Value::ofInt(Poly::atom(atoms.size(
          param, param->getNameAsString(), value.Val.getInt().getExtValue())));
    return eval(x->getReplacement());
  }
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
    std::optional<Poly> index = evalInt(subscript->getIdx());
    if (!index)
      return std::nullopt;
    return this->subscript(*base, *index, subscript);
  }
  if (const auto *lambda = dyn_cast<LambdaExpr>(e)) {
    // By-value captures are copies taken now: later assignments to the
    // variables do not change what the lambda computes.
    Captures copies;
    for (const LambdaCapture &capture : lambda->captures())
      if (capture.capturesVariable() &&
          capture.getCaptureKind() == LCK_ByCopy)
        if (const auto *var = dyn_cast<VarDecl>(capture.getCapturedVar()))
          if (auto it = env.find(var); it != env.end())
            copies.emplace_back(var, it->second);
    return Value::ofCallable(std::move(copies));
  }
  if (const auto *construct = dyn_cast<CXXConstructExpr>(e))
    return evalConstruct(construct);
  if (const auto *list = dyn_cast<InitListExpr>(e))
    return evalInitList(list);
  if (const auto *x = dyn_cast<CXXBindTemporaryExpr>(e))
    return eval(x->getSubExpr());
  if (const auto *op = dyn_cast<BinaryOperator>(e))
    return evalBinary(op);
  if (const auto *op = dyn_cast<UnaryOperator>(e))
    return evalUnary(op);
  if (const auto *op = dyn_cast<ConditionalOperator>(e))
    return evalConditional(op);
  if (const auto *call = dyn_cast<CallExpr>(e))
    return evalCall(call);
  // Constants of other forms: sizeof, character literals, constexpr calls.
  Expr::EvalResult constant;
  if (e->getType()->isIntegerType() && !e->HasSideEffects(context) &&
      e->EvaluateAsInt(constant, context))
    return Value::ofInt(Poly::number(constant.Val.getInt().getExtValue()));
  if (e->getType()->isRealFloatingType() && !e->HasSideEffects(context) &&
      e->EvaluateAsFloat(constant.Val.getFloat(), context)) {
    FloatValue f;
    f.constant = LinearForm::number(constant.Val.getFloat().convertToDouble());
    return Value::ofFloat(f);
  }
  error(e->getSourceRange(),
        "stencilc import cannot follow '" + text(e->getSourceRange()) +
            "' (" + describeExpression(e) +
            "); write the value with arithmetic on the arguments, array "
            "elements and functions defined in the file");
  return std::nullopt;
}

std::string Lifter::describeExpression(const Expr *e) const {
  if (isa<CXXThrowExpr>(e))
    return "a throw";
  if (isa<CXXNewExpr>(e) || isa<CXXDeleteExpr>(e))
    return "memory allocation";
  if (isa<StringLiteral>(e))
    return "a string";
  if (isa<CXXNullPtrLiteralExpr>(e) || isa<GNUNullExpr>(e))
    return "a null pointer";
  if (isa<StmtExpr>(e))
    return "a statement expression";
  if (isa<CXXThisExpr>(e))
    return "'this': member functions are not followed";
  if (isa<UnaryExprOrTypeTraitExpr>(e))
    return "a size or alignment that is not a constant";
  return std::string("a ") + e->getStmtClassName();
}

std::optional<Value> Lifter::evalCast(const Expr *sub, QualType type, bool load,
                                      const Expr *whole) {
  std::optional<Value> v = eval(sub);
  if (!v)
    return std::nullopt;
  if (const auto *cast = dyn_cast<CastExpr>(whole))
    if (cast->getCastKind() == CK_ArrayToPointerDecay &&
        v->kind == Value::Kind::Array) {
      // An array used as a pointer points at its element 0.
      if (v->array.open || v->array.isElement()) {
        error(whole->getSourceRange(), "stencilc import cannot follow this "
                                       "array-to-pointer conversion");
        return std::nullopt;
      }
      v->array.subscripts.push_back(Poly::number(0));
      v->array.open = true;
      return v;
    }
  if (load && v->kind == Value::Kind::Array && sub->getType()->isPointerType() &&
      !v->array.open && !v->array.isElement()) {
    // A pointer loaded from an array of pointers (`double **u`, `u[j]`)
    // points at element 0 of its row.
    v->array.subscripts.push_back(Poly::number(0));
    v->array.open = true;
    return v;
  }
  if (load && v->kind == Value::Kind::Array && !sub->getType()->isPointerType()) {
    const ArrayValue &array = v->array;
    if (!array.isElement()) {
      error(whole->getSourceRange(),
            "reads part of a multi-dimensional array; index every dimension");
      return std::nullopt;
    }
    return Value::ofFloat(readElement(array, whole->getSourceRange()));
  }
  type = type.getCanonicalType();
  // A literal converted to a narrow type is rounded once, from its own
  // format: through double, a long double literal would be rounded twice.
  if (const auto *literal = dyn_cast<FloatingLiteral>(sub->IgnoreParens()))
    if (const BuiltinType *narrow = narrowRealType(type);
        narrow && v->kind == Value::Kind::Float) {
      v->number.constant =
          LinearForm::number(roundedTo(narrow, literal->getValue(), context));
      return v;
    }
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

std::optional<Value> Lifter::memberOfElement(const Value &element,
                                             const MemberExpr *member) {
  const ArrayValue &array = element.array;
  const auto *field = dyn_cast<FieldDecl>(member->getMemberDecl());
  QualType type = elementType(array.decl);
  const RecordDecl *record = type->getAsRecordDecl();
  if (!array.isElement() || !field || !record || array.component >= 0) {
    error(member->getSourceRange(),
          "reads the member '" + member->getMemberDecl()->getNameAsString() +
              "' of something that is not one element of an array of structs");
    return std::nullopt;
  }
  // Every field must be a number of the same type: the site's components.
  int index = 0, found = -1;
  for (const FieldDecl *f : record->fields()) {
    if (f->getType().getCanonicalType() !=
            record->field_begin()->getType().getCanonicalType() ||
        !f->getType()->isRealFloatingType()) {
      error(f->getSourceRange(),
            "the struct '" + record->getNameAsString() +
                "' is a site's components only if every member is the same "
                "floating-point type; '" + f->getNameAsString() +
                "' is not");
      note(member->getSourceRange(), "its member is used here");
      return std::nullopt;
    }
    if (f == field)
      found = index;
    ++index;
  }
  ArrayValue result = array;
  result.component = found;
  return Value::ofArray(result);
}

std::optional<Value> Lifter::evalInitList(const InitListExpr *list) {
  // A local struct of sizes and coefficients: `const Grid g{nx, ny, 0.5};`.
  const RecordDecl *record = list->getType()->getAsRecordDecl();
  if (list->getNumInits() == 1 && !record)
    return eval(list->getInit(0)); // `int n{nx};`
  if (!record) {
    error(list->getSourceRange(), "stencilc import follows braced "
                                  "initializers of scalars and structs only");
    return std::nullopt;
  }
  RecordValue members;
  unsigned index = 0;
  for (const FieldDecl *field : record->fields()) {
    if (index >= list->getNumInits())
      break;
    const Expr *init = list->getInit(index++);
    QualType type = field->getType().getCanonicalType();
    std::optional<Value> v = eval(init);
    if (!v)
      return std::nullopt;
    if (type->isRealFloatingType()) {
      std::optional<FloatValue> f = asFloat(*v, init);
      if (!f)
        return std::nullopt;
      v = Value::ofFloat(*f);
    }
    members[field] = *v;
  }
  return Value::ofRecord(std::move(members));
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
  if (ref && field.size() == 1 && field[0] >= 'x' && field[0] <= 'z' &&
      isa<VarDecl>(ref->getDecl()) &&
      cast<VarDecl>(ref->getDecl())->hasGlobalStorage()) {
    std::string name = ref->getDecl()->getNameAsString();
    int axis = field[0] - 'x';
    int kind = name == "threadIdx" ? 0 : name == "blockIdx" ? 1
               : name == "blockDim" ? 2 : name == "gridDim" ? 3 : -1;
    if (kind == 3 && !allowGridDim) {
      error(member->getSourceRange(),
            "uses gridDim outside a grid-stride loop's step: the sites a "
            "kernel updates must not depend on the launch's grid");
      return std::nullopt;
    }
    if (kind >= 0)
      return Value::ofInt(Poly::atom(atoms.thread(kind, axis)));
  }
  // A member of a constant struct (`constexpr Grid grid{64, 32};`): an
  // integer keeps its name, as constexpr sizes do.
  Expr::EvalResult constant;
  QualType type = member->getType().getCanonicalType();
  if ((type->isIntegerType() || type->isRealFloatingType()) &&
      !member->HasSideEffects(context) &&
      member->EvaluateAsRValue(constant, context)) {
    if (constant.Val.isInt()) {
      std::string name = text(member->getSourceRange());
      auto [it, fresh] = constantMembers.try_emplace(name, -1);
      if (fresh)
        it->second = atoms.size(&it->first, name,
                                constant.Val.getInt().getExtValue());
      return Value::ofInt(Poly::atom(it->second));
    }
    if (constant.Val.isFloat()) {
      FloatValue f;
      f.constant =
          LinearForm::number(constant.Val.getFloat().convertToDouble());
      return Value::ofFloat(f);
    }
  }
  std::optional<Value> object = eval(member->getBase());
  if (!object)
    return std::nullopt;
  if (object->kind == Value::Kind::Record) {
    const auto *fieldDecl = dyn_cast<FieldDecl>(member->getMemberDecl());
    auto it = fieldDecl ? object->record->find(fieldDecl) : object->record->end();
    if (it != object->record->end())
      return it->second;
    error(member->getSourceRange(),
          "reads the member '" + field + "' of type '" +
              member->getType().getAsString(context.getPrintingPolicy()) +
              "', which is neither an array, an integer size nor a "
              "floating-point coefficient");
    return std::nullopt;
  }
  if (object->kind == Value::Kind::Array && member->isArrow() &&
      object->array.open) {
    object = subscript(*object, Poly::number(0), member); // p->u is p[0].u
    if (!object)
      return std::nullopt;
  }
  if (object->kind == Value::Kind::Array)
    return memberOfElement(*object, member);
  error(member->getSourceRange(),
        "reads the member '" + field +
            "' of something that is not an argument; stencilc import "
            "follows struct arguments, arrays and thread indices");
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

FloatValue Lifter::readElement(const ArrayValue &element, SourceRange range) {
  reads.push_back({element, range});
  FloatValue f;
  f.reads.emplace_back(static_cast<int>(reads.size()) - 1,
                       LinearForm::number(1.0));
  return f;
}

std::optional<FloatValue> Lifter::asFloat(const Value &v, const Expr *e) {
  if (v.kind == Value::Kind::Float)
    return v.number;
  if (v.kind == Value::Kind::Array && v.array.isElement())
    return readElement(v.array, e->getSourceRange()); // a class-type lvalue
  if (v.kind == Value::Kind::Array) {
    error(e->getSourceRange(),
          "uses the pointer into '" + v.array.name +
              "' where a number is expected; subscript or dereference it");
    return std::nullopt;
  }
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

  if (lhs->kind == Value::Kind::Array || rhs->kind == Value::Kind::Array) {
    // Pointer arithmetic: `in + j * nx + i`, `row - nx`, `nx + p`.
    bool left = lhs->kind == Value::Kind::Array;
    const Value &offset = left ? *rhs : *lhs;
    if ((kind == BO_Add || (kind == BO_Sub && left)) &&
        offset.kind == Value::Kind::Int)
      return pointerOffset(left ? *lhs : *rhs,
                           kind == BO_Sub ? -offset.poly : offset.poly, op);
    const ArrayValue &array = left ? lhs->array : rhs->array;
    error(op->getSourceRange(),
          "uses the " + std::string(array.isElement() ? "element of '" : "pointer into '") +
              array.name + "' with operator '" +
              BinaryOperator::getOpcodeStr(kind).str() + "'" +
              (array.isElement()
                   ? ": index every dimension and read whole elements"
                   : "; stencilc import follows pointers moved by integer "
                     "offsets ('p + k', 'p - k', 'p[k]', '*p')"));
    return std::nullopt;
  }
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
      if (std::optional<Poly> part = divideIndex(canonical(a), canonical(b),
                                                 false, op))
        return Value::ofInt(*part);
      if (failed)
        return std::nullopt;
      if (std::optional<Poly> size = sizeQuotient(a, b))
        return Value::ofInt(*size);
      for (const auto &[mono, c] : a.terms())
        for (int atom : mono)
          if (isCoordinateLike(atom)) {
            error(op->getSourceRange(),
                  "divides '" + atoms.text(a) + "' by '" + atoms.text(b) +
                      "': an index must be affine in the lattice "
                      "coordinates; stencilc import splits only a flattened "
                      "index that starts at 0 into coordinates ('i = s % "
                      "nx; j = s / nx;')");
            return std::nullopt;
          }
      error(op->getSourceRange(),
            "divides '" + atoms.text(a) + "' by '" + atoms.text(b) +
                "': an index must be affine in the lattice coordinates");
      return std::nullopt;
    case BO_Rem:
      if (std::optional<Poly> part = divideIndex(canonical(a), canonical(b),
                                                 true, op))
        return Value::ofInt(*part);
      if (failed)
        return std::nullopt;
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

std::optional<Poly> Lifter::sizeQuotient(const Poly &a, const Poly &b) {
  for (const Poly *p : {&a, &b})
    for (const auto &[mono, c] : p->terms())
      for (int atom : mono)
        if (atoms[atom].kind != Atom::Kind::Size)
          return std::nullopt;
  // `ny = in.size() / nx`: a size of its own, as the sizes it comes from
  // are symbols (one atom per quotient written).
  std::string name = "(" + atoms.text(a) + ") / (" + atoms.text(b) + ")";
  auto [it, fresh] = quotientSizes.try_emplace(name, -1);
  if (fresh) {
    Atom atom;
    atom.kind = Atom::Kind::Size;
    atom.name = name;
    it->second = atoms.intern(atom);
  }
  return Poly::atom(it->second);
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
  if (kind == UO_Deref || kind == UO_AddrOf) {
    std::optional<Value> v = eval(op->getSubExpr());
    if (!v)
      return std::nullopt;
    if (v->kind == Value::Kind::Array && kind == UO_Deref)
      return subscript(*v, Poly::number(0), op); // *p is p[0]
    if (v->kind == Value::Kind::Array && v->array.isElement()) {
      v->array.open = true; // &u[idx] points at that element
      return v;
    }
    if (v->kind == Value::Kind::Record && kind == UO_AddrOf)
      return v;
    error(op->getSourceRange(),
          kind == UO_Deref
              ? "dereferences something that is not a pointer into an array "
                "argument"
              : "takes the address of something other than an array "
                "element; point at an element, e.g. '&u[idx]'");
    return std::nullopt;
  }
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

} // namespace lift
} // namespace import
} // namespace stencilc
