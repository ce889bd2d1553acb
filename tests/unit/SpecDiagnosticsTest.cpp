// Every validation rule of the spec format produces its clang-style
// diagnostic at the right line and column, and a run collects several.
#include "TestSupport.h"

#include "spec/LoadOrder.h"

#include <gtest/gtest.h>

#include <utility>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

::testing::AssertionResult hasDiagnostic(const CheckResult &result,
                                         const std::string &expected) {
  if (result.output.find(expected) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected diagnostic '" << expected << "' in:\n"
         << result.output;
}

TEST(SpecDiagnostics, ValidSpecHasNoDiagnostics) {
  CheckResult result = checkYaml(laplacianSpec());
  EXPECT_TRUE(result.model.has_value()) << result.output;
  EXPECT_EQ(result.errors, 0u);
  EXPECT_EQ(result.warnings, 0u);
  EXPECT_EQ(result.output, "");
}

TEST(SpecDiagnostics, UnknownKeySuggestsTheNearestKnownOne) {
  CheckResult result = checkYaml(laplacianSpec("  blok: [64, 4, 1]\n"));
  EXPECT_FALSE(result.model);
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:15:3: error: unknown key 'blok' in 'kernel'; did "
              "you mean 'block'?"));
  // The source line and a caret follow, as clang prints them.
  EXPECT_TRUE(hasDiagnostic(result, "  blok: [64, 4, 1]\n  ^"));
}

TEST(SpecDiagnostics, UnknownTopLevelKey) {
  CheckResult result = checkYaml("colour: red\n" + laplacianSpec());
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:1:1: error: unknown key 'colour' in "
                            "the spec"));
}

TEST(SpecDiagnostics, MissingRequiredKeys) {
  CheckResult result = checkYaml("name: lap\n"
                                 "grid: {dimensions: 3}\n"
                                 "field: {precision: float}\n");
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:2:7: error: missing required key 'boundary' in "
              "'grid'"));
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:1:1: error: missing required key 'taps' in the "
              "spec"));
  EXPECT_EQ(result.errors, 2u);
}

TEST(SpecDiagnostics, WrongValueTypes) {
  CheckResult result = checkYaml(laplacianSpec(
      "  block: 64\n  nontemporal_store: maybe\n  tile: {axis: y, factor: "
      "two}\n"));
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:15:10: error: 'kernel.block' must be a list"));
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:16:22: error: 'kernel.nontemporal_store' "
                            "must be true or false, not 'maybe'"));
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:17:27: error: 'kernel.tile.factor' "
                            "must be an integer, not 'two'"));
  EXPECT_EQ(result.errors, 3u);
}

TEST(SpecDiagnostics, OffsetArityMustMatchDimensions) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("[-1, 0, 0]"), 10, "[-1, 0]");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:8:14: error: tap offset has 2 entries "
                            "but the grid has 3 dimensions"));
}

TEST(SpecDiagnostics, DuplicateOffsetsPointAtBothTaps) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("[1, 0, 0]"), 9, "[-1, 0, 0]");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:9:14: error: duplicate tap offset (-1, 0, 0)"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:8:14: note: first written here"));
}

TEST(SpecDiagnostics, UndeclaredParameter) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("coefficient: -h}\n  - {offset: [0, -1"), 16,
               "coefficient: -hh}");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(hasDiagnostic(result,
                            "error: coefficient uses undeclared parameter 'hh'; "
                            "did you mean 'h'?"));
}

TEST(SpecDiagnostics, UnusedParameterWarns) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("  - {name: h"), 0, "  - {name: unused, default: 2}\n");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(result.model.has_value());
  EXPECT_EQ(result.warnings, 1u);
  EXPECT_TRUE(hasDiagnostic(result, "warning: parameter 'unused' is declared "
                                    "but no tap uses it"));
}

TEST(SpecDiagnostics, TileFactorBelowOne) {
  CheckResult result = checkYaml(laplacianSpec("  tile: {axis: y, factor: 0}\n"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:15:27: error: "
                                    "'kernel.tile.factor' must be at least 1, "
                                    "not 0"));
}

TEST(SpecDiagnostics, TileAxisNotAGridAxis) {
  CheckResult result = checkYaml(laplacianSpec("  tile: {axis: t, factor: 2}\n"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:15:16: error: tile axis 't' is "
                                    "not an axis of this 3-dimensional grid"));
  CheckResult unknown =
      checkYaml(laplacianSpec("  tile: {axis: w, factor: 2}\n"));
  EXPECT_TRUE(hasDiagnostic(unknown, "error: unknown tile axis 'w'"));
}

TEST(SpecDiagnostics, BlockOverThreadLimitIsAnError) {
  CheckResult result = checkYaml(laplacianSpec("  block: [64, 32, 1]\n"));
  EXPECT_FALSE(result.model);
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:15:10: error: 'kernel.block' "
                                    "has more than 1024 threads per block"));
}

TEST(SpecDiagnostics, BlockNotAMultipleOfTheWavefrontIsAWarning) {
  CheckResult result = checkYaml(laplacianSpec("  block: [30, 2, 1]\n"));
  EXPECT_TRUE(result.model.has_value()) << result.output;
  EXPECT_EQ(result.warnings, 1u);
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:15:10: warning: 'kernel.block' has 60 "
                            "threads, not a multiple of the wavefront size 64"));
}

TEST(SpecDiagnostics, LaunchBoundsBelowTheBlock) {
  CheckResult result =
      checkYaml(laplacianSpec("  block: [64, 4, 1]\n  launch_bounds: 128\n"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:16:18: error: "
                                    "'kernel.launch_bounds' of 128 is below "
                                    "the block's 256 threads"));
}

TEST(SpecDiagnostics, ExplicitLoadOrderMustCoverEveryTapOnce) {
  CheckResult missing =
      checkYaml(laplacianSpec("  load_order: \"-Z-Y-X C+X+Y\"\n"));
  EXPECT_TRUE(hasDiagnostic(missing, "test.yaml:15:15: error: load order does "
                                     "not name tap (0, 0, 1)"));
  EXPECT_TRUE(hasDiagnostic(missing, "test.yaml:13:5: note: tap written here"));

  CheckResult twice =
      checkYaml(laplacianSpec("  load_order: \"-Z-Y-X C+X+Y+Z-X\"\n"));
  // Column of the second 'X' of "-X" at the end, inside the quotes.
  EXPECT_TRUE(hasDiagnostic(twice, "test.yaml:15:31: error: load order names "
                                   "tap (-1, 0, 0) twice"));
  EXPECT_TRUE(hasDiagnostic(twice, "test.yaml:15:21: note: first named here"));

  CheckResult unknown =
      checkYaml(laplacianSpec("  load_order: \"-2Z-Y-X C+X+Y+Z\"\n"));
  EXPECT_TRUE(hasDiagnostic(unknown, "error: load order names (0, 0, -2), "
                                     "which is not a tap of this stencil"));

  CheckResult garbage = checkYaml(laplacianSpec("  load_order: random\n"));
  EXPECT_TRUE(hasDiagnostic(garbage, "test.yaml:15:15: error: unexpected "
                                     "character 'r' in the load order"));
}

