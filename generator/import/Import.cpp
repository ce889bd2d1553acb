//===- Import.cpp - Parse with Clang, find the function, write the spec ---===//
//
// HIP and CUDA files (.hip, .cu, .cuh) are parsed in Clang's CUDA mode for
// the host only, against a small stand-in for hip/hip_runtime.h and
// cuda_runtime.h (the thread builtins, dim3, launch syntax, the common
// runtime calls): the importer reads one function and must not depend on a
// GPU toolkit being installed. Other files are parsed as C++17. Errors that
// Clang reports outside the function are shown as warnings (they do not
// change what the function computes); errors inside it stop the import.
//
//===----------------------------------------------------------------------===//
#include "import/Import.h"
#include "check/Check.h"
#include "import/Lift.h"
#include "import/Symbolic.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace stencilc {
namespace {

/// What a HIP/CUDA program needs to parse on the host; nothing runs.
constexpr const char *kGpuStandIn = R"(// stencilc import: stand-in GPU runtime header
#ifndef STENCILC_IMPORT_GPU_STAND_IN
#define STENCILC_IMPORT_GPU_STAND_IN
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
struct stencilc_import_uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
};
extern const __device__ stencilc_import_uint3 threadIdx, blockIdx;
extern const __device__ dim3 blockDim, gridDim;
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
typedef int hipError_t;
typedef int cudaError_t;
typedef struct stencilc_import_stream *hipStream_t;
typedef struct stencilc_import_stream *cudaStream_t;
typedef struct stencilc_import_event *hipEvent_t;
typedef struct stencilc_import_event *cudaEvent_t;
enum { hipSuccess = 0, cudaSuccess = 0 };
enum hipMemcpyKind { hipMemcpyHostToHost, hipMemcpyHostToDevice,
                     hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice,
                     hipMemcpyDefault };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice,
                      cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
                      cudaMemcpyDefault };
extern "C" {
int __hipPushCallConfiguration(dim3, dim3, size_t = 0, hipStream_t = 0);
int __hipPopCallConfiguration(dim3 *, dim3 *, size_t *, hipStream_t *);
int __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);
int __cudaPopCallConfiguration(dim3 *, dim3 *, size_t *, cudaStream_t *);
}
hipError_t hipMalloc(void **, size_t);
template <class T> hipError_t hipMalloc(T **p, size_t n) { return hipMalloc((void **)p, n); }
hipError_t hipFree(void *);
hipError_t hipMemcpy(void *, const void *, size_t, hipMemcpyKind);
hipError_t hipMemset(void *, int, size_t);
hipError_t hipDeviceSynchronize();
hipError_t hipGetLastError();
hipError_t hipEventCreate(hipEvent_t *);
hipError_t hipEventRecord(hipEvent_t, hipStream_t = 0);
hipError_t hipEventSynchronize(hipEvent_t);
hipError_t hipEventElapsedTime(float *, hipEvent_t, hipEvent_t);
hipError_t hipEventDestroy(hipEvent_t);
const char *hipGetErrorString(hipError_t);
cudaError_t cudaMalloc(void **, size_t);
template <class T> cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
cudaError_t cudaFree(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
const char *cudaGetErrorString(cudaError_t);
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
  kernel<<<grid, block, shared, stream>>>(__VA_ARGS__)
__device__ void __syncthreads();
template <class T> __device__ T __ldg(const T *p) { return *p; }
#endif
)";

/// The stand-in headers in a temporary directory (Clang's header search
/// skips directories that exist only as mapped files), removed afterwards.
class StandInHeaders {
public:
  std::error_code create() {
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("stencilc-import", root))
      return ec;
    for (const char *header : {"hip/hip_runtime.h", "hip/hip_runtime_api.h",
                               "cuda_runtime.h", "cuda.h",
                               "cuda_runtime_api.h"}) {
      llvm::SmallString<256> path(root);
      llvm::sys::path::append(path, header);
      if (std::error_code ec = llvm::sys::fs::create_directories(
              llvm::sys::path::parent_path(path)))
        return ec;
      std::error_code ec;
      llvm::raw_fd_ostream file(path, ec);
      if (ec)
        return ec;
      file << kGpuStandIn;
    }
    return {};
  }
  std::string directory() const { return std::string(root); }
  ~StandInHeaders() {
    if (!root.empty())
      llvm::sys::fs::remove_directories(root);
  }

