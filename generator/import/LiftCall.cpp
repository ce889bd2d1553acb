//===- LiftCall.cpp - Calls: helpers, lambdas and library types -----------===//
//
// A call to a helper or a lambda defined in the file is evaluated in place:
// its parameters bound to the arguments, its body walked (declarations,
// assignments to its locals and one final return). std::array and
// std::vector stand for arrays, std::complex's operators for the same
// linear forms as on real values, fma for a product and a sum; other
// library functions are refused by name.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

using namespace clang;
using llvm::Twine;

namespace stencilc {
namespace import {
namespace lift {

std::optional<Value> Lifter::evalCall(const CallExpr *call) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee) {
    error(call->getSourceRange(),
          "calls through a function pointer, which stencilc import cannot "
          "see into");
    return std::nullopt;
  }
  std::string name = callee->getQualifiedNameAsString();
  const auto *method = dyn_cast<CXXMethodDecl>(callee);
  // std::array and std::vector: u[i], u.at(i) and u.data() are the
  // built-in array's u[i] and u; a vector's size() is a size.
  if (method && stdContainer(method->getParent()->getTypeForDecl()
                                 ->getCanonicalTypeInternal())) {
    const Expr *object = isa<CXXOperatorCallExpr>(call)
                             ? call->getArg(0)
                             : cast<CXXMemberCallExpr>(call)
                                   ->getImplicitObjectArgument();
    std::optional<Value> base = eval(object);
    if (!base)
      return std::nullopt;
    StringRef member = method->getName();
    if (method->getOverloadedOperator() == OO_Subscript ||
        member == "at") {
      std::optional<Poly> index =
          evalInt(call->getArg(isa<CXXOperatorCallExpr>(call) ? 1 : 0));
      if (!index)
        return std::nullopt;
      return subscript(*base, *index, call);
    }
    if (member == "data" && base->kind == Value::Kind::Array &&
        !base->array.open && !base->array.isElement()) {
      base->array.subscripts.push_back(Poly::number(0));
      base->array.open = true;
      return base;
    }
    if (member == "size" && base->kind == Value::Kind::Array &&
        base->array.subscripts.empty() && base->array.rank == 1) {
      const ValueDecl *decl = base->array.decl;
      auto [it, fresh] = containerSizes.try_emplace(decl, -1);
      if (fresh) {
        Atom atom;
        atom.kind = Atom::Kind::Size;
        atom.name = decl->getNameAsString() + ".size()";
        it->second = atoms.intern(atom);
      }
      return Value::ofInt(Poly::atom(it->second));
    }
    error(call->getSourceRange(),
          "calls the container's '" + member.str() +
              "'; stencilc import follows operator[], at(), data() and, on "
              "a one-dimensional container, size()");
    return std::nullopt;
  }
  if (std::optional<Value> complex = complexArithmetic(call, callee))
    return complex;
  if (failed)
    return std::nullopt;
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
  if (sources.isInSystemHeader(definition->getLocation())) {
    error(call->getSourceRange(),
          "calls the library function '" + name +
              "', which stencilc import does not follow; write the "
              "expression out with +, - and * (it follows fma and "
              "std::complex's operators)");
    return std::nullopt;
  }
  if (inlineDepth >= 16 || definition == &function) {
    error(call->getSourceRange(), "calls '" + name + "' recursively");
    return std::nullopt;
  }
  // A helper or a lambda computes a value: locals, assignments to them,
  // and one `return` at the end, evaluated in place.
  const auto *body = dyn_cast<CompoundStmt>(definition->getBody());
  const auto *result =
      body && !body->body_empty() ? dyn_cast<ReturnStmt>(body->body_back())
                                  : nullptr;
  if (!result || !result->getRetValue()) {
    error(call->getSourceRange(),
          "calls '" + describeCallee(definition) +
              "', which does not end in 'return <expression>;'; stencilc "
              "import follows helpers that compute one value");
    return std::nullopt;
  }
  Captures saved;
  if (!bindArguments(call, definition, saved))
    return std::nullopt;
  ++inlineDepth;
  bool ok = true;
  for (const Stmt *s : body->body()) {
    if (s == result || !ok)
      continue;
    const auto *assignment = dyn_cast_or_null<BinaryOperator>(
        isa<Expr>(s) ? cast<Expr>(s)->IgnoreParenImpCasts() : nullptr);
    if (const auto *decl = dyn_cast<DeclStmt>(s))
      ok = walkDecl(decl);
    else if (assignment && assignment->isAssignmentOp() &&
             isa<DeclRefExpr>(assignment->getLHS()->IgnoreParenImpCasts()))
      ok = assign(assignment);
    else if (!isa<NullStmt>(s))
      ok = error(s->getSourceRange(),
                 "stencilc import follows helpers made of declarations, "
                 "assignments to their locals and one final 'return'; this "
                 "statement in '" + describeCallee(definition) +
                     "' is none of them");
  }
  std::optional<Value> value;
  if (ok)
    value = eval(result->getRetValue());
  --inlineDepth;
  restoreCaptures(saved);
  if (value && value->kind == Value::Kind::Array && value->array.isElement() &&
      !definition->getReturnType()->isReferenceType()) {
    // A helper returning an element by value reads it.
    return Value::ofFloat(readElement(value->array, call->getSourceRange()));
  }
  return value;
}

QualType complexElementType(QualType type) {
  const auto *record = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      type.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (!record || record->getName() != "complex" ||
      !record->isInStdNamespace() || record->getTemplateArgs().size() != 1 ||
      record->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return QualType();
  return record->getTemplateArgs()[0].getAsType();
}

bool Lifter::isComplex(QualType type) const {
  return !complexElementType(type).isNull();
}

std::optional<Value> Lifter::complexArithmetic(const CallExpr *call,
                                               const FunctionDecl *callee) {
  OverloadedOperatorKind op = callee->getOverloadedOperator();
  bool complex = isComplex(call->getType());
  for (const Expr *arg : call->arguments())
    complex = complex || isComplex(arg->getType());
  if (!complex || !callee->isInStdNamespace() ||
      !(op == OO_Plus || op == OO_Minus || op == OO_Star || op == OO_Slash))
    return std::nullopt;
  std::vector<FloatValue> operands;
  for (const Expr *arg : call->arguments()) {
    std::optional<Value> v = eval(arg);
    std::optional<FloatValue> f = v ? asFloat(*v, arg) : std::nullopt;
    if (!f)
      return std::nullopt;
    operands.push_back(*f);
  }
  if (operands.size() == 1)
    return Value::ofFloat(op == OO_Minus
                              ? operands[0].scaled(LinearForm::number(-1.0))
                              : operands[0]);
  const FloatValue &a = operands[0], &b = operands[1];
  if (op == OO_Plus)
    return Value::ofFloat(a + b);
  if (op == OO_Minus)
    return Value::ofFloat(a + b.scaled(LinearForm::number(-1.0)));
  if (op == OO_Star) {
    if (std::optional<FloatValue> product =
            multiply(a, b, call->getSourceRange()))
      return Value::ofFloat(*product);
    return std::nullopt;
  }
  if (!b.readsNothing() || !b.constant.isNumber() || b.constant.constant == 0) {
    error(call->getArg(1)->getSourceRange(),
          "divides a complex value by something other than a nonzero number");
    return std::nullopt;
  }
  return Value::ofFloat(a.scaled(LinearForm::number(1.0 / b.constant.constant)));
}

std::optional<Value> Lifter::evalConstruct(const CXXConstructExpr *e) {
  const CXXConstructorDecl *ctor = e->getConstructor();
  if (e->getNumArgs() == 1 &&
      (ctor->isCopyOrMoveConstructor() || isComplex(e->getType())))
    return eval(e->getArg(0)); // a copy, or std::complex<T>(re)
  if (isComplex(e->getType()) && e->getNumArgs() == 2) {
    // std::complex<T>(re, 0) is the real number re.
    Expr::EvalResult imaginary;
    if (e->getArg(1)->EvaluateAsRValue(imaginary, context) &&
        ((imaginary.Val.isFloat() && imaginary.Val.getFloat().isZero()) ||
         (imaginary.Val.isInt() && imaginary.Val.getInt() == 0)))
      return eval(e->getArg(0));
    error(e->getSourceRange(),
          "constructs a complex number with an imaginary part: a spec's tap "
          "coefficients are real, so a stencil with complex coefficients "
          "cannot be imported; apply the complex factor outside the stencil");
    return std::nullopt;
  }
  error(e->getSourceRange(),
        "constructs a '" + e->getType().getAsString() +
            "', which stencilc import cannot follow");
  return std::nullopt;
}

std::string Lifter::describeCallee(const FunctionDecl *f) const {
  if (const auto *method = dyn_cast<CXXMethodDecl>(f))
    if (method->getParent()->isLambda())
      return "the lambda on line " +
             std::to_string(sources.getPresumedLineNumber(
                 sources.getFileLoc(method->getParent()->getLocation())));
  return f->getQualifiedNameAsString();
}

void Lifter::restoreCaptures(const Captures &saved) {
  for (const auto &[var, value] : saved)
    env[var] = value;
}

bool Lifter::bindArguments(const CallExpr *call,
                           const FunctionDecl *definition, Captures &saved) {
  // A lambda's or a member operator's object is argument 0.
  unsigned first = isa<CXXOperatorCallExpr>(call) &&
                           isa<CXXMethodDecl>(definition)
                       ? 1
                       : 0;
  if (call->getNumArgs() - first != definition->getNumParams())
    return error(call->getSourceRange(),
                 "calls '" + describeCallee(definition) +
                     "' with default or variadic arguments, which stencilc "
                     "import does not follow");
  std::vector<std::pair<const VarDecl *, Value>> bound;
  for (unsigned i = first; i < call->getNumArgs(); ++i) {
    std::optional<Value> arg = eval(call->getArg(i));
    if (!arg)
      return false;
    const ParmVarDecl *param = definition->getParamDecl(i - first);
    if (arg->kind == Value::Kind::Array && arg->array.isElement() &&
        !param->getType()->isReferenceType()) {
      std::optional<FloatValue> f = asFloat(*arg, call->getArg(i));
      if (!f)
        return false;
      arg = Value::ofFloat(*f);
    }
    QualType type = param->getType().getNonReferenceType().getCanonicalType();
    if (arg->kind == Value::Kind::Int && type->isRealFloatingType()) {
      std::optional<FloatValue> f = asFloat(*arg, call->getArg(i));
      if (!f)
        return false;
      arg = Value::ofFloat(*f);
    }
    bound.emplace_back(param, *arg);
  }
  for (auto &[param, value] : bound)
    env[param] = value;
  if (first == 1 && cast<CXXMethodDecl>(definition)->getParent()->isLambda()) {
    std::optional<Value> object = eval(call->getArg(0));
    if (!object)
      return false;
    if (object->kind == Value::Kind::Callable && object->captures)
      for (const auto &[var, copy] : *object->captures) {
        saved.emplace_back(var, env[var]);
        env[var] = copy;
      }
  }
  return true;
}

} // namespace lift
} // namespace import
} // namespace stencilc