TEST(SpecDiagnostics, ExplicitLoadOrderAccepted) {
  CheckResult result =
      checkYaml(laplacianSpec("  load_order: \"-Z-Y-X C+X+Y+Z\"\n"));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_EQ(result.model->kernel.loadOrder, LoadOrder::Explicit);
  EXPECT_EQ(result.model->kernel.tapOrder,
            (std::vector<int>{5, 3, 1, 0, 2, 4, 6}));
}

/// Reads `text` as a load order for a grid of `dims` dimensions, written
/// unquoted at the start of a buffer named `order`; diagnostics go to `out`.
std::optional<std::vector<LoadOrderEntry>>
readOrder(const std::string &text, int dims, std::string &out) {
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os(out);
  DiagnosticEngine diags(sourceMgr, os);
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "order"), llvm::SMLoc());
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(id)->getBuffer();
  llvm::SMRange range(llvm::SMLoc::getFromPointer(buffer.begin()),
                      llvm::SMLoc::getFromPointer(buffer.end()));
  auto entries = readLoadOrder(buffer, range, dims, diags);
  os.flush();
  return entries;
}

TEST(LoadOrderGrammar, ReadsOffsetsAndWhereEachWasNamed) {
  std::string out;
  auto entries = readOrder("-YZ+X C (1,0,-1)", 3, out);
  ASSERT_TRUE(entries.has_value()) << out;
  EXPECT_EQ(out, "");
  std::vector<std::array<int, 4>> offsets;
  std::vector<size_t> indices;
  for (const LoadOrderEntry &entry : *entries) {
    offsets.push_back(entry.offset);
    indices.push_back(entry.index);
  }
  EXPECT_EQ(offsets, (std::vector<std::array<int, 4>>{{0, -1, 0, 0},
                                                      {0, 0, -1, 0},
                                                      {1, 0, 0, 0},
                                                      {0, 0, 0, 0},
                                                      {1, 0, -1, 0}}));
  // The axis letters, the 'C' and the '('.
  EXPECT_EQ(indices, (std::vector<size_t>{1, 2, 4, 6, 8}));
}

TEST(LoadOrderGrammar, SyntaxErrorsPointAtTheirCharacter) {
  std::string out;
  EXPECT_FALSE(readOrder("-X+W", 3, out));
  EXPECT_NE(out.find("order:1:4: error: expected an axis letter (X, Y, Z or "
                     "T) after '+' in the load order"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_FALSE(readOrder("C -2T", 3, out));
  EXPECT_NE(out.find("order:1:5: error: axis 'T' is not an axis of this "
                     "3-dimensional grid"),
            std::string::npos)
      << out;
  out.clear();
  EXPECT_FALSE(readOrder("C (1,0)", 3, out));
  EXPECT_NE(out.find("order:1:3: error: expected 3 integers in '(1,0)'"),
            std::string::npos)
      << out;
}

TEST(SpecDiagnostics, ComponentsBelowOne) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("{precision: double}"), 19,
               "{precision: double, components: 0}");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:3:40: error: 'field.components' "
                                    "must be at least 1, not 0"));
}

TEST(SpecDiagnostics, UnknownPrecision) {
  CheckResult result = checkYaml(laplacianSpec("", "doubel"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:3:20: error: unknown precision "
                                    "'doubel'; expected 'float' or 'double' "
                                    "(did you mean 'double'?)"));
}

TEST(SpecDiagnostics, DimensionsBoundaryAndName) {
  CheckResult result = checkYaml("name: 3lap\n"
                                 "grid: {dimensions: 5, boundary: open}\n"
                                 "field: {precision: float}\n"
                                 "taps:\n"
                                 "  - {offset: [0], coefficient: 1}\n");
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:1:7: error: 'name' must be a C "
                                    "identifier"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:2:20: error: 'grid.dimensions' "
                                    "must be 1, 2, 3 or 4"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:2:33: error: unknown boundary "
                                    "'open'"));
}

TEST(SpecDiagnostics, SeveralErrorsInOneRun) {
  CheckResult result = checkYaml(
      laplacianSpec("  block: [64, 32, 1]\n  tile: {axis: q, factor: -1}\n"
                    "  launch_bounds: 5000\n  speed: fast\n",
                    "half"));
  EXPECT_GE(result.errors, 5u) << result.output;
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:3:20: error: unknown precision"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:15:10: error:"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:16:16: error: unknown tile axis"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:16:27: error:"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:17:18: error:"));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:18:3: error: unknown key 'speed'"));
}

TEST(SpecDiagnostics, YamlSyntaxError) {
  CheckResult result = checkYaml("name: lap\ngrid: {dimensions: 3\n");
  EXPECT_FALSE(result.model);
  EXPECT_GE(result.errors, 1u);
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:"));
}

TEST(SpecDiagnostics, EmptyFile) {
  CheckResult result = checkYaml("# nothing here\n");
  EXPECT_FALSE(result.model);
  EXPECT_TRUE(hasDiagnostic(result, "'test.yaml' holds no stencil spec"));
}

TEST(SpecDiagnostics, MalformedCoefficient) {
  std::string yaml = laplacianSpec();
  yaml.replace(yaml.find("6*h"), 3, "6**h");
  CheckResult result = checkYaml(yaml);
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:7:38: error: a tap's "
                                    "'coefficient' must be a sum"));
}

TEST(Coefficients, LinearFormsOverParameters) {
  CoefficientSpec spec;
  ASSERT_TRUE(parseCoefficientText("2*inv_hx2 + 2*inv_hy2 - 0.5", spec));
  EXPECT_EQ(spec.constant, -0.5);
  ASSERT_EQ(spec.terms.size(), 2u);
  EXPECT_EQ(spec.terms[0].name, "inv_hx2");
  EXPECT_EQ(spec.terms[0].factor, 2.0);
  EXPECT_FALSE(spec.terms[0].shifted);
  ASSERT_TRUE(parseCoefficientText("-mass", spec));
  EXPECT_EQ(spec.terms[0].factor, -1.0);
  ASSERT_TRUE(parseCoefficientText("1e-3", spec));
  EXPECT_EQ(spec.constant, 1e-3);
  EXPECT_TRUE(spec.terms.empty());
  EXPECT_FALSE(parseCoefficientText("2 3", spec));
  EXPECT_FALSE(parseCoefficientText("a*b", spec));
  EXPECT_FALSE(parseCoefficientText("", spec));
  EXPECT_FALSE(parseCoefficientText("+", spec));
}

TEST(Coefficients, NumbersWholeOrRefused) {
  CoefficientSpec spec;
  for (auto [text, value] : {std::pair<const char *, double>{"3.", 3.0},
                             {".5", 0.5},
                             {"1E+5", 1e5},
                             {"2.5e-2", 0.025}}) {
    ASSERT_TRUE(parseCoefficientText(text, spec)) << text;
    EXPECT_EQ(spec.constant, value) << text;
    EXPECT_TRUE(spec.terms.empty()) << text;
  }
  // An exponent without digits is no number: "1e+-5" had read as 1 + -5,
  // "2e" as 2.
  for (const char *text :
       {"1e+-5", "1e-+5", "2e", "2e+", "3.e", ".", "1e+-5*h"})
    EXPECT_FALSE(parseCoefficientText(text, spec)) << text;
}