private:
  llvm::SmallString<128> root;
};

bool isGpuSource(StringRef path) {
  StringRef ext = llvm::sys::path::extension(path);
  return ext == ".hip" || ext == ".cu" || ext == ".cuh";
}

/// Collects Clang's diagnostics; those inside the imported function (and
/// every fatal one) are errors, the rest warnings.
class CollectingConsumer : public DiagnosticConsumer {
public:
  struct Entry {
    DiagnosticsEngine::Level level;
    SourceLocation location;
    std::string message;
  };
  void HandleDiagnostic(DiagnosticsEngine::Level level,
                        const Diagnostic &info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    entries.push_back({level, info.getLocation(), text.str().str()});
  }
  std::vector<Entry> entries;
};

std::string functionsDefinedIn(ASTContext &context) {
  std::vector<std::string> names;
  const SourceManager &sources = context.getSourceManager();
  for (const Decl *d : context.getTranslationUnitDecl()->decls()) {
    const FunctionDecl *f = nullptr;
    if (const auto *t = dyn_cast<FunctionTemplateDecl>(d))
      f = t->getTemplatedDecl();
    else
      f = dyn_cast<FunctionDecl>(d);
    if (f && f->doesThisDeclarationHaveABody() &&
        sources.isInMainFile(f->getLocation()))
      names.push_back(f->getNameAsString());
  }
  return llvm::join(names, ", ");
}

struct FoundFunction {
  const FunctionDecl *function = nullptr;
  const FunctionTemplateDecl *pattern = nullptr; ///< a template, not instantiated
  int candidates = 0;
};

FoundFunction findFunction(ASTContext &context, StringRef name,
                     StringRef precision) {
  FoundFunction found;
  const SourceManager &sources = context.getSourceManager();
  for (const Decl *d : context.getTranslationUnitDecl()->decls()) {
    if (const auto *t = dyn_cast<FunctionTemplateDecl>(d)) {
      const FunctionDecl *f = t->getTemplatedDecl();
      if (f->getName() != name || !f->doesThisDeclarationHaveABody() ||
          !sources.isInMainFile(f->getLocation()))
        continue;
      ++found.candidates;
      found.pattern = t;
      // An instantiation in the file, of the requested precision if given.
      for (const FunctionDecl *spec : t->specializations()) {
        if (!spec->hasBody())
          continue;
        const TemplateArgumentList *args = spec->getTemplateSpecializationArgs();
        // A template over extents only has one precision: lifting it
        // checks --precision.
        bool matches = precision.empty(), overTypes = false;
        if (args)
          for (const TemplateArgument &arg : args->asArray())
            if (arg.getKind() == TemplateArgument::Type) {
              overTypes = true;
              matches = matches || arg.getAsType().getAsString() == precision;
            }
        matches = matches || !overTypes;
        if (matches) {
          found.function = spec;
          break;
        }
      }
      continue;
    }
    const auto *f = dyn_cast<FunctionDecl>(d);
    if (f && f->getName() == name && f->doesThisDeclarationHaveABody() &&
        sources.isInMainFile(f->getLocation())) {
      ++found.candidates;
      found.function = f;
    }
  }
  return found;
}

/// The extents of the importer's two instantiations of a template:
/// 11, 13, 15, ... and 23, 27, 31, ... (distinct, none shared).
constexpr int kFirstExtent = 11, kFirstStep = 2;
constexpr int kSecondExtent = 23, kSecondStep = 4;

/// The integer template parameters the importer chooses (the extents).
std::vector<const NonTypeTemplateParmDecl *>
extentParameters(const FunctionTemplateDecl &pattern) {
  std::vector<const NonTypeTemplateParmDecl *> extents;
  for (const NamedDecl *param : *pattern.getTemplateParameters()) {
    const auto *value = dyn_cast<NonTypeTemplateParmDecl>(param);
    if (value && value->getType()->isIntegerType() &&
        !value->getType()->isBooleanType() &&
        !value->getType()->isEnumeralType() && !value->isParameterPack())
      extents.push_back(value);
  }
  return extents;
}

