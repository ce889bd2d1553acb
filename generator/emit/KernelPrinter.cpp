//===- KernelPrinter.cpp - A KernelPlan as HIP/CUDA/C++ source ------------===//
//
// Walks the plan section by section: signature, thread mapping, guard,
// site indexing, weights, accumulators, program, stores, epilogue. What
// varies by layout and access width is printed by the node kinds' printers
// (KernelParts.h).
//
//===----------------------------------------------------------------------===//
#include "emit/KernelPrinter.h"

#include "emit/EmitText.h"
#include "emit/KernelParts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

namespace stencilc {

std::string literal(double value) {
  return "static_cast<value_type>(" + shortestNumberText(value) + ")";
}

namespace {

/// The spec's parameters live in the kernel's `params` argument, so that
/// no name of the generated code can collide with them.
std::string parameterRef(const std::string &name) { return "params." + name; }

/// `value * name`, with the sign folded: "- 2 * x", "+ x".
std::string signedTerm(double factor, const std::string &value, bool first) {
  const double magnitude = factor < 0 ? -factor : factor;
  std::string term =
      magnitude == 1.0 ? value : literal(magnitude) + " * " + value;
  if (first)
    return (factor < 0 ? "-" : "") + term;
  return (factor < 0 ? " - " : " + ") + term;
}

} // namespace

std::string linearFormText(const LinearForm &form) {
  std::string text;
  if (form.constant != 0.0 || form.terms.empty())
    text = literal(form.constant);
  for (const auto &[name, factor] : form.terms)
    text += signedTerm(factor, parameterRef(name), text.empty());
  return text;
}

std::vector<std::string> splitSum(const std::string &value) {
  // Break before each " + " or " - " outside brackets and parentheses.
  std::vector<std::string> terms = {""};
  int depth = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    depth += (c == '[' || c == '(') - (c == ']' || c == ')');
    if (depth == 0 && c == ' ' && i + 2 < value.size() &&
        (value[i + 1] == '+' || value[i + 1] == '-') && value[i + 2] == ' ' &&
        !terms.back().empty())
      terms.push_back("");
    terms.back() += c;
  }
  return terms;
}

namespace {

/// params.NAME at the term's site: the value, or a complex field's real
/// (part 0) or imaginary (part 1) half of its (re, im) pair.
std::string fieldValue(const SiteTerm &term, const SiteIndexPrinter &index,
                       int part) {
  const std::string at = index.siteIndex(term.at);
  if (!term.complex)
    return parameterRef(term.name) + "[" + at + "]";
  // An index that is one name needs no brackets: `2 * site`.
  const bool name = llvm::all_of(
      at, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  return parameterRef(term.name) + "[2 * " + (name ? at : "(" + at + ")") +
         (part ? " + 1" : "") + "]";
}

} // namespace

std::string realPartName(const std::string &weight) { return weight + "_re"; }
std::string imagPartName(const std::string &weight) { return weight + "_im"; }

std::string siteWeightText(const SiteWeight &w,
                           const SiteIndexPrinter &index) {
  std::string text = !w.base.empty()    ? w.base
                     : w.hasSharedPart() ? linearFormText(w.value)
                                         : std::string();
  for (const SiteTerm &term : w.terms)
    text += signedTerm(term.factor, fieldValue(term, index, 0), text.empty());
  return text;
}

std::string siteWeightImagText(const SiteWeight &w,
                               const SiteIndexPrinter &index) {
  std::string text;
  for (const SiteTerm &term : w.terms)
    if (term.complex)
      text += signedTerm(term.conjugate ? -term.factor : term.factor,
                         fieldValue(term, index, 1), text.empty());
  return text;
}

namespace {

std::string parameterDeclaration(const KernelParameter &param,
                                 const std::string &field) {
  switch (param.kind) {
  case ParameterKind::OutField:
    return field + " *STENCIL_RESTRICT " + param.name;
  case ParameterKind::InField:
  case ParameterKind::SameField:
  case ParameterKind::DirectionField:
    return "const " + field + " *STENCIL_RESTRICT " + param.name;
  case ParameterKind::NextDirectionField:
    return field + " *STENCIL_RESTRICT " + param.name;
  case ParameterKind::DirectionBeta:
  case ParameterKind::SolutionAlpha:
    return "const double *STENCIL_RESTRICT " + param.name;
  case ParameterKind::SolutionField:
    return "value_type *STENCIL_RESTRICT " + param.name;
  case ParameterKind::HopMode:
  case ParameterKind::Extent:
  case ParameterKind::MarchPlanes:
  case ParameterKind::Slab:
    return "const int " + param.name;
  case ParameterKind::HopAlpha:
  case ParameterKind::HopBeta:
    return "const value_type " + param.name;
  case ParameterKind::BlocksZ:
    return "const unsigned " + param.name;
  case ParameterKind::Region:
    return "const stencil::Region " + param.name;
  case ParameterKind::Params:
    return "const Params " + param.name;
  case ParameterKind::Partials:
    return "double *STENCIL_RESTRICT " + param.name;
  }
  return "";
}

/// `a || b || c`, broken into lines of at most about 76 columns.
std::string disjunction(const std::vector<std::string> &terms) {
  std::string text, line;
  for (const std::string &term : terms) {
    if (line.empty()) {
      line = term;
    } else if (line.size() + 4 + term.size() > 72) {
      text += line + " ||\n    ";
      line = term;
    } else {
      line += " || " + term;
    }
  }
  return text + line;
}

class KernelPrinter {
public:
  explicit KernelPrinter(const KernelPlan &plan)
      : plan(plan), index(makeSiteIndexPrinter(plan)),
        access(makeAccessPrinter(plan, *index)) {
    if (plan.staging)
      staging = std::make_unique<StagingPrinter>(plan);
  }

