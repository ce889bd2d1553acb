//===- CodePrinter.h - Source text with $var$ and scoped indentation -*- C++ -*-===//
//
// The one way generator/emit writes code. A printer emits whole lines of a
// snippet, replacing `$name$` by its value: a value with several lines
// continues at the indentation of the line holding its placeholder, and a
// line holding nothing but a placeholder whose value is empty disappears.
// Snippets are written as raw strings indented like the code around them;
// their common indentation is removed and the printer's own (see Indent)
// is added, so that nested printers compose:
//
//   p.emit({{"name", "acc0"}}, R"(
//     $name$ += w0 * u0;
//   )");
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_CODEPRINTER_H
#define STENCILC_EMIT_CODEPRINTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace stencilc {

class CodePrinter {
public:
  using Vars = std::vector<std::pair<std::string, std::string>>;

  explicit CodePrinter(llvm::raw_ostream &os) : os(os) {}

  /// Prints `snippet` (see the file comment). A placeholder without a
  /// value is a bug in the calling printer and aborts.
  void emit(const Vars &vars, llvm::StringRef snippet);
  void emit(llvm::StringRef snippet) { emit({}, snippet); }
  /// One line, verbatim (no placeholders), at the current indentation.
  void line(llvm::StringRef text);
  /// Each line of `text` verbatim at the current indentation.
  void lines(llvm::StringRef text);
  /// The current indentation in columns (for printers that wrap lines).
  int indentation() const { return indent; }

  /// Indents everything printed while it lives by `spaces` more.
  class Indent {
  public:
    explicit Indent(CodePrinter &printer, int spaces = 2)
        : printer(printer), spaces(spaces) {
      printer.indent += spaces;
    }
    ~Indent() { printer.indent -= spaces; }
    Indent(const Indent &) = delete;
    Indent &operator=(const Indent &) = delete;

  private:
    CodePrinter &printer;
    int spaces;
  };

private:
  void put(llvm::StringRef line);

  llvm::raw_ostream &os;
  int indent = 0;
};

/// The text `print` writes through a CodePrinter, for values that are
/// themselves code.
template <typename Print> std::string printed(Print print) {
  std::string text;
  llvm::raw_string_ostream os(text);
  CodePrinter printer(os);
  print(printer);
  os.flush();
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

} // namespace stencilc

#endif
