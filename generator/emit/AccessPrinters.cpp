//===- AccessPrinters.cpp - One printer per FieldAccess kind --------------===//
#include "emit/EmitText.h"
#include "emit/KernelParts.h"

#include "check/Model.h"

#include "llvm/Support/ErrorHandling.h"

namespace stencilc {

const char *AccessPrinter::storeMacro() const {
  return plan.storeKind == StoreKind::NonTemporal ? "STENCIL_STORE_NT"
                                                  : "STENCIL_STORE";
}

std::string accumulationText(const PlannedAccumulation &acc,
                             const std::string &index,
                             const std::string &value) {
  return "acc" + std::to_string(acc.site) + index +
         (acc.first ? " = " : " += ") + acc.weight + " * " + value + ";";
}

std::string AccessPrinter::accumulate(const PlannedAccumulation &acc,
                                      const std::string &index,
                                      const std::string &value) const {
  return accumulationText(acc, index, value);
}

std::string AccessPrinter::declareLoadIndex(CodePrinter &p,
                                            const PlanStep &step) const {
  const std::string at = index.loadIndex(plan.loads[step.load]);
  if (!foldsDirection())
    return at;
  // Two arrays read at the same index: named once.
  const std::string name = "at" + std::to_string(step.load);
  p.line("const stencil::index_t " + name + " = " + at + ";");
  return name;
}

std::string AccessPrinter::inValue(const std::string &at) const {
  if (!foldsDirection())
    return "in[" + at + "]";
  const std::string sum = "in[" + at + "] + beta * direction[" + at + "]";
  // p' as its store keeps it: q = A p' must hold for the stored p'.
  return plan.narrowStorage ? "stencil::rounded<storage_type>(" + sum + ")"
                            : sum;
}

std::string AccessPrinter::inVector(const std::string &at) const {
  const std::string type = storedVector();
  if (!foldsDirection()) {
    const std::string load =
        "*reinterpret_cast<const " + type + " *>(in + " + at + ")";
    return plan.narrowStorage ? "stencil::widen(" + load + ")" : load;
  }
  return "stencil::fold_direction(reinterpret_cast<const " + type +
         " *>(in + " + at + "),\n    reinterpret_cast<const " + type +
         " *>(direction + " + at + "), beta)";
}

std::string AccessPrinter::solutionUpdate(const std::string &at) const {
  return "if (solution)\n  solution[" + at + "] = solution[" + at +
         "] + alpha * stencil::widen(direction[" + at + "]);";
}

void AccessPrinter::foldElement(CodePrinter &p, const std::string &at,
                                const std::string &next,
                                const std::string &acc) const {
  p.line("const value_type " + next + " = " + inValue(at) + ";");
  p.line(std::string(storeMacro()) + "(&next_direction[" + at + "], " +
         stored(next) + ");");
  p.lines(solutionUpdate(at));
  p.line("dot += static_cast<double>(" + next + ") * static_cast<double>(" +
         acc + ");");
}

/// Whether lane `l` of the group at `x` lies in the update region along
/// x, whose sites are `reach` or more from either end.
static std::string laneInside(int reach) {
  if (reach == 0)
    return "x + l < nx";
  const std::string r = std::to_string(reach);
  return "x + l >= " + r + " && x + l < nx - " + r;
}

void AccessPrinter::groupStore(CodePrinter &p, const PlannedStore &store,
                               const GroupStore &group) const {
  const bool folds = foldsDirection();
  // Read before any store, for both branches: loading in the site-by-site
  // branch kept the warps that hold a halo group waiting on its loads after
  // the others had stored.
  const bool ownFirst = folds || (store.addsDot && group.dotReadsAhead);
  CodePrinter::Vars vars = {{"at", group.at},
                            {"lane", group.lane},
                            {"own", group.own},
                            {"sum", group.sum},
                            {"width", std::to_string(access.width)},
                            {"store", storeMacro()},
                            {"inside", laneInside(store.groupReach)},
                            {"vector", storedVector()},
                            {"stored_r", stored("r")},
                            {"stored_lane", stored(group.lane)},
                            {"stored_own", stored(group.own)},
                            {"stored_own_l", stored(group.own + ".v[l]")}};
  if (ownFirst) {
    p.line(folds ? "// p' and x + alpha p at the group, read before any store "
                   "for both branches."
                 : "// The input at the group, read before any store for "
                   "both branches.");
    p.lines("const vec_t " + group.own + " = " + inVector(group.at) + ";");
    if (folds)
      p.emit(vars, R"(
        vec_t $sum$ = {};
        if (solution)
          $sum$ = stencil::plus_scaled(reinterpret_cast<const vec_t *>(solution + $at$),
              reinterpret_cast<const $vector$ *>(direction + $at$), alpha);
      )");
  }
  p.emit(vars, R"(
    if (whole_group) {
      vec_t r;
      STENCIL_UNROLL
      for (int l = 0; l < $width$; ++l)
        r.v[l] = $lane$;
      $store$(reinterpret_cast<$vector$ *>(out + $at$), $stored_r$);
  )");
  {
    CodePrinter::Indent indent(p);
    if (folds)
      p.emit(vars, R"(
        $store$(reinterpret_cast<$vector$ *>(next_direction + $at$), $stored_own$);
        if (solution)
          *reinterpret_cast<vec_t *>(solution + $at$) = $sum$;
      )");
    if (ownFirst)
      p.emit(vars, R"(
        STENCIL_UNROLL
        for (int l = 0; l < $width$; ++l)
          dot += static_cast<double>($own$.v[l]) * static_cast<double>(r.v[l]);
      )");
  }
  // A lane's stores: braces where there are several.
  vars.push_back({"open", ownFirst ? " {" : ""});
  p.emit(vars, R"(
    } else {
      STENCIL_UNROLL
      for (int l = 0; l < $width$; ++l)
        if ($inside$)$open$
          $store$(&out[$at$ + l], $stored_lane$);
  )");
  if (ownFirst) {
    {
      CodePrinter::Indent lane(p, 6);
      if (folds)
        p.emit(vars, R"(
          $store$(&next_direction[$at$ + l], $stored_own_l$);
          if (solution)
            solution[$at$ + l] = $sum$.v[l];
        )");
      p.line("dot += static_cast<double>(" + group.own +
             ".v[l]) * static_cast<double>(" + group.lane + ");");
    }
    CodePrinter::Indent closing(p, 4);
    p.line("}");
  }
  p.line("}");
  if (store.addsDot && !ownFirst)
    p.emit(vars, R"(
      STENCIL_UNROLL
      for (int l = 0; l < $width$; ++l)
        if ($inside$)
          dot += static_cast<double>(in[$at$ + l]) * static_cast<double>($lane$);
    )");
}

std::string AccessPrinter::stored(const std::string &value) const {
  return plan.narrowStorage ? "stencil::narrow<storage_type>(" + value + ")"
                            : value;
}

void AccessPrinter::roundStoredValues(CodePrinter &p,
                                      const PlannedStore &store,
                                      int count) const {
  if (!plan.narrowStorage || !(store.addsDot || foldsDirection()))
    return;
  p.emit({{"acc", "acc" + std::to_string(store.site)},
          {"count", std::to_string(count)}},
         R"(
           // The dot term of the values the stores keep: alpha's q is the stored q.
           STENCIL_UNROLL
           for (int i = 0; i < $count$; ++i)
             $acc$[i] = stencil::rounded<storage_type>($acc$[i]);
         )");
}

std::string AccessPrinter::signedValue(const PlannedLoad &load,
                                       const std::string &value) const {
  if (load.signAxes.empty())
    return value;
  std::string text = "(";
  for (int axis : load.signAxes)
    text += wrappedName(axis, load.offset[axis]) + "_sign * ";
  return text + value + ")";
}

void AccessPrinter::columnOffsets(CodePrinter &) const {
  llvm::report_fatal_error("column offsets need a site-major vector access");
}

void AccessPrinter::gather(CodePrinter &, const PlanStep &,
                           const std::string &) const {
  llvm::report_fatal_error(
      "link taps and complex weights need a multi-component field access");
}

void AccessPrinter::gatherRows(CodePrinter &,
                               const std::vector<PlanStep> &) const {
  llvm::report_fatal_error("gathered rows need a soa or aosoa row access");
}

void AccessPrinter::pairStep(CodePrinter &p, const PlanStep &step) const {
  const std::string name = "u" + std::to_string(step.load);
  gather(p, step, name);
  accumulateGathered(p, step, name);
}

void AccessPrinter::accumulateGathered(CodePrinter &p, const PlanStep &step,
                                       const std::string &name) const {
  const PlannedLoad &load = plan.loads[step.load];
  const LinkStorage &links = plan.linkStorage;
  const int vectorReals = 2 * links.colours;
  const std::vector<PlannedAccumulation> &accs = step.accumulations;
  // In the plan's order; consecutive real-weight plain taps share one loop
  // over the components.
  for (size_t i = 0; i < accs.size();) {
    auto plain = [](const PlannedAccumulation &acc) {
      return acc.link < 0 && !acc.complexWeight && acc.clover < 0;
    };
    if (plain(accs[i])) {
      p.emit({{"count", std::to_string(access.perThread)}}, R"(
        STENCIL_UNROLL
        for (int c = 0; c < $count$; ++c) {
      )");
      {
        CodePrinter::Indent indent(p);
        for (; i < accs.size() && plain(accs[i]); ++i)
          p.line(accumulate(accs[i], "[c]", signedValue(load, name + "[c]")));
      }
      p.line("}");
      continue;
    }
    const PlannedAccumulation &acc = accs[i++];
    const std::string target = "acc" + std::to_string(acc.site);
    if (acc.clover >= 0) {
      // The clover array holds the whole diagonal, coefficient included.
      p.line(std::string("stencil::clover_product<") +
             (acc.first ? "true" : "false") + ">(" + target + ", c" +
             std::to_string(acc.clover) + ", " + name + ");");
      continue;
    }
    const std::string re = signedValue(
        load, acc.complexWeight ? realPartName(acc.weight) : acc.weight);
    const std::string im = signedValue(load, imagPartName(acc.weight));
    if (acc.link < 0) {
      // (w_re + i w_im) (v_re + i v_im) for each complex value.
      const std::string op = acc.first ? " = " : " += ";
      p.emit({{"count", std::to_string(access.perThread)},
              {"re", target + "[c]" + op + re + " * " + name + "[c] - " + im +
                         " * " + name + "[c + 1];"},
              {"im", target + "[c + 1]" + op + re + " * " + name +
                         "[c + 1] + " + im + " * " + name + "[c];"}},
             R"(
               STENCIL_UNROLL
               for (int c = 0; c < $count$; c += 2) {
                 $re$
                 $im$
               }
             )");
      continue;
    }
    // A link product per colour vector, or with a spin projector one
    // projected product per spinor (4 colour vectors).
    const std::string call =
        acc.spin != 0
            ? std::string("stencil::spin_link_times<") +
                  (acc.first ? "true" : "false") + ", " +
                  (acc.dagger ? "true" : "false") + ", " +
                  std::to_string(acc.spinAxis) + ", " +
                  (acc.spin < 0 ? "-1" : "1") + ">("
            : std::string(acc.dagger ? "stencil::link_dagger_times"
                                     : "stencil::link_times") +
                  (acc.first ? "<true>(" : "<false>(");
    const int groupReals = acc.spin != 0 ? 4 * vectorReals : vectorReals;
    const int groups = access.perThread / groupReals;
    const std::string weight = acc.complexWeight ? re + ", " + im : re;
    const std::string link = "l" + std::to_string(acc.link);
    if (groups == 1) {
      p.line(call + target + ", " + weight + ", " + link + ", " + name + ");");
      continue;
    }
    const std::string stride = std::to_string(groupReals);
    p.emit({{"groups", std::to_string(groups)},
            {"call", call + target + " + " + stride + " * s, " + weight +
                         ", " + link + ", " + name + " + " + stride +
                         " * s);"}},
           R"(
             STENCIL_UNROLL
             for (int s = 0; s < $groups$; ++s)
               $call$
           )");
  }
}

namespace {

/// `whole_group`: whether the thread's group of sites along x lies wholly
/// inside the update region, so that its stores move whole rows.
void wholeGroupFlag(CodePrinter &p, const KernelPlan &plan) {
  const int reach = plan.stores.front().groupReach;
  const std::string width = std::to_string(plan.access.width);
  const std::string r = std::to_string(reach);
  p.emit({{"inside", reach == 0 ? "x + " + width + " <= nx"
                                : "x >= " + r + " && x + " + width +
                                      " <= nx - " + r}},
         R"(
           // Groups that lie wholly inside the update region store with one access.
           const bool whole_group = $inside$;
         )");
}

/// One value per site.
class ScalarAccess : public AccessPrinter {
public:
  using AccessPrinter::AccessPrinter;

  void load(CodePrinter &p, const PlanStep &step) const override {
    const std::string name = "u" + std::to_string(step.load);
    p.line("const value_type " + name + " = " +
           inValue(declareLoadIndex(p, step)) + ";");
    for (const PlannedAccumulation &acc : step.accumulations)
      p.line(accumulate(acc, "", signedValue(plan.loads[step.load], name)));
  }

  void store(CodePrinter &p, const PlannedStore &store) const override {
    const std::string at = index.storeIndex(store);
    const std::string acc = "acc" + std::to_string(store.site);
    if (plan.narrowStorage && (store.addsDot || foldsDirection()))
      // The dot term of the value the store keeps: alpha's q is the stored q.
      p.line(acc + " = stencil::rounded<storage_type>(" + acc + ");");
    p.line(std::string(storeMacro()) + "(&out[" + at + "], " + stored(acc) +
           ");");
    if (foldsDirection()) {
      foldElement(p, at, "p" + std::to_string(store.site), acc);
    } else if (store.addsDot) {
      p.line("dot += static_cast<double>(in[" + at +
             "]) * static_cast<double>(" + acc + ");");
    }
  }
};

/// One value per site, each thread an aligned group of `width` sites along
/// x: rows move with one vector access, the halo beside the group value by
/// value.
class RowGroupAccess : public AccessPrinter {
public:
  using AccessPrinter::AccessPrinter;

  void load(CodePrinter &p, const PlanStep &step) const override {
    const PlannedLoad &load = plan.loads[step.load];
    const std::string name = "u" + std::to_string(step.load);
    const std::string at = declareLoadIndex(p, step);
    if (load.width > 1)
      p.lines("const vec_t " + name + " = " + inVector(at) + ";");
    else
      p.line("const value_type " + name + " = " + inValue(at) + ";");
    for (const PlannedAccumulation &acc : step.accumulations)
      p.line(accumulate(
          acc, "[" + std::to_string(acc.lane) + "]",
          signedValue(load, load.width > 1 ? name + ".v[" +
                                                 std::to_string(acc.element) +
                                                 "]"
                                           : name)));
  }

  void storesPrologue(CodePrinter &p) const override {
    wholeGroupFlag(p, plan);
  }

  /// The group's stores (groupStore), its own input read as a vector
  /// before them for the dot term too.
  void store(CodePrinter &p, const PlannedStore &store) const override {
    const std::string site = std::to_string(store.site);
    roundStoredValues(p, store, access.width);
    groupStore(p, store,
               {index.storeIndex(store), "acc" + site + "[l]", "c" + site,
                "xs" + site, /*dotReadsAhead=*/true});
  }
};

/// A site's components one by one, at element indices the subclass
/// spells: the loop over this thread's components, the dot term, the hop
/// modes' value.
class ComponentAccess : public AccessPrinter {
public:
  using AccessPrinter::AccessPrinter;

  void store(CodePrinter &p, const PlannedStore &store) const override {
    if (layoutGroups())
      return layoutGroupStore(p, store);
    const std::string at = index.storeIndex(store);
    const std::string acc = "acc" + std::to_string(store.site);
    CodePrinter::Vars vars = {{"count", std::to_string(access.perThread)},
                              {"element", element(at, component())},
                              {"stored", stored(acc + "[c]")},
                              {"store", storeMacro()}};
    roundStoredValues(p, store, access.perThread);
    p.emit(vars, R"(
      STENCIL_UNROLL
      for (int c = 0; c < $count$; ++c)
        $store$(&out[$element$], $stored$);
    )");
    if (foldsDirection())
      foldTerms(p, store);
    else if (store.addsDot)
      dotTerms(p, store);
  }

  /// Component by component into an array, through element() (p' where
  /// the kernel folds CG's direction); a group at a time where the layout
  /// keeps groups of `width` values together.
  void gather(CodePrinter &p, const PlanStep &step,
              const std::string &name) const override {
    if (layoutGroups())
      return groupGather(p, step, name);
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"count", std::to_string(access.perThread)},
            {"value", inValue(element(name + "_site", component()))}},
           R"(
             const stencil::index_t $name$_site = $at$;
             value_type $name$[$count$];
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c)
               $name$[c] = $value$;
           )");
  }

protected:
  /// Whether a soa or aosoa layout keeps a site's values in groups of
  /// `width` (field.layout.vector), each moved with one access.
  bool layoutGroups() const {
    return access.width > 1 && (access.kind == AccessKind::LayoutElement ||
                                access.kind == AccessKind::HalfOrder);
  }