TEST(Coefficients, FieldsReadAtShiftedSites) {
  CoefficientSpec spec;
  ASSERT_TRUE(parseCoefficientText("kx + kx@-x - 0.5*k@+2y-z + k@+t", spec));
  ASSERT_EQ(spec.terms.size(), 4u);
  EXPECT_FALSE(spec.terms[0].shifted);
  EXPECT_TRUE(spec.terms[1].shifted);
  EXPECT_EQ(spec.terms[1].shift, (std::array<int, 4>{-1, 0, 0, 0}));
  EXPECT_EQ(spec.terms[2].factor, -0.5);
  EXPECT_EQ(spec.terms[2].shift, (std::array<int, 4>{0, 2, -1, 0}));
  EXPECT_EQ(spec.terms[3].shift, (std::array<int, 4>{0, 0, 0, 1}));
  EXPECT_FALSE(parseCoefficientText("k@", spec));
  EXPECT_FALSE(parseCoefficientText("k@x", spec));   // no sign
  EXPECT_FALSE(parseCoefficientText("k@-w", spec));  // no such axis
  EXPECT_FALSE(parseCoefficientText("k@-0x", spec)); // no step
  EXPECT_FALSE(parseCoefficientText("2@-x", spec));  // a number
}

} // namespace

namespace {

std::string withSolver(const std::string &solver, std::string spec) {
  return "solver: " + solver + "\n" + spec;
}

TEST(SolverChecks, SymmetricPositiveLaplacianPassesCg) {
  CheckResult result = checkYaml(withSolver("cg", laplacianSpec()));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_EQ(result.model->solver, Solver::CG);
  EXPECT_TRUE(isSymmetric(*result.model));
}

TEST(SolverChecks, CgOnANonSymmetricStencilSuggestsCgnr) {
  std::string spec = laplacianSpec();
  spec.replace(spec.find("[1, 0, 0], coefficient: -h"), 26,
               "[1, 0, 0], coefficient: -2*h");
  CheckResult result = checkYaml(withSolver("cg", spec));
  EXPECT_FALSE(result.model);
  EXPECT_TRUE(hasDiagnostic(
      result, "test.yaml:1:9: error: solver 'cg' needs a symmetric operator "
              "(A_x,x+o = A_x+o,x), but tap (-1, 0, 0) has coefficient '-h' and "
              "tap (1, 0, 0) has '-2 * h'; use 'solver: cgnr'"));
  CheckResult cgnr = checkYaml(withSolver("cgnr", spec));
  EXPECT_TRUE(cgnr.model.has_value()) << cgnr.output;
  EXPECT_FALSE(isSymmetric(*cgnr.model));
}

TEST(SolverChecks, CgOnAnIndefiniteStencilIsRefused) {
  // Centre 5 < 6: the symbol 5 - 2(cos a + cos b + cos c) reaches -1.
  std::string spec = laplacianSpec();
  spec.replace(spec.find("6*h"), 3, "5*h");
  CheckResult result = checkYaml(withSolver("cg", spec));
  EXPECT_FALSE(result.model);
  EXPECT_TRUE(hasDiagnostic(
      result, "error: solver 'cg' needs a positive definite operator, but "
              "the symbol sum_o c_o cos(theta . o) reaches -1 at theta = "));
  EXPECT_TRUE(hasDiagnostic(result, "use 'solver: cgnr', or add a positive "
                                    "shift (mass) to the centre tap"));
}

TEST(SolverChecks, PeriodicLaplacianNeedsAMass) {
  const std::string periodic = "name: p\n"
                               "solver: cg\n"
                               "grid: {dimensions: 2, boundary: periodic}\n"
                               "field: {precision: double}\n"
                               "parameters: [{name: mass, default: MASS}]\n"
                               "taps:\n"
                               "  - {offset: [0, 0], coefficient: 4 + mass}\n"
                               "  - {offset: [-1, 0], coefficient: -1}\n"
                               "  - {offset: [1, 0], coefficient: -1}\n"
                               "  - {offset: [0, -1], coefficient: -1}\n"
                               "  - {offset: [0, 1], coefficient: -1}\n";
  auto withMass = [&](const std::string &mass) {
    std::string text = periodic;
    text.replace(text.find("MASS"), 4, mass);
    return checkYaml(text);
  };
  EXPECT_TRUE(withMass("0.01").model.has_value());
  CheckResult massless = withMass("0");
  EXPECT_FALSE(massless.model);
  EXPECT_TRUE(hasDiagnostic(massless, "must be positive on a periodic grid"));
}

/// A 2-D 5-point Laplacian without mass, with `boundary` as written.
CheckResult masslessLaplacian(const std::string &boundary,
                              const std::string &solver = "cg") {
  return checkYaml("name: b\n"
                   "solver: " + solver + "\n"
                   "grid: {dimensions: 2, boundary: " + boundary + "}\n"
                   "field: {precision: double}\n"
                   "taps:\n"
                   "  - {offset: [0, 0], coefficient: 4}\n"
                   "  - {offset: [-1, 0], coefficient: -1}\n"
                   "  - {offset: [1, 0], coefficient: -1}\n"
                   "  - {offset: [0, -1], coefficient: -1}\n"
                   "  - {offset: [0, 1], coefficient: -1}\n");
}

TEST(GridChecks, PerAxisBoundaries) {
  CheckResult mixed = masslessLaplacian("[periodic, antiperiodic]", "none");
  ASSERT_TRUE(mixed.model.has_value()) << mixed.output;
  EXPECT_EQ(mixed.model->boundaries[0], Boundary::Periodic);
  EXPECT_EQ(mixed.model->boundaries[1], Boundary::Antiperiodic);
  EXPECT_EQ(boundaryText(*mixed.model), "periodic, antiperiodic");
  CheckResult all = masslessLaplacian("antiperiodic", "none");
  ASSERT_TRUE(all.model.has_value()) << all.output;
  EXPECT_EQ(all.model->boundaries[1], Boundary::Antiperiodic);
  EXPECT_EQ(boundaryText(*all.model), "antiperiodic");

  EXPECT_TRUE(hasDiagnostic(
      masslessLaplacian("[periodic]", "none"),
      "test.yaml:3:33: error: 'grid.boundary' lists 1 boundaries but the "
      "grid has 2 dimensions; give one per axis (x first) or one for all"));
  EXPECT_TRUE(hasDiagnostic(
      masslessLaplacian("[periodic, antiperodic]", "none"),
      "test.yaml:3:44: error: unknown boundary 'antiperodic'; expected "
      "'dirichlet', 'periodic' or 'antiperiodic' (did you mean "
      "'antiperiodic'?)"));
  EXPECT_TRUE(hasDiagnostic(masslessLaplacian("[periodic, {a: 1}]", "none"),
                            "error: each entry of 'grid.boundary' must be a "
                            "single value"));
}

TEST(SolverChecks, BoundariesDecideWhetherAMasslessLaplacianIsDefinite) {
  // theta = 0 is a momentum of every periodic lattice: singular.
  EXPECT_TRUE(hasDiagnostic(masslessLaplacian("periodic"),
                            "must be positive on a periodic grid"));
  // Antiperiodic momenta (2k + 1) pi / n never reach theta = 0, and a
  // Dirichlet axis the stencil reaches across keeps the spectrum above it.
  for (const char *boundary :
       {"antiperiodic", "[periodic, antiperiodic]", "[dirichlet, periodic]",
        "dirichlet"}) {
    CheckResult result = masslessLaplacian(boundary);
    EXPECT_TRUE(result.model.has_value()) << boundary << result.output;
  }
}

/// `taps` (YAML list entries) on a grid with `boundary`, solver cg.
CheckResult cgSpec(int dims, const std::string &boundary,
                   const std::string &taps) {
  return checkYaml("name: b\nsolver: cg\ngrid: {dimensions: " +
                   std::to_string(dims) + ", boundary: " + boundary +
                   "}\nfield: {precision: double}\ntaps:\n" + taps);
}

TEST(SolverChecks, SemidefiniteSymbolsThatSomeLatticeReachesAreRefused) {
  // No coupling along the Dirichlet axis x: every field constant along y
  // (periodic) is in the null space, whatever the x extent.
  EXPECT_FALSE(cgSpec(2, "[dirichlet, periodic]",
                      "  - {offset: [0, 0], coefficient: 2}\n"
                      "  - {offset: [0, -1], coefficient: -1}\n"
                      "  - {offset: [0, 1], coefficient: -1}\n")
                   .model.has_value());
  // (1 - cos ty)(1 + cos tx): zero along ty = 0 for every tx.
  EXPECT_FALSE(cgSpec(2, "[dirichlet, periodic]",
                      "  - {offset: [0, 0], coefficient: 1}\n"
                      "  - {offset: [-1, 0], coefficient: 0.5}\n"
                      "  - {offset: [1, 0], coefficient: 0.5}\n"
                      "  - {offset: [0, -1], coefficient: -0.5}\n"
                      "  - {offset: [0, 1], coefficient: -0.5}\n"
                      "  - {offset: [-1, -1], coefficient: -0.25}\n"
                      "  - {offset: [1, -1], coefficient: -0.25}\n"
                      "  - {offset: [-1, 1], coefficient: -0.25}\n"
                      "  - {offset: [1, 1], coefficient: -0.25}\n")
                   .model.has_value());
  // (1 - cos t)(cos t - 1/2)^2 on an antiperiodic line: zero at t = pi/3,
  // an antiperiodic momentum (2k + 1) pi / n for n = 3, 9, 15, ...
  EXPECT_FALSE(cgSpec(1, "antiperiodic",
                      "  - {offset: [0], coefficient: 1.25}\n"
                      "  - {offset: [-1], coefficient: -1}\n"
                      "  - {offset: [1], coefficient: -1}\n"
                      "  - {offset: [-2], coefficient: 0.5}\n"
                      "  - {offset: [2], coefficient: 0.5}\n"
                      "  - {offset: [-3], coefficient: -0.125}\n"
                      "  - {offset: [3], coefficient: -0.125}\n")
                   .model.has_value());
  // The same line with a Dirichlet halo: its sections are definite.
  EXPECT_TRUE(cgSpec(1, "dirichlet",
                     "  - {offset: [0], coefficient: 1.25}\n"
                     "  - {offset: [-1], coefficient: -1}\n"
                     "  - {offset: [1], coefficient: -1}\n"
                     "  - {offset: [-2], coefficient: 0.5}\n"
                     "  - {offset: [2], coefficient: 0.5}\n"
                     "  - {offset: [-3], coefficient: -0.125}\n"
                     "  - {offset: [3], coefficient: -0.125}\n")
                  .model.has_value());
}

TEST(SolverChecks, SiteParameters) {
  std::string spec = laplacianSpec();
  spec.replace(spec.find("  - {name: h, default: 1.0}\n"), 0,
               "  - {name: sigma, kind: site}\n");
  std::string centre = spec;
  centre.replace(centre.find("6*h}"), 4, "6*h + sigma}");
  CheckResult ok = checkYaml(withSolver("cg", centre));
  ASSERT_TRUE(ok.model.has_value()) << ok.output;
  EXPECT_TRUE(ok.model->parameters[0].site);
  EXPECT_EQ(siteParameterCount(*ok.model), 1);

  // Off the centre a field makes the operator non-symmetric unless its
  // mirror tap reads it from the neighbour.
  std::string offCentre = spec;
  offCentre.replace(offCentre.find("[1, 0, 0], coefficient: -h"), 26,
                    "[1, 0, 0], coefficient: -h + sigma");
  CheckResult nonsymmetric = checkYaml(withSolver("cg", offCentre));
  EXPECT_TRUE(hasDiagnostic(nonsymmetric,
                            "tap (-1, 0, 0) has coefficient '-h' and tap "
                            "(1, 0, 0) has '-h + sigma', which at the "
                            "neighbour x + (-1, 0, 0) reads '-h + sigma@-x'"));
  ASSERT_TRUE(checkYaml(offCentre).model.has_value());
  EXPECT_FALSE(isSymmetric(*checkYaml(offCentre).model));

  std::string negative = spec;
  negative.replace(negative.find("6*h}"), 4, "6*h - sigma}");
  CheckResult minus = checkYaml(withSolver("cg", negative));
  EXPECT_TRUE(hasDiagnostic(minus, "site parameter 'sigma' enters the "
                                   "diagonal with a negative factor"));

  std::string withDefault = spec;
  withDefault.replace(withDefault.find("{name: sigma, kind: site}"), 25,
                      "{name: sigma, kind: site, default: 1}");
  EXPECT_TRUE(hasDiagnostic(checkYaml(withDefault),
                            "a site parameter takes its values from a field "
                            "at run time, not a 'default'"));
  std::string badKind = spec;
  badKind.replace(badKind.find("kind: site"), 10, "kind: vector");
  EXPECT_TRUE(hasDiagnostic(checkYaml(badKind),
                            "unknown parameter kind 'vector'; expected "
                            "'scalar' or 'site'"));
}

/// -div(k grad u) in 2-D with face coefficients: kx at x + 1/2 (stored at
/// x), ky at y + 1/2.
std::string faceCoefficientSpec(const std::string &plusX = "-kx",
                                const std::string &minusX = "-kx@-x",
                                const std::string &centre =
                                    "kx + kx@-x + ky + ky@-y + h") {
  return "name: vc\n"
         "grid: {dimensions: 2, boundary: dirichlet}\n"
         "field: {precision: double}\n"
         "parameters:\n"
         "  - {name: kx, kind: site}\n"
         "  - {name: ky, kind: site}\n"
         "  - {name: h, default: 1}\n"
         "taps:\n"
         "  - {offset: [0, 0], coefficient: " + centre + "}\n"
         "  - {offset: [-1, 0], coefficient: " + minusX + "}\n"
         "  - {offset: [1, 0], coefficient: " + plusX + "}\n"
         "  - {offset: [0, -1], coefficient: -ky@-y}\n"
         "  - {offset: [0, 1], coefficient: -ky}\n";
}

TEST(CoefficientFields, FaceCoefficientsAreSymmetricByStructure) {
  CheckResult result = checkYaml(withSolver("cg", faceCoefficientSpec()));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_EQ(result.output, "") << "no warning: positive fields are enough";
  const StencilModel &model = *result.model;
  EXPECT_TRUE(hasOffCentreFields(model));
  EXPECT_TRUE(isSymmetric(model));
  const Tap &minusX = model.taps[1];
  ASSERT_EQ(minusX.coefficient.terms.size(), 1u);
  EXPECT_EQ(minusX.coefficient.terms[0].shift, (Offset{-1, 0, 0, 0}));
  EXPECT_EQ(coefficientText(model, model.taps[0].coefficient),
            "kx + kx@-x + ky + ky@-y + h");
  // A^T at +x is the -x tap read from x + 1: -kx@-x seen from there is -kx.
  StencilModel transposed = transposedModel(model);
  EXPECT_EQ(coefficientText(transposed, transposed.taps[1].coefficient),
            "-kx");
  EXPECT_EQ(transposed.taps[1].offset, (Offset{1, 0, 0, 0}));
}

TEST(CoefficientFields, TransposeMovesTheFieldsReads) {
  // k at the output site on both sides: A is not symmetric, and A^T reads
  // k at the neighbour.
  CheckResult result = checkYaml(faceCoefficientSpec("-kx", "-kx"));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_FALSE(isSymmetric(*result.model));
  StencilModel transposed = transposedModel(*result.model);
  EXPECT_EQ(coefficientText(transposed, transposed.taps[1].coefficient),
            "-kx@+x");
  EXPECT_EQ(coefficientText(transposed, transposed.taps[2].coefficient),
            "-kx@-x");
  CheckResult cg = checkYaml(withSolver("cg", faceCoefficientSpec("-kx", "-kx")));
  EXPECT_TRUE(hasDiagnostic(cg, "tap (-1, 0) has coefficient '-kx' and tap "
                                "(1, 0) has '-kx', which at the neighbour "
                                "x + (-1, 0) reads '-kx@-x'"));
}

TEST(Coefficients, ConjugatedComplexFields) {
  CoefficientSpec spec;
  ASSERT_TRUE(parseCoefficientText("-conj(a@-x) + 2 * conj( b ) + a", spec));
  ASSERT_EQ(spec.terms.size(), 3u);
  EXPECT_TRUE(spec.terms[0].conjugate);
  EXPECT_EQ(spec.terms[0].name, "a");
  EXPECT_EQ(spec.terms[0].factor, -1.0);
  EXPECT_EQ(spec.terms[0].shift, (std::array<int, 4>{-1, 0, 0, 0}));
  EXPECT_TRUE(spec.terms[1].conjugate);
  EXPECT_EQ(spec.terms[1].factor, 2.0);
  EXPECT_FALSE(spec.terms[2].conjugate);
  EXPECT_FALSE(parseCoefficientText("conj(a", spec));
  EXPECT_FALSE(parseCoefficientText("conj()", spec));
  EXPECT_FALSE(parseCoefficientText("conj(2)", spec));
  EXPECT_FALSE(parseCoefficientText("conj(a)@-x", spec)); // shift inside
}

/// A complex 2-D stencil with a complex field `a` on the x taps.
std::string complexFieldSpec(const std::string &plusX,
                             const std::string &minusX) {
  return "name: cx\n"
         "grid: {dimensions: 2, boundary: periodic}\n"
         "field: {precision: double, type: complex, shape: [1]}\n"
         "parameters:\n"
         "  - {name: a, kind: site, type: complex}\n"
         "  - {name: k, kind: site}\n"
         "taps:\n"
         "  - {offset: [0, 0], coefficient: 5 + k}\n"
         "  - {offset: [-1, 0], coefficient: " + minusX + "}\n"
         "  - {offset: [1, 0], coefficient: " + plusX + "}\n"
         "  - {offset: [0, -1], coefficient: -1}\n"
         "  - {offset: [0, 1], coefficient: -1}\n";
}

TEST(CoefficientFields, ComplexFieldsPairWithTheirConjugates) {
  CheckResult result = checkYaml(complexFieldSpec("-a", "-conj(a@-x)"));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  const StencilModel &model = *result.model;
  EXPECT_TRUE(model.parameters[0].complex);
  EXPECT_FALSE(model.parameters[1].complex);
  EXPECT_TRUE(hasComplexCoefficients(model));
  EXPECT_TRUE(isComplexCoefficient(model, model.taps[1].coefficient));
  EXPECT_FALSE(isComplexCoefficient(model, model.taps[0].coefficient));
  EXPECT_TRUE(isSymmetric(model)); // Hermitian
  EXPECT_EQ(coefficientText(model, model.taps[1].coefficient), "-conj(a@-x)");
  // A^dagger at +x: the -x tap read from x + 1, conjugated: -a.
  StencilModel adjoint = transposedModel(model);
  EXPECT_EQ(coefficientText(adjoint, adjoint.taps[1].coefficient), "-a");
  EXPECT_EQ(coefficientText(adjoint, adjoint.taps[2].coefficient),
            "-conj(a@-x)");
  // Without the conjugate the pair is symmetric but not Hermitian; the
  // adjoint conjugates each complex field, never the real ones.
  CheckResult plain = checkYaml(complexFieldSpec("-a + k", "-a@-x + k@-x"));
  ASSERT_TRUE(plain.model.has_value()) << plain.output;
  EXPECT_FALSE(isSymmetric(*plain.model));
  StencilModel plainAdjoint = transposedModel(*plain.model);
  EXPECT_EQ(coefficientText(plainAdjoint, plainAdjoint.taps[1].coefficient),
            "-conj(a) + k");
  // `a + conj(a)` is its own conjugate: a real diagonal.
  std::string realPart = complexFieldSpec("-1", "-1");
  realPart.replace(realPart.find("5 + k"), 5, "5 + a + conj(a)");
  CheckResult diagonal = checkYaml(realPart);
  ASSERT_TRUE(diagonal.model.has_value()) << diagonal.output;
  EXPECT_TRUE(isSymmetric(*diagonal.model));
}

TEST(CoefficientFields, BadShifts) {
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(faceCoefficientSpec("-kx - h@+x")),
      "'h@+x': 'h' is a scalar parameter, the same at every site; only a "
      "coefficient field (kind: site) is read at a shifted site"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(faceCoefficientSpec("-kx@+z")),
                            "'kx@+z' shifts along an axis the 2-D grid does "
                            "not have"));
  CheckResult far = checkYaml(faceCoefficientSpec("-kx", "-kx@-2x"));
  EXPECT_TRUE(hasDiagnostic(far, "test.yaml:10:36: error: 'kx@-2x' in the "
                                 "tap at (-1, 0) reads the field 2 sites "
                                 "away along x, past the 1-site halo"));
  // A^T would read it from its output site plus the shift minus the offset.
  CheckResult transposedFar = checkYaml(faceCoefficientSpec("-kx@-x"));
  EXPECT_TRUE(hasDiagnostic(transposedFar, "reads the field 2 sites away "
                                           "along x (from A^T's output site)"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(faceCoefficientSpec("-kx@x")),
                            "must be a sum of numbers"));
}

