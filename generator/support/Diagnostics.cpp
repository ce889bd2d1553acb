//===- Diagnostics.cpp ----------------------------------------------------===//
#include "support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"

using namespace llvm;

namespace stencilc {

DiagnosticEngine::DiagnosticEngine(SourceMgr &sourceMgr, raw_ostream &os)
    : sourceMgr(sourceMgr), os(os) {
  sourceMgr.setDiagHandler(&DiagnosticEngine::handle, this);
}

DiagnosticEngine::~DiagnosticEngine() {
  if (sourceMgr.getDiagContext() == this)
    sourceMgr.setDiagHandler(nullptr, nullptr);
}

void DiagnosticEngine::handle(const SMDiagnostic &diagnostic, void *context) {
  auto *engine = static_cast<DiagnosticEngine *>(context);
  if (!engine->printing) {
    if (diagnostic.getKind() == SourceMgr::DK_Error)
      ++engine->numErrors;
    else if (diagnostic.getKind() == SourceMgr::DK_Warning)
      ++engine->numWarnings;
  }
  diagnostic.print(nullptr, engine->os, /*ShowColors=*/false);
}

void DiagnosticEngine::print(SMRange range, SourceMgr::DiagKind kind,
                             const Twine &message) {
  SmallVector<SMRange, 1> ranges;
  // A caret under the start only: ranges that span lines print badly.
  if (range.isValid() && range.Start.getPointer() != range.End.getPointer()) {
    const char *end = range.Start.getPointer();
    while (end < range.End.getPointer() && *end != '\n')
      ++end;
    ranges.push_back(SMRange(range.Start, SMLoc::getFromPointer(end)));
  }
  printing = true;
  sourceMgr.PrintMessage(os, range.Start, kind, message, ranges);
  printing = false;
}

void DiagnosticEngine::error(SMRange range, const Twine &message) {
  ++numErrors;
  print(range, SourceMgr::DK_Error, message);
}

void DiagnosticEngine::warning(SMRange range, const Twine &message) {
  if (warningsAsErrors) {
    ++numErrors;
    print(range, SourceMgr::DK_Error, message + " [-Werror]");
    return;
  }
  ++numWarnings;
  print(range, SourceMgr::DK_Warning, message);
}

void DiagnosticEngine::note(SMRange range, const Twine &message) {
  print(range, SourceMgr::DK_Note, message);
}

void DiagnosticEngine::error(const Twine &message) {
  ++numErrors;
  os << "stencilc: error: " << message << "\n";
}

StringRef closestMatch(StringRef word, ArrayRef<StringRef> candidates) {
  StringRef best;
  unsigned bestDistance = ~0u;
  for (StringRef candidate : candidates) {
    unsigned distance = word.edit_distance(candidate, true, 3);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  // Suggest only near misses: a third of the word, at least one edit.
  unsigned limit = std::max<unsigned>(1, word.size() / 3);
  return bestDistance <= limit ? best : StringRef();
}

} // namespace stencilc
