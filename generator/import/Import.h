//===- Import.h - Lift a hand-written stencil into a spec -------*- C++ -*-===//
//
// `stencilc import` reads a C++/HIP/CUDA function with Clang, evaluates its
// body symbolically (indices as polynomials in the lattice coordinates and
// sizes, values as linear forms in the input array's elements), and derives
// the spec of the stencil it computes: the dimension, each tap's offset and
// coefficient, the precision and the boundary handling. Anything it cannot
// map is an error at the exact source location (docs/import.md).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_IMPORT_IMPORT_H
#define STENCILC_IMPORT_IMPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stencilc {

struct ImportOptions {
  std::string file;
  std::string function;
  /// Extra compiler arguments (include paths, macros), as after `--`.
  std::vector<std::string> compilerArgs;
  /// The spec's name; the function's name when empty.
  std::string name;
  /// "float" or "double": required when the element type is a template
  /// parameter, checked against it otherwise.
  std::string precision;
  /// Clang's resource directory (builtin headers such as stddef.h).
  std::string resourceDir;
};

struct ImportedTap {
  std::vector<int> offset; ///< one entry per axis, x first
  double constant = 0.0;
  /// (parameter, factor) in the order first written.
  std::vector<std::pair<std::string, double>> terms;
  std::string source; ///< "file:line:col" of the first read of this tap
  std::string text;   ///< the read as written, e.g. "u[pos - nx]"
};

struct ImportedStencil {
  std::string name;
  std::string function;
  std::string location; ///< "file:line:col" of the function
  std::string form;     ///< how the coordinates were found, for the header
  int dims = 0;
  bool periodic = false;
  std::string precision; ///< "float" or "double"
  int components = 1;    ///< values per site (interleaved, or struct members)
  bool complexValues = false; ///< std::complex elements
  /// How the components were found, for the spec's comment.
  std::string componentsNote;
  std::vector<std::string> parameters;
  /// Function arguments renamed in the spec (their name is taken by the
  /// generated code): (argument, parameter).
  std::vector<std::pair<std::string, std::string>> renamed;
  std::vector<ImportedTap> taps;
  /// Names of the arrays and sizes per axis, for the spec's comments.
  std::string outputArray, inputArray;
  std::vector<std::string> coordinateNames;
};

/// Parses `options.file` and lifts `options.function`. Clang's diagnostics
/// and the importer's (file:line:col: error: reason) go to `diagnostics`;
/// nullopt when the function cannot be mapped to a spec.
std::optional<ImportedStencil> importStencil(const ImportOptions &options,
                                             llvm::raw_ostream &diagnostics);

/// The spec as YAML text, with comments pointing back at the source.
std::string importedSpecYaml(const ImportedStencil &stencil);

} // namespace stencilc

#endif
