//===- LoadOrder.h - The explicit load-order grammar -----------*- C++ -*-===//
//
// kernel.load_order may list the taps in the order a kernel loads them
// (README, "Load order"): groups such as `-YZ+YZ` (one step along each axis
// letter) or `-2X` (two steps), `C` or `0` for the centre, and `(1,0,-1)` for
// any offset, separated by spaces or commas. This file turns that text into
// offsets; whether they are the stencil's taps is the checker's question
// (resolveLoadOrder in check/Check.h).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_SPEC_LOADORDER_H
#define STENCILC_SPEC_LOADORDER_H

#include "support/Diagnostics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

namespace stencilc {

/// An offset the load order names, and the index in the text of the
/// character that names it: a group's axis letter, the 'C' or the '('.
struct LoadOrderEntry {
  std::array<int, 4> offset{}; ///< entries past the grid's dimension are zero
  size_t index = 0;
};

/// Reads `text`, the load order written in the YAML scalar at `range`, for a
/// grid of `dims` (1 to 4) dimensions. Reports the first syntax error (an
/// unexpected character, an unclosed '(', a sign with no axis letter, a
/// tuple without `dims` integers, an axis the grid lacks) at its character
/// and returns nullopt.
std::optional<std::vector<LoadOrderEntry>>
readLoadOrder(llvm::StringRef text, llvm::SMRange range, int dims,
              DiagnosticEngine &diags);

/// readLoadOrder, handing each entry to `visit` as soon as it is read, so
/// that the caller's errors about an entry come in the order written, among
/// the syntax errors. When `visit` returns false, reading stops at the end
/// of that entry's group. Returns false when a syntax error was reported or
/// `visit` returned false.
bool visitLoadOrder(llvm::StringRef text, llvm::SMRange range, int dims,
                    DiagnosticEngine &diags,
                    llvm::function_ref<bool(const LoadOrderEntry &)> visit);

/// Character `index` of the text of the YAML scalar written at `range` (past
/// an opening quote), for diagnostics that point into the value.
llvm::SMRange scalarCharacterRange(llvm::SMRange range, size_t index);

} // namespace stencilc

#endif