TEST(CoefficientFields, CgWarnsWhereOnlyTheValuesCanDecide) {
  // A positive off-diagonal field term: symmetric, but definiteness hangs
  // on the values, which the runtime checks.
  CheckResult result = checkYaml(withSolver(
      "cg", faceCoefficientSpec("kx", "kx@-x", "3*kx + 3*kx@-x + ky + ky@-y + h")));
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_TRUE(hasDiagnostic(result, "warning: solver 'cg': positive "
                                    "definiteness cannot be proved from the "
                                    "spec: field 'kx@-x' enters the tap at "
                                    "(-1, 0) with a positive factor"));
  CheckResult weak = checkYaml(withSolver(
      "cg", faceCoefficientSpec("-kx", "-kx@-x", "kx + ky + ky@-y + h")));
  EXPECT_TRUE(hasDiagnostic(weak, "the diagonal does not dominate the "
                                  "couplings of field 'kx@-x'"));
}

TEST(SolverChecks, UnknownSolver) {
  CheckResult result = checkYaml(withSolver("gmres", laplacianSpec()));
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:1:9: error: unknown solver "
                                    "'gmres'; expected 'none', 'cg' or "
                                    "'cgnr'"));
}

TEST(SolverChecks, TransposedModelNegatesOffsets) {
  CheckResult result = checkYaml(laplacianSpec());
  ASSERT_TRUE(result.model.has_value());
  StencilModel transposed = transposedModel(*result.model);
  for (size_t t = 0; t < transposed.taps.size(); ++t)
    for (int axis = 0; axis < kMaxDims; ++axis)
      EXPECT_EQ(transposed.taps[t].offset[axis],
                -result.model->taps[t].offset[axis]);
}

} // namespace

