//===- Diagnostics.h - clang-style diagnostics over a SourceMgr -*- C++ -*-===//
//
// Every stage reports problems through one DiagnosticEngine so that a run
// collects several errors, prints them as `file:line:col: error: ...` with the
// source line and a caret, and the CLI can decide the exit code at the end.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_SUPPORT_DIAGNOSTICS_H
#define STENCILC_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace stencilc {

class DiagnosticEngine {
public:
  /// Takes over `sourceMgr`'s diagnostic handler, so that messages LLVM
  /// itself raises there (the YAML scanner's) are printed and counted here.
  DiagnosticEngine(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);
  ~DiagnosticEngine();
  DiagnosticEngine(const DiagnosticEngine &) = delete;
  DiagnosticEngine &operator=(const DiagnosticEngine &) = delete;

  void error(llvm::SMRange range, const llvm::Twine &message);
  void warning(llvm::SMRange range, const llvm::Twine &message);
  void note(llvm::SMRange range, const llvm::Twine &message);
  /// An error with no source location (for example an unreadable file).
  void error(const llvm::Twine &message);

  /// Treat warnings as errors (counted and printed as errors).
  void setWarningsAsErrors(bool value) { warningsAsErrors = value; }

  unsigned errorCount() const { return numErrors; }
  unsigned warningCount() const { return numWarnings; }
  bool hasErrors() const { return numErrors != 0; }

  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

private:
  void print(llvm::SMRange range, llvm::SourceMgr::DiagKind kind,
             const llvm::Twine &message);
  static void handle(const llvm::SMDiagnostic &diagnostic, void *engine);

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
  bool warningsAsErrors = false;
  bool printing = false; ///< inside print(): already counted
};

/// Levenshtein-nearest candidate within a small edit distance, for "did you
/// mean" hints; empty when nothing is close.
llvm::StringRef closestMatch(llvm::StringRef word,
                             llvm::ArrayRef<llvm::StringRef> candidates);

} // namespace stencilc

#endif
