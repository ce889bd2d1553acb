//===- stencilc.cpp - the stencilc command line ---------------------------===//
//
// Thin glue over the pipeline libraries:
//   stencilc check    SPEC...            validate, print diagnostics
//   stencilc plan     SPEC...            print each kernel plan
//   stencilc generate SPEC... -o DIR     write NAME.hip, NAME.hpp, NAME.json
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"
#include "emit/Emit.h"
#include "plan/Plan.h"
#include "support/Diagnostics.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace stencilc;

namespace {

cl::OptionCategory category("stencilc options");

cl::SubCommand checkCommand("check", "Validate stencil specs");
cl::SubCommand planCommand("plan", "Print the kernel plan of stencil specs");
cl::SubCommand generateCommand(
    "generate", "Generate kernels, host API and manifest from stencil specs");

cl::list<std::string> specPaths(cl::Positional, cl::OneOrMore,
                                cl::desc("<spec.yaml>..."),
                                cl::sub(checkCommand), cl::sub(planCommand),
                                cl::sub(generateCommand), cl::cat(category));

cl::opt<std::string> outputDirectory("o", cl::desc("Output directory"),
                                     cl::value_desc("dir"), cl::Required,
                                     cl::sub(generateCommand),
                                     cl::cat(category));

cl::opt<bool> quiet("quiet",
                    cl::desc("Print nothing but diagnostics on success"),
                    cl::sub(generateCommand), cl::cat(category));

cl::opt<std::string> expectedName(
    "expect-name",
    cl::desc("Fail unless the spec's name is this (build systems derive "
             "output file names from spec file names)"),
    cl::value_desc("name"), cl::sub(generateCommand), cl::cat(category));

cl::opt<bool> warningsAsErrors("Werror", cl::desc("Treat warnings as errors"),
                               cl::sub(checkCommand), cl::sub(planCommand),
                               cl::sub(generateCommand), cl::cat(category));

/// Parses and checks one spec; diagnostics go to stderr.
std::optional<StencilModel> loadModel(StringRef path, SourceMgr &sourceMgr) {
  DiagnosticEngine diags(sourceMgr, errs());
  diags.setWarningsAsErrors(warningsAsErrors);
  std::optional<StencilModel> model = stencilc::loadModel(path, diags);
  if (!model) {
    errs() << path << ": " << diags.errorCount()
           << (diags.errorCount() == 1 ? " error" : " errors") << " generated.\n";
    return std::nullopt;
  }
  return model;
}

void printSummary(const StencilModel &model,
                  const std::vector<KernelPlan> &plans, StringRef directory) {
  outs() << "stencilc: " << model.name << " -> " << directory << "/"
         << model.name << ".{hip,hpp,json}\n";
  for (const KernelPlan &plan : plans)
  outs() << format("  kernel %s: %d loads + %d stores per thread (tile %s x "
                   "%d), %.3f loads per site, %d bytes and %d flops per site\n",
                   plan.kernelName.c_str(), plan.loadsPerTile(),
                   plan.storesPerTile(), axisName(plan.tileAxis),
                   plan.tileFactor, plan.loadsPerSite(), plan.bytesPerSite(),
                   plan.flopsPerSite);
}

int runCheck() {
  int status = 0;
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    if (std::optional<StencilModel> model = loadModel(path, sourceMgr))
      outs() << path << ": ok (" << model->name << ")\n";
    else
      status = 1;
  }
  return status;
}

int runPlan() {
  int status = 0;
  bool first = true;
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    std::optional<StencilModel> model = loadModel(path, sourceMgr);
    if (!model) {
      status = 1;
      continue;
    }
    if (!first)
      outs() << "\n";
    first = false;
    bool firstPlan = true;
    for (const KernelPlan &plan : planKernels(*model)) {
      if (!firstPlan)
        outs() << "\n";
      firstPlan = false;
      printPlan(*model, plan, outs());
    }
  }
  return status;
}

int runGenerate() {
  int status = 0;
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    std::optional<StencilModel> model = loadModel(path, sourceMgr);
    if (!model) {
      status = 1;
      continue;
    }
    if (!expectedName.empty() && model->name != expectedName) {
      WithColor::error(errs(), "stencilc")
          << path << ": the spec is named '" << model->name
          << "' but its file name says '" << expectedName
          << "'; rename one so that they match\n";
      status = 1;
      continue;
    }
    std::vector<KernelPlan> plans = planKernels(*model);
    Expected<EmittedStencil> files = emitStencil(*model, plans);
    if (!files) {
      WithColor::error(errs(), "stencilc")
          << path << ": " << toString(files.takeError()) << "\n";
      status = 1;
      continue;
    }
    if (Error error = writeStencil(*model, *files, outputDirectory)) {
      WithColor::error(errs(), "stencilc") << toString(std::move(error))
                                           << "\n";
      status = 1;
      continue;
    }
    if (!quiet)
      printSummary(*model, plans, outputDirectory);
  }
  return status;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "stencilc " << generatorVersion() << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "stencilc: generate tuned HIP stencil kernels from YAML specs\n\n"
      "  stencilc check SPEC...          validate specs\n"
      "  stencilc plan SPEC...           print the kernel plans\n"
      "  stencilc generate SPEC... -o DIR\n"
      "                                  write NAME.hip, NAME.hpp, NAME.json\n");
  if (checkCommand)
    return runCheck();
  if (planCommand)
    return runPlan();
  if (generateCommand)
    return runGenerate();
  errs() << "stencilc: error: no command given; run 'stencilc --help'\n";
  return 1;
}
