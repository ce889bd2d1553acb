//===- EmitText.cpp - Source-text helpers shared by the kernel writers ----===//
#include "emit/EmitText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace stencilc {

std::string join(const std::vector<std::string> &parts,
                 llvm::StringRef separator) {
  return llvm::join(parts.begin(), parts.end(), separator);
}

std::string joinNonEmpty(const std::vector<std::string> &parts,
                         llvm::StringRef separator) {
  std::vector<std::string> kept;
  for (const std::string &part : parts)
    if (!part.empty())
      kept.push_back(part);
  return join(kept, separator);
}

std::string listOf(const std::vector<std::string> &items) {
  return "{" + join(items, ", ") + "}";
}

std::string extentName(int axis) { return std::string("n") + axisName(axis); }

std::string wrappedName(int axis, int delta) {
  if (delta == 0)
    return axisName(axis);
  return std::string(axisName(axis)) + (delta < 0 ? "_m" : "_p") +
         std::to_string(delta < 0 ? -delta : delta);
}

std::string layoutInitializer(const FieldLayout &l) {
  return "{" + std::to_string(static_cast<int>(l.order)) + ", " +
         std::to_string(l.block) + ", {" + std::to_string(l.subdomain[0]) +
         ", " + std::to_string(l.subdomain[1]) + ", " +
         std::to_string(l.subdomain[2]) + ", " +
         std::to_string(l.subdomain[3]) + "}" +
         (l.evenOdd || l.vector > 1 ? (l.evenOdd ? ", 1" : ", 0") : "") +
         (l.vector > 1 ? ", " + std::to_string(l.vector) : "") + "}";
}

std::string orderDescription(const FieldLayout &l) {
  return std::string(layoutOrderName(l.order)) +
         (l.order == LayoutOrder::Blocked
              ? " in blocks of " + std::to_string(l.block) + " sites"
              : std::string()) +
         (l.vector > 1 ? ", " + std::to_string(l.vector) + " reals per load"
                       : std::string());
}

void wrappedComment(CodePrinter &p, llvm::StringRef prefix,
                    const std::string &text, int width) {
  llvm::SmallVector<llvm::StringRef, 32> words;
  llvm::SplitString(text, words, " ");
  std::string line = prefix.str();
  for (llvm::StringRef word : words) {
    if (static_cast<int>(line.size() + 1 + word.size()) > width &&
        line != prefix)
      p.line(std::exchange(line, prefix.str()));
    line += " " + word.str();
  }
  p.line(line);
}

} // namespace stencilc