  /// The component of group `j` (loop counter text) of this thread's
  /// components: its first value.
  std::string groupComponent() const {
    const std::string first = "j * " + std::to_string(access.width);
    return access.split ? "c0 + " + first : first;
  }

  /// The layout's groups of `width` adjacent values (field.layout.vector),
  /// one vector load each, into the accumulations that take their values.
  void groupLoad(CodePrinter &p, const PlanStep &step) const {
    const std::string name = "u" + std::to_string(step.load);
    vectorLoad(p, step,
               "const stencil::index_t " + name + " = " +
                   index.loadIndex(plan.loads[step.load]) + ";",
               inVector(element(name, groupComponent())));
  }

  /// The step's load `width` values at a time: `declare` (a statement),
  /// then vector j of this thread's components as `value` (text using j),
  /// each of its values into the accumulations that take it.
  void vectorLoad(CodePrinter &p, const PlanStep &step,
                  const std::string &declare, const std::string &value) const {
    const std::string width = std::to_string(access.width);
    p.emit({{"declare", declare},
            {"vectors", std::to_string(access.perThread / access.width)},
            {"width", width},
            {"value", value}},
           R"(
             $declare$
             STENCIL_UNROLL
             for (int j = 0; j < $vectors$; ++j) {
               const vec_t v = $value$;
               STENCIL_UNROLL
               for (int l = 0; l < $width$; ++l) {
           )");
    {
      CodePrinter::Indent indent(p, 4);
      for (const PlannedAccumulation &acc : step.accumulations)
        p.line(accumulate(acc, "[j * " + width + " + l]",
                          signedValue(plan.loads[step.load], "v.v[l]")));
    }
    p.emit(R"(
        }
      }
    )");
  }

