//===- stencil_verify.cpp - one spec's kernel against the reference -------===//
//
//   stencil_verify SPEC.yaml [--size 37,29,23] [--seed N]
//
// Runs the kernel this build generated from SPEC on the host backend with
// random input and parameters, compares it with the naive double-precision
// reference, checks the halo, and prints the result. Exit status 0 only when
// every check passes.
//
//===----------------------------------------------------------------------===//
#include "KernelRegistry.h"
#include "Verify.h"

#include "check/Check.h"
#include "plan/Plan.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

using namespace llvm;
using namespace stencilc;
using namespace stencilc::testing;

static cl::opt<std::string> specPath(cl::Positional, cl::Required,
                                     cl::desc("<spec.yaml>"));
static cl::opt<std::string>
    sizeText("size", cl::desc("Extents per axis, x first (default: 37,29,23,"
                              "11 cut to the grid's dimensions)"),
             cl::value_desc("nx,ny,..."));
static cl::opt<unsigned long long> seed("seed", cl::init(2026),
                                        cl::desc("Random seed"));

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "Check a generated kernel on the host backend "
                              "against the naive reference\n");
  SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr, errs());
  std::optional<StencilModel> model = loadModel(specPath, diags);
  if (!model)
    return 1;

  Extents extents = {37, 29, 23, 11};
  if (!sizeText.empty()) {
    SmallVector<StringRef, 4> parts;
    StringRef(sizeText).split(parts, ',');
    if (static_cast<int>(parts.size()) != model->dims) {
      errs() << "stencil_verify: error: --size needs " << model->dims
             << " extents for " << model->name << ", got '" << sizeText
             << "'\n";
      return 1;
    }
    for (size_t axis = 0; axis < parts.size(); ++axis)
      if (parts[axis].trim().getAsInteger(10, extents[axis]) ||
          extents[axis] < 1) {
        errs() << "stencil_verify: error: extent '" << parts[axis]
               << "' is not a positive integer\n";
        return 1;
      }
  }
  for (int axis = model->dims; axis < kMaxDims; ++axis)
    extents[axis] = 1;

  const RegisteredKernel *kernel = nullptr;
  for (const RegisteredKernel &candidate : registeredKernels())
    if (model->name == candidate.info->name)
      kernel = &candidate;
  if (!kernel) {
    errs() << "stencil_verify: error: this build has no kernel for '"
           << model->name
           << "'; put its spec in specs/ (or tests/specs/) and rebuild\n";
    return 1;
  }

  std::string size;
  for (int axis = 0; axis < model->dims; ++axis)
    size += (axis ? "x" : "") + std::to_string(extents[axis]);
  KernelPlan plan = planKernel(*model);
  outs() << "stencil_verify: " << model->name << " (" << model->dims << "-D "
         << boundaryText(*model) << ", " << model->valueType() << ", "
         << model->components << " per site) on " << size
         << ", host backend, " << std::thread::hardware_concurrency()
         << " CPU threads\n";
  outs() << format("  kernel            %s: tile %s x %d, %d loads per tile, "
                   "%.3f loads per site\n",
                   plan.kernelName.c_str(), axisName(plan.tileAxis),
                   plan.tileFactor, plan.loadsPerTile(), plan.loadsPerSite());
  outs() << format("  traffic           %d bytes and %d flops per site\n",
                   plan.bytesPerSite(), plan.flopsPerSite);

  Verification result = verifyKernel(*kernel->info, *model, extents, seed);
  if (!result.launched) {
    outs() << "  launch            FAILED: " << result.launchMessage << "\n";
    return 1;
  }
  outs() << "  sites updated     " << result.updatedSites << "\n";
  outs() << "  halo values       " << result.untouchedValues << " untouched, "
         << result.writtenHaloValues << " overwritten\n";
  outs() << "  unwritten values  " << result.unwrittenValues << "\n";
  outs() << format("  max rel. error    %.3e (tolerance %.0e, against the "
                   "double-precision reference)\n",
                   result.maxRelativeError, result.tolerance);
  outs() << format("  time              %.3f ms\n", result.seconds * 1e3);
  outs() << "  result            " << (result.passed() ? "PASS" : "FAIL")
         << "\n";
  return result.passed() ? 0 : 1;
}
