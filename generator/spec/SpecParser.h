//===- SpecParser.h - YAML stencil spec to Spec ----------------*- C++ -*-===//
#ifndef STENCILC_SPEC_SPECPARSER_H
#define STENCILC_SPEC_SPECPARSER_H

#include "spec/Spec.h"
#include "support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace stencilc {

/// Parses the YAML text held by buffer `bufferID` of the engine's SourceMgr.
/// Structural problems (YAML syntax, unknown or missing keys, wrong value
/// types) are reported to `diags`; parsing goes on after each so that one run
/// reports as many as it can. Returns nothing only when the text is not
/// YAML at all; otherwise a Spec whose unreadable fields are not `present`.
std::optional<Spec> parseSpec(unsigned bufferID, llvm::StringRef path,
                              DiagnosticEngine &diags);

/// Reads `path` into the engine's SourceMgr and parses it.
std::optional<Spec> parseSpecFile(llvm::StringRef path,
                                  DiagnosticEngine &diags);

/// Reads a coefficient: terms `NUMBER`, `NAME` or `NUMBER * NAME` joined by
/// `+` and `-`, for example `2*inv_hx2 + 2*inv_hy2` or `8 + mass`. Returns
/// false (and leaves `out` alone) if malformed.
bool parseCoefficientText(llvm::StringRef text, CoefficientSpec &out);

} // namespace stencilc

#endif
