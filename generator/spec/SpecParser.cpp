//===- SpecParser.cpp - YAML stencil spec to Spec -------------------------===//
//
// Walks the YAML node tree from llvm/Support/YAMLParser.h by hand rather than
// through yaml::IO traits: yaml::Input stops at the first error, and the spec
// format wants every unknown key, missing key and type error of a file in one
// run, each at its own line and column.
//
//===----------------------------------------------------------------------===//
#include "spec/SpecParser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/YAMLParser.h"

#include <cstring>

using namespace llvm;

namespace stencilc {
namespace {

/// A YAML node copied out of the streaming parser, which consumes nested
/// nodes as its iterators advance; the spec walker needs random access.
struct YamlNode {
  enum Kind { Scalar, Mapping, Sequence, Null, Other } kind = Null;
  std::string text; ///< scalars
  /// A scalar written in quotes: YAML makes it a string, never a number.
  bool quoted = false;
  SMRange range;
  std::vector<std::pair<YamlNode, YamlNode>> entries; ///< mappings
  std::vector<YamlNode> items;                        ///< sequences
  SMRange getSourceRange() const { return range; }
};

/// LLVM starts a flow collection's range at its first element; widen it to
/// the opening bracket so that carets point at the whole value.
SMRange widenToBracket(SMRange range, char open, const char *bufferStart) {
  const char *start = range.Start.getPointer();
  if (!start)
    return range;
  const char *p = start;
  while (p > bufferStart) {
    --p;
    if (*p == open)
      return SMRange(SMLoc::getFromPointer(p), range.End);
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
      break;
  }
  return range;
}

/// How deep a spec's YAML may nest. A spec needs five levels; the limit
/// keeps the recursive copy below off the end of the stack on hostile
/// input (20000 nested brackets overflowed it).
constexpr int kMaxYamlDepth = 64;

/// A node the copy below refuses, and why.
struct RefusedNode {
  yaml::Node *node = nullptr;
  std::string why;
};

/// Copies `node` and what it holds. The first node deeper than
/// kMaxYamlDepth, or alias (`*name`, whose target may be missing), is
/// not entered but returned in `refused`, and the copy stops.
YamlNode materialize(yaml::Node *node, const char *bufferStart, int depth,
                     RefusedNode &refused) {
  YamlNode out;
  if (!node || refused.node)
    return out;
  if (depth > kMaxYamlDepth) {
    // Going on to the next document would walk the rest of this one, as
    // deep as it goes.
    refused = {node, "YAML nested deeper than " +
                         std::to_string(kMaxYamlDepth) +
                         " levels; a spec nests five at most"};
    return out;
  }
  if (auto *alias = dyn_cast<yaml::AliasNode>(node)) {
    refused = {node, "a spec may not use YAML aliases ('*" +
                         alias->getName().str() + "'); write the value out"};
    return out;
  }
  out.range = node->getSourceRange();
  if (isa<yaml::MappingNode>(node))
    out.range = widenToBracket(out.range, '{', bufferStart);
  else if (isa<yaml::SequenceNode>(node))
    out.range = widenToBracket(out.range, '[', bufferStart);
  if (auto *scalar = dyn_cast<yaml::ScalarNode>(node)) {
    SmallString<64> storage;
    out.kind = YamlNode::Scalar;
    out.text = scalar->getValue(storage).str();
    out.quoted = scalar->getRawValue().startswith("\"") ||
                 scalar->getRawValue().startswith("'");
  } else if (auto *block = dyn_cast<yaml::BlockScalarNode>(node)) {
    out.kind = YamlNode::Scalar;
    out.text = block->getValue().str();
  } else if (auto *map = dyn_cast<yaml::MappingNode>(node)) {
    out.kind = YamlNode::Mapping;
    for (yaml::KeyValueNode &entry : *map) {
      YamlNode key =
          materialize(entry.getKey(), bufferStart, depth + 1, refused);
      YamlNode value =
          materialize(entry.getValue(), bufferStart, depth + 1, refused);
      if (value.kind == YamlNode::Null && !value.range.isValid())
        value.range = key.range;
      out.entries.emplace_back(std::move(key), std::move(value));
      if (refused.node)
        break;
    }
  } else if (auto *seq = dyn_cast<yaml::SequenceNode>(node)) {
    out.kind = YamlNode::Sequence;
    for (yaml::Node &item : *seq) {
      out.items.push_back(materialize(&item, bufferStart, depth + 1, refused));
      if (refused.node)
        break;
    }
  } else if (isa<yaml::NullNode>(node)) {
    out.kind = YamlNode::Null;
  } else {
    out.kind = YamlNode::Other;
  }
  return out;
}

/// One mapping's keys, read once; reports unknown and duplicate keys.
class MappingReader {
public:
  MappingReader(const YamlNode *node, ArrayRef<StringRef> allowedKeys,
                StringRef context, DiagnosticEngine &diags)
      : node(node), diags(diags) {
    for (const auto &[keyNode, valueNode] : node->entries) {
      if (keyNode.kind != YamlNode::Scalar) {
        diags.error(keyNode.range,
                    "keys in " + context + " must be plain words");
        continue;
      }
      const std::string &key = keyNode.text;
      if (!is_contained(allowedKeys, StringRef(key))) {
        StringRef hint = closestMatch(key, allowedKeys);
        diags.error(keyNode.range,
                    "unknown key '" + key + "' in " + context +
                        (hint.empty() ? std::string()
                                      : "; did you mean '" + hint.str() + "'?"));
        continue;
      }
      if (values.count(key)) {
        diags.error(keyNode.range,
                    "duplicate key '" + key + "' in " + context);
        continue;
      }
      values[key] = &valueNode;
    }
  }

