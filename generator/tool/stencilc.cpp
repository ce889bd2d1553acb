//===- stencilc.cpp - the stencilc command line ---------------------------===//
//
// Thin glue over the pipeline libraries:
//   stencilc check    SPEC...            validate, print diagnostics
//   stencilc plan     SPEC...            print each kernel plan
//   stencilc generate SPEC... -o DIR     write NAME.hip, NAME.hpp, NAME.json
//   stencilc inspect  SPEC...            compile for GPUs, report resources
//   stencilc tune     SPEC --size ... -o DIR   emit the tuning variants
//   stencilc import   FILE --function F [-o SPEC] [-- ARGS]  lift a kernel
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"
#include "emit/Emit.h"
#include "import/Import.h"
#include "inspect/Inspect.h"
#include "tune/DevicePlans.h"
#include "tune/Tune.h"
#include "plan/ChooseOptions.h"
#include "plan/Plan.h"
#include "support/Diagnostics.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace llvm;
using namespace stencilc;

namespace {

cl::OptionCategory category("stencilc options");

cl::SubCommand checkCommand("check", "Validate stencil specs");
cl::SubCommand planCommand("plan", "Print the kernel plan of stencil specs");
cl::SubCommand generateCommand(
    "generate", "Generate kernels, host API and manifest from stencil specs");
cl::SubCommand tuneCommand(
    "tune", "Emit every variant of a spec's kernel options and a program "
            "that times them on a GPU");
cl::opt<std::string> tuneSpec(cl::Positional, cl::Required,
                              cl::desc("<spec.yaml>"), cl::sub(tuneCommand),
                              cl::cat(category));
cl::opt<std::string> tuneSize("size", cl::Required,
                              cl::desc("Extents to time at, e.g. 512,512,512"),
                              cl::value_desc("n,n,..."), cl::sub(tuneCommand),
                              cl::cat(category));
cl::opt<std::string> tuneOutput("o", cl::Required,
                                cl::desc("Directory for the variants"),
                                cl::value_desc("dir"), cl::sub(tuneCommand),
                                cl::cat(category));
cl::opt<std::string> tuneVariantsFile(
    "variants",
    cl::desc("Time only the spec's own options and those listed in this "
             "file, one tuning-cache options line per line "
             "(block=...; launch_bounds=...; ...)"),
    cl::value_desc("file"), cl::sub(tuneCommand), cl::cat(category));
cl::opt<bool> tuneInner(
    "inner",
    cl::desc("Tune the kernels of mixed-precision CG's inner iterations "
             "(NAME_inner; the spec must declare inner_precision)"),
    cl::sub(tuneCommand), cl::cat(category));
cl::opt<bool> tunePredicted(
    "predicted-first",
    cl::desc("Order the variants by the planner's cost model, fastest "
             "predicted first (the spec's own options stay first), so that "
             "--max-variants keeps the most promising"),
    cl::sub(tuneCommand), cl::cat(category));

cl::opt<bool> tuneFold(
    "fold",
    cl::desc("Tune CG's fold pass alone (the stencil pass with p = r + beta "
             "p folded in): --predicted-first ranks by its predicted cost, "
             "and the timing program times it (--kernel fold) unless told "
             "--kernel apply, recording entries for the fold pass"),
    cl::sub(tuneCommand), cl::cat(category));

cl::opt<std::string> deviceOption(
    "device",
    cl::desc("The GPU whose cost model chooses the open options: h100 (the "
             "default, what the spec's kernels are planned for) or h200 "
             "(plan: print that GPU's choice; tune: --predicted-first ranks "
             "for it)"),
    cl::value_desc("h100|h200"), cl::sub(planCommand), cl::sub(tuneCommand),
    cl::cat(category));

cl::opt<bool> tuneRegisterCaps(
    "register-caps",
    cl::desc("Also time each variant with launch bounds whose minimum of "
             "resident blocks caps a thread's registers at 128, 80, 64 and "
             "40 (link stencils also 255): a narrow search around a few "
             "variants (--variants, or a small --max-variants)"),
    cl::sub(tuneCommand), cl::cat(category));

cl::opt<int> tuneLimit("max-variants", cl::init(200),
                       cl::desc("At most this many variants (default 200)"),
                       cl::sub(tuneCommand), cl::cat(category));
cl::SubCommand importCommand(
    "import", "Derive a spec from an existing C++/HIP/CUDA stencil function "
              "(compiler arguments after --)");
cl::opt<std::string> importFile(cl::Positional, cl::Required,
                                cl::desc("<file.cpp|file.hip|file.cu>"),
                                cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> importFunction(
    "function", cl::Required, cl::desc("The function computing the stencil"),
    cl::value_desc("name"), cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> importOutput(
    "o", cl::desc("Write the spec here (default: standard output)"),
    cl::value_desc("spec.yaml"), cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> importName(
    "name", cl::desc("The spec's name (default: the function's)"),
    cl::value_desc("name"), cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> importPrecision(
    "precision",
    cl::desc("float or double: the element type of a function template "
             "(checked against the function otherwise)"),
    cl::value_desc("float|double"), cl::sub(importCommand), cl::cat(category));
cl::opt<std::string> importResourceDir(
    "resource-dir", cl::desc("Clang's resource directory (builtin headers)"),
    cl::init(STENCILC_CLANG_RESOURCE_DIR), cl::Hidden, cl::sub(importCommand),
    cl::cat(category));

cl::SubCommand inspectCommand(
    "inspect", "Compile a spec's kernels for GPUs and report registers, "
               "spills, occupancy, ISA and roofline");

cl::list<std::string> specPaths(cl::Positional, cl::OneOrMore,
                                cl::desc("<spec.yaml>..."),
                                cl::sub(checkCommand), cl::sub(planCommand),
                                cl::sub(generateCommand),
                                cl::sub(inspectCommand), cl::cat(category));

cl::list<std::string> inspectTargets(
    "target", cl::CommaSeparated,
    cl::desc("Targets: gfx908, gfx90a, sm_90 or all (default all)"),
    cl::value_desc("target"), cl::sub(inspectCommand), cl::cat(category));
enum class OutputFormat { Text, Json };
cl::opt<OutputFormat> inspectFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "readable (default)"),
               clEnumValN(OutputFormat::Json, "json",
                          "JSON, documented in docs/inspect.md")),
    cl::init(OutputFormat::Text), cl::sub(inspectCommand), cl::cat(category));
cl::opt<OutputFormat> planFormat(
    "format", cl::desc("Output format"),
    cl::values(clEnumValN(OutputFormat::Text, "text", "readable (default)"),
               clEnumValN(OutputFormat::Json, "json",
                          "JSON, documented in docs/design.md")),
    cl::init(OutputFormat::Text), cl::sub(planCommand), cl::cat(category));
cl::opt<bool> inspectIsa("isa", cl::desc("Print each kernel's ISA"),
                         cl::sub(inspectCommand), cl::cat(category));
cl::opt<std::string> rooflinePath(
    "roofline",
    cl::desc("Draw the roofline chart into this file (.svg, or .png)"),
    cl::value_desc("file.svg"), cl::sub(inspectCommand), cl::cat(category));
cl::list<std::string> measuredBandwidth(
    "peak-bandwidth", cl::CommaSeparated,
    cl::desc("Measured peak bandwidth for the roofline, e.g. sm_90=3011.8"),
    cl::value_desc("target=GB/s"), cl::sub(inspectCommand),
    cl::cat(category));
cl::list<std::string> measuredCompute(
    "peak-gflops", cl::CommaSeparated,
    cl::desc("Measured peak compute for the roofline, in the spec's "
             "precision, e.g. gfx90a=20000"),
    cl::value_desc("target=GFLOP/s"), cl::sub(inspectCommand),
    cl::cat(category));
cl::opt<bool> inspectVariants(
    "variants",
    cl::desc("Also the planner's kernel sets compiled beside the spec's "
             "(NAME_xW, NAME_h200...), which the runtime may run instead"),
    cl::sub(inspectCommand), cl::cat(category));
cl::opt<bool> inspectCheck(
    "check",
    cl::desc("Fail if a kernel spills, uses scratch, or the occupancy model "
             "disagrees with the compiler"),
    cl::sub(inspectCommand), cl::cat(category));
cl::opt<std::string> runtimeInclude(
    "runtime-include",
    cl::desc("The runtime's include directory for the compiles (default: "
             "the installation's, else the source tree's)"),
    cl::value_desc("dir"), cl::sub(inspectCommand), cl::cat(category));

/// The runtime headers inspect compiles against: --runtime-include, the
/// include directory next to an installed stencilc (PREFIX/bin/stencilc ->
/// PREFIX/include), or the source tree's.
std::string runtimeIncludeDirectory(const char *argv0) {
  if (!runtimeInclude.empty())
    return runtimeInclude;
  std::string exe = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&runtimeIncludeDirectory));
  SmallString<256> installed(sys::path::parent_path(sys::path::parent_path(exe)));
  sys::path::append(installed, "include");
  SmallString<256> probe(installed);
  sys::path::append(probe, "stencil", "kernel_info.hpp");
  if (sys::fs::exists(probe))
    return std::string(installed);
  return STENCILC_RUNTIME_INCLUDE_DIR;
}

