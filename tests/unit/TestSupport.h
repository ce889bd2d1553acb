// Helpers shared by the generator's unit tests: run the parser and checker
// on YAML text held in memory, capturing diagnostics as text.
#ifndef STENCILC_TESTS_TESTSUPPORT_H
#define STENCILC_TESTS_TESTSUPPORT_H

#include "check/Check.h"
#include "spec/SpecParser.h"
#include "support/Diagnostics.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <tuple>

namespace stencilc {
namespace testing {

struct CheckResult {
  std::optional<StencilModel> model;
  unsigned errors = 0;
  unsigned warnings = 0;
  std::string output; ///< everything printed, clang style
};

/// Parses and checks `yaml` as if read from a file named `test.yaml`.
inline CheckResult checkYaml(const std::string &yaml) {
  CheckResult result;
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os(result.output);
  DiagnosticEngine diags(sourceMgr, os);
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(yaml, "test.yaml"), llvm::SMLoc());
  result.model = loadModel(id, "test.yaml", diags);
  os.flush();
  result.errors = diags.errorCount();
  result.warnings = diags.warningCount();
  return result;
}

/// A valid 3-D 7-point spec whose kernel section is `kernel` (YAML text,
/// already indented under `kernel:`), for tests that vary only the options.
inline std::string laplacianSpec(const std::string &kernel = "",
                                 const std::string &precision = "double") {
  std::string text = "name: lap\n"
                     "grid: {dimensions: 3, boundary: dirichlet}\n"
                     "field: {precision: " + precision + "}\n"
                     "parameters:\n"
                     "  - {name: h, default: 1.0}\n"
                     "taps:\n"
                     "  - {offset: [0, 0, 0], coefficient: 6*h}\n"
                     "  - {offset: [-1, 0, 0], coefficient: -h}\n"
                     "  - {offset: [1, 0, 0], coefficient: -h}\n"
                     "  - {offset: [0, -1, 0], coefficient: -h}\n"
                     "  - {offset: [0, 1, 0], coefficient: -h}\n"
                     "  - {offset: [0, 0, -1], coefficient: -h}\n"
                     "  - {offset: [0, 0, 1], coefficient: -h}\n";
  if (!kernel.empty())
    text += "kernel:\n" + kernel;
  return text;
}

/// Where a model's arrays live, comparable with ==: the order, block and
/// reals per load of the field, the links and the clover term (what tuning
/// may move and kernel options do not).
inline auto storageOf(const StencilModel &m) {
  const FieldLayout links = m.links.storageOrder();
  const FieldLayout clover = m.cloverLayout();
  return std::make_tuple(m.layout.order, m.layout.block, m.layout.vector,
                         links.order, links.block, links.vector, clover.order,
                         clover.block, clover.vector);
}

} // namespace testing
} // namespace stencilc

#endif
