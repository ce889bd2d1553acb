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
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
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
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(inner)) {
      // A class's assignment (std::complex): `out[i] = ...`, `acc += ...`.
      static const std::pair<OverloadedOperatorKind, BinaryOperatorKind>
          kAssignments[] = {{OO_Equal, BO_Assign},
                            {OO_PlusEqual, BO_AddAssign},
                            {OO_MinusEqual, BO_SubAssign},
                            {OO_StarEqual, BO_MulAssign},
                            {OO_SlashEqual, BO_DivAssign}};
      for (const auto &[overloaded, builtin] : kAssignments)
        if (op->getOperator() == overloaded && op->getNumArgs() == 2)
          return assign(Assignment{op->getArg(0), op->getArg(1), builtin,
                                   op->getSourceRange()});
    }
    if (const auto *call = dyn_cast<CallExpr>(inner))
      return callForEffects(call);
    if (const auto *op = dyn_cast<UnaryOperator>(inner))
      if (op->isIncrementDecrementOp())
        return error(op->getSourceRange(),
                     "increments a variable outside a loop header; stencilc "
                     "import follows straight-line code");
    return error(e->getSourceRange(), "this statement has no effect that "
                                      "stencilc import can follow");
  }
  if (const auto *loop = dyn_cast<WhileStmt>(s))
    return walkWhile(loop);
  if (isa<DoStmt>(s))
    return error(s->getSourceRange(),
                 "a do-while loop runs its body before testing its bound; "
                 "write it as 'for (int c = low; c < high; ++c)' or "
                 "'while (c < high) { ...; ++c; }'");
  if (const auto *range = dyn_cast<CXXForRangeStmt>(s))
    return walkRangeFor(range);
  if (isa<OMPExecutableDirective>(s))
    return error(s->getBeginLoc(),
                 "an OpenMP directive, parsed because of -fopenmp: stencilc "
                 "import ignores OpenMP pragmas when the file is parsed "
                 "without it (drop -fopenmp after '--')");
  if (isa<ReturnStmt>(s))
    return error(s->getSourceRange(),
                 "returns here; stencilc import follows 'if (...) return;' "
                 "at the top of a kernel only");
  const char *what = isa<SwitchStmt>(s)    ? "a 'switch'"
                     : isa<BreakStmt>(s)   ? "a 'break', which ends the loop early"
                     : isa<GotoStmt>(s)    ? "a 'goto'"
                     : isa<LabelStmt>(s)   ? "a label"
                     : isa<CXXTryStmt>(s)  ? "a 'try' block"
                     : isa<AsmStmt>(s)     ? "inline assembly"
                     : isa<ContinueStmt>(s) ? "a 'continue' that is not the "
                                              "whole body of an 'if' at the "
                                              "top of the loop body"
                                            : nullptr;
  return error(s->getSourceRange(),
               Twine("stencilc import cannot follow ") +
                   (what ? Twine(what) : Twine("this ") + s->getStmtClassName()) +
                   "; it follows declarations, assignments, loops over "
                   "coordinates and 'if' guards");
}

bool Lifter::callForEffects(const CallExpr *call) {
  const FunctionDecl *callee = call->getDirectCallee();
  const FunctionDecl *definition = callee ? callee->getDefinition() : nullptr;
  if (!definition || !definition->hasBody())
    return error(call->getSourceRange(),
                 "calls '" +
                     (callee ? callee->getQualifiedNameAsString()
                             : std::string("a function")) +
                     "' for its effects, but its body is not in the file; "
                     "stencilc import follows helpers and lambdas defined "
                     "there");
  if (sources.isInSystemHeader(definition->getLocation()))
    return error(call->getSourceRange(),
                 "calls the library function '" +
                     definition->getQualifiedNameAsString() +
                     "' for its effects, which stencilc import does not "
                     "follow");
  if (!definition->getReturnType()->isVoidType())
    return error(call->getSourceRange(),
                 "discards the value of '" + describeCallee(definition) +
                     "'; this statement has no effect stencilc import can "
                     "follow");
  if (inlineDepth >= 16 || definition == &function)
    return error(call->getSourceRange(),
                 "calls '" + describeCallee(definition) + "' recursively");
  const auto *body = dyn_cast<CompoundStmt>(definition->getBody());
  Captures saved;
  if (!body || !bindArguments(call, definition, saved))
    return false;
  // The helper's `if (...) return;` skips the rest of the helper.
  ++inlineDepth;
  helperBodies.push_back(body);
  bool ok = walk(body);
  helperBodies.pop_back();
  --inlineDepth;
  restoreCaptures(saved);
  return ok;
}