  void print(CodePrinter &p) const;

private:
  void signature(CodePrinter &p) const;
  void latticeThreads(CodePrinter &p) const;
  void halfLatticeThreads(CodePrinter &p) const;
  void bothHalvesThreads(CodePrinter &p) const;
  std::vector<std::string> outsideTerms() const;
  void body(CodePrinter &p) const;
  void weights(CodePrinter &p) const;
  void directionBeta(CodePrinter &p) const;
  void accumulators(CodePrinter &p) const;
  void linkLayout(CodePrinter &p) const;
  void loadLink(CodePrinter &p, int link) const;
  void cloverLayout(CodePrinter &p) const;
  void loadClover(CodePrinter &p, int clover) const;
  void hopModes(CodePrinter &p) const;
  void cloverEpilogue(CodePrinter &p) const;
  void program(CodePrinter &p) const;
  void stores(CodePrinter &p) const;
  void guardedBody(CodePrinter &p) const;
  void stagedPhases(CodePrinter &p) const;
  void marchBody(CodePrinter &p) const;
  void shiftRing(CodePrinter &p) const;
  /// kernel.march: the first output of the thread's chunk, `z_first` or
  /// `t_first`.
  std::string marchFirst() const {
    return std::string(axisName(plan.tileAxis)) + "_first";
  }

