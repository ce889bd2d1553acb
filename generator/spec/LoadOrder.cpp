//===- LoadOrder.cpp - The explicit load-order grammar --------------------===//
#include "spec/LoadOrder.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cassert>

using namespace llvm;

namespace stencilc {
namespace {

/// 0..3 for X, Y, Z and T in either case; -1 for anything else.
int axisOf(char c) {
  switch (toLower(c)) {
  case 'x':
    return 0;
  case 'y':
    return 1;
  case 'z':
    return 2;
  case 't':
    return 3;
  }
  return -1;
}

/// One pass over the text; `ok` turns false at the first syntax error or
/// the first entry the visitor refuses, and the pass stops there.
class Reader {
public:
  Reader(StringRef text, SMRange range, int dims, DiagnosticEngine &diags,
         function_ref<bool(const LoadOrderEntry &)> visit)
      : text(text), range(range), dims(dims), diags(diags), visit(visit) {}

  bool run();

private:
  void readGroup();
  void readTuple();
  void fail(size_t index, const Twine &message) {
    diags.error(scalarCharacterRange(range, index), message);
    ok = false;
  }
  void name(const std::array<int, 4> &offset, size_t index) {
    if (!visit(LoadOrderEntry{offset, index}))
      ok = false;
  }

  StringRef text;
  SMRange range;
  int dims;
  DiagnosticEngine &diags;
  function_ref<bool(const LoadOrderEntry &)> visit;
  size_t i = 0; ///< the next character to read
  bool ok = true;
};

bool Reader::run() {
  while (i < text.size() && ok) {
    char c = text[i];
    if (c == ' ' || c == ',') {
      ++i;
    } else if (c == 'C' || c == 'c' || c == '0') {
      name({}, i);
      ++i;
    } else if (c == '+' || c == '-') {
      readGroup();
    } else if (c == '(') {
      readTuple();
    } else {
      fail(i, "unexpected character '" + Twine(c) +
                  "' in the load order; expected 'as-written', 'ascending' "
                  "or groups such as '-YZ+YZ-X C+X'");
    }
  }
  return ok;
}

/// `-YZ`, `+2X`: a sign, an optional distance, then one or more axes, each
/// naming its own offset. A refused entry does not end the group, so that
/// one run reports every bad offset the group names.
void Reader::readGroup() {
  char sign = text[i];
  size_t signAt = i++;
  size_t digitsAt = i;
  while (i < text.size() && isDigit(text[i]))
    ++i;
  int distance = 1;
  if (i > digitsAt) {
    // Taps reach 1024 sites at most; a longer number names no tap.
    StringRef digits = text.slice(digitsAt, i);
    unsigned long long value = 0;
    if (digits.getAsInteger(10, value) || value == 0 || value > 1024)
      return fail(digitsAt, "distance '" + digits +
                                "' in the load order: expected 1 to 1024 "
                                "(no digits for 1)");
    distance = static_cast<int>(value);
  }
  if (i >= text.size() || axisOf(text[i]) < 0)
    return fail(i < text.size() ? i : signAt,
                "expected an axis letter (X, Y, Z or T) after '" +
                    text.substr(signAt, i - signAt) + "' in the load order");
  for (; i < text.size() && axisOf(text[i]) >= 0; ++i) {
    int axis = axisOf(text[i]);
    if (axis >= dims)
      return fail(i, "axis '" + Twine(text[i]) + "' is not an axis of this " +
                         Twine(dims) + "-dimensional grid");
    std::array<int, 4> offset{};
    offset[axis] = sign == '+' ? distance : -distance;
    name(offset, i);
  }
}

/// `(1, 0, -1)`: one integer per axis of the grid.
void Reader::readTuple() {
  size_t close = text.find(')', i);
  if (close == StringRef::npos)
    return fail(i, "unclosed '(' in the load order");
  SmallVector<StringRef, 4> parts;
  text.slice(i + 1, close).split(parts, ',');
  std::array<int, 4> offset{};
  bool parsed = static_cast<int>(parts.size()) == dims;
  for (size_t p = 0; parsed && p < parts.size(); ++p)
    parsed = !parts[p].trim().getAsInteger(10, offset[p]);
  if (!parsed)
    fail(i, "expected " + Twine(dims) + " integers in '" +
                text.slice(i, close + 1) + "'");
  else
    name(offset, i);
  i = close + 1;
}

} // namespace

bool visitLoadOrder(StringRef text, SMRange range, int dims,
                    DiagnosticEngine &diags,
                    function_ref<bool(const LoadOrderEntry &)> visit) {
  assert(dims >= 1 && dims <= 4 && "the grid's dimension is checked first");
  return Reader(text, range, dims, diags, visit).run();
}

std::optional<std::vector<LoadOrderEntry>>
readLoadOrder(StringRef text, SMRange range, int dims,
              DiagnosticEngine &diags) {
  std::vector<LoadOrderEntry> entries;
  auto keep = [&](const LoadOrderEntry &entry) {
    entries.push_back(entry);
    return true;
  };
  if (!visitLoadOrder(text, range, dims, diags, keep))
    return std::nullopt;
  return entries;
}

SMRange scalarCharacterRange(SMRange range, size_t index) {
  const char *start = range.Start.getPointer();
  if (*start == '"' || *start == '\'')
    ++start;
  SMLoc loc = SMLoc::getFromPointer(start + index);
  return SMRange(loc, SMLoc::getFromPointer(start + index + 1));
}

} // namespace stencilc
