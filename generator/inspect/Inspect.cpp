//===- Inspect.cpp - Compiling a spec's kernels for each target -----------===//
#include "inspect/Inspect.h"

#include "emit/Emit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace stencilc {

namespace {

Error failure(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// `name` on PATH, else in `fallback` (a directory), else an error that
/// names the package that provides it.
Expected<std::string> findTool(StringRef name, StringRef fallback,
                               StringRef package) {
  if (ErrorOr<std::string> path = sys::findProgramByName(name))
    return *path;
  if (!fallback.empty())
    if (ErrorOr<std::string> path = sys::findProgramByName(name, {fallback}))
      return *path;
  return failure(name + " not found on PATH" +
                 (fallback.empty() ? "" : " or in " + fallback) + ": " +
                 package);
}

/// Runs `program args`; stdout and stderr go to `output`. An error quotes
/// the end of the output when the program fails.
Error run(StringRef program, ArrayRef<std::string> args,
          StringRef outputPath, std::string &output) {
  std::vector<StringRef> argv = {program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  Optional<StringRef> redirects[] = {llvm::None, outputPath, outputPath};
  std::string message;
  int status = sys::ExecuteAndWait(program, argv, llvm::None, redirects, 0,
                                   0, &message);
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(outputPath);
  output = buffer ? (*buffer)->getBuffer().str() : std::string();
  if (status == 0)
    return Error::success();
  std::string command = program.str();
  for (const std::string &arg : args)
    command += " " + arg;
  StringRef tail = output;
  if (tail.size() > 2000)
    tail = tail.take_back(2000);
  return failure("'" + command + "' failed" +
                 (message.empty() ? "" : " (" + message + ")") + ":\n" + tail);
}

Expected<std::string> readFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return failure("cannot read '" + path + "': " +
                   buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

std::string pathIn(StringRef directory, const Twine &file) {
  SmallString<256> path(directory);
  sys::path::append(path, file);
  return std::string(path);
}

/// The plan's kernel in a map keyed by mangled names: the name ends a
/// nested name as `<length><name>E`.
const KernelResources *lookup(const std::map<std::string, KernelResources> &m,
                              const std::string &kernelName) {
  std::string key = std::to_string(kernelName.size()) + kernelName + "E";
  for (const auto &[mangled, resources] : m)
    if (StringRef(mangled).contains(key))
      return &resources;
  return nullptr;
}

Expected<std::map<std::string, KernelResources>>
compileAmd(const TargetInfo &target, StringRef directory, StringRef name,
           const InspectOptions &options) {
  Expected<std::string> hipcc = findTool(
      "hipcc", "",
      "install the Debian packages hipcc, libamdhip64-dev and "
      "rocm-device-libs (scripts/install-deps.sh does), or leave out the AMD "
      "targets (--target sm_90)");
  if (!hipcc)
    return hipcc.takeError();
  std::string source = pathIn(directory, name + ".hip");
  std::string assembly = pathIn(directory, name + "-" + target.target + ".s");
  std::string log = pathIn(directory, name + "-" + target.target + ".log");
  std::string output;
  if (Error error =
          run(*hipcc,
              {"-x", "hip", "--offload-arch=" + target.target,
               "--cuda-device-only", "-O3", "-std=c++17", "-S",
               "-Rpass-analysis=kernel-resource-usage",
               "-I" + options.runtimeInclude, "-I" + directory.str(), source,
               "-o", assembly},
              log, output))
    return error;
  std::map<std::string, KernelResources> kernels = parseAmdRemarks(output);
  Expected<std::string> text = readFile(assembly);
  if (!text)
    return text.takeError();
  parseAmdAssembly(*text, kernels);
  return kernels;
}

Expected<std::map<std::string, KernelResources>>
compileNvidia(const TargetInfo &target, StringRef directory, StringRef name,
              const InspectOptions &options) {
  const char *cudaBin = "/usr/local/cuda/bin";
  Expected<std::string> nvcc = findTool(
      "nvcc", cudaBin,
      "install the CUDA toolkit (NVIDIA's packages; Debian's "
      "nvidia-cuda-toolkit is too old for sm_90), or leave out the NVIDIA "
      "target (--target gfx908,gfx90a)");
  if (!nvcc)
    return nvcc.takeError();
  std::string source = pathIn(directory, name + ".hip");
  std::string cubin = pathIn(directory, name + ".cubin");
  std::string log = pathIn(directory, name + "-" + target.target + ".log");
  // One compile: the cubin (ptxas -v reports on it) and, kept beside it,
  // the PTX it came from (NAME.ptx).
  std::string output;
  if (Error error =
          run(*nvcc,
              {"-x", "cu", "-arch=" + target.target, "-O3", "-std=c++17",
               "-I" + options.runtimeInclude, "-I" + directory.str(), source,
               "-cubin", "-Xptxas", "-v", "-o", cubin, "--keep",
               "--keep-dir", directory.str()},
              log, output))
    return error;
  std::map<std::string, KernelResources> kernels = parsePtxasInfo(output);
  // SASS needs cuobjdump; without it the PTX shows the access widths (and
  // says so: isaKind "ptx").
  std::string nvccDir = sys::path::parent_path(*nvcc).str();
  if (ErrorOr<std::string> cuobjdump =
          sys::findProgramByName("cuobjdump", {nvccDir})) {
    std::string sass;
    if (Error error = run(*cuobjdump, {"-sass", cubin},
                          pathIn(directory, name + ".sass"), sass))
      return error;
    parseSass(sass, kernels);
    return kernels;
  }
  Expected<std::string> ptx = readFile(pathIn(directory, name + ".ptx"));
  if (!ptx)
    return ptx.takeError();
  parsePtx(*ptx, kernels);
  return kernels;
}

} // namespace

Expected<SpecReport> inspectSpec(const StencilModel &model,
                                 const InspectOptions &options,
                                 const TunedKernels &variants) {
  SpecReport report;
  report.model = model;
  std::vector<KernelPlan> plans = planKernels(model);
  Expected<EmittedStencil> files = emitStencil(model, plans, variants);
  if (!files)
    return files.takeError();
  SmallString<128> directory;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("stencilc-inspect", directory))
    return failure("cannot create a temporary directory: " + ec.message());
  auto cleanup = make_scope_exit([&] { sys::fs::remove_directories(directory); });
  if (Error error = writeStencil(model, *files, directory))
    return error;

  for (const KernelPlan &plan : plans)
    report.kernels.push_back({figuresOf(plan), {}});
  if (hasCloverKernel(model))
    report.kernels.push_back({figuresOf(planCloverKernel(model)), {}});
  for (const TunedVariant &variant : variants.variants) {
    for (const KernelPlan &plan : planKernels(variant.model))
      report.kernels.push_back({figuresOf(plan), {}});
    if (hasCloverKernel(variant.model))
      report.kernels.push_back(
          {figuresOf(planCloverKernel(variant.model)), {}});
  }
  for (const TargetInfo &target : options.targets) {
    auto compiled = target.vendor == Vendor::AMD
                        ? compileAmd(target, directory, model.name, options)
                        : compileNvidia(target, directory, model.name, options);
    if (!compiled)
      return compiled.takeError();
    for (KernelReport &kernel : report.kernels) {
      const KernelResources *found =
          lookup(*compiled, kernel.kernel.name);
      if (!found)
        return failure("the " + target.target + " compile of " + model.name +
                       " reported nothing for kernel " +
                       kernel.kernel.name);
      kernel.byTarget[target.target] = *found;
      if (!options.keepIsa)
        kernel.byTarget[target.target].isa.clear();
    }
  }
  return report;
}

} // namespace stencilc