  /// gather() a group of the layout at a time.
  void groupGather(CodePrinter &p, const PlanStep &step,
                   const std::string &name) const {
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"count", std::to_string(access.perThread)},
            {"groups", std::to_string(access.perThread / access.width)},
            {"width", std::to_string(access.width)},
            {"value", inVector(element(name + "_site", groupComponent()))}},
           R"(
             const stencil::index_t $name$_site = $at$;
             value_type $name$[$count$];
             STENCIL_UNROLL
             for (int j = 0; j < $groups$; ++j) {
               const vec_t v = $value$;
               STENCIL_UNROLL
               for (int l = 0; l < $width$; ++l)
                 $name$[j * $width$ + l] = v.v[l];
             }
           )");
  }

  /// The stored site's values a group of the layout at a time; the dot
  /// term or CG's fold value by value, as store() adds them.
  void layoutGroupStore(CodePrinter &p, const PlannedStore &store) const {
    const std::string at = index.storeIndex(store);
    roundStoredValues(p, store, access.perThread);
    p.emit({{"groups", std::to_string(access.perThread / access.width)},
            {"width", std::to_string(access.width)},
            {"acc", "acc" + std::to_string(store.site)},
            {"vector", storedVector()},
            {"element", element(at, groupComponent())},
            {"store", storeMacro()},
            {"stored", stored("r")}},
           R"(
             STENCIL_UNROLL
             for (int j = 0; j < $groups$; ++j) {
               vec_t r;
               STENCIL_UNROLL
               for (int l = 0; l < $width$; ++l)
                 r.v[l] = $acc$[j * $width$ + l];
               $store$(reinterpret_cast<$vector$ *>(out + $element$), $stored$);
             }
           )");
    if (foldsDirection())
      foldTerms(p, store);
    else if (store.addsDot)
      dotTerms(p, store);
  }

  /// The step's load component by component through element(), each value
  /// into the accumulations that take it (p' where the kernel folds CG's
  /// direction).
  void elementLoad(CodePrinter &p, const PlanStep &step) const {
    const std::string name = "u" + std::to_string(step.load);
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"count", std::to_string(access.perThread)},
            {"value", inValue(element(name, component()))}},
           R"(
             const stencil::index_t $name$ = $at$;
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c) {
               const value_type v = $value$;
           )");
    {
      CodePrinter::Indent indent(p);
      for (const PlannedAccumulation &acc : step.accumulations)
        p.line(accumulate(acc, "[c]", signedValue(plan.loads[step.load], "v")));
    }
    p.line("}");
  }

  /// CG's fold at the stored site, component by component: p' (as its
  /// store keeps it) to next_direction, the last step's x += alpha p, and
  /// dot += p' . out.
  void foldTerms(CodePrinter &p, const PlannedStore &store) const {
    openComponentLoop(p, store);
    {
      CodePrinter::Indent indent(p);
      foldElement(p, "at", "next", "acc" + std::to_string(store.site) + "[c]");
    }
    p.line("}");
  }

  /// Opens the loop over this thread's components of the stored site, with
  /// `at` the element index of component c; the caller closes it.
  void openComponentLoop(CodePrinter &p, const PlannedStore &store) const {
    p.emit({{"count", std::to_string(access.perThread)},
            {"element", element(index.storeIndex(store), component())}},
           R"(
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c) {
               const stencil::index_t at = $element$;
           )");
  }

  /// dot += in . out over this thread's components of the stored site.
  void dotTerms(CodePrinter &p, const PlannedStore &store) const {
    p.emit({{"count", std::to_string(access.perThread)},
            {"element", element(index.storeIndex(store), component())},
            {"acc", "acc" + std::to_string(store.site)}},
           R"(
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c)
               dot += static_cast<double>(in[$element$]) * static_cast<double>($acc$[c]);
           )");
  }

  /// The element index of component `c` (text) of the site whose storage
  /// index is `site` (text).
  virtual std::string element(const std::string &site,
                              const std::string &c) const = 0;
};

