//===- TemplateEngine.h - {{key}} substitution for templates/ --*- C++ -*-===//
#ifndef STENCILC_EMIT_TEMPLATEENGINE_H
#define STENCILC_EMIT_TEMPLATEENGINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace stencilc {

using TemplateValues = std::map<std::string, std::string>;

/// Replaces each `{{key}}` of `text` by its value. A placeholder alone on its
/// line takes that line's indentation for every line of a multi-line value,
/// and removes the line when the value is empty. A key the template uses but
/// `values` lacks, or one `values` has but the template never uses, is an
/// error: the two are kept in step.
llvm::Expected<std::string> renderTemplate(llvm::StringRef templateName,
                                           llvm::StringRef text,
                                           const TemplateValues &values);

/// The text of a file of templates/, embedded in the generator at build
/// time; an error names a template that does not exist.
llvm::Expected<llvm::StringRef> getTemplate(llvm::StringRef name);

} // namespace stencilc

#endif