namespace {

std::string vectorSpec(const std::string &layout, const std::string &kernel,
                       int components = 4) {
  return "name: v\n"
         "grid: {dimensions: 2, boundary: periodic}\n"
         "field: {precision: float, components: " +
         std::to_string(components) + ", layout: " + layout +
         "}\n"
         "taps:\n"
         "  - {offset: [0, 0], coefficient: 4}\n"
         "  - {offset: [1, 0], coefficient: -1}\n"
         "kernel: {" +
         kernel + "}\n";
}

TEST(LayoutChecks, LayoutsAreRead) {
  CheckResult soa = checkYaml(vectorSpec("soa", ""));
  ASSERT_TRUE(soa.model.has_value()) << soa.output;
  EXPECT_EQ(soa.model->layout.order, LayoutOrder::ComponentMajor);
  CheckResult aosoa = checkYaml(
      vectorSpec("{order: aosoa, block: 16, subdomain: [4, 2]}", ""));
  ASSERT_TRUE(aosoa.model.has_value()) << aosoa.output;
  EXPECT_EQ(aosoa.model->layout.order, LayoutOrder::Blocked);
  EXPECT_EQ(aosoa.model->layout.block, 16);
  EXPECT_EQ(aosoa.model->layout.subdomain, (std::array<int, 4>{4, 2, 1, 1}));
  EXPECT_FALSE(aosoa.model->layout.isPlain());
}

TEST(LayoutChecks, InvalidLayoutsAreErrors) {
  EXPECT_TRUE(hasDiagnostic(checkYaml(vectorSpec("aos4", "")),
                            "test.yaml:3:50: error: unknown layout 'aos4'"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(vectorSpec("{order: aosoa}", "")),
                            "error: the 'aosoa' layout needs 'block'"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(vectorSpec("{order: soa, block: 8}", "")),
                            "error: 'field.layout.block' applies to the "
                            "'aosoa' layout only"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: aos, subdomain: [4, 2, 2]}", "")),
      "error: 'field.layout.subdomain' has 3 entries but the grid has 2 "
      "dimensions"));
}