/// Site-major: a site's components are contiguous; a pointer to this
/// thread's first one.
class SiteMajorAccess : public ComponentAccess {
public:
  using ComponentAccess::ComponentAccess;

  void load(CodePrinter &p, const PlanStep &step) const override {
    if (foldsDirection()) // two arrays: p' value by value
      return elementLoad(p, step);
    const std::string name = "u" + std::to_string(step.load);
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"nc", std::to_string(access.components)},
            {"first", access.split ? " + c0" : ""},
            {"count", std::to_string(access.perThread)},
            {"type", storedScalar()}},
           R"(
             const $type$ *$name$ = in + ($at$) * $nc$$first$;
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c) {
           )");
    {
      CodePrinter::Indent indent(p);
      for (const PlannedAccumulation &acc : step.accumulations)
        p.line(accumulate(acc, "[c]",
                          signedValue(plan.loads[step.load], name + "[c]")));
    }
    p.line("}");
  }

  /// A pointer to this thread's first component of the site; where the
  /// kernel folds CG's direction, p' in an array.
  void gather(CodePrinter &p, const PlanStep &step,
              const std::string &name) const override {
    if (foldsDirection())
      return ComponentAccess::gather(p, step, name);
    p.line("const " + storedScalar() + " *" + name + " = in + " +
           firstValue(index.loadIndex(plan.loads[step.load])) + ";");
  }