cl::opt<std::string> outputDirectory("o", cl::desc("Output directory"),
                                     cl::value_desc("dir"), cl::Required,
                                     cl::sub(generateCommand),
                                     cl::cat(category));

cl::opt<bool> quiet("quiet",
                    cl::desc("Print nothing but diagnostics on success"),
                    cl::sub(generateCommand), cl::cat(category));

cl::opt<bool> naive(
    "naive",
    cl::desc("Generate the naive baseline instead: no tile, loads in the "
             "order written, name NAME_naive (for benchmarks)"),
    cl::sub(generateCommand), cl::cat(category));

cl::opt<bool> openOptions(
    "open-options",
    cl::desc("Generate the planner's own choice instead: every kernel "
             "option the spec writes ignored and chosen by the cost model, "
             "name NAME_auto (for benchmarks)"),
    cl::sub(generateCommand), cl::cat(category));

cl::opt<std::string> tuneCachePath(
    "tune-cache",
    cl::desc("generate: compile the variants this tuning cache records for "
             "each spec (written by `stencilc tune`'s timing program) into "
             "its code; the runtime picks them by device and extents. tune: "
             "where it records the spec for the GPU (--device) at --size, "
             "time that entry second, as what the runtime runs"),
    cl::value_desc("file.tsv"), cl::sub(generateCommand), cl::sub(tuneCommand),
    cl::cat(category));

cl::opt<std::string> expectedName(
    "expect-name",
    cl::desc("Fail unless the spec's name is this (build systems derive "
             "output file names from spec file names)"),
    cl::value_desc("name"), cl::sub(generateCommand), cl::cat(category));