  /// The value node of `key`, or null when absent.
  const YamlNode *get(StringRef key) const {
    auto it = values.find(key);
    return it == values.end() ? nullptr : it->second;
  }

  /// Like get(), but reports a missing required key at the mapping.
  const YamlNode *require(StringRef key, StringRef context) {
    const YamlNode *value = get(key);
    if (!value)
      diags.error(node->range,
                  "missing required key '" + key + "' in " + context);
    return value;
  }

private:
  const YamlNode *node;
  DiagnosticEngine &diags;
  StringMap<const YamlNode *> values;
};

class Parser {
public:
  Parser(DiagnosticEngine &diags) : diags(diags) {}

  void parseDocument(const YamlNode *root, Spec &spec);

private:
  const YamlNode *asMapping(const YamlNode *node, StringRef what);
  const YamlNode *asSequence(const YamlNode *node, StringRef what);
  bool readString(const YamlNode *node, StringRef what, Located<std::string> &out);
  bool readInteger(const YamlNode *node, StringRef what, Located<long long> &out);
  bool readNumber(const YamlNode *node, StringRef what, Located<double> &out);
  bool readBool(const YamlNode *node, StringRef what, Located<bool> &out);
  bool readIntegerList(const YamlNode *node, StringRef what,
                       Located<std::vector<long long>> &out);

  void parseGrid(const YamlNode *node, Spec &spec);
  void parseField(const YamlNode *node, Spec &spec);
  void parseParameters(const YamlNode *node, Spec &spec);
  void parseLinks(const YamlNode *node, Spec &spec);
  void parseClover(const YamlNode *node, Spec &spec);
  /// `layout: aos` or {order, block, vector} of links or the clover term.
  void parseValuesLayout(const YamlNode *layout, StringRef what,
                         Located<std::string> &order,
                         Located<long long> &block,
                         Located<long long> &vector, llvm::SMRange &range);
  void parseTaps(const YamlNode *node, Spec &spec);
  void parseCoefficient(const YamlNode *node, CoefficientSpec &out);
  void parseKernel(const YamlNode *node, Spec &spec);

  /// The plain text of a scalar node, or nullopt (with an error) otherwise.
  std::optional<std::string> scalarText(const YamlNode *node, StringRef what);
  /// scalarText for a number or true/false: quotes make YAML's value a
  /// string, which other YAML readers of the spec would not take as one.
  std::optional<std::string> unquotedText(const YamlNode *node, StringRef what,
                                          StringRef kind);