protected:
  /// The element index of this thread's first value of the site `site`
  /// (an index expression).
  std::string firstValue(const std::string &site) const {
    return "(" + site + ") * " + std::to_string(access.components) +
           (access.split ? " + c0" : "");
  }

  std::string element(const std::string &site,
                      const std::string &c) const override {
    return "(" + site + ") * " + std::to_string(access.components) + " + " + c;
  }
};

/// Site-major, `width` consecutive components per access.
class SiteMajorVectorAccess : public SiteMajorAccess {
public:
  using SiteMajorAccess::SiteMajorAccess;

  void load(CodePrinter &p, const PlanStep &step) const override {
    const std::string name = "u" + std::to_string(step.load);
    vectorLoad(p, step, declareFirst(name, step.load), vectorOf(name));
  }

  /// Before the walk: a plane's values, and each load's first value of
  /// this thread within its plane.
  void columnOffsets(CodePrinter &p) const override {
    p.emit({{"sites", index.planeSites()},
            {"nc", std::to_string(access.components)}},
           R"(
             // Each load's first value within its plane: the walk adds a plane's.
             const stencil::index_t plane_values = $sites$ * $nc$;
           )");
    for (size_t k = 0; k < plan.loads.size(); ++k)
      p.line("const int u" + std::to_string(k) + "_at = static_cast<int>(" +
             firstValue(index.inPlaneIndex(plan.loads[k])) + ");");
  }