cl::opt<bool> warningsAsErrors("Werror", cl::desc("Treat warnings as errors"),
                               cl::sub(checkCommand), cl::sub(planCommand),
                               cl::sub(generateCommand),
                               cl::sub(inspectCommand), cl::sub(tuneCommand),
                               cl::cat(category));

/// Parses and checks one spec, and lets the planner choose the kernel
/// options it leaves open; diagnostics go to stderr.
std::optional<StencilModel> loadModel(StringRef path, SourceMgr &sourceMgr,
                                      bool chooseOptions = true) {
  DiagnosticEngine diags(sourceMgr, errs());
  diags.setWarningsAsErrors(warningsAsErrors);
  std::optional<StencilModel> model = stencilc::loadModel(path, diags);
  if (!model) {
    errs() << path << ": " << diags.errorCount()
           << (diags.errorCount() == 1 ? " error" : " errors") << " generated.\n";
    return std::nullopt;
  }
  // NAME_<tag> names the kernels planned for a known GPU beside another
  // spec's: a spec of that name would clash with them in a build.
  for (const DeviceModel *device : knownDevices())
    if (StringRef(model->name).endswith("_" + device->tag)) {
      WithColor::error(errs(), "stencilc")
          << path << ": the spec's name '" << model->name << "' ends in '_"
          << device->tag << "', which names the planner's kernels for "
          << device->name << " beside a spec's own (NAME_" << device->tag
          << "); choose another name\n";
      return std::nullopt;
    }
  if (chooseOptions)
    chooseOpenOptions(*model);
  return model;
}

void printSummary(const StencilModel &model,
                  const std::vector<KernelPlan> &plans, StringRef directory) {
  outs() << "stencilc: " << model.name << " -> " << directory << "/"
         << model.name << ".{hip,hpp,json}\n";
  for (const KernelPlan &plan : plans) {
    const std::string tile =
        plan.march ? "per plane, marching along " +
                         std::string(axisName(plan.tileAxis)) +
                         " with a ring of " + std::to_string(plan.tileFactor)
                   : tileSummary(plan.tileAxis, plan.tileFactor);
    outs() << format("  kernel %s: %d loads + %d stores per thread (%s), "
                     "%.3f loads per site, %d bytes and %d flops per site\n",
                     plan.kernelName.c_str(), plan.loadsPerTile(),
                     plan.storesPerTile(), tile.c_str(), plan.loadsPerSite(),
                     plan.bytesPerSite(), plan.flopsPerSite);
  }
  if (model.componentGroups() > 1)
    outs() << "  each site's " << model.components << " components split over "
           << model.componentGroups() << " threads ("
           << model.componentsPerThread()
           << " each): the loads above move that share\n";
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

/// --device: the known GPU it names (the default device if not given);
/// null after an error naming the known ones.
const DeviceModel *chosenDevice() {
  if (deviceOption.empty())
    return knownDevices().front();
  if (const DeviceModel *device = findDevice(deviceOption))
    return device;
  std::string known;
  for (const DeviceModel *device : knownDevices())
    known += (known.empty() ? "" : ", ") + device->tag + " (" + device->name +
             ")";
  WithColor::error(errs(), "stencilc")
      << "--device '" << deviceOption << "': no cost model of that GPU; the "
      << "planner knows " << known << "\n";
  return nullptr;
}

/// A warning where `device`'s model (a GPU other than the default) was not
/// fitted to stencils like `open`: its own choice is not compiled (`plan`
/// prints the first device's with `device`'s rules, what is compiled;
/// `tune` times its own choice first, for comparison).
void warnIfNotFitted(StringRef path, const StencilModel &open,
                     const DeviceModel &device) {
  if (&plannedFor(open, device) == &device)
    return;
  WithColor::warning(errs(), "stencilc")
      << path << ": the cost model of " << device.name << " was fitted to "
      << device.fittedText() << ", not to " << open.name
      << "; its choice is not compiled, and on that GPU the kernels planned "
      << "for " << knownDevices().front()->name << " run, changed by its "
      << "own rules where they apply (shown)\n";
}

int runPlan() {
  const DeviceModel *device = chosenDevice();
  if (!device)
    return 1;
  int status = 0;
  std::vector<std::pair<StencilModel, std::vector<KernelPlan>>> specs;
  std::vector<std::vector<DeviceChoice>> otherDevices;
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    std::optional<StencilModel> model = loadModel(path, sourceMgr, false);
    if (!model) {
      status = 1;
      continue;
    }
    // The other GPUs' choices are compiled beside the default device's:
    // shown with it, not with one another's.
    const StencilModel open = *model;
    warnIfNotFitted(path, open, *device);
    // Another GPU's kernels print under the names they are compiled as:
    // named before the choice where its own model chooses (its notes name
    // its groups' and fold pass's kernels), after it where the first
    // device's choice runs there changed by its rules (which keep the
    // fold pass and its name).
    auto nameForDevice = [&] {
      model->name += "_" + device->tag;
      model->deviceTag = device->tag;
    };
    if (device != knownDevices().front() && device->fitted(open))
      nameForDevice();
    bool changedByRules = false;
    *model = plannedModel(*model, *device, &changedByRules);
    if (changedByRules)
      nameForDevice();
    std::vector<DeviceChoice> others;
    if (device == knownDevices().front())
      for (const DevicePlan &plan : otherDevicePlans(open, *model))
        others.push_back(compiledChoice(*model, plan));
    specs.push_back({*model, planKernels(*model)});
    otherDevices.push_back(std::move(others));
  }
  if (planFormat == OutputFormat::Json) {
    printPlansJson(specs, outs(), otherDevices);
    return status;
  }
  bool first = true;
  for (size_t index = 0; index < specs.size(); ++index) {
    const auto &[model, plans] = specs[index];
    if (!first)
      outs() << "\n";
    printOptionNotes(model, outs());
    for (const DeviceChoice &choice : otherDevices[index])
      printDeviceChoice(choice, outs());
    first = true;
    for (const KernelPlan &plan : plans) {
      if (!first)
        outs() << "\n";
      first = false;
      printPlan(model, plan, outs());
    }
  }
  return status;
}

