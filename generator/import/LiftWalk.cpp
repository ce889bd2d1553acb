//===- LiftWalk.cpp - The statement walk ----------------------------------===//
//
// The function body is walked once, in order: declarations and assignments
// bind locals, loops bind their variable as a lattice coordinate, guards
// collect on a stack, and the single array store records them all.
//
//===----------------------------------------------------------------------===//
#include "import/Lifter.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/Twine.h"

using namespace clang;
using llvm::Twine;

namespace stencilc {
namespace import {
namespace lift {

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

} // namespace lift
} // namespace import
} // namespace stencilc