  DiagnosticEngine &diags;
};

std::optional<std::string> Parser::scalarText(const YamlNode *node,
                                              StringRef what) {
  if (node->kind == YamlNode::Scalar)
    return node->text;
  diags.error(node->range, what + " must be a single value");
  return std::nullopt;
}

std::optional<std::string>
Parser::unquotedText(const YamlNode *node, StringRef what, StringRef kind) {
  std::optional<std::string> text = scalarText(node, what);
  if (text && node->quoted) {
    diags.error(node->range, what + " must be " + kind +
                                 ", not the quoted string '" + *text +
                                 "'; write it without quotes");
    return std::nullopt;
  }
  return text;
}

const YamlNode *Parser::asMapping(const YamlNode *node, StringRef what) {
  if (node->kind == YamlNode::Mapping)
    return node;
  diags.error(node->range, what + " must be a mapping of keys");
  return nullptr;
}

const YamlNode *Parser::asSequence(const YamlNode *node, StringRef what) {
  if (node->kind == YamlNode::Sequence)
    return node;
  diags.error(node->range, what + " must be a list");
  return nullptr;
}

bool Parser::readString(const YamlNode *node, StringRef what,
                        Located<std::string> &out) {
  if (!node)
    return false;
  std::optional<std::string> text = scalarText(node, what);
  if (!text)
    return false;
  out.set(*text, node->range);
  return true;
}

bool Parser::readInteger(const YamlNode *node, StringRef what,
                         Located<long long> &out) {
  if (!node)
    return false;
  std::optional<std::string> text = unquotedText(node, what, "an integer");
  if (!text)
    return false;
  long long value;
  if (StringRef(*text).trim().getAsInteger(10, value)) {
    diags.error(node->range,
                what + " must be an integer, not '" + *text + "'");
    return false;
  }
  out.set(value, node->range);
  return true;
}

bool Parser::readNumber(const YamlNode *node, StringRef what,
                        Located<double> &out) {
  if (!node)
    return false;
  std::optional<std::string> text = unquotedText(node, what, "a number");
  if (!text)
    return false;
  double value;
  if (StringRef(*text).trim().getAsDouble(value)) {
    diags.error(node->range,
                what + " must be a number, not '" + *text + "'");
    return false;
  }
  out.set(value, node->range);
  return true;
}

bool Parser::readBool(const YamlNode *node, StringRef what, Located<bool> &out) {
  if (!node)
    return false;
  std::optional<std::string> text = unquotedText(node, what, "true or false");
  if (!text)
    return false;
  if (*text == "true" || *text == "false") {
    out.set(*text == "true", node->range);
    return true;
  }
  diags.error(node->range,
              what + " must be true or false, not '" + *text + "'");
  return false;
}

bool Parser::readIntegerList(const YamlNode *node, StringRef what,
                             Located<std::vector<long long>> &out) {
  if (!node)
    return false;
  const YamlNode *seq = asSequence(node, what);
  if (!seq)
    return false;
  std::vector<long long> values;
  bool ok = true;
  for (const YamlNode &element : seq->items) {
    Located<long long> value;
    if (readInteger(&element, ("each entry of " + what).str(), value))
      values.push_back(value.value);
    else
      ok = false;
  }
  if (ok)
    out.set(std::move(values), node->range);
  return ok;
}

void Parser::parseDocument(const YamlNode *root, Spec &spec) {
  spec.documentRange = root->range;
  const YamlNode *map = asMapping(root, "a stencil spec");
  if (!map)
    return;
  static const StringRef keys[] = {"name",  "description", "grid",
                                   "field", "parameters",  "taps",
                                   "kernel", "solver",     "links",
                                   "clover", "inner_precision"};
  MappingReader reader(map, keys, "the spec", diags);
  readString(reader.require("name", "the spec"), "'name'", spec.name);
  readString(reader.get("description"), "'description'", spec.description);
  readString(reader.get("solver"), "'solver'", spec.solver);
  readString(reader.get("inner_precision"), "'inner_precision'",
             spec.innerPrecision);
  if (const YamlNode *grid = reader.require("grid", "the spec"))
    parseGrid(grid, spec);
  if (const YamlNode *field = reader.require("field", "the spec"))
    parseField(field, spec);
  if (const YamlNode *params = reader.get("parameters"))
    parseParameters(params, spec);
  if (const YamlNode *links = reader.get("links"))
    parseLinks(links, spec);
  if (const YamlNode *clover = reader.get("clover"))
    parseClover(clover, spec);
  if (const YamlNode *taps = reader.require("taps", "the spec"))
    parseTaps(taps, spec);
  if (const YamlNode *kernel = reader.get("kernel"))
    parseKernel(kernel, spec);
}

void Parser::parseGrid(const YamlNode *node, Spec &spec) {
  spec.gridRange = node->range;
  const YamlNode *map = asMapping(node, "'grid'");
  if (!map)
    return;
  static const StringRef keys[] = {"dimensions", "boundary", "split",
                                   "exchange"};
  MappingReader reader(map, keys, "'grid'", diags);
  readInteger(reader.require("dimensions", "'grid'"), "'grid.dimensions'",
              spec.dimensions);
  if (const YamlNode *split = reader.get("split")) {
    spec.splitRange = split->range;
    if (split->kind != YamlNode::Sequence)
      diags.error(split->range, "'grid.split' must be a list of axes, e.g. "
                                "[z, t]");
    else
      for (const YamlNode &entry : split->items) {
        Located<std::string> name;
        if (readString(&entry, "each entry of 'grid.split'", name))
          spec.splitAxes.push_back(name);
      }
  }
  if (const YamlNode *exchange = reader.get("exchange")) {
    spec.exchangeRange = exchange->range;
    if (const YamlNode *policy = asMapping(exchange, "'grid.exchange'")) {
      static const StringRef policyKeys[] = {"transport", "overlap"};
      MappingReader policyReader(policy, policyKeys, "'grid.exchange'", diags);
      readString(policyReader.get("transport"), "'grid.exchange.transport'",
                 spec.exchangeTransport);
      readBool(policyReader.get("overlap"), "'grid.exchange.overlap'",
               spec.exchangeOverlap);
    }
  }
  const YamlNode *boundary = reader.require("boundary", "'grid'");
  if (!boundary || boundary->kind != YamlNode::Sequence) {
    readString(boundary, "'grid.boundary'", spec.boundary);
    return;
  }
  // One boundary per axis, x first.
  spec.boundaryListRange = boundary->range;
  for (const YamlNode &entry : boundary->items) {
    Located<std::string> name;
    if (readString(&entry, "each entry of 'grid.boundary'", name))
      spec.axisBoundaries.push_back(name);
  }
}

void Parser::parseField(const YamlNode *node, Spec &spec) {
  spec.fieldRange = node->range;
  const YamlNode *map = asMapping(node, "'field'");
  if (!map)
    return;
  static const StringRef keys[] = {"precision", "components", "layout",
                                   "even_odd",  "type",       "shape"};
  MappingReader reader(map, keys, "'field'", diags);
  readString(reader.require("precision", "'field'"), "'field.precision'",
             spec.precision);
  readInteger(reader.get("components"), "'field.components'",
              spec.components);
  readString(reader.get("type"), "'field.type'", spec.valueType);
  readIntegerList(reader.get("shape"), "'field.shape'", spec.shape);
  readBool(reader.get("even_odd"), "'field.even_odd'", spec.evenOdd);
  const YamlNode *layout = reader.get("layout");
  if (!layout)
    return;
  spec.layoutRange = layout->range;
  if (layout->kind == YamlNode::Scalar) {
    readString(layout, "'field.layout'", spec.layoutOrder);
    return;
  }
  const YamlNode *layoutMap = asMapping(layout, "'field.layout'");
  if (!layoutMap)
    return;
  static const StringRef layoutKeys[] = {"order", "block", "vector",
                                         "subdomain"};
  MappingReader layoutReader(layoutMap, layoutKeys, "'field.layout'", diags);
  readString(layoutReader.require("order", "'field.layout'"),
             "'field.layout.order'", spec.layoutOrder);
  readInteger(layoutReader.get("block"), "'field.layout.block'",
              spec.layoutBlock);
  readInteger(layoutReader.get("vector"), "'field.layout.vector'",
              spec.layoutVector);
  readIntegerList(layoutReader.get("subdomain"), "'field.layout.subdomain'",
                  spec.subdomain);
}

void Parser::parseParameters(const YamlNode *node, Spec &spec) {
  const YamlNode *seq = asSequence(node, "'parameters'");
  if (!seq)
    return;
  for (const YamlNode &element : seq->items) {
    const YamlNode *map = asMapping(&element, "each parameter");
    if (!map)
      continue;
    static const StringRef keys[] = {"name", "kind", "type", "default"};
    MappingReader reader(map, keys, "a parameter", diags);
    ParameterSpec param;
    param.range = element.range;
    readString(reader.require("name", "a parameter"), "a parameter's 'name'",
               param.name);
    readString(reader.get("kind"), "a parameter's 'kind'", param.kind);
    readString(reader.get("type"), "a parameter's 'type'", param.type);
    // A site parameter is an array supplied at run time: no default.
    bool site = param.kind.present && param.kind.value == "site";
    if (!site)
      readNumber(reader.require("default", "a parameter"),
                 "a parameter's 'default'", param.defaultValue);
    else if (const YamlNode *unwanted = reader.get("default"))
      diags.error(unwanted->range, "a site parameter takes its values from "
                                   "a field at run time, not a 'default'");
    spec.parameters.push_back(std::move(param));
  }
}

void Parser::parseLinks(const YamlNode *node, Spec &spec) {
  LinksSpec &links = spec.links;
  links.range = node->range;
  const YamlNode *map = asMapping(node, "'links'");
  if (!map)
    return;
  links.present = true;
  static const StringRef keys[] = {"name", "colours", "compression",
                                   "layout"};
  MappingReader reader(map, keys, "'links'", diags);
  readString(reader.require("name", "'links'"), "'links.name'", links.name);
  readInteger(reader.get("colours"), "'links.colours'", links.colours);
  readString(reader.get("compression"), "'links.compression'",
             links.compression);
  if (const YamlNode *layout = reader.get("layout"))
    parseValuesLayout(layout, "'links.layout'", links.layoutOrder,
                      links.layoutBlock, links.layoutVector,
                      links.layoutRange);
}

void Parser::parseClover(const YamlNode *node, Spec &spec) {
  CloverSpec &clover = spec.clover;
  clover.range = node->range;
  const YamlNode *map = asMapping(node, "'clover'");
  if (!map)
    return;
  clover.present = true;
  static const StringRef keys[] = {"name", "csw", "layout"};
  MappingReader reader(map, keys, "'clover'", diags);
  readString(reader.require("name", "'clover'"), "'clover.name'",
             clover.name);
  if (const YamlNode *csw = reader.require("csw", "'clover'"))
    parseCoefficient(csw, clover.csw);
  if (const YamlNode *layout = reader.get("layout"))
    parseValuesLayout(layout, "'clover.layout'", clover.layoutOrder,
                      clover.layoutBlock, clover.layoutVector,
                      clover.layoutRange);
}

void Parser::parseValuesLayout(const YamlNode *layout, StringRef what,
                               Located<std::string> &order,
                               Located<long long> &block,
                               Located<long long> &vector,
                               llvm::SMRange &range) {
  range = layout->range;
  if (layout->kind == YamlNode::Scalar) {
    readString(layout, what, order);
    return;
  }
  const YamlNode *layoutMap = asMapping(layout, what);
  if (!layoutMap)
    return;
  static const StringRef layoutKeys[] = {"order", "block", "vector"};
  MappingReader layoutReader(layoutMap, layoutKeys, what, diags);
  const std::string name = what.drop_back().str(); // 'links.layout
  readString(layoutReader.require("order", what), name + ".order'", order);
  readInteger(layoutReader.get("block"), name + ".block'", block);
  readInteger(layoutReader.get("vector"), name + ".vector'", vector);
}

void Parser::parseTaps(const YamlNode *node, Spec &spec) {
  spec.tapsRange = node->range;
  const YamlNode *seq = asSequence(node, "'taps'");
  if (!seq)
    return;
  for (const YamlNode &element : seq->items) {
    const YamlNode *map = asMapping(&element, "each tap");
    if (!map)
      continue;
    static const StringRef keys[] = {"offset", "coefficient", "link", "spin",
                                     "clover"};
    MappingReader reader(map, keys, "a tap", diags);
    TapSpec tap;
    tap.range = element.range;
    Located<std::vector<long long>> offset;
    if (readIntegerList(reader.require("offset", "a tap"), "a tap's 'offset'",
                        offset)) {
      std::vector<int> narrowed;
      bool fits = true;
      for (long long value : offset.value) {
        if (value < -1024 || value > 1024)
          fits = false;
        narrowed.push_back(static_cast<int>(value));
      }
      if (fits)
        tap.offset.set(std::move(narrowed), offset.range);
      else
        diags.error(offset.range,
                    "a tap's 'offset' entries must lie in [-1024, 1024]");
    }
    if (const YamlNode *coeff = reader.require("coefficient", "a tap"))
      parseCoefficient(coeff, tap.coefficient);
    readString(reader.get("link"), "a tap's 'link'", tap.link);
    readString(reader.get("spin"), "a tap's 'spin'", tap.spin);
    readString(reader.get("clover"), "a tap's 'clover'", tap.clover);
    spec.taps.push_back(std::move(tap));
  }
}

} // namespace

bool parseCoefficientText(StringRef text, CoefficientSpec &out) {
  CoefficientSpec result;
  size_t i = 0;
  auto skipSpaces = [&] {
    while (i < text.size() && text[i] == ' ')
      ++i;
  };
  // digits [. digits] [e [+-] digits]: an exponent without digits ("2e",
  // "1e+-5") is an error, not a number and a term.
  auto readNumber = [&](double &value) {
    size_t start = i;
    auto digits = [&] {
      size_t from = i;
      while (i < text.size() && isDigit(text[i]))
        ++i;
      return i > from;
    };
    bool mantissa = digits();
    if (i < text.size() && text[i] == '.') {
      ++i;
      mantissa |= digits();
    }
    if (!mantissa)
      return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      ++i;
      if (i < text.size() && (text[i] == '+' || text[i] == '-'))
        ++i;
      if (!digits())
        return false;
    }
    return !text.slice(start, i).getAsDouble(value);
  };
  auto readName = [&](std::string &name) {
    size_t start = i;
    if (i < text.size() && (isAlpha(text[i]) || text[i] == '_'))
      while (i < text.size() && (isAlnum(text[i]) || text[i] == '_'))
        ++i;
    name = text.slice(start, i).str();
    return !name.empty();
  };
  // `@` and one or more signed steps: `-x`, `+x-y`, `+2z`.
  auto readShift = [&](std::array<int, 4> &shift) {
    bool any = false;
    while (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      int sign = text[i] == '-' ? -1 : 1;
      ++i;
      int steps = 0;
      bool counted = false;
      while (i < text.size() && isDigit(text[i]) && steps < 1000) {
        steps = steps * 10 + (text[i] - '0');
        counted = true;
        ++i;
      }
      if (counted && steps == 0)
        return false;
      static const char axes[] = "xyzt";
      const char *axis =
          i < text.size() ? std::strchr(axes, text[i]) : nullptr;
      if (!axis || !*axis)
        return false;
      ++i;
      shift[axis - axes] += sign * (counted ? steps : 1);
      any = true;
    }
    return any;
  };
  bool firstTerm = true;
  skipSpaces();
  while (true) {
    double sign = 1.0;
    skipSpaces();
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      sign = text[i] == '-' ? -1.0 : 1.0;
      ++i;
      skipSpaces();
    } else if (!firstTerm) {
      return false;
    }
    firstTerm = false;
    if (i >= text.size())
      return false;
    double factor = 1.0;
    std::string name;
    if (isDigit(text[i]) || text[i] == '.') {
      if (!readNumber(factor))
        return false;
      skipSpaces();
      if (i < text.size() && text[i] == '*') {
        ++i;
        skipSpaces();
        if (!readName(name))
          return false;
      }
    } else if (!readName(name)) {
      return false;
    }
    if (name.empty()) {
      result.constant += sign * factor;
    } else {
      CoefficientTermSpec term{name, sign * factor, {}, false, false};
      // `conj(name)` or `conj(name@shift)`: the complex conjugate.
      skipSpaces();
      if (name == "conj" && i < text.size() && text[i] == '(') {
        ++i;
        skipSpaces();
        if (!readName(term.name))
          return false;
        term.conjugate = true;
      }
      skipSpaces();
      if (i < text.size() && text[i] == '@') {
        ++i;
        if (!readShift(term.shift))
          return false;
        term.shifted = true;
      }
      if (term.conjugate) {
        skipSpaces();
        if (i >= text.size() || text[i] != ')')
          return false;
        ++i;
      }
      result.terms.push_back(std::move(term));
    }
    skipSpaces();
    if (i >= text.size())
      break;
  }
  out.constant = result.constant;
  out.terms = std::move(result.terms);
  return true;
}