/// The tuning cache at `path`, or none after reporting why it cannot be read.
std::optional<std::vector<TuningCacheEntry>>
readCacheOrReport(StringRef path) {
  Expected<std::vector<TuningCacheEntry>> entries = readTuningCache(path);
  if (!entries) {
    WithColor::error(errs(), "stencilc") << toString(entries.takeError())
                                         << "\n";
    return std::nullopt;
  }
  return std::move(*entries);
}

/// The namespaces inside stencilc_kernels that `files` define: every
/// `namespace NAME {` line but stencilc_kernels itself (read from the text,
/// so that every kind of variant counts: groups along x, other GPUs,
/// tuned entries, rank kernels, inner kernels).
std::vector<std::string> definedNamespaces(const EmittedStencil &files) {
  std::vector<std::string> names;
  for (StringRef text : {StringRef(files.kernels), StringRef(files.header)}) {
    SmallVector<StringRef, 0> lines;
    text.split(lines, '\n');
    for (StringRef line : lines)
      if (line.consume_front("namespace ") && line.consume_back(" {") &&
          line != "stencilc_kernels" && !is_contained(names, line))
        names.push_back(line.str());
  }
  return names;
}

/// What names the file at `path` across spellings (./a.yaml, a.yaml):
/// its device and inode, or the path where they cannot be read.
std::string fileIdentity(StringRef path) {
  sys::fs::UniqueID id;
  if (sys::fs::getUniqueID(path, id))
    return path.str();
  return std::to_string(id.getDevice()) + ":" + std::to_string(id.getFile());
}

/// The planner's kernel sets that `generate` compiles beside the spec's
/// (NAME_xW for groups along x; `devicePlans`, other GPUs' choices), added
/// to `tuned`; `inspect --variants` compiles the same.
Error addPlannedKernelSets(const StencilModel &chosen,
                           const std::vector<DevicePlan> &devicePlans,
                           TunedKernels &tuned) {
  Error error = addPlannerVariants(chosen, tuned);
  for (const DevicePlan &plan : devicePlans)
    if (!error)
      error = addDevicePlanVariants(chosen, plan, tuned);
  return error;
}