  /// This thread's components, moved `width` at a time into an array.
  void gather(CodePrinter &p, const PlanStep &step,
              const std::string &name) const override {
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"nc", std::to_string(access.components)},
            {"first", access.split ? " + c0" : ""},
            {"count", std::to_string(access.perThread)},
            {"vectors", std::to_string(access.perThread / access.width)},
            {"width", std::to_string(access.width)},
            {"vector", storedVector()},
            {"declare", declareFirst("from", step.load)},
            {"value", vectorOf("from")}},
           R"(
             value_type $name$[$count$];
             {
               $declare$
               STENCIL_UNROLL
               for (int j = 0; j < $vectors$; ++j) {
                 const vec_t v = $value$;
                 STENCIL_UNROLL
                 for (int l = 0; l < $width$; ++l)
                   $name$[j * $width$ + l] = v.v[l];
               }
             }
           )");
  }

  /// Whole vectors out; the dot term value by value, or CG's fold vector
  /// by vector.
  void store(CodePrinter &p, const PlannedStore &store) const override {
    storeVectors(p, store);
    if (foldsDirection())
      foldVectors(p, store);
    else if (store.addsDot)
      dotTerms(p, store);
  }

private:
  /// Declares `name`, the first component of this thread of plan load
  /// `load`'s site: a pointer into `in`, or where the kernel folds CG's
  /// direction (two arrays read there) its element index; in a march with
  /// column offsets, from the plane's first value.
  std::string declareFirst(const std::string &name, int load) const {
    const std::string first =
        plan.gathersPlane ? "plane_first + u" + std::to_string(load) + "_at"
                          : firstValue(index.loadIndex(plan.loads[load]));
    if (foldsDirection())
      return "const stencil::index_t " + name + " = " + first + ";";
    return "const " + storedVector() + " *" + name + " = reinterpret_cast<const " +
           storedVector() + " *>(in + " + first + ");";
  }

  /// The j-th vector from declareFirst(`name`): p' = in + beta direction
  /// where the kernel folds CG's direction.
  std::string vectorOf(const std::string &name) const {
    if (!foldsDirection())
      return widened(name + "[j]");
    return inVector(name + " + j * " + std::to_string(access.width));
  }

  /// CG's fold at the stored site, a vector at a time: p' (as its store
  /// keeps it) to next_direction, the last step's x += alpha p, and
  /// dot += p' . out.
  void foldVectors(CodePrinter &p, const PlannedStore &store) const {
    p.emit(storeVars(store, "next"), R"(
             {
               const stencil::index_t first = ($at$) * $nc$$first$;
               const $vector$ *from = reinterpret_cast<const $vector$ *>(in + first);
               const $vector$ *along = reinterpret_cast<const $vector$ *>(direction + first);
               STENCIL_UNROLL
               for (int j = 0; j < $vectors$; ++j) {
                 const vec_t next = stencil::fold_direction(from + j, along + j, beta);
                 $store$(&reinterpret_cast<$vector$ *>(next_direction + first)[j], $stored$);
                 if (solution) {
                   vec_t *xs = reinterpret_cast<vec_t *>(solution + first) + j;
                   *xs = stencil::plus_scaled(xs, along + j, alpha);
                 }
                 STENCIL_UNROLL
                 for (int l = 0; l < $width$; ++l)
                   dot += static_cast<double>(next.v[l]) * static_cast<double>($acc$[j * $width$ + l]);
               }
             }
           )");
  }

  /// What the stores of `store`'s site print: its index, accumulators and
  /// vectors, and `value` (a vec_t) as the fields store it.
  CodePrinter::Vars storeVars(const PlannedStore &store,
                              const std::string &value) const {
    return {{"at", index.storeIndex(store)},
            {"acc", "acc" + std::to_string(store.site)},
            {"nc", std::to_string(access.components)},
            {"first", access.split ? " + c0" : ""},
            {"vectors", std::to_string(access.perThread / access.width)},
            {"width", std::to_string(access.width)},
            {"store", storeMacro()},
            {"vector", storedVector()},
            {"stored", stored(value)}};
  }

  void storeVectors(CodePrinter &p, const PlannedStore &store) const {
    roundStoredValues(p, store, access.perThread);
    p.emit(storeVars(store, "r"), R"(
      STENCIL_UNROLL
      for (int j = 0; j < $vectors$; ++j) {
        vec_t r;
        STENCIL_UNROLL
        for (int l = 0; l < $width$; ++l)
          r.v[l] = $acc$[j * $width$ + l];
        $store$(&reinterpret_cast<$vector$ *>(out + ($at$) * $nc$$first$)[j], $stored$);
      }
    )");
  }
};