TEST(LayoutChecks, FieldVectorsGroupASitesValues) {
  CheckResult fours =
      checkYaml(vectorSpec("{order: aosoa, block: 8, vector: 4}", "", 8));
  ASSERT_TRUE(fours.model.has_value()) << fours.output;
  EXPECT_EQ(fours.model->layout.vector, 4);
  EXPECT_EQ(fours.model->siteValuesPerAccess(), 4);
  EXPECT_EQ(fours.model->sitesPerThreadX(), 1);
  // 16 bytes at most: four doubles are 32.
  EXPECT_TRUE(hasDiagnostic(
      checkYaml("name: v\n"
                "grid: {dimensions: 2, boundary: periodic}\n"
                "field: {precision: double, components: 4, layout: {order: "
                "soa, vector: 4}}\n"
                "taps:\n"
                "  - {offset: [0, 0], coefficient: 4}\n"
                "  - {offset: [1, 0], coefficient: -1}\n"),
      "error: 'field.layout.vector' 4 of double makes 32-byte accesses; GPUs "
      "load at most 16 bytes per instruction"));
  CheckResult soa = checkYaml(vectorSpec("{order: soa, vector: 2}", "", 6));
  ASSERT_TRUE(soa.model.has_value()) << soa.output;
  EXPECT_EQ(soa.model->layout.vector, 2);
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: aos, vector: 2}", "", 4)),
      "error: 'field.layout.vector' 2 groups the values of one component's "
      "array ('soa') or of a block of sites ('aosoa'); the 'aos' layout "
      "already keeps a site's values together ('kernel.vector_width' loads "
      "them)"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: soa, vector: 3}", "", 6)),
      "error: 'field.layout.vector' 3 must be 1, 2 or 4 values per load"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: soa, vector: 4}", "", 6)),
      "error: 'field.layout.vector' 4 does not divide the 6 values per site"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: soa, vector: 2}", "", 1)),
      "error: 'field.layout.vector' 2 groups a site's values, and this field "
      "has one per site; 'kernel.vector_width' moves sites along x "
      "together"));
  // Rows of sites along x and groups of a site's values exclude each other.
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: soa, vector: 2}", "vector_width: 2", 4)),
      "error: 'kernel.vector_width' 2 (consecutive sites along x per access, "
      "each component's row of a 'soa' vector field) moves each component's "
      "row of sites along x, and the layout's groups of 2 values "
      "('field.layout.vector') interleave the components' rows"));
  // Site parameters on a split grid: their arrays have a box copy of
  // their own, one value a site, so groups are no reason to refuse them.
  const CheckResult sites =
      checkYaml("name: v\n"
                "grid: {dimensions: 2, boundary: dirichlet, split: [y]}\n"
                "field: {precision: float, components: 4, layout: {order: "
                "soa, vector: 2}}\n"
                "parameters: [{name: s, kind: site}]\n"
                "taps:\n"
                "  - {offset: [0, 0], coefficient: 4 + s}\n"
                "  - {offset: [1, 0], coefficient: -1}\n");
  EXPECT_TRUE(sites.model.has_value()) << sites.output;
  EXPECT_EQ(sites.output.find("error"), std::string::npos) << sites.output;
  // A thread's share of a split site holds whole groups.
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(
          vectorSpec("{order: soa, vector: 4}", "components_per_thread: 2", 8)),
      "'kernel.components_per_thread' 2 is not a multiple of "
      "'field.layout.vector' 4; each thread's components must be whole "
      "groups of the layout"));
}