int runGenerate() {
  int status = 0;
  // Namespace -> the spec file whose written code defines it (identity,
  // path): two specs' code would not link together, and a second spec of
  // one name would overwrite the first's files. Only across the specs of
  // one run: CMake's stencilc_add_kernels generates a spec a run, and
  // there the linker reports the clash.
  std::map<std::string, std::pair<std::string, std::string>> definedBy;
  std::vector<TuningCacheEntry> cache;
  if (!tuneCachePath.empty()) {
    std::optional<std::vector<TuningCacheEntry>> entries =
        readCacheOrReport(tuneCachePath);
    if (!entries)
      return 1;
    cache = std::move(*entries);
  }
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    // The options are chosen below; the naive baseline keeps the checker's
    // fixed defaults for those its spec leaves open.
    std::optional<StencilModel> model = loadModel(path, sourceMgr, false);
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
    if (naive && openOptions) {
      WithColor::error(errs(), "stencilc")
          << "--naive and --open-options generate different baselines; "
             "give one\n";
      return 1;
    }
    if (naive)
      model = naiveModel(*model);
    if (openOptions)
      model = withKernelOptionsOpen(*model);
    // The spec's kernels are planned for the first known device; the
    // others' choices, where they differ, are compiled beside them.
    std::vector<DevicePlan> devicePlans;
    if (!naive) {
      const StencilModel open = *model;
      chooseOpenOptions(*model);
      devicePlans = otherDevicePlans(open, *model);
    }
    std::vector<KernelPlan> plans = planKernels(*model);
    TunedKernels tuned;
    if (!naive && !openOptions && !cache.empty()) {
      Expected<TunedKernels> found =
          tunedKernels(*model, cache, tuneCachePath, errs());
      if (!found) {
        WithColor::error(errs(), "stencilc") << toString(found.takeError())
                                             << "\n";
        status = 1;
        continue;
      }
      tuned = std::move(*found);
    }
    if (!naive) {
      if (Error error = addPlannedKernelSets(*model, devicePlans, tuned)) {
        WithColor::error(errs(), "stencilc")
            << path << ": " << toString(std::move(error)) << "\n";
        status = 1;
        continue;
      }
    }
    Expected<EmittedStencil> files = emitStencil(*model, plans, tuned);
    if (!files) {
      WithColor::error(errs(), "stencilc")
          << path << ": " << toString(files.takeError()) << "\n";
      status = 1;
      continue;
    }
    const std::string identity = fileIdentity(path);
    const std::vector<std::string> names = definedNamespaces(*files);
    auto clash = llvm::find_if(names, [&](const std::string &name) {
      auto it = definedBy.find(name);
      return it != definedBy.end() && it->second.first != identity;
    });
    if (clash != names.end()) {
      WithColor::error(errs(), "stencilc")
          << path << ": the code of spec '" << model->name
          << "' would define namespace stencilc_kernels::" << *clash
          << ", which " << definedBy[*clash].second
          << " defines too; rename one of the two specs\n";
      status = 1;
      continue;
    }
    if (Error error = writeStencil(*model, *files, outputDirectory)) {
      WithColor::error(errs(), "stencilc") << toString(std::move(error))
                                           << "\n";
      status = 1;
      continue;
    }
    for (const std::string &name : names)
      definedBy.emplace(name, std::make_pair(identity, path));
    if (!quiet) {
      printSummary(*model, plans, outputDirectory);
      // The compiled-in choices of the spec's kernels and of its inner ones
      // (`inner` "inner " in the text, `own` NAME_inner).
      auto printChoices = [&](const TunedKernels &kernels,
                              const std::string &inner,
                              const std::string &own) {
        const std::string tunedFor =
            inner.empty() ? "tuned for " : inner + "kernels tuned for ";
        for (const TunedChoice &c : kernels.choices) {
          const StencilModel *v =
              c.variant < 0 ? nullptr : &kernels.variants[c.variant].model;
          const std::string named =
              v ? v->name + " (" + tuningOptionsText(*v) + ")"
                : own + " (the spec's own options)";
          if (c.xMultiple > 0) {
            outs() << "  planner's " << inner << "kernels "
                   << (c.device.empty() ? "" : "on " + c.device + " ")
                   << (c.foldPass ? "for CG's fold pass, " : "for ")
                   << (c.xMultiple > 1
                           ? "nx a multiple of " + std::to_string(c.xMultiple)
                           : std::string("every nx"))
                   << largeLatticeText(c.l2Percent) << ": " << named << "\n";
            continue;
          }
          std::string extents;
          for (size_t i = 0; i < c.extents.size(); ++i)
            extents += (i ? "x" : "") + std::to_string(c.extents[i]);
          outs() << "  " << tunedFor << c.device << " at " << extents
                 << (c.foldPass ? " (CG's fold pass)" : "") << ": " << named
                 << "\n";
        }
      };
      printChoices(tuned, "", model->name);
      if (tuned.inner)
        printChoices(*tuned.inner, "inner ", model->name + "_inner");
      for (const TunedExchangeChoice &c : tuned.exchanges) {
        auto text = [](const std::vector<int> &values) {
          std::string out;
          for (size_t i = 0; i < values.size(); ++i)
            out += (i ? "x" : "") + std::to_string(values[i]);
          return out;
        };
        outs() << "  halo exchange tuned for " << c.device << " at "
               << text(c.extents) << " on grid " << text(c.grid)
               << ": transport " << exchangeTransportName(c.options.transport)
               << ", overlap " << (c.options.overlap ? "on" : "off") << "\n";
      }
    }
  }
  return status;
}

/// `target=value` entries into the targets' peaks.
bool applyPeaks(const cl::list<std::string> &entries, bool bandwidth,
                std::vector<TargetInfo> &targets) {
  for (const std::string &entry : entries) {
    auto [name, text] = StringRef(entry).split('=');
    double value = 0.0;
    auto it = llvm::find_if(targets, [&, name = name](const TargetInfo &t) {
      return t.target == name;
    });
    if (it == targets.end() || text.getAsDouble(value) || !(value > 0) ||
        !std::isfinite(value)) {
      WithColor::error(errs(), "stencilc")
          << "--peak-" << (bandwidth ? "bandwidth" : "gflops") << " '"
          << entry
          << "': expected TARGET=NUMBER with a finite positive number and "
             "one of the inspected targets\n";
      return false;
    }
    if (bandwidth)
      it->peakGBs = value;
    else
      it->peakGflopsFloat = it->peakGflopsDouble = value;
  }
  return true;
}