  const KernelPlan &plan;
  std::unique_ptr<SiteIndexPrinter> index;
  std::unique_ptr<AccessPrinter> access;
  std::unique_ptr<StagingPrinter> staging; ///< plans with a SharedStaging
};

void KernelPrinter::signature(CodePrinter &p) const {
  wrappedComment(p, "///", plan.comment);
  if (plan.launchBounds) {
    const std::string bounds =
        plan.minBlocksPerSm
            ? "STENCIL_LAUNCH_BOUNDS_MIN(" + std::to_string(plan.launchBounds) +
                  ", " + std::to_string(plan.minBlocksPerSm) + ")"
            : "STENCIL_LAUNCH_BOUNDS(" + std::to_string(plan.launchBounds) +
                  ")";
    p.line("STENCIL_GLOBAL void " + bounds);
    p.line(plan.kernelName + "(");
  } else {
    p.line("STENCIL_GLOBAL void " + plan.kernelName + "(");
  }
  std::vector<std::string> params;
  for (const KernelParameter &param : plan.parameters)
    params.push_back(
        parameterDeclaration(param, fieldType(plan.narrowStorage)));
  CodePrinter::Indent indent(p, 4);
  p.lines(join(params, ",\n") + ") {");
}

/// This thread's position along the launch's x in blocks of `threads`
/// (unsigned): with a split site, blockIdx.x also counts the share, and
/// shares side by side take their position from `share_thread`.
std::string positionAlongX(const ComponentShares &s, int threads) {
  const std::string block = std::to_string(threads) + "u";
  if (!s.split())
    return "blockIdx.x * " + block + " + threadIdx.x";
  const std::string groups = std::to_string(s.groups) + "u";
  return "(blockIdx.x / " + groups + ") * " + block + " + " +
         (s.byLane() ? "share_thread / " + groups
                     : std::string("threadIdx.x"));
}

/// `share_thread`, the thread's number among the blocks of the same sites,
/// where their shares sit side by side.
void printShareThread(CodePrinter &p, const ComponentShares &s,
                      int threads) {
  if (!s.byLane())
    return;
  p.emit({{"groups", std::to_string(s.groups)},
          {"block", std::to_string(threads)}},
         R"(
           // The $groups$ blocks of the same sites share them side by side: their
           // thread k takes share k % $groups$ of site k / $groups$, so that a warp reads
           // adjacent sites' components as one run.
           const unsigned share_thread = (blockIdx.x % $groups$u) * $block$u + threadIdx.x;
         )");
}

/// `c0`, the first of this thread's components of a split site.
void printFirstComponent(CodePrinter &p, const ComponentShares &s) {
  if (!s.split())
    return;
  CodePrinter::Vars vars = {
      {"count", std::to_string(s.perThread)},
      {"total", std::to_string(s.perThread * s.groups)},
      {"groups", std::to_string(s.groups)}};
  if (s.byLane())
    p.emit(vars, R"(
      // This thread's $count$ of the site's $total$ components, from c0.
      const int c0 = static_cast<int>(share_thread % $groups$u) * $count$;
    )");
  else
    p.emit(vars, R"(
      // This thread's $count$ of the site's $total$ components, from c0; blockIdx.x counts
      // the $groups$ shares of a block's sites fastest.
      const int c0 = static_cast<int>(blockIdx.x % $groups$u) * $count$;
    )");
}

/// This thread's position along `axis` in the launch grid of
/// stencil/launch_config.hpp (unsigned arithmetic, before any tile or halo
/// offset).
std::string threadPosition(const LatticeThreads &t, int axis) {
  const std::array<int, kMaxDims> &block = t.block;
  switch (axis) {
  case 0:
    return positionAlongX(t.shares, block[0]);
  case 1:
    return "blockIdx.y * " + std::to_string(block[1]) + "u + threadIdx.y";
  case 2:
    return t.zSharesWithT
               ? "(blockIdx.z % blocks_z) * " + std::to_string(block[2]) +
                     "u + threadIdx.z % " + std::to_string(block[2]) + "u"
               : "blockIdx.z * " + std::to_string(block[2]) +
                     "u + threadIdx.z";
  default:
    return "(blockIdx.z / blocks_z) * " + std::to_string(block[3]) +
           "u + threadIdx.z / " + std::to_string(block[2]) + "u";
  }
}

void KernelPrinter::latticeThreads(CodePrinter &p) const {
  const LatticeThreads &t = plan.threads.lattice;
  std::string text =
      plan.march ? "This thread's column; it walks along " +
                       std::string(axisName(plan.tileAxis)) +
                       " through its block's chunk of `planes` sites"
                 : "This thread's first site; it updates " +
                       std::to_string(plan.tileFactor) + " consecutive site" +
                       (plan.tileFactor == 1 ? "" : "s") + " along " +
                       axisName(plan.tileAxis);
  if (plan.xWidth > 1)
    text += ", each with the " + std::to_string(plan.xWidth) +
            " sites of an aligned group along x (halo sites among them are "
            "not stored)";
  wrappedComment(p, "//", text + ".");
  printShareThread(p, t.shares, t.block[0]);
  for (int axis = 0; axis < plan.threads.dims; ++axis) {
    if (plan.march && axis == plan.tileAxis) {
      // The chunks are the grid's blocks along the march axis: blockIdx.z
      // in 3-D, blockIdx.z / blocks_z in 4-D (z shares it with t).
      const std::string chunk =
          t.zSharesWithT ? "blockIdx.z / blocks_z" : "blockIdx.z";
      p.line("const int " + marchFirst() + " = " +
             (t.origin[axis] > 0 ? std::to_string(t.origin[axis]) + " + "
                                 : std::string()) +
             "static_cast<int>(" + chunk + ") * planes;");
      continue;
    }
    std::string value =
        "static_cast<int>(" + threadPosition(t, axis) + ")";
    if (t.sitesPerThread[axis] > 1)
      value = std::to_string(t.sitesPerThread[axis]) + " * " + value;
    if (t.origin[axis] > 0)
      value = std::to_string(t.origin[axis]) + " + " + value;
    p.line("const int " + std::string(axisName(axis)) + " = " + value + ";");
  }
  printFirstComponent(p, t.shares);
}

/// A half's extents as the site number decomposes them: nx halved, then
/// the other axes (unsigned, as `site32`).
std::vector<std::string> halfExtents(int dims) {
  std::vector<std::string> extents = {"static_cast<unsigned>(nx / 2)"};
  for (int axis = 1; axis < dims; ++axis)
    extents.push_back("static_cast<unsigned>(" + extentName(axis) + ")");
  return extents;
}

/// x from the halved `xh`: the site of parity `parity` (a number or a
/// variable) in its pair along x.
void printSiteX(CodePrinter &p, int dims, const std::string &parity) {
  std::vector<std::string> terms;
  for (int axis = 1; axis < dims; ++axis)
    terms.push_back(axisName(axis));
  terms.push_back(parity);
  p.line("const int x = 2 * xh + ((" + join(terms, " + ") + ") & 1);");
}

/// The first `stored` axes of a half's site number `rest` (x halved, as
/// `xh`), each from `extents`; with `restIsLast` the last of them takes
/// what remains of `rest`, unbounded (threads past the half land past it).
void printStoredAxes(CodePrinter &p, const std::vector<std::string> &extents,
                     int stored, bool restIsLast) {
  for (int axis = 0; axis < stored; ++axis) {
    const std::string name = axis == 0 ? "xh" : axisName(axis);
    if (restIsLast && axis + 1 == stored) {
      p.line("const int " + name + " = static_cast<int>(rest);");
      break;
    }
    p.line("const int " + name + " = static_cast<int>(rest % " +
           extents[axis] + ");");
    p.line("rest /= " + extents[axis] + ";");
  }
}

void KernelPrinter::halfLatticeThreads(CodePrinter &p) const {
  const HalfLatticeThreads &h = plan.threads.half;
  const int dims = plan.threads.dims;
  // With a slab walk, axes below the second-slowest are decomposed as
  // stored and the two slowest from the plane number.
  const int stored = h.walksSlabs() ? dims - 2 : dims;
  const std::string slowest = axisName(dims - 1);
  const std::string second = dims >= 2 ? axisName(dims - 2) : "";
  std::string storedAxes = "x (halved)";
  for (int axis = 1; axis < stored; ++axis)
    storedAxes += std::string(axis + 1 == stored ? " and " : ", ") +
                  axisName(axis);
  wrappedComment(
      p, "//",
      "This thread's site: number `site32` of parity " +
          std::to_string(h.parity) +
          (h.walksSlabs()
               ? " in the slab walk: " + storedAxes + " as stored, then " +
                     slowest + " within its slab of `slab` slices, " +
                     second + ", and the slab (the last one may be thinner)"
               : " in storage order (x fastest, x halved)") +
          "; the launcher checks that a parity has fewer than 2^31 sites.");
  printShareThread(p, h.shares, h.threadsPerBlock);
  p.line("const unsigned site32 = " +
         positionAlongX(h.shares, h.threadsPerBlock) + ";");
  printFirstComponent(p, h.shares);
  const std::vector<std::string> extents = halfExtents(dims);
  p.emit({{"count", join(extents, " *\n               ")}}, R"(
    if (site32 >= $count$)
      return;
    unsigned rest = site32;
  )");
  printStoredAxes(p, extents, stored, /*restIsLast=*/!h.walksSlabs());
  if (h.walksSlabs())
    p.emit({{"second", second},
            {"slowest", slowest},
            {"n_second", extentName(dims - 2)},
            {"n_slowest", extentName(dims - 1)}},
           R"(
             // `rest` numbers the ($second$, $slowest$) planes slab by slab.
             const unsigned slab_planes = static_cast<unsigned>(slab) * static_cast<unsigned>($n_second$);
             const int $slowest$_first = static_cast<int>(rest / slab_planes) * slab;
             const unsigned slab_slices = static_cast<unsigned>(
                 $n_slowest$ - $slowest$_first < slab ? $n_slowest$ - $slowest$_first : slab);
             const unsigned in_slab = rest % slab_planes;
             const int $second$ = static_cast<int>(in_slab / slab_slices);
             const int $slowest$ = $slowest$_first + static_cast<int>(in_slab % slab_slices);
           )");
  printSiteX(p, dims, std::to_string(h.parity));
}

void KernelPrinter::bothHalvesThreads(CodePrinter &p) const {
  const HalfLatticeThreads &h = plan.threads.half;
  const int dims = plan.threads.dims;
  const std::string slowest = axisName(dims - 1);
  wrappedComment(
      p, "//",
      "This thread's site: number `site32` in runs of 32 that alternate "
      "between the even and the odd half, run k holding sites 32*(k/2) to "
      "32*(k/2)+31 of half k%2 in storage order (x fastest, x halved): a run "
      "reads one parity's consecutive sites, as the hopping kernels do, and "
      "the next run the sites beside them, which read the same " +
          std::string(plan.hasLinks ? "links and " : "") +
          "neighbours. The launcher checks that a parity has fewer than "
          "2^31 sites; threads past a half's end get " +
          slowest + " >= n" + slowest + ", which the guard stops.");
  printShareThread(p, h.shares, h.threadsPerBlock);
  p.line("const unsigned site32 = " +
         positionAlongX(h.shares, h.threadsPerBlock) + ";");
  printFirstComponent(p, h.shares);
  p.line("const int parity = static_cast<int>((site32 / 32u) & 1u);");
  p.line("unsigned rest = (site32 / 64u) * 32u + site32 % 32u;");
  const std::vector<std::string> extents = halfExtents(dims);
  printStoredAxes(p, extents, dims, /*restIsLast=*/true);
  printSiteX(p, dims, "parity");
}

std::vector<std::string> KernelPrinter::outsideTerms() const {
  std::vector<std::string> terms;
  for (int axis = 0; axis < plan.threads.dims; ++axis) {
    const AxisBounds &b = plan.guard.axes[axis];
    const std::string name = plan.march && axis == plan.tileAxis
                                 ? marchFirst()
                                 : std::string(axisName(axis));
    if (b.hasLower)
      terms.push_back(name + " < " + std::to_string(b.lower));
    if (b.hasUpper)
      terms.push_back(name + " >= " + extentName(axis) +
                      (b.upper > 0 ? " - " + std::to_string(b.upper) : ""));
  }
  if (plan.guard.region) {
    std::vector<std::string> args = {"region"};
    for (int axis = 0; axis < kMaxDims; ++axis)
      args.push_back(axis < plan.threads.dims ? axisName(axis)
                                              : std::string("0"));
    for (int axis = 0; axis < kMaxDims; ++axis)
      args.push_back(std::to_string(plan.guard.regionSpan[axis]));
    terms.push_back("!stencil::region_takes(" + join(args, ", ") + ")");
  }
  return terms;
}

/// The folded direction update's beta, and the deferred x update's alpha,
/// read once from the device memory where the solver keeps them.
void KernelPrinter::directionBeta(CodePrinter &p) const {
  for (const KernelParameter &param : plan.parameters)
    if (param.kind == ParameterKind::DirectionBeta) {
      p.line("// CG's beta: the solver keeps its scalars in device memory.");
      p.line("const value_type beta = static_cast<value_type>(*" + param.name +
             ");");
    } else if (param.kind == ParameterKind::SolutionAlpha) {
      p.line("// The last step's alpha, for its x += alpha p (no x: none).");
      p.line("const value_type alpha = solution ? static_cast<value_type>(*" +
             param.name + ") : value_type(0);");
    }
}

void KernelPrinter::weights(CodePrinter &p) const {
  if (!plan.weights.empty())
    p.line("// Tap weights.");
  // One line when it fits in 80 columns, else the value on the next lines,
  // broken between its terms.
  auto declare = [&](const std::string &name, const std::string &value) {
    const std::string head = "const value_type " + name + " =";
    if (2 + head.size() + 1 + value.size() + 1 <= 80) {
      p.line(head + " " + value + ";");
      return;
    }
    p.line(head);
    CodePrinter::Indent indent(p, 4);
    std::vector<std::string> lines = {""};
    for (const std::string &term : splitSum(value)) {
      if (!lines.back().empty() && 6 + lines.back().size() + term.size() > 80)
        lines.push_back("");
      lines.back() += lines.back().empty() && term[0] == ' '
                          ? term.substr(1)
                          : term;
    }
    lines.back() += ";";
    for (const std::string &line : lines)
      p.line(line);
  };
  for (const Weight &w : plan.weights)
    declare(w.name, linearFormText(w.value));
  for (const SiteWeight &w : plan.siteWeights) {
    if (!w.comment.empty())
      p.line("// " + w.comment);
    if (!w.isComplex()) {
      declare(w.name, siteWeightText(w, *index));
      continue;
    }
    declare(realPartName(w.name), siteWeightText(w, *index));
    declare(imagPartName(w.name), siteWeightImagText(w, *index));
  }
}

void KernelPrinter::accumulators(CodePrinter &p) const {
  const Accumulators &a = plan.accumulators;
  if (a.vectorWidth > 1)
    p.emit({{"what", a.vectorComment}, {"width", std::to_string(a.vectorWidth)}},
           R"(
             // $what$ move $width$ at a time.
             using vec_t = stencil::vec<value_type, $width$>;
           )");
  if (a.vectorWidth > 1 && plan.narrowStorage)
    p.line("using svec_t = stencil::vec<storage_type, " +
           std::to_string(a.vectorWidth) + ">; // as the fields store them");
  std::vector<std::string> names;
  // A march's ring gathers over planes from zero.
  const std::string start =
      !plan.march ? "" : a.declaredAsArrays() ? " = {}" : " = value_type(0)";
  for (int site = 0; site < a.sites; ++site)
    names.push_back("acc" + std::to_string(site) +
                    (a.declaredAsArrays()
                         ? "[" + std::to_string(a.valuesPerSite) + "]"
                         : "") +
                    start);
  p.line("value_type " + join(names, ", ") + ";");
}

void KernelPrinter::linkLayout(CodePrinter &p) const {
  if (!plan.hasLinks)
    return;
  const LinkStorage &l = plan.linkStorage;
  const std::string n = std::to_string(l.colours);
  p.line("// Links params." + l.name + ": " + std::to_string(l.dims) + " " +
         n + "x" + n + " complex matrices per site, " +
         (l.compressed ? "two rows stored (the third rebuilt), "
                       : std::string()) +
         orderDescription(l.layout) + " (stencil/link_algebra.hpp).");
  p.line("constexpr stencil::Layout link_layout = " +
         layoutInitializer(l.layout) + ";");
}

/// U_axis at the link's site, into l<index>.
void KernelPrinter::loadLink(CodePrinter &p, int link) const {
  const LinkStorage &l = plan.linkStorage;
  const PlannedLink &planned = plan.links[link];
  const std::string name = "l" + std::to_string(link);
  p.line("stencil::LinkMatrix<value_type, " + std::to_string(l.colours) +
         "> " + name + ";");
  p.line("stencil::load_link<" + std::to_string(l.colours) + ", " +
         std::to_string(l.realsPerLink) + ">(" + name + ", params." + l.name +
         ", link_layout,");
  CodePrinter::Indent indent(p, 4);
  p.line(index->siteIndex(planned.at) + ", " + std::to_string(planned.axis) +
         ", " + std::to_string(l.dims) + ", " + index->siteCount() + ");");
}

void KernelPrinter::cloverLayout(CodePrinter &p) const {
  if (!plan.hasClover)
    return;
  const CloverStorage &c = plan.cloverStorage;
  const std::string n = std::to_string(c.colours);
  p.line("// Clover term params." + c.name + ": two Hermitian " +
         std::to_string(2 * c.colours) + "x" + std::to_string(2 * c.colours) +
         " blocks per site, " + std::to_string(c.reals) + " reals, " +
         orderDescription(c.layout) + " (stencil/clover_algebra.hpp).");
  p.line("constexpr stencil::Layout clover_layout = " +
         layoutInitializer(c.layout) + ";");
  if (plan.hop == Hop::None)
    return;
  FieldLayout half = c.layout;
  half.evenOdd = false;
  p.line("// Its inverse params." + c.name +
         "_inverse on the output parity's half, in its own site order.");
  p.line("constexpr stencil::Layout clover_half_layout = " +
         layoutInitializer(half) + ";");
}

/// The clover term of a tile site, into c<index>.
void KernelPrinter::loadClover(CodePrinter &p, int clover) const {
  const CloverStorage &c = plan.cloverStorage;
  const std::string name = "c" + std::to_string(clover);
  p.line("stencil::CloverSite<value_type, " + std::to_string(c.colours) +
         "> " + name + ";");
  p.line("stencil::load_clover(" + name + ", params." + c.name +
         ", clover_layout, " + index->siteIndex(plan.clovers[clover].at) +
         ", " + index->siteCount() + ");");
}

/// The hop modes on the accumulator before it is stored
/// (stencil/hop_modes.hpp): D is the centre tap's coefficient, or with a
/// clover term the site's clover matrix.
void KernelPrinter::hopModes(CodePrinter &p) const {
  const int nc = plan.access.components;
  // stencil/hop_modes.hpp reads `same` as the kernel reads `in`: a site's
  // adjacent values or a group of the layout at a time (halfAccess).
  const int width = plan.access.width;
  FieldLayout field = plan.access.layout;
  field.evenOdd = false;
  p.line("// `same`: a half field in " + orderDescription(field) + ".");
  p.line("constexpr stencil::Layout field_half_layout = " +
         layoutInitializer(field) + ";");
  if (plan.hasClover) {
    cloverEpilogue(p);
    return;
  }
  // A single value's accumulator is a scalar.
  const std::string acc =
      plan.accumulators.declaredAsArrays() ? "acc0" : "&acc0";
  if (plan.access.split) {
    p.emit({{"nc", std::to_string(nc)},
            {"width", std::to_string(width)},
            {"count", std::to_string(plan.access.perThread)},
            {"acc", acc}},
           R"(
             // out = beta H in (kHop), beta D^-1 H in (kInverseDiagonalHop) or
             // alpha D same + beta H in (kDiagonalPlusHop), on this thread's
             // $count$ components from c0.
             stencil::diagonal_hop_mode<$nc$, $width$, $count$>($acc$, hop_mode, hop_alpha,
                 hop_beta, diag, same, field_half_layout, site, half_sites, c0);
           )");
    return;
  }
  p.emit({{"nc", std::to_string(nc)},
          {"width", std::to_string(width)},
          {"acc", acc}},
         R"(
           // out = beta H in (kHop), beta D^-1 H in (kInverseDiagonalHop) or
           // alpha D same + beta H in (kDiagonalPlusHop).
           stencil::diagonal_hop_mode<$nc$, $width$>($acc$, hop_mode, hop_alpha,
               hop_beta, diag, same, field_half_layout, site, half_sites);
         )");
}

void KernelPrinter::cloverEpilogue(CodePrinter &p) const {
  const CloverStorage &c = plan.cloverStorage;
  SiteRef own;
  own.oddHalf = plan.threads.half.parity == 1;
  const int nc = plan.access.components;
  // stencil/hop_modes.hpp reads `same` as the kernel reads `in`: a site's
  // adjacent values or a group of the layout at a time (halfAccess).
  const int width = plan.access.width;
  p.emit({{"n", std::to_string(c.colours)},
          {"nc", std::to_string(nc)},
          {"width", std::to_string(width)},
          {"name", c.name},
          {"own", index->siteIndex(own)},
          {"sites", index->siteCount()}},
         R"(
           // out = beta H in (kHop), beta A^-1 H in (kInverseDiagonalHop) or
           // alpha A same + beta H in (kDiagonalPlusHop), A the clover term
           // of this site (its inverse precomputed on this parity).
           stencil::clover_hop_mode<$n$, $nc$, $width$>(acc0, hop_mode, hop_alpha, hop_beta,
               params.$name$, clover_layout, $own$, params.$name$_inverse,
               clover_half_layout, same, field_half_layout, site, half_sites);
         )");
}

void KernelPrinter::program(CodePrinter &p) const {
  p.line("// " + plan.programComment);
  if (plan.gathersPlane || plan.gathersRows) {
    // The planner gathers only plain vector loads (no links, clover terms
    // or staged boxes, which the march refuses).
    for (const PlanStep &step : plan.steps)
      if (!step.links.empty() || !step.clovers.empty() ||
          plan.loads[step.load].source == LoadSource::SharedBox)
        llvm::report_fatal_error("a gathered plane holds plain loads only");
  }
  if (plan.gathersRows) {
    access->gatherRows(p, plan.steps);
    return;
  }
  if (plan.gathersPlane) {
    for (const PlanStep &step : plan.steps)
      access->gather(p, step, "u" + std::to_string(step.load));
    for (const PlanStep &step : plan.steps)
      access->accumulateGathered(p, step, "u" + std::to_string(step.load));
    return;
  }
  for (const PlanStep &step : plan.steps) {
    for (int link : step.links)
      loadLink(p, link);
    for (int clover : step.clovers)
      loadClover(p, clover);
    if (plan.loads[step.load].source == LoadSource::SharedBox)
      staging->load(p, step);
    else if (step.pairsValues())
      access->pairStep(p, step);
    else
      access->load(p, step);
  }
}

void KernelPrinter::stores(CodePrinter &p) const {
  if (plan.epilogue == EpilogueKind::HopModes)
    hopModes(p);
  else
    p.line("// Store the tile's sites that lie inside the update region.");
  access->storesPrologue(p);
  for (const PlannedStore &store : plan.stores) {
    if (!store.guarded) {
      access->store(p, store);
      continue;
    }
    const std::string limit =
        extentName(store.guardAxis) +
        (store.guardUpper > 0 ? " - " + std::to_string(store.guardUpper)
                              : "");
    p.line("if (" + std::string(axisName(store.guardAxis)) + " + " +
           std::to_string(store.site) + " < " + limit + ") {");
    {
      CodePrinter::Indent indent(p);
      access->store(p, store);
    }
    p.line("}");
  }
}

void KernelPrinter::body(CodePrinter &p) const {
  if (plan.march) {
    marchBody(p);
    return;
  }
  index->declarations(p);
  if (staging)
    staging->boxSite(p);
  linkLayout(p);
  cloverLayout(p);
  weights(p);
  accumulators(p);
  program(p);
  stores(p);
}

void KernelPrinter::print(CodePrinter &p) const {
  signature(p);
  CodePrinter::Indent indent(p);
  switch (plan.threads.kind) {
  case ThreadMappingKind::Lattice:
    latticeThreads(p);
    break;
  case ThreadMappingKind::HalfLattice:
    halfLatticeThreads(p);
    break;
  case ThreadMappingKind::BothHalves:
    bothHalvesThreads(p);
    break;
  }
  // Before the phases: a staged fold kernel forms p' = r + beta p as it
  // stages.
  directionBeta(p);
  if (staging) {
    stagedPhases(p);
    return;
  }
  guardedBody(p);
}

/// The guard, the body, and the block's sum when the plan has one.
void KernelPrinter::guardedBody(CodePrinter &p) const {
  const std::string outside = disjunction(outsideTerms());
  if (plan.sumsPerBlock())
    p.line("double dot = 0.0;");
  if (plan.guard.kind == GuardKind::Predicate) {
    p.emit({{"outside", outside},
            {"why", plan.sumsPerBlock() ? "the sum" : "the staging"}},
           R"(
             // No early return: every thread of the block takes part in $why$.
             if (!($outside$)) {
           )");
    {
      CodePrinter::Indent inner(p);
      body(p);
    }
    p.line("}");
  } else {
    if (!outside.empty())
      p.emit({{"outside", outside}}, R"(
        if ($outside$)
          return;
      )");
    body(p);
  }
  if (plan.sumsPerBlock())
    p.line("stencil::block_sum(dot, partials);");
}

/// kernel.march: the ring of 2R + 1 accumulators (outputs z .. z + 2R),
/// then the walk: the first 2R planes only fill the ring. Along a periodic
/// axis the chunk ends at the extent and its planes wrap (the index
/// printer's coordinates); along a Dirichlet one it ends R before.
void KernelPrinter::marchBody(CodePrinter &p) const {
  const int axis = plan.tileAxis;
  const AxisBounds &bounds = plan.guard.axes[axis];
  const std::string limit =
      extentName(axis) +
      (bounds.upper > 0 ? " - " + std::to_string(bounds.upper) : "");
  weights(p);
  accumulators(p);
  if (plan.gathersPlane) {
    index->columnDeclarations(p);
    access->columnOffsets(p);
  }
  const std::string a = axisName(axis),
                    ring = std::to_string(2 * plan.marchReach);
  p.emit(
      {{"a", a},
       {"first", marchFirst()},
       {"limit", limit},
       {"holds", plan.marchReach > 0 ? "acc0 .. acc" + ring + " hold outputs " +
                                           a + " .. " + a + " + " + ring
                                     : "acc0 holds output " + a},
       {"start",
        plan.marchReach > 0 ? marchFirst() + " - " + ring : marchFirst()}},
      R"(
           // The chunk's end; $holds$.
           const int $a$_end = $first$ + planes < $limit$ ? $first$ + planes : $limit$;
           for (int $a$ = $start$; $a$ < $a$_end; ++$a$) {
         )");
  {
    CodePrinter::Indent indent(p);
    if (plan.gathersPlane) {
      index->planeDeclarations(p);
      p.line("const stencil::index_t plane_first = " + index->loadedPlane() +
             " * plane_values;");
    } else {
      index->declarations(p);
    }
    program(p);
    p.line("if (" + a + " >= " + marchFirst() + ") {");
    {
      CodePrinter::Indent inner(p);
      stores(p);
    }
    p.line("}");
    shiftRing(p);
  }
  p.line("}");
}

/// The ring moves down one output: acc0 was stored, acc{2R} starts at 0.
void KernelPrinter::shiftRing(CodePrinter &p) const {
  const Accumulators &a = plan.accumulators;
  p.line("// Output " + std::string(axisName(plan.tileAxis)) +
         " is stored: the ring moves down by one.");
  std::vector<std::string> moves;
  for (int site = 0; site + 1 < a.sites; ++site)
    moves.push_back("acc" + std::to_string(site) + "%s = acc" +
                    std::to_string(site + 1) + "%s;");
  moves.push_back("acc" + std::to_string(a.sites - 1) +
                  "%s = value_type(0);");
  if (!a.declaredAsArrays()) {
    for (std::string move : moves) {
      for (size_t at; (at = move.find("%s")) != std::string::npos;)
        move.erase(at, 2);
      p.line(move);
    }
    return;
  }
  p.line("STENCIL_UNROLL");
  p.line("for (int l = 0; l < " + std::to_string(a.valuesPerSite) + "; ++l) {");
  {
    CodePrinter::Indent indent(p);
    for (std::string move : moves) {
      for (size_t at; (at = move.find("%s")) != std::string::npos;)
        move.replace(at, 2, "[l]");
      p.line(move);
    }
  }
  p.line("}");
}

/// A staged kernel: the stage phase, the barrier, the compute phase (on
/// GPUs both phases run; the host backend runs them one after the other
/// for all of a block's threads, stencil/platform.hpp).
void KernelPrinter::stagedPhases(CodePrinter &p) const {
  const SharedStaging &s = *plan.staging;
  staging->declarations(p);
  p.line("if (STENCIL_PHASE(" + std::to_string(s.stagePhase) + ")) {");
  {
    CodePrinter::Indent inner(p);
    staging->cooperativeLoad(p);
  }
  p.line("}");
  p.line("STENCIL_BARRIER();");
  p.line("if (STENCIL_PHASE(" + std::to_string(s.computePhase) + ")) {");
  {
    CodePrinter::Indent inner(p);
    guardedBody(p);
  }
  p.line("}");
}

} // namespace

std::string printKernel(const KernelPlan &plan) {
  return printed([&](CodePrinter &p) {
    KernelPrinter(plan).print(p);
    p.line("}");
  });
}

} // namespace stencilc

namespace stencilc {

std::string printCloverKernel(const CloverKernelPlan &plan) {
  return printed([&](CodePrinter &p) {
    wrappedComment(p, "///", plan.comment);
    const std::string bounds =
        plan.launchBounds == 0 ? std::string()
        : plan.minBlocksPerSm
            ? " STENCIL_LAUNCH_BOUNDS_MIN(" + std::to_string(plan.launchBounds) +
                  ", " + std::to_string(plan.minBlocksPerSm) + ")"
            : " STENCIL_LAUNCH_BOUNDS(" + std::to_string(plan.launchBounds) +
                  ")";
    FieldLayout half = plan.clover.layout;
    half.evenOdd = false;
    FieldLayout field = plan.layout;
    field.evenOdd = false;
    p.emit({{"bounds", bounds},
            {"kernel", plan.kernelName},
            {"threads", std::to_string(plan.threadsPerBlock)},
            {"n", std::to_string(plan.clover.colours)},
            {"nc", std::to_string(plan.components)},
            {"width", std::to_string(plan.vectorWidth)},
            {"name", plan.clover.name},
            {"order", orderDescription(plan.clover.layout)},
            {"clover_layout", layoutInitializer(plan.clover.layout)},
            {"clover_half_layout", layoutInitializer(half)},
            {"field_half_layout", layoutInitializer(field)},
            {"field", fieldType(plan.narrowStorage)}},
           R"(
             STENCIL_GLOBAL void$bounds$
             $kernel$(
                 $field$ *STENCIL_RESTRICT out,
                 const $field$ *STENCIL_RESTRICT in,
                 const $field$ *STENCIL_RESTRICT same,
                 const int hop_mode,
                 const value_type hop_alpha,
                 const value_type hop_beta,
                 const int parity,
                 const unsigned half_sites32,
                 const Params params) {
               // This thread's site: number `site` of `parity` in storage order.
               const unsigned site32 = blockIdx.x * $threads$u + threadIdx.x;
               if (site32 >= half_sites32)
                 return;
               const stencil::index_t site = site32;
               const stencil::index_t half_sites = half_sites32;
               // params.$name$ on the whole lattice, its inverse on this parity's
               // half, $order$ (stencil/clover_algebra.hpp).
               constexpr stencil::Layout clover_layout = $clover_layout$;
               constexpr stencil::Layout clover_half_layout = $clover_half_layout$;
               constexpr stencil::Layout field_half_layout = $field_half_layout$;
               value_type v[$nc$];
               stencil::load_half_site<$nc$, $width$>(v, in, field_half_layout, site, half_sites);
               stencil::clover_hop_mode<$n$, $nc$, $width$>(v, hop_mode, hop_alpha, hop_beta,
                   params.$name$, clover_layout, parity * half_sites + site,
                   params.$name$_inverse, clover_half_layout, same,
                   field_half_layout, site, half_sites);
               stencil::store_half_site<$nc$, $width$>(out, v, field_half_layout, site, half_sites);
             }
           )");
  });
}

} // namespace stencilc