/// Arguments for a template the file never instantiates: --precision for
/// its type parameters, distinct odd extents (firstExtent, firstExtent +
/// step, ...) for its integer ones, which the importer then reads by their
/// names (NX), as it reads constexpr sizes.
bool templateArguments(const FunctionTemplateDecl &pattern,
                       const ImportOptions &options, int firstExtent,
                       int step, std::string &arguments,
                       DiagnosticsEngine &engine,
                       llvm::raw_ostream &diagnostics) {
  const TemplateParameterList *params = pattern.getTemplateParameters();
  int nextExtent = firstExtent;
  arguments.clear();
  for (const NamedDecl *param : *params) {
    if (!arguments.empty())
      arguments += ", ";
    const auto *value = dyn_cast<NonTypeTemplateParmDecl>(param);
    if (isa<TemplateTypeParmDecl>(param) && !param->isParameterPack()) {
      if (options.precision.empty()) {
        unsigned id = engine.getCustomDiagID(
            DiagnosticsEngine::Error,
            "'%0' is a template over its element type '%1'; pass "
            "--precision float or --precision double");
        engine.Report(param->getLocation(), id)
            << options.function << param->getName();
        return false;
      }
      arguments += options.precision;
    } else if (value && value->getType()->isIntegerType() &&
               !value->getType()->isBooleanType() &&
               !value->getType()->isEnumeralType() &&
               !value->isParameterPack()) {
      arguments += std::to_string(nextExtent);
      nextExtent += step;
    } else {
      unsigned id = engine.getCustomDiagID(
          DiagnosticsEngine::Error,
          "the template parameter '%0' is not an extent or an element type, "
          "so stencilc import cannot choose its value; instantiate '%1' in "
          "the file (e.g. 'template void %1<...>(...);') and import again");
      engine.Report(param->getLocation(), id)
          << param->getName() << options.function;
      return false;
    }
  }
  return true;
}

std::nullopt_t reportUninstantiable(const FunctionTemplateDecl &pattern,
                                    const ImportOptions &options,
                                    const std::string &arguments,
                                    DiagnosticsEngine &engine) {
  unsigned id = engine.getCustomDiagID(
      DiagnosticsEngine::Error,
      "'%0' is a template that Clang could not instantiate as %0<%1>; "
      "instantiate it in the file (e.g. 'template void %0<...>(...);') and "
      "import again");
  engine.Report(pattern.getLocation(), id) << options.function << arguments;
  return std::nullopt;
}

/// A template over extents that imports to another spec (or to none) at
/// other extents: its stencil depends on the values Clang folded in.
void reportExtentDependent(const FunctionTemplateDecl &pattern,
                           const ImportOptions &options,
                           const std::string &firstArguments,
                           const std::string &secondArguments,
                           DiagnosticsEngine &engine) {
  std::vector<const NonTypeTemplateParmDecl *> extents =
      extentParameters(pattern);
  std::string names;
  for (const NonTypeTemplateParmDecl *extent : extents)
    names += (names.empty() ? "" : ", ") + extent->getNameAsString();
  unsigned id = engine.getCustomDiagID(
      DiagnosticsEngine::Error,
      "the stencil of '%0' depends on the values of its extents (%1): "
      "instantiated as %0<%2> and as %0<%3> it computes different stencils "
      "(a constant bound or stride fits one size only, e.g. %5 for %4 - 1 "
      "with %4 = %6); instantiate it in the file (e.g. 'template void "
      "%0<...>(...);') or take the sizes at run time, and import again");
  engine.Report(extents.front()->getLocation(), id)
      << options.function << names << firstArguments << secondArguments
      << extents.front()->getName() << kFirstExtent - 1 << kFirstExtent;
}