int runInspect(const char *argv0) {
  InspectOptions options;
  options.runtimeInclude = runtimeIncludeDirectory(argv0);
  options.keepIsa = inspectIsa;
  std::vector<std::string> names;
  for (const std::string &name : inspectTargets)
    if (!llvm::is_contained(names, name)) // sm_90,sm_90: once
      names.push_back(name);
  if (names.empty() || llvm::is_contained(names, "all")) {
    names.clear();
    for (const TargetInfo &t : knownTargets())
      names.push_back(t.target);
  }
  for (const std::string &name : names) {
    const TargetInfo *target = findTarget(name);
    if (!target) {
      WithColor::error(errs(), "stencilc")
          << "unknown target '" << name
          << "'; expected gfx908 (MI100), gfx90a (MI250X), sm_90 (H100) or "
             "all\n";
      return 1;
    }
    options.targets.push_back(*target);
  }
  if (!applyPeaks(measuredBandwidth, true, options.targets) ||
      !applyPeaks(measuredCompute, false, options.targets))
    return 1;
  // Checked before the compiles: gnuplot draws .svg or .png only, and a
  // line break would end the path's gnuplot command.
  if (!rooflinePath.empty()) {
    StringRef chart = rooflinePath;
    const char *why = nullptr;
    if (!chart.endswith_insensitive(".svg") &&
        !chart.endswith_insensitive(".png"))
      why = "the chart is drawn as .svg or .png; name one of those";
    else if (llvm::any_of(chart, [](char c) {
               return static_cast<unsigned char>(c) < 0x20;
             }))
      why = "the path may not hold control characters";
    if (why) {
      WithColor::error(errs(), "stencilc")
          << "--roofline '" << rooflinePath << "': " << why << "\n";
      return 1;
    }
  }
  std::vector<SpecReport> reports;
  for (const std::string &path : specPaths) {
    SourceMgr sourceMgr;
    std::optional<StencilModel> model = loadModel(path, sourceMgr, false);
    if (!model)
      return 1;
    // As `generate` compiles them: the spec's kernels, and with --variants
    // the planner's for other nx and other GPUs.
    const StencilModel open = *model;
    chooseOpenOptions(*model);
    TunedKernels variants;
    if (inspectVariants) {
      if (Error error = addPlannedKernelSets(
              *model, otherDevicePlans(open, *model), variants)) {
        WithColor::error(errs(), "stencilc")
            << path << ": " << toString(std::move(error)) << "\n";
        return 1;
      }
    }
    if (inspectFormat == OutputFormat::Text)
      errs() << "stencilc: inspecting " << model->name << " ("
             << options.targets.size() << " target"
             << (options.targets.size() == 1 ? "" : "s") << ")\n";
    Expected<SpecReport> report = inspectSpec(*model, options, variants);
    if (!report) {
      WithColor::error(errs(), "stencilc")
          << path << ": " << toString(report.takeError()) << "\n";
      return 1;
    }
    reports.push_back(std::move(*report));
  }
  if (inspectFormat == OutputFormat::Json)
    printJson(reports, options, outs());
  else
    printText(reports, options, outs());
  if (!rooflinePath.empty())
    if (Error error = writeRoofline(reports, options, rooflinePath)) {
      WithColor::error(errs(), "stencilc") << toString(std::move(error))
                                           << "\n";
      return 1;
    }
  if (inspectCheck) {
    std::vector<std::string> problems = findProblems(reports);
    for (const std::string &problem : problems)
      WithColor::error(errs(), "stencilc") << problem << "\n";
    return problems.empty() ? 0 : 1;
  }
  return 0;
}