/// Components placed by a stencil::Layout (soa, aosoa, subdomains, even/odd
/// over the whole lattice): stencil::layout_element() per component.
class LayoutElementAccess : public ComponentAccess {
public:
  using ComponentAccess::ComponentAccess;

  void load(CodePrinter &p, const PlanStep &step) const override {
    if (layoutGroups())
      return groupLoad(p, step);
    elementLoad(p, step);
  }

protected:
  std::string element(const std::string &site,
                      const std::string &c) const override {
    return "stencil::layout_element(layout, " + site + ", " + c + ", " +
           std::to_string(access.components) + ", sites)";
  }
};

/// Components placed by a stencil::Layout that keeps each component's row
/// together (soa, aosoa), each thread an aligned group of `width` sites
/// along x: per component, a row moves with one vector access and the halo
/// beside the group value by value; accumulators acc<site>[c * width + l].
class LayoutRowGroupAccess : public LayoutElementAccess {
public:
  using LayoutElementAccess::LayoutElementAccess;

  void load(CodePrinter &p, const PlanStep &step) const override {
    const PlannedLoad &load = plan.loads[step.load];
    const std::string name = "u" + std::to_string(step.load);
    p.emit({{"name", name},
            {"at", index.loadIndex(load)},
            {"count", std::to_string(access.perThread)},
            {"value", "const " + rowType(load) + " v = " +
                          rowRead(load, element(name, component())) + ";"}},
           R"(
             const stencil::index_t $name$ = $at$;
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c) {
               $value$
           )");
    {
      CodePrinter::Indent indent(p);
      rowSums(p, step, "v");
    }
    p.line("}");
  }

  /// Rows hold `width` sites a load, the halo beside them one value.
  void gatherRows(CodePrinter &p,
                  const std::vector<PlanStep> &steps) const override {
    const std::string count = std::to_string(access.perThread);
    auto name = [](const PlanStep &step) {
      return "u" + std::to_string(step.load);
    };
    for (const PlanStep &step : steps)
      p.line("const stencil::index_t " + name(step) +
             "_site = " + index.loadIndex(plan.loads[step.load]) + ";");
    for (const PlanStep &step : steps)
      p.line(rowType(plan.loads[step.load]) + " " + name(step) + "[" + count +
             "];");
    p.line("STENCIL_UNROLL");
    p.line("for (int c = 0; c < " + count + "; ++c) {");
    {
      CodePrinter::Indent indent(p);
      for (const PlanStep &step : steps)
        p.line(name(step) + "[c] = " +
               rowRead(plan.loads[step.load],
                       element(name(step) + "_site", component())) +
               ";");
    }
    p.line("}");
    p.line("STENCIL_UNROLL");
    p.line("for (int c = 0; c < " + count + "; ++c) {");
    {
      CodePrinter::Indent indent(p);
      for (const PlanStep &step : steps)
        rowSums(p, step, name(step) + "[c]");
    }
    p.line("}");
  }