/// Arguments whose names a spec may not use (C++ keywords, the host API's
/// own names such as `in` or `params`) become NAME_p, said in a warning
/// and in the spec's comments.
void renameParameters(ImportedStencil &s, llvm::raw_ostream &diagnostics) {
  for (std::string &name : s.parameters) {
    if (isUsableParameterName(name))
      continue;
    std::string renamed = name + "_p";
    while (!isUsableParameterName(renamed) ||
           llvm::is_contained(s.parameters, renamed))
      renamed += "_";
    diagnostics << "stencilc import: warning: argument '" << name
                << "' is the parameter '" << renamed
                << "' in the spec ('" << name
                << "' is reserved in specs)\n";
    for (ImportedTap &tap : s.taps)
      for (auto &term : tap.terms)
        if (term.first == name)
          term.first = renamed;
    s.renamed.emplace_back(name, renamed);
    name = renamed;
  }
}

} // namespace

std::optional<ImportedStencil> importStencil(const ImportOptions &options,
                                             llvm::raw_ostream &diagnostics) {
  if (!llvm::sys::fs::exists(options.file)) {
    diagnostics << "stencilc import: error: " << options.file
                << ": no such file\n";
    return std::nullopt;
  }
  llvm::SmallString<256> absolute(options.file);
  llvm::sys::fs::make_absolute(absolute);
  auto contents = llvm::MemoryBuffer::getFile(absolute);
  if (!contents) {
    diagnostics << "stencilc import: error: " << options.file << ": "
                << contents.getError().message() << "\n";
    return std::nullopt;
  }

  std::vector<std::string> args;
  bool gpu = isGpuSource(options.file);
  std::optional<StandInHeaders> standIn;
  if (gpu) {
    standIn.emplace();
    if (std::error_code ec = standIn->create()) {
      diagnostics << "stencilc import: error: cannot write the stand-in GPU "
                     "headers: "
                  << ec.message() << "\n";
      return std::nullopt;
    }
    // nvcc and hipcc include their runtime header into every .cu/.hip
    // file; so does the import (the stand-in is guarded against a second
    // inclusion).
    args = {"-xcuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
            "-Wno-unknown-cuda-version", "-std=c++17", "-I",
            standIn->directory(), "-include", "cuda_runtime.h"};
  }
  else
    args = {"-xc++", "-std=c++17"};
  if (!options.resourceDir.empty())
    args.push_back("-resource-dir=" + options.resourceDir);
  args.push_back("-fsyntax-only");
  args.insert(args.end(), options.compilerArgs.begin(),
              options.compilerArgs.end());

  // Parse, twice for a template with no instantiation in the file: taking
  // the address of NAME<precision> at the end makes Clang instantiate it
  // (the lines above keep their numbers). A template over extents is then
  // instantiated a third time at other extents: the importer reads NX as
  // a size but Clang folds it into constants (10 for NX - 1, 143 for
  // NX * NY) it cannot tell from the literals, so a spec valid at one size
  // only must differ from the first.
  const std::string original = contents.get()->getBuffer().str();
  std::string source = original;
  std::string instanceArguments; // of a template the file never instantiates
  std::string firstArguments;    // those of the first instantiation
  std::optional<ImportedStencil> first; // before renaming and relabelling
  std::optional<ImportedStencil> firstShown;
  for (int attempt = 0; attempt < 3; ++attempt) {
    tooling::FixedCompilationDatabase database(".", args);
    tooling::ClangTool tool(database, {std::string(absolute)});
    tool.mapVirtualFile(absolute, source);
    CollectingConsumer collector;
    tool.setDiagnosticConsumer(&collector);
    std::vector<std::unique_ptr<ASTUnit>> units;
    tool.buildASTs(units);
    if (units.empty()) {
      diagnostics << "stencilc import: error: Clang could not parse "
                  << options.file << "\n";
      return std::nullopt;
    }
    ASTUnit &unit = *units.front();
    ASTContext &context = unit.getASTContext();
    DiagnosticsEngine &engine = unit.getDiagnostics();
    TextDiagnosticPrinter printer(diagnostics, &engine.getDiagnosticOptions());
    printer.BeginSourceFile(unit.getLangOpts(), &unit.getPreprocessor());
    engine.setClient(&printer, false);

    FoundFunction found = findFunction(context, options.function, options.precision);
    const SourceManager &sources = context.getSourceManager();
    auto inside = [&](const FunctionDecl *f, SourceLocation location) {
      if (!f || location.isInvalid())
        return false;
      SourceRange range = f->getSourceRange();
      SourceLocation l = sources.getFileLoc(location);
      return !sources.isBeforeInTranslationUnit(l, range.getBegin()) &&
             !sources.isBeforeInTranslationUnit(range.getEnd(), l);
    };
    const FunctionDecl *target =
        found.function ? found.function
                       : found.pattern ? found.pattern->getTemplatedDecl()
                                       : nullptr;
    if (found.function && found.function->getPrimaryTemplate())
      target = found.function->getPrimaryTemplate()->getTemplatedDecl();
    int ignored = 0, fatal = 0;
    for (const auto &entry : collector.entries) {
      if (entry.level < DiagnosticsEngine::Error)
        continue;
      if (inside(target, entry.location) || !target) {
        ++fatal;
        unsigned id = engine.getCustomDiagID(DiagnosticsEngine::Error, "%0");
        engine.Report(entry.location, id) << entry.message;
      } else if (attempt < 2) { // the third parse repeats the first's
        ++ignored;
        unsigned id = engine.getCustomDiagID(DiagnosticsEngine::Warning,
                                             "%0 (outside the function)");
        engine.Report(entry.location, id) << entry.message;
      }
    }
    if (fatal && attempt >= 1) {
      unsigned id = engine.getCustomDiagID(
          DiagnosticsEngine::Error,
          "'%0' does not compile when the importer instantiates it as "
          "%0<%1>; instantiate it in the file with the arguments it needs "
          "(e.g. 'template void %0<...>(...);') and import again");
      engine.Report(target->getLocation(), id)
          << options.function << instanceArguments;
      return std::nullopt;
    }
    if (fatal) {
      diagnostics << "stencilc import: error: " << options.file
                  << " does not compile"
                  << (target ? " inside '" + options.function + "'" : "")
                  << "; pass include paths and macros after '--'\n";
      return std::nullopt;
    }
    if (found.candidates == 0) {
      diagnostics << "stencilc import: error: " << options.file
                  << " defines no function named '" << options.function
                  << "'";
      std::string names = functionsDefinedIn(context);
      if (!names.empty())
        diagnostics << " (it defines: " << names << ")";
      diagnostics << "\n";
      return std::nullopt;
    }
    if (found.candidates > 1) {
      diagnostics << "stencilc import: error: " << options.file
                  << " defines " << found.candidates << " functions named '"
                  << options.function << "'; rename the one to import\n";
      return std::nullopt;
    }
    if (ignored && attempt < 2)
      diagnostics << "stencilc import: warning: ignored " << ignored
                  << " Clang error(s) outside '" << options.function
                  << "' (pass include paths and macros after '--' to "
                     "silence them)\n";
    if (!found.function) {
      if (attempt >= 1 ||
          !templateArguments(*found.pattern, options, kFirstExtent, kFirstStep,
                             instanceArguments, engine, diagnostics))
        return attempt >= 1 ? reportUninstantiable(*found.pattern, options,
                                                   instanceArguments, engine)
                            : std::nullopt;
      source += "\nstatic auto *const stencilc_import_instance = &" +
                options.function + "<" + instanceArguments + ">;\n";
      continue;
    }
    if (attempt == 2) {
      // Lift quietly: only whether the spec is the same matters here.
      llvm::raw_null_ostream nothing;
      TextDiagnosticPrinter quiet(nothing, &engine.getDiagnosticOptions());
      quiet.BeginSourceFile(unit.getLangOpts(), &unit.getPreprocessor());
      engine.setClient(&quiet, false);
      std::optional<ImportedStencil> second =
          import::liftStencil(context, *found.function, options);
      quiet.EndSourceFile();
      engine.setClient(&printer, false);
      if (second && importedSpecYaml(*second) == importedSpecYaml(*first))
        return firstShown;
      reportExtentDependent(*found.function->getPrimaryTemplate(), options,
                            firstArguments, instanceArguments, engine);
      return std::nullopt;
    }
    std::optional<ImportedStencil> result =
        import::liftStencil(context, *found.function, options);
    if (result && !options.precision.empty() &&
        result->precision != options.precision) {
      unsigned id = engine.getCustomDiagID(
          DiagnosticsEngine::Error,
          "'%0' computes in %1, not the --precision %2");
      engine.Report(found.function->getLocation(), id)
          << options.function << result->precision << options.precision;
      return std::nullopt;
    }
    printer.EndSourceFile();
    if (result && attempt == 1)
      first = result;
    if (result) {
      renameParameters(*result, diagnostics);
      // Name the file as the user did, not by its absolute path.
      auto relabel = [&](std::string &text) {
        if (StringRef(text).startswith(absolute))
          text = options.file + text.substr(absolute.size());
      };
      relabel(result->location);
      for (ImportedTap &tap : result->taps)
        relabel(tap.source);
    }
    const FunctionTemplateDecl *pattern =
        found.function->getPrimaryTemplate();
    if (!result || attempt != 1 || extentParameters(*pattern).empty())
      return result;
    firstShown = std::move(result);
    firstArguments = instanceArguments;
    if (!templateArguments(*pattern, options, kSecondExtent, kSecondStep,
                           instanceArguments, engine, diagnostics))
      return std::nullopt;
    source = original + "\nstatic auto *const stencilc_import_instance = &" +
             options.function + "<" + instanceArguments + ">;\n";
  }
  return std::nullopt;
}