int runTune() {
  const DeviceModel *device = chosenDevice();
  if (!device)
    return 1;
  SourceMgr sourceMgr;
  std::optional<StencilModel> model = loadModel(tuneSpec, sourceMgr, false);
  if (!model)
    return 1;
  // The spec's open options as the planner chooses them for that GPU: the
  // first variant.
  warnIfNotFitted(tuneSpec, *model, *device);
  // What generate compiles for that GPU: its own plan where its cost model
  // fits the spec, else the first device's with its rules (plannedModel,
  // plan/DeviceRules.h).
  const StencilModel open = *model;
  chooseOpenOptions(*model, *device);
  bool changedByRules = false;
  StencilModel generated = plannedModel(open, *device, &changedByRules);
  const std::string compiledFor =
      plannedFor(open, *device).name +
      (changedByRules ? " with " + device->name + "'s rules" : "");
  if (tuneInner) {
    if (!model->hasInner) {
      WithColor::error(errs(), "stencilc")
          << tuneSpec << ": --inner tunes the kernels of mixed-precision CG, "
          << "but the spec does not declare inner_precision\n";
      return 1;
    }
    model = innerKernelsModel(*model);
    generated = innerKernelsModel(generated);
  }
  std::vector<int> extents;
  SmallVector<StringRef, 4> parts;
  StringRef(tuneSize).split(parts, ',');
  for (StringRef part : parts) {
    int value = 0;
    if (part.trim().getAsInteger(10, value) || value < 1) {
      WithColor::error(errs(), "stencilc")
          << "--size '" << tuneSize << "': expected positive integers\n";
      return 1;
    }
    extents.push_back(value);
  }
  if (static_cast<int>(extents.size()) != model->dims) {
    WithColor::error(errs(), "stencilc")
        << "--size has " << extents.size() << " extents but " << model->name
        << " is " << model->dims << "-D\n";
    return 1;
  }
  // What the runtime refuses at this size would surface only on the GPU
  // machine, after the timing program was built there.
  static const char *const axisNames[4] = {"x", "y", "z", "t"};
  long long sites = 1;
  for (int axis = 0; axis < model->dims; ++axis) {
    const int extent = extents[axis];
    const char *a = axisNames[axis];
    if (extent > (1 << 30)) {
      WithColor::error(errs(), "stencilc")
          << "--size: n" << a << " = " << extent
          << " is more than the 2^30 sites a launch takes along an axis\n";
      return 1;
    }
    if (sites > (1LL << 40) / extent) {
      WithColor::error(errs(), "stencilc")
          << "--size '" << tuneSize << "': more than 2^40 sites\n";
      return 1;
    }
    sites *= extent;
    if (!model->wraps(axis) && extent <= 2 * model->reach[axis]) {
      WithColor::error(errs(), "stencilc")
          << "--size: n" << a << " = " << extent << " leaves no interior site "
          << "inside " << model->name << "'s Dirichlet halo of "
          << model->reach[axis] << " on each side\n";
      return 1;
    }
    if (model->layout.evenOdd && (axis == 0 || model->wraps(axis)) &&
        extent % 2 != 0) {
      WithColor::error(errs(), "stencilc")
          << "--size: n" << a << " = " << extent << " is odd; " << model->name
          << "'s even/odd storage needs "
          << (axis == 0 ? "an even nx"
                        : "even extents along the axes that wrap around")
          << "\n";
      return 1;
    }
  }
  if (int group = model->sitesPerThreadX();
      group > 1 && extents[0] % group != 0) {
    WithColor::error(errs(), "stencilc")
        << "--size: " << model->name << " updates " << group
        << " aligned sites along x per thread (kernel.vector_width " << group
        << "), so nx must be a multiple of " << group << ", not "
        << extents[0] << "\n";
    return 1;
  }
  if (tuneLimit < 1) {
    WithColor::error(errs(), "stencilc") << "--max-variants must be positive\n";
    return 1;
  }
  if (tuneFold && !planFoldPass(*model)) {
    WithColor::error(errs(), "stencilc")
        << tuneSpec << ": --fold tunes CG's fold pass, but " << model->name
        << "'s kernels have none (CG specs on the whole lattice, not "
           "even/odd storage, with blocks of whole wavefronts)\n";
    return 1;
  }
  // Second, what the runtime runs at this size (dropped where it is the
  // spec's own): the planner's kernels, or the entry that --tune-cache
  // records for this GPU and size. The one a new entry must beat.
  RuntimeKernels runtime =
      kernelsRunAt(generated, extents, tuneFold, device->l2Bytes);
  if (!tuneCachePath.empty()) {
    std::optional<std::vector<TuningCacheEntry>> entries =
        readCacheOrReport(tuneCachePath);
    if (!entries)
      return 1;
    Expected<std::optional<RuntimeKernels>> entry =
        entryRunAt(generated, *entries, tuneCachePath, device->name, extents,
                   tuneFold, errs());
    if (!entry) {
      WithColor::error(errs(), "stencilc") << toString(entry.takeError())
                                           << "\n";
      return 1;
    }
    if (*entry)
      runtime = std::move(**entry);
  }
  std::vector<Variant> variants;
  if (!tuneVariantsFile.empty()) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> file =
        MemoryBuffer::getFile(tuneVariantsFile);
    if (!file) {
      WithColor::error(errs(), "stencilc")
          << "cannot read '" << tuneVariantsFile
          << "': " << file.getError().message() << "\n";
      return 1;
    }
    Expected<std::vector<Variant>> listed = listedVariants(
        *model, (*file)->getBuffer(), tuneVariantsFile, &runtime.model);
    if (!listed) {
      WithColor::error(errs(), "stencilc") << toString(listed.takeError())
                                           << "\n";
      return 1;
    }
    variants = std::move(*listed);
  } else {
    variants =
        tuningVariants(*model, std::numeric_limits<int>::max(), extents,
                       &runtime.model);
  }
  const size_t space = variants.size();
  if (tunePredicted && variants.size() > 2) {
    std::vector<std::pair<double, size_t>> ranked;
    // --fold: the fold pass's prediction, variants without one last.
    auto predicted = [&](const StencilModel &m) {
      if (!tuneFold)
        return predictedCost(m, *device).picosecondsPerSite;
      std::optional<KernelCost> fold = predictedFoldCost(m, *device);
      return fold ? fold->picosecondsPerSite
                  : std::numeric_limits<double>::infinity();
    };
    std::vector<Variant> ordered;
    for (size_t i = 0; i < variants.size(); ++i)
      if (variants[i].pinned)
        ordered.push_back(std::move(variants[i]));
      else
        ranked.push_back({predicted(variants[i].model), i});
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[cost, i] : ranked)
      ordered.push_back(std::move(variants[i]));
    variants = std::move(ordered);
  }
  if (space > static_cast<size_t>(tuneLimit))
    variants.resize(tuneLimit);
  const size_t chosen = variants.size();
  if (tuneRegisterCaps)
    variants = withRegisterCaps(*model, std::move(variants));
  if (Error error = writeTuningDirectory(*model, variants, extents, tuneOutput,
                                         tuneFold ? "fold" : "apply")) {
    WithColor::error(errs(), "stencilc") << toString(std::move(error)) << "\n";
    return 1;
  }
  outs() << "stencilc: " << variants.size() << " variants of " << model->name
         << " (" << variants.front().summary << " first: the spec's own) in "
         << tuneOutput << "\n";
  if (variants.size() > 1 && variants[1].pinned)
    outs() << "  second, " << variants[1].model.name
           << ": what the runtime runs at this size ("
           << (runtime.fromCache
                   ? runtime.what
                   : "without a tuning-cache entry, " + runtime.what +
                         ", as planned for " + compiledFor)
           << "): an entry must beat it\n";
  if (chosen < space)
    outs() << "  the first " << chosen << " of " << space
           << (tunePredicted
                   ? (tuneFold ? " in the cost model's order for the fold "
                                 "pass (fastest predicted first"
                               : " in the cost model's order (fastest "
                                 "predicted first")
                   : " in the search order (staging, layout, components per "
                     "thread, "
                     "block, tile, load order, stores, launch bounds")
           << (!tunePredicted && model->hasLinkTaps() ? ", the links' layout"
                                                      : "")
           << "); --max-variants " << space << " emits all\n";
  if (tuneRegisterCaps)
    outs() << "  after each, its register caps (launch bounds with a minimum "
              "of resident blocks): "
           << variants.size() << " variants in all\n";
  outs()
         << "  on the GPU machine, with stencilc's runtime installed (no LLVM "
            "needed):\n"
         << "    cmake -S " << tuneOutput << " -B " << tuneOutput
         << "/build -DCMAKE_PREFIX_PATH=<prefix> -DTUNE_PLATFORM=nvidia\n"
         << "    cmake --build " << tuneOutput << "/build && " << tuneOutput
         << "/build/tune_" << model->name
         << " --json timings.json --cache tunecache.tsv\n"
         << "  then, here: stencilc generate --tune-cache tunecache.tsv ...\n";
  return 0;
}