TEST(LayoutChecks, VectorWidthTheLayoutCannotHonour) {
  // Component-major storage: the width groups sites along each component's
  // row, not a site's components.
  for (const char *layout : {"soa", "{order: aosoa, block: 8}"}) {
    CheckResult rows = checkYaml(vectorSpec(layout, "vector_width: 4"));
    ASSERT_TRUE(rows.model.has_value()) << layout << "\n" << rows.output;
    EXPECT_EQ(rows.model->sitesPerThreadX(), 4) << layout;
    EXPECT_EQ(rows.model->componentsPerAccess(), 1) << layout;
  }
  const std::string rows = "error: 'kernel.vector_width' 4 (consecutive "
                           "sites along x per access, each component's row "
                           "of a ";
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: aosoa, block: 2}", "vector_width: 4")),
      rows + "'aosoa' vector field) needs blocks of sites ('aosoa:2') that "
             "hold whole groups; use a block that is a multiple of 4"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("{order: soa, subdomain: [4, 2]}",
                           "vector_width: 4")),
      rows + "'soa' vector field) needs rows stored whole; subdomains and "
             "even/odd storage break rows into pieces"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("soa", "vector_width: 4, tile: {axis: x, "
                                  "factor: 2}")),
      rows + "'soa' vector field) cannot be combined with tiling along x; "
             "tile along another axis"));
  // Any share of whole components moves whole rows.
  CheckResult shares = checkYaml(
      vectorSpec("soa", "vector_width: 4, components_per_thread: 3", 6));
  ASSERT_TRUE(shares.model.has_value()) << shares.output;
  EXPECT_EQ(shares.model->componentGroups(), 2);
  // Complex taps multiply a site's (re, im) pairs together.
  const std::string complexField =
      "name: v\n"
      "grid: {dimensions: 2, boundary: periodic}\n"
      "field: {precision: float, type: complex, shape: [2], layout: soa}\n"
      "parameters: [{name: ax, kind: site, type: complex}]\n"
      "taps:\n"
      "  - {offset: [0, 0], coefficient: 4}\n"
      "  - {offset: [1, 0], coefficient: -ax}\n"
      "kernel: {vector_width: 2}\n";
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(complexField),
      "error: 'kernel.vector_width' 2 (consecutive sites along x per access, "
      "each component's row of a 'soa' vector field) moves each component's "
      "row on its own, and link, clover and complex taps mix a site's "
      "components; keep one site per thread"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(vectorSpec("aos", "vector_width: 4", 6)),
                            "error: 'kernel.vector_width' 4 does not divide "
                            "the 6 components per site"));
  EXPECT_TRUE(hasDiagnostic(checkYaml(vectorSpec("aos", "vector_width: 3")),
                            "error: 'kernel.vector_width' must be 1, 2 or 4"));
  EXPECT_TRUE(checkYaml(vectorSpec("soa", "vector_width: 1")).model.has_value());
  CheckResult four = checkYaml(vectorSpec("aos", "vector_width: 4"));
  ASSERT_TRUE(four.model.has_value()) << four.output;
  EXPECT_EQ(four.model->kernel.vectorWidth, 4);
  std::string doubles = vectorSpec("aos", "vector_width: 4");
  doubles.replace(doubles.find("float"), 5, "double");
  EXPECT_TRUE(hasDiagnostic(checkYaml(doubles),
                            "error: 'kernel.vector_width' 4 of double makes "
                            "32-byte accesses; GPUs load at most 16 bytes per "
                            "instruction"));
}

/// A 2-D even/odd spec; `extra` lines go under `field:`, `taps` replaces
/// the 5-point taps, `kernel` the kernel mapping.
std::string evenOddSpec(const std::string &extra = "",
                        const std::string &taps =
                            "  - {offset: [0, 0], coefficient: 4.5}\n"
                            "  - {offset: [-1, 0], coefficient: -1}\n"
                            "  - {offset: [1, 0], coefficient: -1}\n"
                            "  - {offset: [0, -1], coefficient: -1}\n"
                            "  - {offset: [0, 1], coefficient: -1}\n",
                        const std::string &kernel = "{block: [64, 1]}") {
  return "name: eo\n"
         "grid: {dimensions: 2, boundary: periodic}\n"
         "field:\n"
         "  precision: double\n"
         "  even_odd: true\n" +
         extra + "taps:\n" + taps + "kernel: " + kernel + "\n";
}

TEST(EvenOddChecks, EvenOddIsRead) {
  CheckResult result = checkYaml(evenOddSpec());
  ASSERT_TRUE(result.model.has_value()) << result.output;
  EXPECT_TRUE(result.model->layout.evenOdd);
  EXPECT_FALSE(result.model->layout.isPlain());
  CheckResult soa = checkYaml(evenOddSpec("  layout: soa\n  components: 2\n"));
  ASSERT_TRUE(soa.model.has_value()) << soa.output;
  EXPECT_EQ(soa.model->layout.order, LayoutOrder::ComponentMajor);
}

TEST(EvenOddChecks, OnlyNearestNeighbourStencilsSplitByParity) {
  std::string diagonal = evenOddSpec("",
                                     "  - {offset: [0, 0], coefficient: 4}\n"
                                     "  - {offset: [1, 1], coefficient: -1}\n"
                                     "  - {offset: [-1, -1], coefficient: -1}\n");
  CheckResult result = checkYaml(diagonal);
  EXPECT_TRUE(hasDiagnostic(result,
                            "test.yaml:8:5: error: tap (1, 1) is not a "
                            "nearest neighbour; even/odd storage needs taps "
                            "that change parity"))
      << result.output;
  EXPECT_TRUE(hasDiagnostic(result, "test.yaml:5:13: note: even/odd storage "
                                    "requested here"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(evenOddSpec("", "  - {offset: [2, 0], coefficient: 1}\n"
                                "  - {offset: [0, 0], coefficient: 3}\n")),
      "error: tap (2, 0) is not a nearest neighbour"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(evenOddSpec("", "  - {offset: [1, 0], coefficient: 1}\n"
                                "  - {offset: [-1, 0], coefficient: 1}\n")),
      "test.yaml:5:13: error: even/odd storage needs a centre tap: its "
      "coefficient is the diagonal that the Schur complement inverts"));
}

TEST(EvenOddChecks, TilesAndSubdomainsAreRefused) {
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(evenOddSpec("", "  - {offset: [0, 0], coefficient: 4}\n",
                            "{block: [64, 1], tile: {axis: y, factor: 2}}")),
      "error: even/odd kernels update one site per thread; a tile of 2 "
      "sites is not supported with 'field.even_odd'"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(evenOddSpec("  layout: {order: aos, subdomain: [4, 2]}\n")),
      "test.yaml:5:13: error: even/odd storage cannot be combined with "
      "'field.layout.subdomain'"));
  std::string notBool = evenOddSpec();
  notBool.replace(notBool.find("true"), 4, "yes please");
  EXPECT_TRUE(hasDiagnostic(checkYaml(notBool),
                            "error: 'field.even_odd' must be true or false"));
}

/// A 1-D spec whose one tap's coefficient is the parameter `name`.
std::string specWithParameter(const std::string &name) {
  return "name: p\n"
         "grid: {dimensions: 1, boundary: dirichlet}\n"
         "field: {precision: double}\n"
         "parameters: [{name: " +
         name +
         ", default: 1}]\n"
         "taps: [{offset: [0], coefficient: " +
         name + "}]\n";
}

TEST(ParameterChecks, KernelVariablesAreParameterNamesToo) {
  // Kernels read parameters as members of `params`, so no local variable
  // of theirs can collide with one (t_eo_bc4d_ppda_soa_c2 names its
  // parameters `diag` and `site`, locals of its kernels, and runs).
  for (const char *name : {"x", "site", "acc0", "w3_s1", "u12", "y_m1",
                           "hop_mode", "diag", "same", "acc", "c"}) {
    CheckResult result = checkYaml(specWithParameter(name));
    EXPECT_TRUE(result.model.has_value()) << name << result.output;
  }
  for (const char *name : {"params", "value_type", "STENCIL_UNROLL"})
    EXPECT_TRUE(hasDiagnostic(checkYaml(specWithParameter(name)),
                              "error: parameter name '" + std::string(name) +
                                  "' is a reserved word"))
        << name;
}

} // namespace