  void storesPrologue(CodePrinter &p) const override {
    wholeGroupFlag(p, plan);
  }

  /// Per component, the group's stores (groupStore; a component's row is
  /// contiguous). The dot kernel's term reads the input value by value
  /// after the stores: on the H200 that ran 3% faster than vector reads
  /// before them (laplacian4d_vec24_antiperiodic's CG).
  void store(CodePrinter &p, const PlannedStore &store) const override {
    const std::string width = std::to_string(access.width);
    roundStoredValues(p, store, access.perThread * access.width);
    openComponentLoop(p, store);
    {
      CodePrinter::Indent body(p);
      groupStore(p, store,
                 {"at", "acc" + std::to_string(store.site) + "[c * " + width +
                            " + l]",
                  "own", "xs", /*dotReadsAhead=*/false});
    }
    p.line("}");
  }

private:
  /// A row load's type: a vector of `width` sites, or one value (the halo
  /// beside the group).
  static std::string rowType(const PlannedLoad &load) {
    return load.width > 1 ? "vec_t" : "value_type";
  }
  /// The value of a row load at element `at`.
  std::string rowRead(const PlannedLoad &load, const std::string &at) const {
    return load.width > 1 ? inVector(at) : inValue(at);
  }
  /// The step's accumulations, inside the loop over the components, from
  /// `value`: the component's row (rowType) this thread loaded.
  void rowSums(CodePrinter &p, const PlanStep &step,
               const std::string &value) const {
    const PlannedLoad &load = plan.loads[step.load];
    const std::string width = std::to_string(access.width);
    for (const PlannedAccumulation &acc : step.accumulations)
      p.line(accumulate(
          acc, "[c * " + width + " + " + std::to_string(acc.lane) + "]",
          signedValue(load,
                      load.width > 1
                          ? value + ".v[" + std::to_string(acc.element) + "]"
                          : value)));
  }
};

/// Components of one parity's half stored in a non-site-major order:
/// stencil::order_element() within the half.
class HalfOrderAccess : public ComponentAccess {
public:
  using ComponentAccess::ComponentAccess;

  void load(CodePrinter &p, const PlanStep &step) const override {
    if (layoutGroups())
      return groupLoad(p, step);
    const std::string name = "u" + std::to_string(step.load);
    p.emit({{"name", name},
            {"at", index.loadIndex(plan.loads[step.load])},
            {"count", std::to_string(access.perThread)}},
           R"(
             const stencil::index_t $name$ = $at$;
             STENCIL_UNROLL
             for (int c = 0; c < $count$; ++c) {
           )");
    {
      CodePrinter::Indent indent(p);
      for (const PlannedAccumulation &acc : step.accumulations)
        p.line(accumulate(
            acc, "[c]",
            signedValue(plan.loads[step.load],
                        "in[" + element(name, component()) + "]")));
    }
    p.line("}");
  }

protected:
  std::string element(const std::string &site,
                      const std::string &c) const override {
    const std::string vector = access.layout.vector > 1
                                   ? std::to_string(access.layout.vector) + ", "
                                   : "";
    return "stencil::order_element(" +
           std::to_string(static_cast<int>(access.layout.order)) + ", " +
           std::to_string(access.layout.block) + ", " + vector + site + ", " +
           c + ", " + std::to_string(access.components) + ", half_sites)";
  }
};

} // namespace

std::unique_ptr<AccessPrinter>
makeAccessPrinter(const KernelPlan &plan, const SiteIndexPrinter &index) {
  switch (plan.access.kind) {
  case AccessKind::Scalar:
    return std::make_unique<ScalarAccess>(plan, index);
  case AccessKind::RowGroup:
    return std::make_unique<RowGroupAccess>(plan, index);
  case AccessKind::SiteMajor:
    return std::make_unique<SiteMajorAccess>(plan, index);
  case AccessKind::SiteMajorVector:
    return std::make_unique<SiteMajorVectorAccess>(plan, index);
  case AccessKind::LayoutElement:
    return std::make_unique<LayoutElementAccess>(plan, index);
  case AccessKind::LayoutRowGroup:
    return std::make_unique<LayoutRowGroupAccess>(plan, index);
  case AccessKind::HalfOrder:
    return std::make_unique<HalfOrderAccess>(plan, index);
  }
  return nullptr;
}

} // namespace stencilc