int runImport(const std::vector<std::string> &compilerArgs) {
  if (!importPrecision.empty() && importPrecision != "float" &&
      importPrecision != "double") {
    WithColor::error(errs(), "stencilc")
        << "--precision must be float or double, not '" << importPrecision
        << "'\n";
    return 1;
  }
  ImportOptions options;
  options.file = importFile;
  options.function = importFunction;
  options.compilerArgs = compilerArgs;
  options.name = importName;
  options.precision = importPrecision;
  options.resourceDir = importResourceDir;
  std::optional<ImportedStencil> stencil = importStencil(options, errs());
  if (!stencil)
    return 1;
  std::string yaml = importedSpecYaml(*stencil);

  // The spec must pass the checker like any hand-written one.
  SourceMgr sourceMgr;
  std::string label =
      importOutput.empty() ? std::string("<imported spec>") : importOutput;
  unsigned buffer = sourceMgr.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(yaml, label), SMLoc());
  DiagnosticEngine diags(sourceMgr, errs());
  std::optional<StencilModel> model = stencilc::loadModel(buffer, label, diags);
  if (!model) {
    errs() << yaml;
    WithColor::error(errs(), "stencilc")
        << "the spec imported from '" << importFunction
        << "' does not pass the checker (above); adjust the function or "
           "--name\n";
    return 1;
  }
  if (importOutput.empty()) {
    outs() << yaml;
    return 0;
  }
  std::error_code ec;
  StringRef parent = sys::path::parent_path(importOutput);
  if (!parent.empty())
    ec = sys::fs::create_directories(parent);
  if (ec) {
    WithColor::error(errs(), "stencilc")
        << "cannot create " << parent << ": " << ec.message() << "\n";
    return 1;
  }
  if (Error error = writeFile(importOutput, yaml)) {
    WithColor::error(errs(), "stencilc") << toString(std::move(error)) << "\n";
    return 1;
  }
  outs() << "stencilc: " << stencil->function << " -> " << importOutput
         << " (" << stencil->dims << "-D, " << stencil->taps.size()
         << " taps, " << (stencil->periodic ? "periodic" : "dirichlet")
         << ", " << stencil->precision << ")\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "stencilc " << generatorVersion() << "\n";
  });
  // `stencilc import FILE ... -- ARGS`: ARGS go to Clang, not to us.
  std::vector<std::string> compilerArgs;
  for (int i = 1; i < argc; ++i)
    if (StringRef(argv[i]) == "--" && argc > 1 &&
        StringRef(argv[1]) == "import") {
      compilerArgs.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  cl::ParseCommandLineOptions(
      argc, argv,
      "stencilc: generate tuned HIP stencil kernels from YAML specs\n\n"
      "  stencilc check SPEC...          validate specs\n"
      "  stencilc plan SPEC...           print the kernel plans\n"
      "  stencilc generate SPEC... -o DIR\n"
      "                                  write NAME.hip, NAME.hpp, NAME.json\n"
      "  stencilc inspect SPEC... [--target T,...] [--isa] [--format json]\n"
      "                                  GPU resources, occupancy, roofline\n"
      "  stencilc tune SPEC --size n,n,n -o DIR\n"
      "                                  emit variants and their timing program\n"
      "  stencilc import FILE --function F [-o SPEC] [-- CLANG ARGS]\n"
      "                                  derive a spec from a C++/HIP kernel\n");
  // `--device=` and the like: an empty value given is a mistake, not the
  // option left out.
  for (const cl::opt<std::string> *option :
       {&deviceOption, &importFunction, &importOutput, &importName,
        &importPrecision, &importResourceDir, &rooflinePath, &runtimeInclude,
        &outputDirectory, &tuneCachePath, &expectedName, &tuneVariantsFile,
        &tuneSize, &tuneOutput})
    if (option->getNumOccurrences() > 0 && option->empty()) {
      WithColor::error(errs(), "stencilc")
          << (option->ArgStr.size() == 1 ? "-" : "--") << option->ArgStr
          << " needs a value\n";
      return 1;
    }
  int status = 1;
  if (checkCommand)
    status = runCheck();
  else if (planCommand)
    status = runPlan();
  else if (generateCommand)
    status = runGenerate();
  else if (inspectCommand)
    status = runInspect(argv[0]);
  else if (tuneCommand)
    status = runTune();
  else if (importCommand)
    status = runImport(compilerArgs);
  else
    errs() << "stencilc: error: no command given; run 'stencilc --help'\n";
  // A full disk or a closed pipe: a clear error, not LLVM's fatal one when
  // the stream is destroyed with its error unread.
  outs().flush();
  if (outs().has_error()) {
    WithColor::error(errs(), "stencilc")
        << "cannot write the output: " << outs().error().message() << "\n";
    outs().clear_error();
    return 1;
  }
  return status;
}