/// A 3-D 7-point float Laplacian on one component per site; `kernel` is the
/// kernel mapping, `grid` the grid line's options.
std::string scalarRowsSpec(const std::string &kernel,
                           const std::string &grid = "boundary: dirichlet",
                           const std::string &field = "precision: float") {
  return "name: rows\n"
         "grid: {dimensions: 3, " +
         grid + "}\nfield: {" + field +
         "}\n"
         "taps:\n"
         "  - {offset: [0, 0, 0], coefficient: 6}\n"
         "  - {offset: [-1, 0, 0], coefficient: -1}\n"
         "  - {offset: [1, 0, 0], coefficient: -1}\n"
         "  - {offset: [0, -1, 0], coefficient: -1}\n"
         "  - {offset: [0, 1, 0], coefficient: -1}\n"
         "  - {offset: [0, 0, -1], coefficient: -1}\n"
         "  - {offset: [0, 0, 1], coefficient: -1}\n"
         "kernel: " +
         kernel + "\n";
}

TEST(LayoutChecks, SitesAlongXOfAScalarField) {
  CheckResult four =
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4, "
                               "tile: {axis: y, factor: 2}}"));
  ASSERT_TRUE(four.model.has_value()) << four.output;
  EXPECT_EQ(four.model->sitesPerThreadX(), 4);
  CheckResult two = checkYaml(scalarRowsSpec(
      "{block: [64, 4, 1], vector_width: 2}", "boundary: dirichlet",
      "precision: double"));
  ASSERT_TRUE(two.model.has_value()) << two.output;
  EXPECT_EQ(two.model->sitesPerThreadX(), 2);

  const std::string what = "error: 'kernel.vector_width' 4 (consecutive "
                           "sites along x per access, a single-component "
                           "field) ";
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4}",
                               "boundary: dirichlet", "precision: double")),
      what + "of double makes 32-byte accesses; GPUs load at most 16 bytes "
             "per instruction"));
  // Axes that wrap: the group's halo values wrap, the group never does.
  for (const char *boundary :
       {"boundary: periodic", "boundary: [dirichlet, dirichlet, antiperiodic]",
        "boundary: [antiperiodic, periodic, dirichlet]"}) {
    CheckResult wraps = checkYaml(
        scalarRowsSpec("{block: [64, 4, 1], vector_width: 4}", boundary));
    ASSERT_TRUE(wraps.model.has_value()) << boundary << "\n" << wraps.output;
    EXPECT_EQ(wraps.model->sitesPerThreadX(), 4) << boundary;
  }
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4, "
                               "tile: {axis: x, factor: 2}}")),
      what + "cannot be combined with tiling along x; tile along another "
             "axis"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4}",
                               "boundary: dirichlet",
                               "precision: float, even_odd: true")),
      what + "needs rows stored whole; subdomains and even/odd storage "
             "break rows into pieces"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4}",
                               "boundary: dirichlet",
                               "precision: float, layout: {order: aos, "
                               "subdomain: [8, 8, 8]}")),
      what + "needs rows stored whole"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(scalarRowsSpec("{block: [64, 4, 1], vector_width: 4}",
                               "boundary: dirichlet",
                               "precision: float, layout: soa")),
      what + "takes a single component in the 'aos' layout (its 'soa' "
             "storage is the same array); write 'layout: aos'"));
}

TEST(LayoutChecks, GeneratedNamesCannotCollideWithParameters) {
  // The kernels' locals: free for parameters, which the kernels read as
  // members of `params`.
  for (const char *name : {"xroom", "whole_group", "w3_s1_2", "dot", "c0",
                           "x", "site", "acc0", "u3", "diag", "c", "t_p1"})
    EXPECT_TRUE(isUsableParameterName(name)) << name;
  // Keywords, reserved identifiers, the platform's macros, the host API's
  // own names, the generated code's namespaces, library macros and GPU
  // built-ins.
  for (const char *name : {"for", "__x", "STENCIL_STORE", "value_type",
                           "params", "in", "std", "stencil",
                           "stencilc_kernels", "NULL", "errno", "EOF",
                           "threadIdx", "warpSize"})
    EXPECT_FALSE(isUsableParameterName(name)) << name;
}

namespace {

TEST(LayoutChecks, ComponentsSplitOverThreads) {
  // 12 components: 4 per thread is 3 threads per site.
  CheckResult three = checkYaml(vectorSpec(
      "{order: aosoa, block: 32}", "components_per_thread: 4", 12));
  ASSERT_TRUE(three.model.has_value()) << three.output;
  EXPECT_EQ(three.model->componentsPerThread(), 4);
  EXPECT_EQ(three.model->componentGroups(), 3);
  // Absent: one thread per site, all components.
  CheckResult whole = checkYaml(vectorSpec("soa", "", 12));
  ASSERT_TRUE(whole.model.has_value()) << whole.output;
  EXPECT_EQ(whole.model->kernel.componentsPerThread, 12);
  EXPECT_EQ(whole.model->componentGroups(), 1);
  // Site-major 4-wide accesses: 8 per thread keeps them whole.
  CheckResult vectors = checkYaml(
      vectorSpec("aos", "vector_width: 4, components_per_thread: 8", 16));
  ASSERT_TRUE(vectors.model.has_value()) << vectors.output;
  EXPECT_EQ(vectors.model->componentGroups(), 2);

  const std::string what = "error: 'kernel.components_per_thread' ";
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("soa", "components_per_thread: 5", 12)),
      what + "5 does not divide the 12 components per site; each thread of "
             "a site needs the same share"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("soa", "components_per_thread: 0", 12)),
      what + "must be from 1 to the 12 components per site, not 0"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("soa", "components_per_thread: 24", 12)),
      what + "must be from 1 to the 12 components per site, not 24"));
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("aos", "vector_width: 4, components_per_thread: 6",
                           12)),
      what + "6 is not a multiple of 'kernel.vector_width' 4; each thread's "
             "components must be whole vector accesses"));
  // The diagnostic points at the value: line 7 holds the kernel mapping.
  EXPECT_TRUE(hasDiagnostic(
      checkYaml(vectorSpec("soa", "components_per_thread: 5", 12)),
      "test.yaml:7:"));
}

TEST(LayoutChecks, EvenOddKernelsShareASiteAsTheWholeLattice) {
  // The hopping kernels split a site over threads as the whole-lattice
  // kernel does (tests/specs/t_eo_split_*.yaml run them).
  CheckResult split = checkYaml(
      evenOddSpec("  components: 4\n",
                  "  - {offset: [0, 0], coefficient: 4.5}\n"
                  "  - {offset: [-1, 0], coefficient: -1}\n"
                  "  - {offset: [1, 0], coefficient: -1}\n",
                  "{block: [64, 1], components_per_thread: 2}"));
  ASSERT_TRUE(split.model.has_value()) << split.output;
  EXPECT_EQ(split.model->componentGroups(), 2);
}

} // namespace
