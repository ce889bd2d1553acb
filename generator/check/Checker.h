//===- Checker.h - The checker's state, shared by its files -----*- C++ -*-===//
//
// Internal to generator/check: the Checker walks a parsed Spec section by
// section into a StencilModel. Its rules live in Check.cpp, and those of
// complex values and links in CheckLinks.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_CHECK_CHECKER_H
#define STENCILC_CHECK_CHECKER_H

#include "check/Model.h"
#include "spec/Spec.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <optional>
#include <vector>

namespace stencilc {
namespace checker {

/// A C identifier: letters, digits and '_', not starting with a digit.
bool isIdentifier(llvm::StringRef word);
/// A name a spec may not use for the stencil, a parameter or its links.
bool isReservedName(llvm::StringRef word);

class Checker {
public:
  Checker(const Spec &spec, DiagnosticEngine &diags)
      : spec(spec), diags(diags) {}

  std::optional<StencilModel> run();

private:
  void checkName();
  void checkGrid();
  void checkSplit();
  void checkExchange();
  void checkInnerPrecision();
  void checkField();
  void checkValueShape();
  void checkParameters();
  void checkLinks();
  void checkLinkVector();
  void checkMinBlocks();
  void checkTaps();
  void checkSpinProjector(size_t tap);
  void checkLinkTaps();
  void checkClover();
  void checkCloverTaps();
  /// A coefficient as written into `out`, against the declared parameters;
  /// false after an error at `coeff`'s range (`what`: "a tap's").
  bool resolveCoefficient(const CoefficientSpec &coeff, Coefficient &out);
  void checkFieldReach();
  void checkKernel();
  void checkBlock();
  void checkTile();
  void checkLoadOrder();
  void checkSolver();
  void checkLayout();
  /// The words of a storage order's diagnostics: its key ("field.layout"),
  /// its noun ("layout") and what 'aos' and 'soa' mean for it.
  struct OrderWords {
    llvm::StringRef key, noun, aos, soa;
  };
  /// `aos`, `soa` or `aosoa` with its `block`, into `outOrder` and
  /// `outBlock` (the field's layout and the links' share the rules).
  void checkStorageOrder(const Located<std::string> &order,
                         const Located<long long> &block, llvm::SMRange range,
                         const OrderWords &words, LayoutOrder &outOrder,
                         int &outBlock);
  void checkSiteVectors(int width, llvm::SMRange range);
  void checkEvenOdd();
  void checkComponentSplit();
  void checkSlab();
  void checkStaging();
  void checkMarch();

  const Spec &spec;
  DiagnosticEngine &diags;
  StencilModel model;
  bool gridKnown = false; ///< dims was read and valid
  bool tapsKnown = false; ///< every tap was read and valid
  std::vector<llvm::SMRange> tapRanges;
  std::vector<bool> parameterUsed;
};

} // namespace checker
} // namespace stencilc

#endif
