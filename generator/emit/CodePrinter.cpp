//===- CodePrinter.cpp - Source text with $var$ and scoped indentation ----===//
#include "emit/CodePrinter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace llvm;

namespace stencilc {

void CodePrinter::put(StringRef text) {
  text = text.rtrim(" ");
  if (!text.empty())
    os.indent(indent) << text;
  os << "\n";
}

void CodePrinter::line(StringRef text) { put(text); }

void CodePrinter::lines(StringRef text) {
  SmallVector<StringRef, 16> parts;
  text.split(parts, '\n');
  for (StringRef part : parts)
    put(part);
}

namespace {

const std::string *lookup(const CodePrinter::Vars &vars, StringRef name) {
  for (const auto &[key, value] : vars)
    if (key == name)
      return &value;
  return nullptr;
}

/// `line` with its placeholders replaced; a multi-line value continues at
/// `line`'s own indentation.
std::string substitute(StringRef line, const CodePrinter::Vars &vars) {
  const std::string continuation =
      "\n" + std::string(line.size() - line.ltrim(" ").size(), ' ');
  std::string out;
  while (!line.empty()) {
    size_t open = line.find('$');
    if (open == StringRef::npos) {
      out += line.str();
      break;
    }
    size_t close = line.find('$', open + 1);
    if (close == StringRef::npos)
      report_fatal_error(Twine("unterminated $ in a code snippet: ") + line);
    out += line.take_front(open).str();
    StringRef name = line.slice(open + 1, close);
    if (name.empty()) {
      out += '$';
    } else {
      const std::string *value = lookup(vars, name);
      if (!value)
        report_fatal_error(Twine("code snippet uses $") + name + "$ without a value");
      SmallVector<StringRef, 8> parts;
      StringRef(*value).split(parts, '\n');
      for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? continuation : std::string()) + parts[i].str();
    }
    line = line.drop_front(close + 1);
  }
  return out;
}

} // namespace

void CodePrinter::emit(const Vars &vars, StringRef snippet) {
  snippet.consume_front("\n");
  SmallVector<StringRef, 32> rows;
  snippet.split(rows, '\n');
  // A raw string's closing line holds only the indentation of its quote.
  if (!rows.empty() && rows.back().trim().empty())
    rows.pop_back();
  size_t common = StringRef::npos;
  for (StringRef row : rows)
    if (!row.trim().empty())
      common = std::min(common, row.size() - row.ltrim(" ").size());
  if (common == StringRef::npos)
    common = 0;
  for (StringRef row : rows) {
    row = row.size() >= common ? row.drop_front(common) : row.ltrim(" ");
    StringRef body = row.trim();
    // A placeholder alone on its line with an empty value: no line at all.
    if (body.size() > 2 && body.front() == '$' && body.back() == '$' &&
        body.count('$') == 2) {
      const std::string *value = lookup(vars, body.slice(1, body.size() - 1));
      if (value && value->empty())
        continue;
    }
    std::string text = substitute(row, vars);
    SmallVector<StringRef, 8> parts;
    StringRef(text).split(parts, '\n');
    for (StringRef part : parts)
      put(part);
  }
}

} // namespace stencilc
