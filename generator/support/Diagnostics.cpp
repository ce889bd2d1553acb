//===- Diagnostics.cpp ----------------------------------------------------===//
#include "support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Unicode.h"

#include <algorithm>

using namespace llvm;

namespace stencilc {

namespace {

/// The columns the UTF-8 character at the start of `text` takes on a
/// terminal (1 where it is not printable), and its bytes.
std::pair<int, size_t> nextCharacter(StringRef text) {
  size_t bytes = 1;
  while (bytes < text.size() && (text[bytes] & 0xC0) == 0x80)
    ++bytes;
  const int width = sys::unicode::columnWidthUTF8(text.take_front(bytes));
  return {width > 0 ? width : 1, bytes};
}

/// LLVM prints no caret under a source line that holds a non-ASCII
/// character (a name or comment in another script), so such a diagnostic
/// is printed here: its header as LLVM writes it, the line, and the caret
/// and range under the characters' display columns.
bool printUnderNonAscii(const SMDiagnostic &diagnostic, raw_ostream &os) {
  const StringRef line = diagnostic.getLineContents();
  const int column = diagnostic.getColumnNo();
  if (isASCII(line) || diagnostic.getLineNo() < 1 || column < 0 ||
      static_cast<size_t>(column) > line.size())
    return false;
  const char *label = "error: ";
  switch (diagnostic.getKind()) {
  case SourceMgr::DK_Error:
    break;
  case SourceMgr::DK_Warning:
    label = "warning: ";
    break;
  case SourceMgr::DK_Remark:
    label = "remark: ";
    break;
  case SourceMgr::DK_Note:
    label = "note: ";
    break;
  }
  os << diagnostic.getFilename() << ':' << diagnostic.getLineNo() << ':'
     << column + 1 << ": " << label << diagnostic.getMessage() << '\n'
     << line << '\n';
  // The range's end on this line: a caret, then tildes to it.
  size_t end = column + 1;
  for (const std::pair<unsigned, unsigned> &range : diagnostic.getRanges())
    if (range.first <= static_cast<unsigned>(column) && range.second > end)
      end = std::min<size_t>(range.second, line.size());
  std::string marks;
  for (size_t at = 0; at < end;) {
    const auto [width, bytes] = nextCharacter(line.drop_front(at));
    const char mark = at < static_cast<size_t>(column)
                          ? (line[at] == '\t' ? '\t' : ' ')
                      : at == static_cast<size_t>(column) ? '^'
                                                          : '~';
    marks.append(mark == '^' ? 1 : width, mark);
    if (mark == '^' && width > 1)
      marks.append(width - 1, '~');
    at += bytes;
  }
  os << marks << '\n';
  return true;
}

} // namespace

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
  if (!printUnderNonAscii(diagnostic, engine->os))
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