std::string importedSpecYaml(const ImportedStencil &s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  static const char *const axes[] = {"x", "y", "z", "t"};
  os << "# Imported by `stencilc import` from " << s.location << " ("
     << s.function << ": " << s.form << ").\n";
  os << "# The function writes " << s.outputArray << " from "
     << s.inputArray << "; coordinates ";
  for (int a = 0; a < s.dims; ++a)
    os << (a ? ", " : "") << s.coordinateNames[a] << " -> " << axes[a];
  os << ".\n";
  os << "name: " << s.name << "\n";
  os << "description: imported from " << s.function << " ("
     << llvm::sys::path::filename(s.location.substr(0, s.location.find(':')))
     << ")\n";
  os << "solver: none            # cg or cgnr if the operator suits them "
        "(stencilc check verifies)\n";
  os << "grid: {dimensions: " << s.dims << ", boundary: "
     << (s.periodic ? "periodic" : "dirichlet") << "}"
     << (s.periodic ? "   # every site updated, reads wrap around\n"
                    : "   # the function skips a layer as wide as the reach\n");
  os << "field: {precision: " << s.precision
     << (s.complexValues ? ", type: complex" : "")
     << ", components: " << s.components << "}";
  if (!s.componentsNote.empty())
    os << "   # " << s.componentsNote;
  os << "\n";
  if (s.parameters.empty()) {
    os << "parameters: []\n";
  } else {
    os << "parameters:              # the function's scalar arguments; set "
          "them at run time\n";
    for (const std::string &p : s.parameters) {
      os << "  - {name: " << p << ", default: 1.0}";
      for (const auto &[argument, parameter] : s.renamed)
        if (parameter == p)
          os << "   # the argument '" << argument << "'";
      os << "\n";
    }
  }
  os << "taps:\n";
  size_t width = 0;
  std::vector<std::string> lines;
  for (const ImportedTap &tap : s.taps) {
    import::LinearForm f;
    f.constant = tap.constant;
    f.terms = tap.terms;
    std::string line = "  - {offset: [";
    for (int a = 0; a < s.dims; ++a)
      line += (a ? ", " : "") + std::to_string(tap.offset[a]);
    line += "], coefficient: " + f.text() + "}";
    width = std::max(width, line.size());
    lines.push_back(line);
  }
  for (size_t t = 0; t < s.taps.size(); ++t) {
    std::string source = s.taps[t].source;
    size_t colon = source.find(':');
    std::string file = llvm::sys::path::filename(source.substr(0, colon)).str();
    os << lines[t] << std::string(width - lines[t].size() + 2, ' ') << "# "
       << s.taps[t].text << " at " << file << source.substr(colon) << "\n";
  }
  os << "kernel:\n";
  os << "  load_order: as-written   # the source's order; `stencilc tune` "
        "searches block, tile, order and stores\n";
  return os.str();
}

} // namespace stencilc
