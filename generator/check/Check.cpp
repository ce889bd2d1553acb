//===- Check.cpp - Semantic validation of a parsed spec -------------------===//
//
// The spec's rules, section by section, into a StencilModel. Elsewhere: the
// model's own functions (Model.cpp), the load-order grammar
// (spec/LoadOrder.cpp; resolved against the taps here), the rules for vector
// accesses and split sites that the tuner shares (AccessRules.cpp), and what
// 'solver: cg' needs of the operator (CheckSolver.cpp), and complex values
// and links (CheckLinks.cpp).
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"

#include "check/CheckSolver.h"
#include "check/Checker.h"
#include "spec/LoadOrder.h"
#include "spec/SpecParser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <type_traits>

using namespace llvm;

namespace stencilc {
namespace checker {

bool isIdentifier(StringRef word) {
  if (word.empty() || !(isAlpha(word[0]) || word[0] == '_'))
    return false;
  return all_of(word, [](char c) { return isAlnum(c) || c == '_'; });
}

/// Names a spec may not use for the stencil or a parameter: C++'s keywords,
/// the names its implementation reserves, the platform's macros
/// (STENCIL_...), the few names the generated host code gives the
/// stencil's own types and arguments, the namespaces it names (a stencil
/// called `std` would shadow them), the standard library's macros and the
/// GPU's built-in variables. The kernels' local variables need no entry:
/// they reach the spec's parameters only as members of `params`.
bool isReservedName(StringRef word) {
  static const StringRef reserved[] = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case",
      "catch", "char", "class", "const", "constexpr", "continue", "default",
      "delete", "do", "double", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "nullptr", "operator", "or", "private", "protected", "public",
      "register", "return", "short", "signed", "sizeof", "static", "struct",
      "switch", "template", "this", "throw", "true", "try", "typedef",
      "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "while", "xor", "and_eq", "bitand", "bitor", "compl",
      "not_eq", "or_eq", "xor_eq", "char8_t", "char16_t", "char32_t",
      "wchar_t", "const_cast", "dynamic_cast", "reinterpret_cast",
      "static_cast", "static_assert", "decltype", "thread_local", "typeid",
      "concept", "requires", "consteval", "constinit", "co_await",
      "co_return", "co_yield", "in", "out", "stream", "params", "extents",
      "value_type",
      // Namespaces of the generated code.
      "std", "stencil", "stencilc_kernels",
      // The C and C++ libraries' macros.
      "NULL", "EOF", "errno", "assert", "offsetof", "stdin", "stdout",
      "stderr", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL",
      "FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX", "DBL_MIN",
      "DBL_EPSILON", "CHAR_BIT", "INT_MAX", "INT_MIN", "UINT_MAX",
      "LONG_MAX", "LONG_MIN", "LLONG_MAX", "LLONG_MIN", "SIZE_MAX",
      "RAND_MAX", "EXIT_SUCCESS", "EXIT_FAILURE", "BUFSIZ", "FILENAME_MAX",
      "SEEK_SET", "SEEK_CUR", "SEEK_END", "M_PI", "M_E", "unix", "linux",
      // CUDA's and HIP's built-in variables.
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  return is_contained(reserved, word) || word.startswith("__") ||
         word.startswith("STENCIL_");
}

std::optional<StencilModel> Checker::run() {
  unsigned errorsBefore = diags.errorCount();
  model.specFileName = sys::path::filename(spec.path).str();
  model.specSha256 = spec.sha256;
  checkName();
  checkGrid();
  checkField();
  checkParameters();
  checkLinks();
  checkClover();
  checkTaps();
  checkKernel();
  checkLayout();
  checkComponentSplit();
  checkSlab();
  checkStaging();
  checkMarch();
  checkSolver();
  checkInnerPrecision();
  for (size_t i = 0; i < spec.parameters.size() && i < parameterUsed.size();
       ++i)
    if (!parameterUsed[i] && tapsKnown)
      diags.warning(spec.parameters[i].range,
                    "parameter '" + spec.parameters[i].name.value +
                        "' is declared but no tap uses it");
  if (diags.errorCount() != errorsBefore)
    return std::nullopt;
  return model;
}

void Checker::checkName() {
  if (spec.name.present) {
    if (!isIdentifier(spec.name.value))
      diags.error(spec.name.range,
                  "'name' must be a C identifier (letters, digits and '_', "
                  "not starting with a digit), not '" +
                      spec.name.value + "'");
    else if (isReservedName(spec.name.value))
      diags.error(spec.name.range, "'name' may not be the reserved word '" +
                                       spec.name.value + "'");
    model.name = spec.name.value;
  }
  if (spec.description.present) {
    const std::string &text = spec.description.value;
    // Copied into comments of the generated code: nothing may end them or
    // run one into the code after it.
    auto control = llvm::find_if(text, [](char c) {
      return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t';
    });
    SmallVector<StringRef, 4> lines;
    StringRef(text).split(lines, '\n');
    bool continues = llvm::any_of(lines, [](StringRef line) {
      return line.rtrim(" \t").endswith("\\");
    });
    if (text.find("*/") != std::string::npos)
      diags.error(spec.description.range,
                  "'description' may not contain '*/' (it is copied into a "
                  "comment of the generated code)");
    else if (control != text.end())
      diags.error(spec.description.range,
                  "'description' may not contain control characters (found "
                  "character code " +
                      Twine(static_cast<int>(*control)) +
                      "; it is copied into comments of the generated code)");
    else if (continues)
      diags.error(spec.description.range,
                  "a line of 'description' may not end with '\\' (it would "
                  "continue the generated code's comment onto the next line)");
    model.description = spec.description.value;
  }
}

void Checker::checkGrid() {
  if (spec.dimensions.present) {
    long long dims = spec.dimensions.value;
    if (dims < 1 || dims > kMaxDims)
      diags.error(spec.dimensions.range,
                  "'grid.dimensions' must be 1, 2, 3 or 4 (axes x, y, z, t), "
                  "not " +
                      Twine(dims));
    else {
      model.dims = static_cast<int>(dims);
      gridKnown = true;
    }
  }
  auto boundaryNamed = [&](const Located<std::string> &name,
                           Boundary &out) {
    StringRef value = name.value;
    if (value == "dirichlet")
      out = Boundary::Dirichlet;
    else if (value == "periodic")
      out = Boundary::Periodic;
    else if (value == "antiperiodic")
      out = Boundary::Antiperiodic;
    else {
      static const StringRef known[] = {"dirichlet", "periodic",
                                        "antiperiodic"};
      StringRef hint = closestMatch(value, known);
      diags.error(name.range,
                  "unknown boundary '" + value +
                      "'; expected 'dirichlet', 'periodic' or "
                      "'antiperiodic'" +
                      (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  };
  if (spec.boundary.present) {
    Boundary boundary = Boundary::Dirichlet;
    boundaryNamed(spec.boundary, boundary);
    model.boundaries.fill(boundary);
  }
  if (spec.boundaryListRange.isValid() && gridKnown) {
    if (static_cast<int>(spec.axisBoundaries.size()) != model.dims) {
      diags.error(spec.boundaryListRange,
                  "'grid.boundary' lists " +
                      Twine(spec.axisBoundaries.size()) +
                      " boundaries but the grid has " + Twine(model.dims) +
                      (model.dims == 1 ? " dimension" : " dimensions") +
                      "; give one per axis (x first) or one for all");
      return;
    }
    for (int axis = 0; axis < model.dims; ++axis)
      boundaryNamed(spec.axisBoundaries[axis], model.boundaries[axis]);
  }
  checkSplit();
}

/// grid.split: axes of the grid, each once.
void Checker::checkSplit() {
  if (!gridKnown)
    return;
  for (const Located<std::string> &name : spec.splitAxes) {
    int axis = -1;
    for (int a = 0; a < model.dims; ++a)
      if (name.value == axisName(a))
        axis = a;
    if (axis < 0) {
      diags.error(name.range, "'grid.split' names '" + name.value +
                                  "', which is not an axis of the " +
                                  Twine(model.dims) + "-D grid");
      continue;
    }
    if (model.split[axis]) {
      diags.error(name.range,
                  "'grid.split' names " + name.value + " twice");
      continue;
    }
    model.split[axis] = true;
  }
  // Split only along Dirichlet axes: the spec's own kernels are the ranks'
  // (their halo is the ghost zone).
  model.rankKernels = model.splittable() && !model.splitAxisWraps();
  checkExchange();
}

/// grid.exchange: a transport by name and whether to overlap; only for a
/// stencil that ranks may divide.
void Checker::checkExchange() {
  if (!spec.exchangeRange.isValid())
    return;
  if (!model.splittable()) {
    diags.error(spec.exchangeRange,
                "'grid.exchange' sets how ranks exchange halos, but the spec "
                "lists no axis in 'grid.split', so no process grid divides "
                "its lattice");
    return;
  }
  if (spec.exchangeTransport.present) {
    const std::string &name = spec.exchangeTransport.value;
    bool known = false;
    for (ExchangeTransport t :
         {ExchangeTransport::Auto, ExchangeTransport::Peer,
          ExchangeTransport::Staged, ExchangeTransport::GpuAware})
      if (name == exchangeTransportName(t)) {
        model.exchange.transport = t;
        known = true;
      }
    if (!known)
      diags.error(spec.exchangeTransport.range,
                  "'grid.exchange.transport' is '" + name +
                      "'; expected auto, peer, staged or gpu-aware");
  }
  if (spec.exchangeOverlap.present)
    model.exchange.overlap = spec.exchangeOverlap.value;
}

void Checker::checkField() {
  if (spec.precision.present) {
    StringRef value = spec.precision.value;
    if (value == "float")
      model.precision = Precision::Float;
    else if (value == "double")
      model.precision = Precision::Double;
    else {
      static const StringRef known[] = {"float", "double"};
      StringRef hint = closestMatch(value, known);
      diags.error(spec.precision.range,
                  "unknown precision '" + value +
                      "'; expected 'float' or 'double'" +
                      (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  if (spec.components.present) {
    long long components = spec.components.value;
    if (components < 1)
      diags.error(spec.components.range,
                  "'field.components' must be at least 1, not " +
                      Twine(components));
    else if (components > kMaxComponents)
      diags.error(spec.components.range,
                  "'field.components' of " + Twine(components) +
                      " exceeds the supported maximum of " +
                      Twine(kMaxComponents));
    else
      model.components = static_cast<int>(components);
  }
  checkValueShape();
}

void Checker::checkParameters() {
  std::map<std::string, size_t> seen;
  for (const ParameterSpec &param : spec.parameters) {
    Parameter out;
    if (param.name.present) {
      const std::string &name = param.name.value;
      if (!isIdentifier(name))
        diags.error(param.name.range,
                    "parameter name '" + name + "' is not a C identifier");
      else if (isReservedName(name))
        diags.error(param.name.range,
                    "parameter name '" + name + "' is a reserved word");
      auto [it, inserted] = seen.emplace(name, model.parameters.size());
      if (!inserted) {
        diags.error(param.name.range,
                    "parameter '" + name + "' is declared twice");
        diags.note(spec.parameters[it->second].name.range,
                   "first declared here");
      }
      out.name = name;
    }
    if (param.kind.present) {
      if (param.kind.value == "site")
        out.site = true;
      else if (param.kind.value != "scalar")
        diags.error(param.kind.range, "unknown parameter kind '" +
                                          param.kind.value +
                                          "'; expected 'scalar' or 'site'");
    }
    if (param.type.present) {
      if (param.type.value == "complex") {
        out.complex = true;
        if (!out.site)
          diags.error(param.type.range,
                      "only a coefficient field (kind: site) may be "
                      "complex; a scalar parameter is a real number");
        else if (!model.complexValues)
          diags.error(param.type.range,
                      "a complex coefficient field multiplies complex "
                      "values; declare 'field.type: complex'");
      } else if (param.type.value != "real") {
        diags.error(param.type.range, "unknown parameter type '" +
                                          param.type.value +
                                          "'; expected 'real' or 'complex'");
      }
    }
    if (param.defaultValue.present) {
      if (!std::isfinite(param.defaultValue.value))
        diags.error(param.defaultValue.range,
                    "a parameter's 'default' must be a finite number");
      out.defaultValue = param.defaultValue.value;
    }
    model.parameters.push_back(out);
  }
  parameterUsed.assign(model.parameters.size(), false);
}

bool Checker::resolveCoefficient(const CoefficientSpec &coeff,
                                 Coefficient &out) {
  bool ok = true;
  out.constant = coeff.constant;
  bool finite = std::isfinite(coeff.constant);
  for (const CoefficientTermSpec &term : coeff.terms) {
    const std::string &name = term.name;
    finite = finite && std::isfinite(term.factor);
    auto it = find_if(model.parameters,
                      [&](const Parameter &p) { return p.name == name; });
    if (it == model.parameters.end()) {
      std::vector<StringRef> names;
      for (const Parameter &p : model.parameters)
        names.push_back(p.name);
      StringRef hint = closestMatch(name, names);
      diags.error(coeff.range,
                  "coefficient uses undeclared parameter '" + name + "'" +
                      (hint.empty() ? "; declare it under 'parameters'"
                                    : "; did you mean '" + hint + "'?"));
      ok = false;
      continue;
    }
    int index = static_cast<int>(it - model.parameters.begin());
    parameterUsed[index] = true;
    Offset shift{};
    std::copy(term.shift.begin(), term.shift.end(), shift.begin());
    if (term.shifted && !it->site) {
      diags.error(coeff.range,
                  "'" + name + shiftText(shift) + "': '" + name +
                      "' is a scalar parameter, the same at every site; "
                      "only a coefficient field (kind: site) is read at "
                      "a shifted site");
      ok = false;
      continue;
    }
    if (term.conjugate && !it->complex) {
      diags.error(coeff.range,
                  "'conj(" + name + shiftText(shift) + ")': '" + name +
                      "' is real, its own conjugate; only a complex "
                      "coefficient field (type: complex) is conjugated");
      ok = false;
      continue;
    }
    if (std::any_of(shift.begin() + model.dims, shift.end(),
                    [](int s) { return s != 0; })) {
      diags.error(coeff.range,
                  "'" + name + shiftText(shift) + "' shifts along an "
                      "axis the " + Twine(model.dims) +
                      "-D grid does not have");
      ok = false;
      continue;
    }
    out.addTerm(index, term.factor, shift, term.conjugate);
  }
  if (!finite) {
    diags.error(coeff.range, "a coefficient must be finite");
    ok = false;
  }
  return ok;
}

void Checker::checkTaps() {
  if (spec.taps.empty()) {
    if (spec.tapsRange.isValid())
      diags.error(spec.tapsRange, "'taps' must list at least one tap");
    return;
  }
  tapsKnown = gridKnown;
  std::map<Offset, size_t> seen;
  for (const TapSpec &tapSpec : spec.taps) {
    Tap tap;
    tapRanges.push_back(tapSpec.range);
    if (!tapSpec.offset.present || !tapSpec.coefficient.present)
      tapsKnown = false;
    if (tapSpec.offset.present && gridKnown) {
      const std::vector<int> &offset = tapSpec.offset.value;
      if (static_cast<int>(offset.size()) != model.dims) {
        diags.error(tapSpec.offset.range,
                    "tap offset has " + Twine(offset.size()) +
                        " entries but the grid has " + Twine(model.dims) +
                        (model.dims == 1 ? " dimension" : " dimensions"));
        tapsKnown = false;
      } else {
        std::copy(offset.begin(), offset.end(), tap.offset.begin());
        auto [it, inserted] = seen.emplace(tap.offset, model.taps.size());
        if (!inserted) {
          diags.error(tapSpec.offset.range,
                      "duplicate tap offset " +
                          formatOffset(tap.offset, model.dims) +
                          "; merge the coefficients into one tap");
          diags.note(spec.taps[it->second].offset.range,
                     "first written here");
          tapsKnown = false;
        }
      }
    }
    if (tapSpec.coefficient.present &&
        !resolveCoefficient(tapSpec.coefficient, tap.coefficient))
      tapsKnown = false;
    model.taps.push_back(tap);
  }
  checkLinkTaps();
  if (!tapsKnown)
    return;
  computeReach(model);
  checkFieldReach();
}

/// Along a Dirichlet axis a coefficient field is read within the halo the
/// taps' reach gives: by A at x + shift and by A^T at x + shift - offset
/// (see transposedModel), from every updated site x.
void Checker::checkFieldReach() {
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Tap &tap = model.taps[t];
    for (const CoefficientTerm &term : tap.coefficient.terms) {
      if (!model.parameters[term.parameter].site)
        continue;
      for (int axis = 0; axis < model.dims; ++axis) {
        // A split axis reads a ghost zone as wide as the reach.
        const bool split = model.split[axis] && model.wraps(axis);
        if (model.wraps(axis) && !split)
          continue;
        int farthest = std::max(std::abs(term.shift[axis]),
                                std::abs(term.shift[axis] - tap.offset[axis]));
        if (farthest <= model.reach[axis])
          continue;
        diags.error(spec.taps[t].coefficient.range,
                    "'" + model.parameters[term.parameter].name +
                        shiftText(term.shift) + "' in the tap at " +
                        formatOffset(tap.offset, model.dims) + " reads the "
                        "field " + Twine(farthest) +
                        " sites away along " + axisName(axis) +
                        (farthest == std::abs(term.shift[axis])
                             ? ""
                             : " (from A^T's output site)") +
                        ", past the " + Twine(model.reach[axis]) +
                        (split ? "-site ghost zone of this axis in "
                                 "grid.split (the taps' reach); fields are "
                                 "read only inside it"
                               : "-site halo of this dirichlet axis (the "
                                 "taps' reach); fields are read only inside "
                                 "it"));
        break;
      }
    }
  }
}

void Checker::checkKernel() {
  const KernelSpec &written = spec.kernel;
  KernelOptions::Written &wrote = model.kernel.written;
  wrote.block = written.block.present;
  wrote.tile = written.tile.present;
  wrote.loadOrder = written.loadOrder.present;
  wrote.stores = written.nontemporalStore.present;
  wrote.launchBounds = written.launchBounds.present;
  wrote.minBlocksPerSm = written.minBlocksPerSm.present;
  wrote.vectorWidth = written.vectorWidth.present;
  wrote.componentsPerThread = written.componentsPerThread.present;
  wrote.staging = written.staging.present;
  wrote.march = written.march.present;
  checkBlock();
  checkTile();
  checkLoadOrder();
  const KernelSpec &kernel = spec.kernel;
  if (kernel.nontemporalStore.present)
    model.kernel.nontemporalStore = kernel.nontemporalStore.value;

  int threads = model.kernel.threadsPerBlock();
  model.kernel.launchBounds = threads;
  if (kernel.launchBounds.present) {
    long long bounds = kernel.launchBounds.value;
    if (bounds == 0)
      model.kernel.launchBounds = 0;
    else if (bounds < 0 || bounds > kMaxThreadsPerBlock)
      diags.error(kernel.launchBounds.range,
                  "'kernel.launch_bounds' must be 0 (none) or a thread count "
                  "from 1 to " +
                      Twine(kMaxThreadsPerBlock) + ", not " + Twine(bounds));
    else if (bounds < threads)
      diags.error(kernel.launchBounds.range,
                  "'kernel.launch_bounds' of " + Twine(bounds) +
                      " is below the block's " + Twine(threads) +
                      " threads; the launch would fail");
    else
      model.kernel.launchBounds = static_cast<int>(bounds);
  }
  checkMinBlocks();
}

/// At least N blocks resident per multiprocessor: the second argument of
/// __launch_bounds__, so it needs the first.
void Checker::checkMinBlocks() {
  const Located<long long> &min = spec.kernel.minBlocksPerSm;
  if (!min.present || min.value == 0)
    return;
  const int bounds = model.kernel.launchBounds;
  if (min.value < 0 || min.value > 32)
    diags.error(min.range, "'kernel.min_blocks_per_sm' must be 0 (none) to "
                           "32 blocks, not " +
                               Twine(min.value));
  else if (bounds == 0)
    diags.error(min.range, "'kernel.min_blocks_per_sm' completes the launch "
                           "bounds; it needs 'kernel.launch_bounds' (not 0)");
  else if (min.value * bounds > kMaxThreadsPerMultiprocessor)
    diags.error(min.range,
                "'kernel.min_blocks_per_sm' " + Twine(min.value) + " of " +
                    Twine(bounds) + " threads is more than the " +
                    Twine(kMaxThreadsPerMultiprocessor) +
                    " threads a multiprocessor holds");
  else
    model.kernel.minBlocksPerSm = static_cast<int>(min.value);
}

void Checker::checkBlock() {
  std::array<int, kMaxDims> &block = model.kernel.block;
  // Defaults: 256 threads, 64 along x so that a wavefront reads one row.
  block = {1, 1, 1, 1};
  if (model.dims == 1)
    block[0] = 256;
  else {
    block[0] = 64;
    block[1] = 4;
  }
  const auto &written = spec.kernel.block;
  if (!written.present || !gridKnown)
    return;
  if (static_cast<int>(written.value.size()) != model.dims) {
    diags.error(written.range, "'kernel.block' has " +
                                   Twine(written.value.size()) +
                                   " entries but the grid has " +
                                   Twine(model.dims) + " dimensions");
    return;
  }
  long long threads = 1;
  for (int axis = 0; axis < model.dims; ++axis) {
    long long extent = written.value[axis];
    if (extent < 1) {
      diags.error(written.range, "'kernel.block' entry for axis " +
                                     Twine(axisName(axis)) +
                                     " must be at least 1, not " +
                                     Twine(extent));
      return;
    }
    threads *= extent;
    if (threads > kMaxThreadsPerBlock)
      break;
  }
  if (threads > kMaxThreadsPerBlock) {
    diags.error(written.range, "'kernel.block' has more than " +
                                   Twine(kMaxThreadsPerBlock) +
                                   " threads per block");
    return;
  }
  // z and t share the GPU's third block dimension, which holds at most 64.
  long long third = 1;
  for (int axis = 2; axis < model.dims; ++axis)
    third *= written.value[axis];
  if (third > 64) {
    diags.error(written.range,
                "'kernel.block' entries for z and t multiply to " +
                    Twine(third) + "; the GPU's third block axis holds 64");
    return;
  }
  for (int axis = 0; axis < model.dims; ++axis)
    block[axis] = static_cast<int>(written.value[axis]);
  if (threads % kWavefrontSize != 0)
    diags.warning(written.range,
                  "'kernel.block' has " + Twine(threads) +
                      " threads, not a multiple of the wavefront size " +
                      Twine(kWavefrontSize) +
                      "; the last wavefront of each block runs partly idle");
}

void Checker::checkTile() {
  const TileSpec &tile = spec.kernel.tile;
  if (!tile.present)
    return;
  if (tile.axis.present) {
    StringRef axis = tile.axis.value;
    int index = -1;
    for (int a = 0; a < kMaxDims; ++a)
      if (axis == axisName(a))
        index = a;
    if (index < 0)
      diags.error(tile.axis.range, "unknown tile axis '" + axis +
                                       "'; axes are x, y, z and t");
    else if (gridKnown && index >= model.dims)
      diags.error(tile.axis.range,
                  "tile axis '" + axis + "' is not an axis of this " +
                      Twine(model.dims) + "-dimensional grid");
    else
      model.kernel.tileAxis = index;
  }
  if (tile.factor.present) {
    long long factor = tile.factor.value;
    if (factor < 1)
      diags.error(tile.factor.range,
                  "'kernel.tile.factor' must be at least 1, not " +
                      Twine(factor));
    else if (factor > kMaxTileFactor)
      diags.error(tile.factor.range,
                  "'kernel.tile.factor' of " + Twine(factor) +
                      " exceeds " + Twine(kMaxTileFactor) +
                      "; the tile's values would not fit in registers");
    else
      model.kernel.tileFactor = static_cast<int>(factor);
  }
}

void Checker::checkLoadOrder() {
  const auto &order = spec.kernel.loadOrder;
  if (!order.present)
    return;
  StringRef text = order.value;
  if (text == "as-written") {
    model.kernel.loadOrder = LoadOrder::AsWritten;
    return;
  }
  if (text == "ascending") {
    model.kernel.loadOrder = LoadOrder::Ascending;
    return;
  }
  model.kernel.loadOrder = LoadOrder::Explicit;
  model.kernel.loadOrderText = text.str();
  if (!tapsKnown)
    return; // the taps' own errors are already reported
  if (auto taps =
          resolveLoadOrder(text, order.range, model, tapRanges, diags))
    model.kernel.tapOrder = std::move(*taps);
}

void Checker::checkStorageOrder(const Located<std::string> &order,
                                const Located<long long> &block,
                                SMRange range, const OrderWords &words,
                                LayoutOrder &outOrder, int &outBlock) {
  if (order.present) {
    StringRef value = order.value;
    if (value == "aos")
      outOrder = LayoutOrder::SiteMajor;
    else if (value == "soa")
      outOrder = LayoutOrder::ComponentMajor;
    else if (value == "aosoa")
      outOrder = LayoutOrder::Blocked;
    else
      diags.error(order.range, "unknown " + words.noun + " '" + value +
                                   "'; expected 'aos' (" + words.aos +
                                   "), 'soa' (" + words.soa +
                                   ") or 'aosoa' (blocks of sites)");
  }
  if (block.present) {
    if (outOrder != LayoutOrder::Blocked)
      diags.error(block.range, "'" + words.key +
                                   ".block' applies to the 'aosoa' layout only");
    else if (block.value < 1 || block.value > kMaxThreadsPerBlock)
      diags.error(block.range, "'" + words.key + ".block' must be from 1 to " +
                                   Twine(kMaxThreadsPerBlock) + " sites, not " +
                                   Twine(block.value));
    else
      outBlock = static_cast<int>(block.value);
  } else if (outOrder == LayoutOrder::Blocked) {
    diags.error(range, "the 'aosoa' " + words.noun +
                           " needs 'block', the number of sites per block");
  }
}

void Checker::checkLayout() {
  FieldLayout &layout = model.layout;
  model.layoutWritten = spec.layoutOrder.present;
  checkStorageOrder(spec.layoutOrder, spec.layoutBlock, spec.layoutRange,
                    {"field.layout", "layout", "site-major", "component-major"},
                    layout.order, layout.block);
  if (const Located<long long> &vector = spec.layoutVector; vector.present) {
    const long long v = vector.value;
    std::string problem =
        v == 1 || v == 2 || v == 4
            ? fieldVectorProblem(model, static_cast<int>(v))
            : std::string("must be 1, 2 or 4 values per load");
    if (problem.empty())
      layout.vector = static_cast<int>(v);
    else
      diags.error(vector.range,
                  "'field.layout.vector' " + Twine(v) + " " + problem);
  }
  if (spec.subdomain.present && gridKnown) {
    const std::vector<long long> &extents = spec.subdomain.value;
    if (static_cast<int>(extents.size()) != model.dims)
      diags.error(spec.subdomain.range,
                  "'field.layout.subdomain' has " + Twine(extents.size()) +
                      " entries but the grid has " + Twine(model.dims) +
                      " dimensions");
    else
      for (int axis = 0; axis < model.dims; ++axis) {
        if (extents[axis] < 1 || extents[axis] > 1024) {
          diags.error(spec.subdomain.range,
                      "'field.layout.subdomain' entries must be from 1 to "
                      "1024 sites");
          break;
        }
        layout.subdomain[axis] = static_cast<int>(extents[axis]);
      }
  }
  checkEvenOdd();
  const auto &width = spec.kernel.vectorWidth;
  if (!width.present)
    return;
  if (width.value != 1 && width.value != 2 && width.value != 4) {
    diags.error(width.range, "'kernel.vector_width' must be 1, 2 or 4, not " +
                                 Twine(width.value));
    return;
  }
  int w = static_cast<int>(width.value);
  if (w > 1 && model.groupsSitesAlongX()) {
    checkSiteVectors(w, width.range);
    return;
  }
  if (std::string problem = componentVectorProblem(model, w); !problem.empty())
    diags.error(width.range,
                "'kernel.vector_width' " + Twine(w) + " " + problem);
  else
    model.kernel.vectorWidth = w;
}

/// A single-component field, or each component's row of a component-major
/// vector field, moves `width` consecutive sites of a row per access: each
/// thread owns an aligned group of them. Rows start aligned only where no
/// subdomain or parity breaks them (the launcher checks nx % width).
void Checker::checkSiteVectors(int width, SMRange range) {
  if (!gridKnown)
    return; // the grid's own error is already reported
  std::string problem = siteVectorProblem(model, width);
  if (problem.empty()) {
    model.kernel.vectorWidth = width;
    return;
  }
  const std::string rows =
      model.components == 1
          ? std::string("a single-component field")
          : std::string("each component's row of a '") +
                layoutOrderName(model.layout.order) + "' vector field";
  diags.error(range, "'kernel.vector_width' " + Twine(width) +
                         " (consecutive sites along x per access, " + rows +
                         ") " + problem);
}

/// Even/odd storage pays off, and the Schur complement exists, only when
/// every hop changes parity and the diagonal can be inverted site by site.
void Checker::checkEvenOdd() {
  const Located<bool> &evenOdd = spec.evenOdd;
  if (!evenOdd.present || !evenOdd.value)
    return;
  model.layout.evenOdd = true;
  if (model.layout.hasSubdomains())
    diags.error(evenOdd.range, "even/odd storage cannot be combined with "
                               "'field.layout.subdomain'");
  if (model.kernel.tileFactor > 1)
    diags.error(spec.kernel.tile.factor.range,
                "even/odd kernels update one site per thread; a tile of " +
                    Twine(model.kernel.tileFactor) +
                    " sites is not supported with 'field.even_odd'");
  if (!tapsKnown)
    return;
  bool centre = false;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const Offset &offset = model.taps[t].offset;
    int distance = 0;
    for (int axis = 0; axis < model.dims; ++axis)
      distance += std::abs(offset[axis]);
    if (distance == 0) {
      centre = true;
    } else if (distance != 1) {
      diags.error(tapRanges[t],
                  "tap " + formatOffset(offset, model.dims) +
                      " is not a nearest neighbour; even/odd storage needs "
                      "taps that change parity (one step along one axis) "
                      "besides the centre");
      diags.note(evenOdd.range, "even/odd storage requested here");
    }
  }
  if (!centre)
    diags.error(evenOdd.range,
                "even/odd storage needs a centre tap: its coefficient is the "
                "diagonal that the Schur complement inverts");
  const int c = centreTapIndex(model);
  if (c >= 0 && isComplexCoefficient(model, model.taps[c].coefficient)) {
    diags.error(spec.taps[c].coefficient.range,
                "even/odd storage needs a real diagonal (the hopping kernels "
                "scale by it and by its inverse), but the centre tap's "
                "coefficient '" +
                    coefficientText(model, model.taps[c].coefficient) +
                    "' reads a complex field");
    diags.note(evenOdd.range, "even/odd storage requested here");
  }
}

/// kernel.components_per_thread: a site's components split over threads.
void Checker::checkComponentSplit() {
  model.kernel.componentsPerThread = model.components;
  const Located<long long> &perThread = spec.kernel.componentsPerThread;
  if (!perThread.present)
    return;
  if (perThread.value < 1 || perThread.value > model.components) {
    diags.error(perThread.range,
                "'kernel.components_per_thread' must be from 1 to the " +
                    Twine(model.components) + " components per site, not " +
                    Twine(perThread.value));
    return;
  }
  const int k = static_cast<int>(perThread.value);
  if (std::string problem = componentSplitProblem(model, k); !problem.empty())
    diags.error(perThread.range,
                "'kernel.components_per_thread' " + Twine(k) + " " + problem);
  else
    model.kernel.componentsPerThread = k;
}

/// kernel.staging: 'registers' (the default) or 'shared', for the kernels
/// that can stage their block's box within the static shared-memory limit.
void Checker::checkStaging() {
  const Located<std::string> &staging = spec.kernel.staging;
  if (!staging.present)
    return;
  if (staging.value != "registers" && staging.value != "shared") {
    diags.error(staging.range, "'kernel.staging' must be 'registers' or "
                               "'shared', not '" +
                                   staging.value + "'");
    return;
  }
  model.kernel.staging =
      staging.value == "shared" ? Staging::Shared : Staging::Registers;
  if (std::string problem = stagingProblem(model); !problem.empty()) {
    diags.error(staging.range, "'kernel.staging: shared' " + problem);
    model.kernel.staging = Staging::Registers;
  }
}

/// kernel.march: true makes every whole-lattice kernel walk along the
/// slowest axis (z or t) through a chunk of planes; the tile is then that
/// axis with factor 1 (the march is the tile), so a tile the spec writes
/// conflicts with it.
void Checker::checkMarch() {
  const Located<bool> &march = spec.kernel.march;
  if (!march.present || !march.value)
    return;
  model.kernel.march = true;
  if (spec.kernel.tile.present &&
      (model.kernel.tileFactor > 1 || model.kernel.tileAxis != model.dims - 1)) {
    const std::string axis = axisName(model.dims - 1);
    const std::string tile = "tile: {axis: " + axis + ", factor: 1}";
    diags.error(spec.kernel.tile.range,
                "'kernel.tile' and 'kernel.march' exclude each other: the "
                "march is a tile along " +
                    axis + " as long as the block's chunk of planes (write '" +
                    tile + "' or none)");
    model.kernel.march = false;
    return;
  }
  // The march is the tile; refused, the spec keeps the tile it had.
  const int tileAxis = model.kernel.tileAxis;
  const int tileFactor = model.kernel.tileFactor;
  model.kernel.tileAxis = model.dims - 1;
  model.kernel.tileFactor = 1;
  if (std::string problem = marchProblem(model); !problem.empty()) {
    diags.error(march.range, "'kernel.march' " + problem);
    model.kernel.march = false;
    model.kernel.tileAxis = tileAxis;
    model.kernel.tileFactor = tileFactor;
  }
}

/// kernel.slab: 'auto' (the default; the launch decides) or a number of
/// slices of the slowest axis per slab of the hopping kernels' walk.
void Checker::checkSlab() {
  const Located<std::string> &slab = spec.kernel.slab;
  if (!slab.present)
    return;
  int slices = 0;
  if (slab.value == "auto")
    slices = KernelOptions::kSlabAuto;
  else if (!to_integer(StringRef(slab.value), slices, 10) || slices < 1 ||
           slices > kMaxSlab) {
    diags.error(slab.range, "'kernel.slab' must be 'auto' or a number of "
                            "slices from 1 to " +
                                Twine(kMaxSlab) + ", not '" + slab.value +
                                "'");
    return;
  }
  if (slices != KernelOptions::kSlabAuto)
    if (std::string problem = slabProblem(model, slices); !problem.empty()) {
      diags.error(slab.range, "'kernel.slab' " + Twine(slices) + " " + problem);
      return;
    }
  if (slices == KernelOptions::kSlabAuto && !model.layout.evenOdd) {
    diags.error(slab.range, "'kernel.slab' " + slabProblem(model, 1));
    return;
  }
  model.kernel.slab = slices;
}

/// inner_precision: float kernels beside a double stencil's, or kernels on
/// bfloat16 fields that compute in float (bf16).
void Checker::checkInnerPrecision() {
  if (!spec.innerPrecision.present)
    return;
  const std::string &value = spec.innerPrecision.value;
  const llvm::SMRange at = spec.innerPrecision.range;
  if (value == "half") {
    diags.error(at, "'inner_precision' half is not available: IEEE half's "
                    "range would need the residual rescaled; use bf16 "
                    "(float's range, 16 bits stored) or float");
    return;
  }
  if (value != "float" && value != "bf16") {
    diags.error(at, "'inner_precision' is '" + value +
                        "'; expected 'float' or 'bf16'");
    return;
  }
  if (model.precision != Precision::Double) {
    diags.error(at, "'inner_precision: " + value +
                        "' needs a double stencil (field.precision: double): "
                        "the inner iterations run in a lower precision than "
                        "the outer ones");
    return;
  }
  // bfloat16 holds the solver's fields; link, clover and coefficient arrays
  // stay in float (read once a site, not iterated on). A staged box would
  // hold CG's folded direction unrounded (stagingProblem, StagingRules.cpp).
  if (value == "bf16" && model.kernel.staging == Staging::Shared) {
    diags.error(at, "'inner_precision: bf16' is built for kernels that "
                    "compute from registers (kernel.staging: registers); use "
                    "'inner_precision: float'");
    return;
  }
  if (value == "bf16" && model.kernel.march) {
    diags.error(at, "'inner_precision: bf16' is not available with "
                    "'kernel.march' (bfloat16 fields do not march); use "
                    "'inner_precision: float'");
    return;
  }
  model.hasInner = true;
  model.innerPrecision =
      value == "bf16" ? Precision::BFloat16 : Precision::Float;
}

void Checker::checkSolver() {
  if (!spec.solver.present)
    return;
  StringRef value = spec.solver.value;
  if (value == "none")
    model.solver = Solver::None;
  else if (value == "cg")
    model.solver = Solver::CG;
  else if (value == "cgnr")
    model.solver = Solver::CGNR;
  else {
    diags.error(spec.solver.range, "unknown solver '" + value +
                                       "'; expected 'none', 'cg' or 'cgnr'");
    return;
  }
  if (model.solver != Solver::CG || !tapsKnown)
    return;
  if (std::string problem = cgOperatorProblem(model); !problem.empty()) {
    diags.error(spec.solver.range, problem);
    return;
  }
  if (!hasOffCentreFields(model) && !hasComplexCoefficients(model))
    return;
  if (std::string gap = fieldDefinitenessGap(model); !gap.empty())
    diags.warning(spec.solver.range,
                  "solver 'cg': positive definiteness cannot be proved from "
                  "the spec: " +
                      gap +
                      "; the runtime checks the fields' values before each "
                      "solve and refuses if A is not diagonally dominant");
}

} // namespace checker

std::optional<std::vector<int>>
resolveLoadOrder(StringRef text, SMRange range, const StencilModel &model,
                 const std::vector<SMRange> &tapRanges,
                 DiagnosticEngine &diags) {
  static_assert(std::is_same_v<decltype(LoadOrderEntry::offset), Offset>,
                "the spec stage's offsets are the model's");
  std::map<Offset, int> tapIndex;
  for (size_t i = 0; i < model.taps.size(); ++i)
    tapIndex[model.taps[i].offset] = static_cast<int>(i);

  std::vector<int> order;
  std::vector<size_t> firstAt(model.taps.size(), StringRef::npos);
  // Each entry is resolved as soon as it is read, so that its errors and the
  // grammar's come in the order written.
  auto resolve = [&](const LoadOrderEntry &entry) {
    SMRange at = scalarCharacterRange(range, entry.index);
    auto it = tapIndex.find(entry.offset);
    if (it == tapIndex.end()) {
      diags.error(at, "load order names " +
                          formatOffset(entry.offset, model.dims) +
                          ", which is not a tap of this stencil");
      return false;
    }
    size_t &first = firstAt[it->second];
    if (first != StringRef::npos) {
      diags.error(at, "load order names tap " +
                          formatOffset(entry.offset, model.dims) + " twice");
      diags.note(scalarCharacterRange(range, first), "first named here");
      return false;
    }
    first = entry.index;
    order.push_back(it->second);
    return true;
  };
  if (!visitLoadOrder(text, range, model.dims, diags, resolve))
    return std::nullopt;
  bool ok = true;
  for (size_t tap = 0; tap < model.taps.size(); ++tap)
    if (firstAt[tap] == StringRef::npos) {
      diags.error(range, "load order does not name tap " +
                             formatOffset(model.taps[tap].offset, model.dims) +
                             "; every tap must appear exactly once");
      if (tap < tapRanges.size())
        diags.note(tapRanges[tap], "tap written here");
      ok = false;
    }
  if (!ok)
    return std::nullopt;
  return order;
}

std::optional<StencilModel> checkSpec(const Spec &spec,
                                      DiagnosticEngine &diags) {
  return checker::Checker(spec, diags).run();
}

} // namespace stencilc

namespace stencilc {

bool isUsableParameterName(llvm::StringRef name) {
  return checker::isIdentifier(name) && !checker::isReservedName(name);
}

static std::optional<StencilModel>
checkParsed(std::optional<Spec> spec, unsigned errorsBefore,
            DiagnosticEngine &diags) {
  if (!spec)
    return std::nullopt;
  std::optional<StencilModel> model = checkSpec(*spec, diags);
  if (diags.errorCount() != errorsBefore)
    return std::nullopt;
  return model;
}

std::optional<StencilModel> loadModel(StringRef path,
                                      DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  return checkParsed(parseSpecFile(path, diags), errorsBefore, diags);
}

std::optional<StencilModel> loadModel(unsigned bufferID, StringRef path,
                                      DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  return checkParsed(parseSpec(bufferID, path, diags), errorsBefore, diags);
}

} // namespace stencilc