namespace {

void Parser::parseCoefficient(const YamlNode *node, CoefficientSpec &out) {
  std::optional<std::string> text = scalarText(node, "a tap's 'coefficient'");
  if (!text)
    return;
  out.range = node->range;
  if (!parseCoefficientText(*text, out)) {
    diags.error(node->range,
                "a tap's 'coefficient' must be a sum of numbers, parameter "
                "names and 'number * name' terms (a coefficient field read "
                "at a shifted site as 'name@-x' or 'name@+x-y', a complex "
                "one conjugated as 'conj(name@-x)'), not '" +
                    *text + "'");
    return;
  }
  out.present = true;
}

void Parser::parseKernel(const YamlNode *node, Spec &spec) {
  KernelSpec &kernel = spec.kernel;
  kernel.range = node->range;
  const YamlNode *map = asMapping(node, "'kernel'");
  if (!map)
    return;
  kernel.present = true;
  static const StringRef keys[] = {"block",      "launch_bounds",
                                   "min_blocks_per_sm",
                                   "tile",       "load_order",
                                   "nontemporal_store", "vector_width",
                                   "components_per_thread", "slab",
                                   "staging", "march"};
  MappingReader reader(map, keys, "'kernel'", diags);
  readIntegerList(reader.get("block"), "'kernel.block'", kernel.block);
  readInteger(reader.get("launch_bounds"), "'kernel.launch_bounds'",
              kernel.launchBounds);
  readInteger(reader.get("min_blocks_per_sm"), "'kernel.min_blocks_per_sm'",
              kernel.minBlocksPerSm);
  readString(reader.get("load_order"), "'kernel.load_order'",
             kernel.loadOrder);
  readBool(reader.get("nontemporal_store"), "'kernel.nontemporal_store'",
           kernel.nontemporalStore);
  readInteger(reader.get("vector_width"), "'kernel.vector_width'",
              kernel.vectorWidth);
  readInteger(reader.get("components_per_thread"),
              "'kernel.components_per_thread'", kernel.componentsPerThread);
  // 'auto' or a number of slices: a number in quotes is a string, refused
  // as every integer option refuses one.
  if (const YamlNode *slab = reader.get("slab");
      slab && slab->kind == YamlNode::Scalar && slab->quoted &&
      slab->text != "auto")
    unquotedText(slab, "'kernel.slab'", "'auto' or a number of slices");
  else
    readString(slab, "'kernel.slab'", kernel.slab);
  readString(reader.get("staging"), "'kernel.staging'", kernel.staging);
  readBool(reader.get("march"), "'kernel.march'", kernel.march);
  if (const YamlNode *tileNode = reader.get("tile")) {
    kernel.tile.range = tileNode->range;
    if (const YamlNode *tileMap = asMapping(tileNode, "'kernel.tile'")) {
      kernel.tile.present = true;
      static const StringRef tileKeys[] = {"axis", "factor"};
      MappingReader tileReader(tileMap, tileKeys, "'kernel.tile'", diags);
      readString(tileReader.require("axis", "'kernel.tile'"),
                 "'kernel.tile.axis'", kernel.tile.axis);
      readInteger(tileReader.require("factor", "'kernel.tile'"),
                  "'kernel.tile.factor'", kernel.tile.factor);
    }
  }
}

} // namespace

