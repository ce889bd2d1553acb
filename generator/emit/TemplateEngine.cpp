//===- TemplateEngine.cpp -------------------------------------------------===//
#include "emit/TemplateEngine.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <set>

using namespace llvm;

namespace stencilc {

Expected<std::string> renderTemplate(StringRef templateName, StringRef text,
                                     const TemplateValues &values) {
  std::string out;
  std::set<std::string> used;
  // The value of `key`, marked as used; an error names the template line.
  auto lookup = [&](StringRef key, size_t lineNo)
      -> Expected<TemplateValues::const_iterator> {
    auto it = values.find(key.str());
    if (it == values.end())
      return createStringError(inconvertibleErrorCode(),
                               "template '%s' line %zu uses unknown key '%s'",
                               templateName.str().c_str(), lineNo + 1,
                               key.str().c_str());
    used.insert(it->first);
    return it;
  };
  SmallVector<StringRef, 64> lines;
  text.split(lines, '\n');
  for (size_t lineNo = 0; lineNo < lines.size(); ++lineNo) {
    StringRef line = lines[lineNo];
    StringRef trimmed = line.ltrim(" ");
    StringRef indent = line.take_front(line.size() - trimmed.size());
    // A placeholder that is the whole line.
    if (trimmed.startswith("{{") && trimmed.endswith("}}") &&
        trimmed.find("{{", 2) == StringRef::npos) {
      auto it = lookup(trimmed.drop_front(2).drop_back(2), lineNo);
      if (!it)
        return it.takeError();
      if ((*it)->second.empty())
        continue;
      SmallVector<StringRef, 16> valueLines;
      StringRef((*it)->second).split(valueLines, '\n');
      for (StringRef valueLine : valueLines) {
        if (!valueLine.empty())
          out += indent;
        out += valueLine;
        out += '\n';
      }
      continue;
    }
    size_t pos = 0;
    while (true) {
      size_t open = line.find("{{", pos);
      if (open == StringRef::npos) {
        out += line.substr(pos);
        break;
      }
      size_t close = line.find("}}", open);
      if (close == StringRef::npos)
        return createStringError(inconvertibleErrorCode(),
                                 "template '%s' line %zu has an unclosed "
                                 "'{{'",
                                 templateName.str().c_str(), lineNo + 1);
      out += line.slice(pos, open);
      auto it = lookup(line.slice(open + 2, close), lineNo);
      if (!it)
        return it.takeError();
      out += (*it)->second;
      pos = close + 2;
    }
    if (lineNo + 1 < lines.size())
      out += '\n';
  }
  for (const auto &entry : values)
    if (!used.count(entry.first))
      return createStringError(inconvertibleErrorCode(),
                               "template '%s' never uses key '%s'",
                               templateName.str().c_str(),
                               entry.first.c_str());
  return out;
}

} // namespace stencilc
