//===- EmitText.h - Source-text helpers shared by the kernel writers -*- C++ -*-===//
//
// Internal to generator/emit: the names every printer spells the same way
// (extents, coordinates, layouts) and small text utilities.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_EMIT_EMITTEXT_H
#define STENCILC_EMIT_EMITTEXT_H

#include "check/Model.h"
#include "emit/CodePrinter.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace stencilc {

std::string join(const std::vector<std::string> &parts,
                 llvm::StringRef separator);
/// join() of the parts that are not empty.
std::string joinNonEmpty(const std::vector<std::string> &parts,
                         llvm::StringRef separator);
/// "{a, b, c}".
std::string listOf(const std::vector<std::string> &items);
/// The element type of a kernel's field arrays: "value_type", or
/// "storage_type" where fields store narrower values than the kernels
/// compute in (bfloat16; reads widen, stores go through stencil::narrow).
inline std::string fieldType(bool narrowStorage) {
  return narrowStorage ? "storage_type" : "value_type";
}

/// "nx", "ny", ...
std::string extentName(int axis);
/// Name of the coordinate `axis + delta`: "x", "x_p1", "y_m2".
std::string wrappedName(int axis, int delta);

/// The C++ initializer of a stencil::Layout: "{2, 32, {1, 1, 1, 1}}", with
/// ", 1" for even/odd storage.
std::string layoutInitializer(const FieldLayout &layout);
/// "soa", or "aosoa in blocks of 32 sites".
std::string orderDescription(const FieldLayout &layout);

/// `text` as comment lines starting with `prefix` ("//" or "///"), each
/// at most `width` characters before the printer's indentation (a word
/// longer than that keeps a line of its own).
void wrappedComment(CodePrinter &p, llvm::StringRef prefix,
                    const std::string &text, int width = 78);

} // namespace stencilc

#endif