std::optional<Spec> parseSpec(unsigned bufferID, StringRef path,
                              DiagnosticEngine &diags) {
  SourceMgr &sourceMgr = diags.getSourceMgr();
  unsigned errorsBefore = diags.errorCount();
  Spec spec;
  spec.path = path.str();
  // What pregenerated sources are checked against (CMake's file(SHA256)).
  spec.sha256 = toHex(
      SHA256::hash(arrayRefFromStringRef(
          sourceMgr.getMemoryBuffer(bufferID)->getBuffer())),
      /*LowerCase=*/true);
  // LLVM's YAML scanner reads invalid UTF-8 as the end of a scalar
  // ("Got empty plain scalar"); name the byte instead.
  StringRef text = sourceMgr.getMemoryBuffer(bufferID)->getBuffer();
  const UTF8 *cursor = reinterpret_cast<const UTF8 *>(text.begin());
  if (!isLegalUTF8String(&cursor, reinterpret_cast<const UTF8 *>(text.end()))) {
    const char *bad = reinterpret_cast<const char *>(cursor);
    diags.error(
        SMRange(SMLoc::getFromPointer(bad), SMLoc::getFromPointer(bad + 1)),
        "byte 0x" +
            utohexstr(static_cast<unsigned char>(*bad), /*LowerCase=*/true, 2) +
            " is not UTF-8; a spec is UTF-8 text (saved in another "
            "encoding?)");
    return std::nullopt;
  }
  yaml::Stream stream(sourceMgr.getMemoryBuffer(bufferID)->getMemBufferRef(),
                      sourceMgr, /*ShowColors=*/false);
  Parser parser(diags);
  unsigned documents = 0;
  for (yaml::Document &document : stream) {
    yaml::Node *root = document.getRoot();
    if (!root || isa<yaml::NullNode>(root))
      continue;
    if (++documents > 1) {
      diags.error(root->getSourceRange(),
                  "a spec file holds one YAML document; found a second");
      break;
    }
    RefusedNode refused;
    YamlNode tree =
        materialize(root, sourceMgr.getMemoryBuffer(bufferID)->getBufferStart(),
                    /*depth=*/1, refused);
    if (refused.node) {
      SMRange range = refused.node->getSourceRange();
      const char *start =
          sourceMgr.getMemoryBuffer(bufferID)->getBufferStart();
      if (isa<yaml::MappingNode>(refused.node))
        range = widenToBracket(range, '{', start);
      else if (isa<yaml::SequenceNode>(refused.node))
        range = widenToBracket(range, '[', start);
      // LLVM's range of an alias starts after its token: point at `*name`.
      if (auto *alias = dyn_cast<yaml::AliasNode>(refused.node)) {
        StringRef buffer = sourceMgr.getMemoryBuffer(bufferID)->getBuffer();
        size_t end = range.Start.getPointer() - buffer.data();
        size_t star =
            buffer.take_front(end).rfind("*" + alias->getName().str());
        if (star != StringRef::npos)
          range = SMRange(
              SMLoc::getFromPointer(buffer.data() + star),
              SMLoc::getFromPointer(buffer.data() + star + 1 +
                                    alias->getName().size()));
      }
      diags.error(range, refused.why);
      return std::nullopt;
    }
    if (!stream.failed())
      parser.parseDocument(&tree, spec);
  }
  bool syntaxError = stream.failed();
  if (syntaxError || (diags.errorCount() > errorsBefore && documents == 0))
    return std::nullopt;
  if (documents == 0) {
    diags.error("'" + path + "' holds no stencil spec");
    return std::nullopt;
  }
  return spec;
}