bool Lifter::walkCompound(const CompoundStmt *block) {
  size_t mark = guards.size();
  for (const Stmt *s : block->body()) {
    if (s == skipStatement)
      continue; // a while loop's increment
    if (const auto *branch = dyn_cast<IfStmt>(s)) {
      bool addedGuard = false;
      if (!walkIf(branch, addedGuard))
        return false;
      if (addedGuard) {
        bool atTop = (block == functionBody && loops.empty()) ||
                     (!helperBodies.empty() && block == helperBodies.back());
        bool inLoopBody = !loopBodies.empty() && block == loopBodies.back();
        const Stmt *exit = branch->getThen();
        if (const auto *c = dyn_cast<CompoundStmt>(exit))
          exit = c->body_front();
        if (isa<ContinueStmt>(exit) && skipStatement)
          return error(branch->getSourceRange(),
                       "continues a while loop before its increment, which "
                       "would never run again; write the loop as 'for (int "
                       "c = low; c < high; ++c)'");
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
      bool helperEnd = !helperBodies.empty() && block == helperBodies.back() &&
                       s == block->body_back();
      if ((block == functionBody && loops.empty() && !ret->getRetValue()) ||
          (helperEnd && !ret->getRetValue()))
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
    // Its initializer runs once per program, and what a call stores in it
    // the next call reads: no fresh local, and no function of the site.
    if (var->isStaticLocal() && !var->getType().isConstQualified())
      return error(var->getLocation(),
                   "the static local '" + var->getNameAsString() +
                       "' keeps its value between calls, so what one call "
                       "stores in it changes what the next computes; make "
                       "it const or a parameter");
    declaredAt[var] = {static_cast<int>(loops.size()), conditionDepth};
    if (!var->getInit()) {
      env[var] = Value{};
      continue;
    }
    // A local may hold a grid-stride loop's step (`stride = blockDim.x *
    // gridDim.x`); store() refuses gridDim anywhere else.
    bool integerLocal = type->isIntegerType();
    allowGridDim = integerLocal;
    std::optional<Value> v = eval(var->getInit());
    allowGridDim = false;
    if (!v)
      return false;
    if (v->kind == Value::Kind::Int && v->poly.terms().size() == 1) {
      // Name a thread coordinate after the variable that holds it.
      const auto &[mono, c] = *v->poly.terms().begin();
      if (mono.size() == 1 && c == 1) {
        Atom &atom = atoms[mono.front()];
        if (atom.kind == Atom::Kind::Coordinate &&
            ((atom.threadAxis >= 0 && atom.decl == nullptr) ||
             atom.provisionalName)) {
          atom.name = var->getNameAsString();
          atom.decl = var;
          atom.provisionalName = false;
        }
      }
    }
    if ((v->kind == Value::Kind::Int && type->isRealFloatingType()) ||
        (v->kind == Value::Kind::Array && v->array.isElement() &&
         !var->getType()->isReferenceType())) {
      // A copy of an element (a std::complex local) reads it here.
      std::optional<FloatValue> f = asFloat(*v, var->getInit());
      if (!f)
        return false;
      v = Value::ofFloat(*f);
    }
    env[var] = *v;
  }
  return true;
}

namespace {

const VarDecl *referencedVar(const Expr *e) {
  const auto *ref = e ? dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

/// `++c`, `c++`, `c += 1`, `c = c + 1`.
bool incrementsByOne(const Expr *e, const VarDecl *var) {
  if (!e)
    return false;
  e = e->IgnoreParenImpCasts();
  auto isOne = [](const Expr *x) {
    const auto *one = dyn_cast<IntegerLiteral>(x->IgnoreParenImpCasts());
    return one && one->getValue() == 1;
  };
  if (const auto *u = dyn_cast<UnaryOperator>(e))
    return u->isIncrementOp() && referencedVar(u->getSubExpr()) == var;
  if (const auto *b = dyn_cast<CompoundAssignOperator>(e))
    return b->getOpcode() == BO_AddAssign && referencedVar(b->getLHS()) == var &&
           isOne(b->getRHS());
  if (const auto *b = dyn_cast<BinaryOperator>(e)) {
    const auto *sum = dyn_cast<BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
    return b->getOpcode() == BO_Assign && referencedVar(b->getLHS()) == var &&
           sum && sum->getOpcode() == BO_Add &&
           ((referencedVar(sum->getLHS()) == var && isOne(sum->getRHS())) ||
            (referencedVar(sum->getRHS()) == var && isOne(sum->getLHS())));
  }
  return false;
}

} // namespace

std::optional<Poly> Lifter::loopEnd(const Expr *condition, const VarDecl *var,
                                    const Twine &form) {
  auto fail = [&](SourceRange r, const Twine &why) {
    error(r, "stencilc import follows loops " + form +
                 " over lattice coordinates: " + why);
    return std::nullopt;
  };
  const auto *cond = dyn_cast_or_null<BinaryOperator>(
      condition ? condition->IgnoreParenImpCasts() : nullptr);
  if (!cond || !cond->isComparisonOp())
    return fail(condition ? condition->getSourceRange() : SourceRange(),
                "the condition must compare the variable with a bound");
  // One side is the variable plus a constant (`i + 1 < n` ends at n - 1).
  Atom probe;
  probe.kind = Atom::Kind::Coordinate;
  probe.name = var->getNameAsString();
  int probeAtom = atoms.intern(probe);
  Value saved = env[var];
  env[var] = Value::ofInt(Poly::atom(probeAtom));
  std::optional<Poly> lhs = evalInt(cond->getLHS());
  std::optional<Poly> rhs = lhs ? evalInt(cond->getRHS()) : std::nullopt;
  env[var] = saved;
  if (!rhs)
    return std::nullopt;
  auto shift = [&](const Poly &side) -> std::optional<Poly> {
    Poly rest = canonical(side) - Poly::atom(probeAtom);
    if (rest.isNumber())
      return rest;
    return std::nullopt;
  };
  std::optional<Poly> leftShift = shift(*lhs), rightShift = shift(*rhs);
  bool varOnLeft = leftShift && !rhs->mentions(probeAtom);
  if (!varOnLeft && !(rightShift && !lhs->mentions(probeAtom)))
    return fail(cond->getSourceRange(), "the condition must compare '" +
                                            var->getNameAsString() +
                                            "' (plus a constant) with a "
                                            "bound");
  std::optional<Poly> bound = varOnLeft ? *rhs - *leftShift : *lhs - *rightShift;
  BinaryOperatorKind k = cond->getOpcode();
  if (!varOnLeft)
    k = k == BO_GT ? BO_LT : k == BO_GE ? BO_LE : k;
  if (k == BO_LT || k == BO_NE)
    return canonical(*bound);
  if (k == BO_LE)
    return canonical(*bound) + Poly::number(1);
  return fail(cond->getSourceRange(), "the loop must count upwards");
}

bool Lifter::walkFor(const ForStmt *s) {
  const Twine form = "'for (int c = low; c < high; ++c)'";
  auto fail = [&](SourceRange r, const Twine &why) {
    return error(r, "stencilc import follows loops " + form +
                        " over lattice coordinates: " + why);
  };
  // `for (int c = low; ...)` or `for (c = low; ...)` on a local.
  const VarDecl *var = nullptr;
  const Expr *lowExpr = nullptr;
  if (const auto *init = dyn_cast_or_null<DeclStmt>(s->getInit())) {
    if (init->isSingleDecl())
      if ((var = dyn_cast<VarDecl>(init->getSingleDecl())))
        lowExpr = var->getInit();
  } else if (const auto *set = dyn_cast_or_null<BinaryOperator>(
                 s->getInit() ? cast<Expr>(s->getInit())->IgnoreParenImpCasts()
                              : nullptr)) {
    var = set->getOpcode() == BO_Assign ? referencedVar(set->getLHS()) : nullptr;
    lowExpr = var && declaredAt.count(var) ? set->getRHS() : nullptr;
  }
  if (!var || !lowExpr || !var->getType()->isIntegerType())
    return fail(s->getInit() ? s->getInit()->getSourceRange()
                             : s->getSourceRange(),
                "the loop must set one integer variable to a start value");
  std::optional<Poly> start = evalInt(lowExpr);
  if (!start)
    return false;
  std::optional<Poly> high = loopEnd(s->getCond(), var, form);
  if (!high)
    return false;
  Poly low = canonical(*start);
  const Expr *inc = s->getInc();
  if (!incrementsByOne(inc, var)) {
    std::optional<bool> strided = gridStride(s, var, low, low);
    if (!strided)
      return false;
    if (!*strided)
      return fail(inc ? inc->getSourceRange() : s->getSourceRange(),
                  "the loop must step by 1 (every site is updated once), "
                  "or be a grid-stride loop ('c = blockIdx.x * blockDim.x + "
                  "threadIdx.x; c < n; c += blockDim.x * gridDim.x')");
  }
  return walkLoopBody(var, low, *high, s->getCond()->getSourceRange(),
                      s->getBody());
}

std::optional<bool> Lifter::gridStride(const ForStmt *s, const VarDecl *var,
                                       const Poly &start, Poly &low) {
  const auto *step = dyn_cast_or_null<CompoundAssignOperator>(
      s->getInc() ? s->getInc()->IgnoreParenImpCasts() : nullptr);
  if (!step || step->getOpcode() != BO_AddAssign ||
      referencedVar(step->getLHS()) != var)
    return false;
  allowGridDim = true;
  std::optional<Poly> stride = evalInt(step->getRHS());
  allowGridDim = false;
  if (!stride)
    return std::nullopt;
  for (int axis = 0; axis < 3; ++axis) {
    Poly whole = Poly::atom(atoms.thread(2, axis)) *
                 Poly::atom(atoms.thread(3, axis));
    if (canonical(*stride) != whole)
      continue;
    // Each thread starts at its global index (plus a constant): together
    // the threads visit [low, high) once.
    Poly offset = start - Poly::atom(threadCoordinate(axis));
    bool plain = true;
    for (const auto &[mono, c] : offset.terms())
      for (int atom : mono)
        plain = plain && atoms[atom].kind == Atom::Kind::Size;
    if (!start.mentions(threadCoordinate(axis)) || !plain) {
      error(s->getInit()->getSourceRange(),
            "a grid-stride loop must start at the global thread index "
            "along " + std::string(1, "xyz"[axis]) +
                " ('blockIdx." + "xyz"[axis] + " * blockDim." + "xyz"[axis] +
                " + threadIdx." + "xyz"[axis] + "') plus a constant");
      return std::nullopt;
    }
    const AxisClaim &taken = gridStrideAxes[axis];
    if (taken.var) {
      std::string a(1, "xyz"[axis]);
      error(s->getInit()->getSourceRange(),
            "the grid-stride loops over '" + taken.var->getNameAsString() +
                "' and '" + var->getNameAsString() +
                "' both run along the thread axis " + a +
                ": on a launch they visit other sites than the loop nest "
                "written; run one along another axis (y, z) or loop over "
                "one flattened index");
      note(taken.start, "the loop over '" + taken.var->getNameAsString() +
                            "' starts here");
      return std::nullopt;
    }
    gridStrideAxes[axis] = {var, s->getInit()->getSourceRange()};
    low = offset;
    gridStrideLoops = true;
    return true;
  }
  return false;
}

bool Lifter::walkRangeFor(const CXXForRangeStmt *s) {
  // `for (int i : std::views::iota(low, high))`: a loop over [low, high).
  const Expr *init = s->getRangeInit()->IgnoreImplicit();
  const auto *record = init->getType()->getAsCXXRecordDecl();
  const VarDecl *var = s->getLoopVariable();
  if (!record || record->getQualifiedNameAsString() != "std::ranges::iota_view")
    return error(init->getSourceRange(),
                 "a range-based for loop over a container has no lattice "
                 "coordinate stencilc import can follow; loop over the index "
                 "instead, 'for (int i = low; i < high; ++i)', or over "
                 "'std::views::iota(low, high)'");
  std::vector<const Expr *> bounds;
  if (const auto *call = dyn_cast<CallExpr>(init))
    bounds.assign(call->arg_begin() + (isa<CXXOperatorCallExpr>(call) ? 1 : 0),
                  call->arg_end());
  else if (const auto *construct = dyn_cast<CXXConstructExpr>(init))
    bounds.assign(construct->arg_begin(), construct->arg_end());
  if (bounds.size() != 2 || !var->getType()->isIntegerType())
    return error(init->getSourceRange(),
                 "stencilc import follows 'for (int c : std::views::iota(low, "
                 "high))' with both bounds and an integer variable");
  std::optional<Poly> low = evalInt(bounds[0]);
  std::optional<Poly> high = low ? evalInt(bounds[1]) : std::nullopt;
  if (!high)
    return false;
  return walkLoopBody(var, canonical(*low), canonical(*high),
                      init->getSourceRange(), s->getBody());
}

bool Lifter::walkWhile(const WhileStmt *s) {
  const Twine form = "'int c = low; while (c < high) { ...; ++c; }'";
  const auto *cond = dyn_cast<BinaryOperator>(s->getCond()->IgnoreParenImpCasts());
  const VarDecl *var = nullptr;
  if (cond && cond->isComparisonOp())
    var = referencedVar(cond->getLHS()) ? referencedVar(cond->getLHS())
                                        : referencedVar(cond->getRHS());
  auto fail = [&](SourceRange r, const Twine &why) {
    return error(r, "stencilc import follows while loops " + form +
                        " over lattice coordinates: " + why);
  };
  if (!var || !declaredAt.count(var) || !var->getType()->isIntegerType() ||
      env[var].kind != Value::Kind::Int)
    return fail(s->getCond()->getSourceRange(),
                "the condition must compare an integer local, set before "
                "the loop, with a bound");
  const auto *body = dyn_cast<CompoundStmt>(s->getBody());
  const Stmt *last = body && !body->body_empty() ? body->body_back() : nullptr;
  if (!last || !incrementsByOne(dyn_cast<Expr>(last), var))
    return fail(last ? last->getSourceRange() : s->getBody()->getSourceRange(),
                "the body must end with '++" + var->getNameAsString() + ";'");
  Poly low = canonical(env[var].poly);
  std::optional<Poly> high = loopEnd(s->getCond(), var, form);
  if (!high)
    return false;
  if (!walkLoopBody(var, low, *high, s->getCond()->getSourceRange(), body,
                    last))
    return false;
  env[var] = Value::ofInt(*high); // where the loop leaves it
  return true;
}

bool Lifter::walkLoopBody(const VarDecl *var, const Poly &low,
                          const Poly &high, SourceRange range, const Stmt *body,
                          const Stmt *skip) {
  Atom atom;
  atom.kind = Atom::Kind::Coordinate;
  atom.name = var->getNameAsString();
  atom.decl = var;
  int coordinate = atoms.intern(atom);
  Value before = env[var];
  env[var] = Value::ofInt(Poly::atom(coordinate));
  if (!declaredAt.count(var))
    declaredAt[var] = {static_cast<int>(loops.size()) + 1, conditionDepth};
  loops.push_back({coordinate, low, high, range, std::nullopt});
  loopBodies.push_back(body);
  const Stmt *outerSkip = skipStatement;
  skipStatement = skip;
  bool ok = walk(body);
  skipStatement = outerSkip;
  loopBodies.pop_back();
  loops.pop_back();
  env[var] = before;
  return ok;
}

bool Lifter::assign(const Assignment &op) {
  const Expr *target = op.lhs->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(target);
  const auto *refVar = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  // A reference to an element (`double &o = out[i]; o = ...;`) is the
  // element.
  bool elementReference = refVar && refVar->getType()->isReferenceType() &&
                          env.count(refVar) &&
                          env[refVar].kind == Value::Kind::Array;
  if (ref && !elementReference) {
    const auto *var = refVar;
    if (!var || !declaredAt.count(var))
      return error(op.range,
                   "assigns to '" + ref->getDecl()->getNameAsString() +
                       "', which is not a local variable of the function");
    const Scope &scope = declaredAt[var];
    for (const Loop &loop : loops)
      if (atoms[loop.coordinate].decl == var)
        return error(op.range, "assigns to '" + var->getNameAsString() +
                                   "', the variable of an enclosing loop; "
                                   "only the loop's own step may change it");
    if (scope.loopDepth < static_cast<int>(loops.size()))
      return error(op.range,
                   "updates '" + var->getNameAsString() +
                       "' across iterations of the loop over '" +
                       atoms[loops.back().coordinate].name +
                       "'; each site's value must be computed on its own");
    if (scope.conditionDepth < conditionDepth)
      return error(op.range,
                   "assigns '" + var->getNameAsString() +
                       "' under a condition; stencilc import needs the same "
                       "formula at every site");
    std::optional<Value> rhs = eval(op.rhs);
    if (!rhs)
      return false;
    Value value = *rhs;
    if (op.opcode != BO_Assign) {
      Value current = env[var];
      if (current.kind == Value::Kind::Unset)
        return error(ref->getSourceRange(),
                     "reads '" + var->getNameAsString() + "' before it is set");
      BinaryOperatorKind k = op.opcode;
      if (current.kind == Value::Kind::Float) {
        std::optional<FloatValue> r = asFloat(*rhs, op.rhs);
        if (!r)
          return false;
        if (k == BO_AddAssign)
          value = Value::ofFloat(current.number + *r);
        else if (k == BO_SubAssign)
          value = Value::ofFloat(current.number +
                                 r->scaled(LinearForm::number(-1.0)));
        else if ((k == BO_MulAssign || k == BO_DivAssign) &&
                 r->readsNothing() && r->constant.isNumber() &&
                 r->constant.constant != 0.0) {
          const double factor = r->constant.constant;
          FloatValue &was = current.number;
          // A number is divided as C++ divides it (then rounded below);
          // coefficients are scaled.
          if (was.readsNothing() && was.constant.isNumber())
            value = Value::ofFloat(FloatValue{
                {},
                LinearForm::number(k == BO_MulAssign
                                       ? was.constant.constant * factor
                                       : was.constant.constant / factor)});
          else
            value = Value::ofFloat(was.scaled(
                LinearForm::number(k == BO_MulAssign ? factor : 1.0 / factor)));
        } else
          return error(op.range,
                       "stencilc import follows +=, -= and scaling by a "
                       "number on floating-point locals");
      } else if (current.kind == Value::Kind::Array &&
                 rhs->kind == Value::Kind::Int &&
                 (k == BO_AddAssign || k == BO_SubAssign)) {
        std::optional<Value> moved = pointerOffset(
            current, k == BO_AddAssign ? rhs->poly : -rhs->poly, op.lhs);
        if (!moved)
          return false;
        value = *moved;
      } else if (current.kind == Value::Kind::Int &&
                 rhs->kind == Value::Kind::Int &&
                 (k == BO_AddAssign || k == BO_SubAssign || k == BO_MulAssign)) {
        value = Value::ofInt(canonical(
            k == BO_AddAssign   ? current.poly + rhs->poly
            : k == BO_SubAssign ? current.poly - rhs->poly
                                : current.poly * rhs->poly));
      } else {
        return error(op.range,
                     "stencilc import cannot follow this compound assignment");
      }
    }
    QualType type = var->getType().getCanonicalType();
    if (value.kind == Value::Kind::Int && type->isRealFloatingType()) {
      std::optional<FloatValue> f = asFloat(value, op.rhs);
      if (!f)
        return false;
      value = Value::ofFloat(*f);
    }
    // A compound assignment's result, held in the local's type (c *= 1e30f
    // on a float overflows there).
    if (op.opcode != BO_Assign && !foldedAs(type, value, op.range))
      return false;
    env[var] = value;
    return true;
  }
  std::optional<Value> lhs = eval(op.lhs);
  if (!lhs)
    return false;
  if (lhs->kind != Value::Kind::Array)
    return error(op.lhs->getSourceRange(),
                 "assigns to something that is neither a local nor an array "
                 "element");
  if (!lhs->array.isElement())
    return error(op.lhs->getSourceRange(),
                 lhs->array.open
                     ? "assigns to a pointer that is not a local variable"
                     : "assigns to part of a multi-dimensional array");
  if (op.opcode != BO_Assign)
    return error(op.range,
                 "updates '" + text(op.lhs->getSourceRange()) +
                     "' in place ('" +
                     BinaryOperator::getOpcodeStr(op.opcode).str() +
                     "'); a stencil writes its output with '=' (out = A in)");
  return store(op, lhs->array);
}

bool Lifter::checkNoGridDim() {
  auto mentionsGridDim = [&](const Poly &p) {
    for (const auto &[mono, c] : p.terms())
      for (int atom : mono)
        if (atoms[atom].kind == Atom::Kind::Thread && atoms[atom].threadKind == 3)
          return true;
    return false;
  };
  for (const Guard &g : guards) {
    std::vector<int> mentioned;
    g.condition->atoms(mentioned);
    for (int atom : mentioned)
      if (atoms[atom].kind == Atom::Kind::Thread && atoms[atom].threadKind == 3)
        return error(g.range, "uses gridDim outside a grid-stride loop's "
                              "step: the sites a kernel updates must not "
                              "depend on the launch's grid");
  }
  for (const Loop &loop : loops)
    if (mentionsGridDim(loop.low) || mentionsGridDim(loop.high))
      return error(loop.range, "uses gridDim outside a grid-stride loop's "
                               "step: the sites a kernel updates must not "
                               "depend on the launch's grid");
  return true;
}

bool Lifter::store(const Assignment &op, const ArrayValue &target) {
  if (written && target.sameArray(written->access) &&
      target.component >= 0 && written->access.component >= 0 &&
      llvm::none_of(componentStores, [&](const Store &other) {
        return other.access.component == target.component;
      }) && written->access.component != target.component) {
    // Another member of the same struct element: another component.
    std::optional<Value> rhs = eval(op.rhs);
    std::optional<FloatValue> value =
        rhs ? asFloat(*rhs, op.rhs) : std::nullopt;
    if (!value)
      return false;
    componentStores.push_back(
        {target, *value, guards, loops, op.lhs->getSourceRange()});
    return true;
  }
  if (written && target.sameArray(written->access) && target.rank == 1 &&
      target.component < 0 && written->access.component < 0) {
    // Perhaps another component of an interleaved site (`out[3 * s + 1]`
    // after `out[3 * s]`); the inference decides.
    std::optional<Value> rhs = eval(op.rhs);
    std::optional<FloatValue> value =
        rhs ? asFloat(*rhs, op.rhs) : std::nullopt;
    if (!value)
      return false;
    componentStores.push_back(
        {target, *value, guards, loops, op.lhs->getSourceRange()});
    return true;
  }
  if (written) {
    const ArrayValue &first = written->access;
    if (!first.sameArray(target)) {
      error(op.lhs->getSourceRange(),
            "writes a second array, '" + target.name +
                "'; a stencil has one output field");
    } else {
      error(op.lhs->getSourceRange(),
            "writes '" + target.name +
                "' a second time; a stencil writes each site once");
    }
    note(written->range, "'" + first.name +
                             "' is written here");
    return false;
  }
  if (const auto *param = dyn_cast<ParmVarDecl>(target.decl))
    if (elementType(param).isConstQualified())
      return error(op.lhs->getSourceRange(), "writes a const array");
  std::optional<Value> rhs = eval(op.rhs);
  if (!rhs)
    return false;
  std::optional<FloatValue> value = asFloat(*rhs, op.rhs);
  if (!value)
    return false;
  if (!checkNoGridDim())
    return false;
  Store s;
  s.access = target;
  s.value = *value;
  s.guards = guards;
  s.loops = loops;
  s.range = op.lhs->getSourceRange();
  written = s;
  return true;
}

bool Lifter::assign(const BinaryOperator *op) {
  return assign(Assignment{op->getLHS(), op->getRHS(), op->getOpcode(),
                           op->getSourceRange()});
}

} // namespace lift
} // namespace import
} // namespace stencilc