/// A spec's text ("-": standard input), read up to a cap: a spec is a few
/// kilobytes, and /dev/zero or a wrong file had been read until memory ran
/// out.
static Expected<std::unique_ptr<MemoryBuffer>> readSpecText(StringRef path) {
  constexpr size_t kMaxSpecBytes = 16u << 20;
  sys::fs::file_t file = sys::fs::getStdinHandle();
  if (path != "-") {
    Expected<sys::fs::file_t> opened = sys::fs::openNativeFileForRead(path);
    if (!opened)
      return opened.takeError();
    file = *opened;
  }
  std::string text;
  std::vector<char> chunk(1 << 16);
  Error failure = Error::success();
  while (true) {
    Expected<size_t> read = sys::fs::readNativeFile(file, chunk);
    if (!read) {
      failure = read.takeError();
      break;
    }
    if (*read == 0)
      break;
    text.append(chunk.data(), *read);
    if (text.size() > kMaxSpecBytes) {
      failure = createStringError(std::errc::file_too_large,
                                  "more than 16 MiB; a spec is a few "
                                  "kilobytes of YAML");
      break;
    }
  }
  if (path != "-")
    sys::fs::closeFile(file);
  if (failure)
    return failure;
  return MemoryBuffer::getMemBufferCopy(text, path);
}

std::optional<Spec> parseSpecFile(StringRef path, DiagnosticEngine &diags) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer = readSpecText(path);
  if (!buffer) {
    diags.error("cannot read spec '" + path +
                "': " + toString(buffer.takeError()));
    return std::nullopt;
  }
  unsigned id =
      diags.getSourceMgr().AddNewSourceBuffer(std::move(*buffer), SMLoc());
  return parseSpec(id, path, diags);
}

} // namespace stencilc
