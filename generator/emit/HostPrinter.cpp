//===- HostPrinter.cpp - Launchers and host declarations ------------------===//
#include "emit/HostPrinter.h"

#include "emit/CodePrinter.h"
#include "emit/EmitText.h"

namespace stencilc {

namespace {

/// What every launcher of `model` spells the same way.
struct LauncherText {
  std::string extentList;   ///< {extents.nx, ..., 1}
  std::string valueCount;   ///< values of a whole field
  std::string siteCount;    ///< sites of a whole field
  /// The untyped twins' extents and parameters as Extents and Params.
  std::string typedArguments;
};

LauncherText launcherText(const StencilModel &model) {
  LauncherText text;
  std::vector<std::string> extents, generic, sites;
  for (int axis = 0; axis < kMaxDims; ++axis)
    extents.push_back(axis < model.dims ? "extents." + extentName(axis)
                                        : std::string("1"));
  for (int axis = 0; axis < model.dims; ++axis) {
    generic.push_back("typed_extents." + extentName(axis) + " = extents[" +
                      std::to_string(axis) + "];");
    sites.push_back("static_cast<std::int64_t>(extents." + extentName(axis) +
                    ")");
  }
  text.extentList = listOf(extents);
  text.siteCount = join(sites, " * ");
  std::vector<std::string> values = sites;
  if (model.components > 1)
    values.push_back(std::to_string(model.components));
  text.valueCount = join(values, " *\n    ");
  std::vector<std::string> params;
  for (size_t i = 0; i < model.parameters.size(); ++i) {
    const Parameter &param = model.parameters[i];
    const std::string index = std::to_string(i);
    params.push_back(
        param.site
            ? "typed_params." + param.name +
                  " = fields ? static_cast<const value_type *>(fields[" +
                  index + "]) : nullptr;"
            : "typed_params." + param.name +
                  " = static_cast<value_type>(params[" + index + "]);");
  }
  if (model.hasLinkTaps())
    params.push_back("typed_params." + model.links.name +
                     " = fields ? static_cast<const value_type *>(fields[" +
                     std::to_string(model.parameters.size()) +
                     "]) : nullptr;");
  if (model.hasCloverTap()) {
    const std::string first = std::to_string(model.parameters.size() + 1);
    const std::string second = std::to_string(model.parameters.size() + 2);
    params.push_back("typed_params." + model.clover.name +
                     " = fields ? static_cast<const value_type *>(fields[" +
                     first + "]) : nullptr;");
    params.push_back("typed_params." + model.clover.name +
                     "_inverse = fields ? static_cast<const value_type "
                     "*>(fields[" + second + "]) : nullptr;");
  }
  text.typedArguments = "(void)params;\n(void)fields;\nExtents typed_extents;\n" +
                        join(generic, "\n") + "\nParams typed_params;" +
                        (params.empty() ? "" : "\n" + join(params, "\n"));
  return text;
}

/// The launch's argument for each kernel parameter.
std::string launchArguments(const LauncherPlan &launcher) {
  std::vector<std::string> args;
  for (const KernelParameter &param : launcher.kernelParameters)
    switch (param.kind) {
    case ParameterKind::OutField:
    case ParameterKind::InField:
    case ParameterKind::SameField:
    case ParameterKind::Params:
    case ParameterKind::Partials:
    case ParameterKind::DirectionField:
    case ParameterKind::NextDirectionField:
      args.push_back(param.name);
      break;
    case ParameterKind::DirectionBeta:
      args.push_back("beta");
      break;
    case ParameterKind::SolutionField:
      args.push_back("solution");
      break;
    case ParameterKind::SolutionAlpha:
      args.push_back("alpha");
      break;
    case ParameterKind::HopMode:
      args.push_back("static_cast<int>(mode)");
      break;
    case ParameterKind::HopAlpha:
      args.push_back("static_cast<value_type>(alpha)");
      break;
    case ParameterKind::HopBeta:
      args.push_back("static_cast<value_type>(beta)");
      break;
    case ParameterKind::Extent:
      args.push_back("extents." + param.name);
      break;
    case ParameterKind::BlocksZ:
      args.push_back("config.blocks_z");
      break;
    case ParameterKind::MarchPlanes:
      args.push_back("config.planes");
      break;
    case ParameterKind::Slab:
      args.push_back("slab");
      break;
    case ParameterKind::Region:
      args.push_back("region");
      break;
    }
  return join(args, ",\n");
}

/// The clover array (whole lattice) and its inverse (one parity's half)
/// where the launch reads them: whole-lattice kernels always, hopping
/// kernels in the modes that apply A or A^-1.
void cloverChecks(CodePrinter &p, const StencilModel &model,
                  const LauncherPlan &launcher, const LauncherText &text) {
  const bool hopping = launcher.kind == LauncherKind::Hopping;
  CodePrinter::Vars vars = {
      {"model", model.name},
      {"clover", launcher.cloverArray},
      {"count", text.siteCount + " * " +
                    std::to_string(launcher.cloverComponents)},
      {"bytes", std::to_string(launcher.cloverAlignmentBytes)},
      {"needs", hopping ? "mode == stencil::kDiagonalPlusHop && " : ""}};
  p.emit(vars, R"(
    if ($needs$params.$clover$ == nullptr)
      return stencil::Status::failure("$model$: clover term '$clover$' has no array; StencilOperator::upload_clover computes it from the links");
    if (params.$clover$ != nullptr && overlaps(out, values, params.$clover$, $count$))
      return stencil::Status::failure("$model$: 'out' overlaps clover term '$clover$'");
  )");
  if (hopping)
    p.emit(vars, R"(
      if (mode == stencil::kInverseDiagonalHop && params.$clover$_inverse == nullptr)
        return stencil::Status::failure("$model$: kInverseDiagonalHop needs the inverse clover term '$clover$_inverse' on the output parity, from StencilOperator::upload_clover");
      if (params.$clover$_inverse != nullptr && overlaps(out, values, params.$clover$_inverse, $count$ / 2))
        return stencil::Status::failure("$model$: 'out' overlaps the inverse clover term '$clover$_inverse'");
    )");
  if (launcher.cloverAlignmentBytes > 0)
    p.emit(vars, R"(
      if (!stencil::is_aligned(params.$clover$, $bytes$) || !stencil::is_aligned(params.$clover$_inverse, $bytes$))
        return stencil::Status::failure("$model$: clover term '$clover$' and its inverse must be aligned to $bytes$ bytes for the $bytes$-byte loads of clover.layout.vector");
    )");
}

/// Site-parameter arrays present and apart from the fields the kernel
/// writes (`out`, and next_direction for the fold; a hopping kernel's `out`
/// is one half, the arrays are whole); fields aligned for vector accesses.
std::string argumentChecks(const StencilModel &model,
                           const LauncherPlan &launcher,
                           const LauncherText &text) {
  const bool hopping = launcher.kind == LauncherKind::Hopping;
  std::vector<std::pair<std::string, std::string>> written = {
      {"out", hopping ? "out, values" : "out"}};
  if (launcher.kind == LauncherKind::LatticeFoldDot)
    written.push_back({"next_direction", "next_direction"});
  std::string checks = printed([&](CodePrinter &p) {
    for (const LauncherPlan::SiteArray &array : launcher.siteArrays) {
      CodePrinter::Vars vars = {
          {"model", model.name},
          {"param", array.name},
          {"sites", array.realsPerSite == 1
                        ? text.siteCount
                        : std::to_string(array.realsPerSite) + " * " +
                              text.siteCount}};
      p.emit(vars, R"(
        if (params.$param$ == nullptr)
          return stencil::Status::failure("$model$: site parameter '$param$' has no array");
      )");
      for (const auto &[name, pointer] : written) {
        CodePrinter::Vars overlap = vars;
        overlap.push_back({"name", name});
        overlap.push_back({"pointer", pointer});
        p.emit(overlap, R"(
          if (overlaps($pointer$, params.$param$, $sites$))
            return stencil::Status::failure("$model$: '$name$' overlaps site parameter '$param$'");
        )");
      }
    }
    if (!launcher.linkArray.empty())
      p.emit({{"model", model.name},
              {"links", launcher.linkArray},
              {"out", "out, values"},
              {"count", text.siteCount + " * " +
                            std::to_string(launcher.linkComponents)}},
             R"(
               if (params.$links$ == nullptr)
                 return stencil::Status::failure("$model$: link field '$links$' has no array");
               if (overlaps($out$, params.$links$, $count$))
                 return stencil::Status::failure("$model$: 'out' overlaps link field '$links$'");
             )");
    if (launcher.linkAlignmentBytes > 0)
      p.emit({{"model", model.name},
              {"links", launcher.linkArray},
              {"bytes", std::to_string(launcher.linkAlignmentBytes)}},
             R"(
               if (!stencil::is_aligned(params.$links$, $bytes$))
                 return stencil::Status::failure("$model$: link field '$links$' must be aligned to $bytes$ bytes for the $bytes$-byte loads of links.layout.vector");
             )");
    if (!launcher.cloverArray.empty())
      cloverChecks(p, model, launcher, text);
    if (launcher.alignmentBytes > 0) {
      // A hop also reads `same` (kDiagonalPlusHop; null for the others).
      const std::string bytes = std::to_string(launcher.alignmentBytes);
      p.emit({{"model", model.name},
              {"bytes", bytes},
              {"reason", launcher.alignmentReason},
              {"same", hopping ? " ||\n    (same != nullptr && "
                                 "!stencil::is_aligned(same, " +
                                     bytes + "))"
                               : ""},
              {"names", hopping ? "'out', 'in' and 'same'" : "'out' and 'in'"}},
             R"(
               if (!stencil::is_aligned(out, $bytes$) || !stencil::is_aligned(in, $bytes$)$same$)
                 return stencil::Status::failure("$model$: $names$ must be aligned to $bytes$ bytes for the $bytes$-byte accesses of $reason$");
             )");
    }
    if (launcher.planeOffsetValues > 0) {
      std::vector<std::string> factors, names;
      for (int axis = 0; axis < model.dims; ++axis) {
        if (axis == launcher.marchAxis)
          continue;
        factors.push_back(factors.empty() ? "static_cast<std::int64_t>(n[" +
                                                std::to_string(axis) + "])"
                                          : "n[" + std::to_string(axis) + "]");
        names.push_back(extentName(axis));
      }
      p.emit({{"model", model.name},
              {"values", join(factors, " * ") + " * " +
                             std::to_string(launcher.planeOffsetValues)},
              {"plane", join(names, " x ")},
              {"count", std::to_string(launcher.planeOffsetValues)}},
             R"(
               if ($values$ > 2147483647)
                 return stencil::Status::failure("$model$: the marching kernel reads a plane ($plane$ sites, $count$ values each) at 32-bit offsets, and this lattice's plane holds more than 2^31 - 1 values");
             )");
    }
  });
  return checks;
}

/// For stencils with links (and a clover term): the link array's (and the
/// clover array's) own layout must fit the extents too (blocks of sites),
/// checked after the field's.
std::string linkLayoutCheck(const StencilModel &model) {
  std::string text;
  if (model.hasLinkTaps())
    text += "if (status.ok()) {\n"
            "  status = stencil::check_layout(info().links->layout, dims, n, "
            "boundary);\n"
            "  if (!status.ok())\n"
            "    status = stencil::Status::failure(\"link field '" +
            model.links.name + "': \" + status.message());\n}";
  if (model.hasCloverTap())
    text += "\nif (status.ok()) {\n"
            "  status = stencil::check_layout(info().clover->layout, dims, n, "
            "boundary);\n"
            "  if (!status.ok())\n"
            "    status = stencil::Status::failure(\"clover term '" +
            model.clover.name + "': \" + status.message());\n}";
  return text;
}

std::string summaryComment(const LauncherPlan &launcher) {
  return printed([&](CodePrinter &p) {
    wrappedComment(p, "///", launcher.summary);
  });
}

/// The launch macro and its leading arguments: a kernel in phases
/// (SharedStaging) launches with STENCIL_LAUNCH_PHASED.
std::string launchCall(const LauncherPlan &launcher) {
  if (launcher.phases > 1)
    return "STENCIL_LAUNCH_PHASED(" + launcher.kernelName + ", " +
           std::to_string(launcher.phases);
  return "STENCIL_LAUNCH(" + launcher.kernelName;
}

/// The stencil::MarchKernel whose residency sizes `launcher`'s grid.
const char *marchKernel(const LauncherPlan &launcher) {
  switch (launcher.kind) {
  case LauncherKind::LatticeDot:
    return "stencil::kMarchDot";
  case LauncherKind::LatticeFoldDot:
    return "stencil::kMarchFold";
  default:
    return "stencil::kMarchApply";
  }
}

/// A launcher's opening: the launch configuration and the layout checks of
/// the field (and of its links and clover term), each failure named.
std::string launchConfiguration(const StencilModel &model,
                                const LauncherPlan &launcher,
                                const LauncherText &text) {
  return printed([&](CodePrinter &p) {
    p.emit({{"model", model.name},
            {"extent_list", text.extentList},
            {"link_layout_check", linkLayoutCheck(model)},
            {"residency", model.kernel.march ? std::string(", march_residency(") +
                                                   marchKernel(launcher) + ")"
                                             : std::string()}},
           R"(
             const int n[stencil::kMaxDims] = $extent_list$;
             stencil::LaunchConfig config;
             stencil::Status status = stencil::make_launch_config(shape(), n, config$residency$);
             if (status.ok())
               status = stencil::check_layout(layout(), dims, n, boundary);
             $link_layout_check$
             if (!status.ok())
               return stencil::Status::failure("$model$: " + status.message());
           )");
  });
}

/// A launcher's close: nothing to launch on an empty lattice, else the
/// launch and its status.
std::string launchAndStatus(const LauncherPlan &launcher) {
  return printed([&](CodePrinter &p) {
    p.emit({{"kernel", launcher.kernelName},
            {"launch", launchCall(launcher)},
            {"args", launchArguments(launcher)}},
           R"(
             if (config.empty)
               return status;
             $launch$, config.grid, config.block, stream,
                 $args$);
             return stencil::launch_status("$kernel$");
           )");
  });
}

void latticeLauncher(CodePrinter &p, const StencilModel &model,
                     const LauncherPlan &launcher, const LauncherText &text) {
  const bool dot = launcher.kind == LauncherKind::LatticeDot;
  CodePrinter::Vars vars = {
      {"summary", summaryComment(launcher)},
      {"function", launcher.function},
      {"model", model.name},
      {"configure", launchConfiguration(model, launcher, text)},
      {"launch_and_status", launchAndStatus(launcher)},
      {"value_count", text.valueCount},
      {"checks", argumentChecks(model, launcher, text)},
      {"typed", text.typedArguments},
      {"partials", dot ? "double *partials, " : ""},
      {"partials_arg", dot ? "partials, " : ""},
      {"partials_null", dot ? " || partials == nullptr" : ""},
      {"region_param", launcher.region ? ",\n    const stencil::Region &region"
                                       : ""},
      {"region_all", launcher.region ? ", stencil::Region()" : ""},
      {"field", fieldType(model.narrowStorage())},
  };
  p.emit(vars, R"(
    $summary$
    stencil::Status $function$($field$ *out, const $field$ *in,
        const Extents &extents, const Params &params, $partials$stencil::Stream stream$region_param$) {
      (void)params; // unused when the spec declares no parameters
      $configure$
      if (out == nullptr || in == nullptr$partials_null$)
        return stencil::Status::failure("$model$: null field pointer");
      const std::int64_t values = $value_count$;
      if (overlaps(out, in, values))
        return stencil::Status::failure(
            "$model$: 'out' and 'in' overlap; the kernel cannot run in place");
      $checks$
      $launch_and_status$
    }

    stencil::Status $function$_generic(void *out, const void *in,
        const int *extents, const double *params, const void *const *fields,
        $partials$stencil::Stream stream) {
      $typed$
      return $function$(static_cast<$field$ *>(out),
          static_cast<const $field$ *>(in), typed_extents, typed_params,
          $partials_arg$stream$region_all$);
    }
  )");
  if (launcher.region)
    p.emit(vars, R"(

      /// $function$() on the tiles of `region` (stencil::DistributedInfo).
      stencil::Status $function$_region_generic(void *out, const void *in,
          const int *extents, const double *params, const void *const *fields,
          $partials$const stencil::Region &region, stencil::Stream stream) {
        $typed$
        return $function$(static_cast<$field$ *>(out),
            static_cast<const $field$ *>(in), typed_extents, typed_params,
            $partials_arg$stream, region);
      }
    )");
}

/// apply_fold_dot(): the whole-lattice launch of the kernel that folds CG's
/// direction update into the stencil (whole lattice, one rank).
void foldLauncher(CodePrinter &p, const StencilModel &model,
                  const LauncherPlan &launcher, const LauncherText &text) {
  const std::string bytes = std::to_string(launcher.alignmentBytes);
  CodePrinter::Vars vars = {
      {"whole_region", launcher.region
                           ? "\nconst stencil::Region region; // one rank: "
                             "every site"
                           : ""},
      {"summary", summaryComment(launcher)},
      {"function", launcher.function},
      {"model", model.name},
      {"configure", launchConfiguration(model, launcher, text)},
      {"launch_and_status", launchAndStatus(launcher)},
      {"value_count", text.valueCount},
      {"checks", argumentChecks(model, launcher, text)},
      {"typed", text.typedArguments},
      {"alignment_check",
       launcher.alignmentBytes == 0
           ? std::string()
           : "if (!stencil::is_aligned(next_direction, " + bytes +
                 ") || !stencil::is_aligned(direction, " + bytes +
                 "))\n  return stencil::Status::failure(\"" + model.name +
                 ": 'next_direction' and 'direction' must be aligned to " +
                 bytes + " bytes for the " + bytes + "-byte accesses of " +
                 launcher.alignmentReason +
                 "\");\nif (solution != nullptr && "
                 "!stencil::is_aligned(solution, " +
                 std::to_string(launcher.alignmentBytes *
                                (model.narrowStorage() ? 2 : 1)) +
                 "))\n  return stencil::Status::failure(\"" + model.name +
                 ": 'solution' must be aligned for the vector accesses of " +
                 launcher.alignmentReason + "\");"},
      {"field", fieldType(model.narrowStorage())},
  };
  p.emit(vars, R"(
    $summary$
    stencil::Status $function$($field$ *out, $field$ *next_direction,
        const $field$ *in, const $field$ *direction, const double *beta,
        value_type *solution, const double *alpha, const Extents &extents,
        const Params &params, double *partials, stencil::Stream stream) {
      (void)params; // unused when the spec declares no parameters
      $configure$
      if (out == nullptr || next_direction == nullptr || in == nullptr ||
          direction == nullptr || beta == nullptr || partials == nullptr)
        return stencil::Status::failure("$model$: null field pointer");
      if (solution != nullptr && alpha == nullptr)
        return stencil::Status::failure("$model$: a solution to update but no alpha");
      const std::int64_t values = $value_count$;
      const void *arrays[] = {out, next_direction, in, direction};
      const char *names[] = {"out", "next_direction", "in", "direction"};
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b)
          if (overlaps(arrays[a], arrays[b], values))
            return stencil::Status::failure(std::string("$model$: '") +
                names[a] + "' and '" + names[b] +
                "' overlap; the kernel reads and writes four separate fields");
      // x is stored in the arithmetic type, perhaps wider than the fields.
      const std::int64_t solution_values =
          values * static_cast<std::int64_t>(sizeof(value_type) / sizeof($field$));
      for (int a = 0; solution != nullptr && a < 4; ++a)
        if (overlaps(solution, solution_values, arrays[a], values))
          return stencil::Status::failure(std::string("$model$: 'solution' and '") +
              names[a] + "' overlap");
      $checks$
      $alignment_check$$whole_region$
      $launch_and_status$
    }

    stencil::Status $function$_generic(void *out, void *next_direction,
        const void *in, const void *direction, const double *beta,
        void *solution, const double *alpha, const int *extents,
        const double *params, const void *const *fields, double *partials,
        stencil::Stream stream) {
      $typed$
      return $function$(static_cast<$field$ *>(out),
          static_cast<$field$ *>(next_direction),
          static_cast<const $field$ *>(in),
          static_cast<const $field$ *>(direction), beta,
          static_cast<value_type *>(solution), alpha, typed_extents,
          typed_params, partials, stream);
    }
  )");
}

/// The hopping launch's blocks along x: a block of `threadsPerBlock` sites,
/// times the threads a split site takes (then checked against the GPU's
/// limit, which a parity under 2^31 sites no longer guarantees).
std::string hoppingGridX(const StencilModel &model,
                         const LauncherPlan &launcher) {
  return printed([&](CodePrinter &p) {
    CodePrinter::Vars vars = {
        {"model", model.name},
        {"threads", std::to_string(launcher.threadsPerBlock)},
        {"groups", std::to_string(launcher.componentGroups)}};
    if (launcher.componentGroups == 1) {
      p.emit(vars, R"(
        config.grid.x = static_cast<unsigned>((half_sites + $threads$ - 1) / $threads$);
      )");
      return;
    }
    p.emit(vars, R"(
      // A site's components shared by $groups$ threads: as many blocks per block of sites.
      const std::int64_t blocks = (half_sites + $threads$ - 1) / $threads$ * $groups$;
      if (blocks > 2147483647)
        return stencil::Status::failure(
            "$model$: " + std::to_string(blocks) +
            " blocks exceed the GPU's 2^31 - 1 along x");
      config.grid.x = static_cast<unsigned>(blocks);
    )");
  });
}

void hoppingLauncher(CodePrinter &p, const StencilModel &model,
                     const LauncherPlan &launcher, const LauncherText &text) {
  const std::string threads = std::to_string(launcher.threadsPerBlock);
  CodePrinter::Vars vars = {
      {"link_layout_check", linkLayoutCheck(model)},
      {"summary", summaryComment(launcher)},
      {"function", launcher.function},
      {"model", model.name},
      {"kernel", launcher.kernelName},
      {"extent_list", text.extentList},
      {"threads", threads},
      {"grid_x", hoppingGridX(model, launcher)},
      {"half_value_count", text.valueCount + " / 2"},
      {"checks", argumentChecks(model, launcher, text)},
      {"args", launchArguments(launcher)},
      {"typed", text.typedArguments},
      {"region_param", launcher.region ? ",\n    const stencil::Region &region"
                                       : ""},
      {"region_all", launcher.region ? ", stencil::Region()" : ""},
      {"field", fieldType(model.narrowStorage())},
      {"slab", launcher.slab == 1
                   ? std::string()
                   : "// The walk: slices of " +
                         std::string(axisName(model.dims - 1)) +
                         " per slab (kernel.slab " +
                         (launcher.slab == KernelOptions::kSlabAuto
                              ? std::string("auto")
                              : std::to_string(launcher.slab)) +
                         ").\nconst int slab = stencil::hop_slab(" +
                         std::to_string(launcher.slab) + ", dims, n, " +
                         std::to_string(launcher.slabBytesPerSite) +
                         ",\n    stencil::device_l2_bytes());"},
  };
  p.emit(vars, R"(
    $summary$
    stencil::Status $function$($field$ *out, const $field$ *in,
        const $field$ *same, stencil::HopMode mode, double alpha,
        double beta, const Extents &extents, const Params &params,
        stencil::Stream stream$region_param$) {
      (void)params; // unused when the spec declares no parameters
      const int n[stencil::kMaxDims] = $extent_list$;
      stencil::Status status = stencil::check_layout(layout(), dims, n, boundary);
      $link_layout_check$
      if (!status.ok())
        return stencil::Status::failure("$model$: " + status.message());
      // One thread per site of one parity, in storage order.
      std::int64_t half_sites = 1;
      for (int axis = 0; axis < dims; ++axis) {
        if (n[axis] < 1)
          return stencil::Status::failure(
              "$model$: extent n" + std::string(stencil::axis_name(axis)) +
              " = " + std::to_string(n[axis]) + " is not positive");
        half_sites *= n[axis];
      }
      half_sites /= 2;
      if (half_sites >= (std::int64_t{1} << 31))
        return stencil::Status::failure(
            "$model$: " + std::to_string(half_sites) +
            " sites per parity exceed the hopping kernels' 2^31 - 1");
      if (half_sites == 0)
        return status;
      stencil::LaunchConfig config;
      config.block.x = $threads$u;
      $grid_x$
      $slab$
      if (out == nullptr || in == nullptr)
        return stencil::Status::failure("$model$: null field pointer");
      if (mode != stencil::kHop && mode != stencil::kInverseDiagonalHop &&
          mode != stencil::kDiagonalPlusHop)
        return stencil::Status::failure("$model$: unknown hop mode " +
                                        std::to_string(static_cast<int>(mode)));
      if (mode == stencil::kDiagonalPlusHop && same == nullptr)
        return stencil::Status::failure(
            "$model$: kDiagonalPlusHop needs the 'same' field");
      const std::int64_t values = $half_value_count$;
      if (overlaps(out, in, values) || (same && overlaps(out, same, values)))
        return stencil::Status::failure(
            "$model$: 'out' overlaps 'in' or 'same'; the kernel cannot run in "
            "place");
      $checks$
      STENCIL_LAUNCH($kernel$, config.grid, config.block, stream,
          $args$);
      return stencil::launch_status("$kernel$");
    }

    stencil::Status $function$_generic(void *out, const void *in,
        const void *same, int mode, double alpha, double beta,
        const int *extents, const double *params, const void *const *fields,
        stencil::Stream stream) {
      $typed$
      return $function$(static_cast<$field$ *>(out),
          static_cast<const $field$ *>(in),
          static_cast<const $field$ *>(same),
          static_cast<stencil::HopMode>(mode), alpha, beta, typed_extents,
          typed_params, stream$region_all$);
    }
  )");
  if (launcher.region)
    p.emit(vars, R"(

      /// $function$() on the sites of `region` (stencil::DistributedInfo).
      stencil::Status $function$_region_generic(void *out, const void *in,
          const void *same, int mode, double alpha, double beta,
          const int *extents, const double *params, const void *const *fields,
          const stencil::Region &region, stencil::Stream stream) {
        $typed$
        return $function$(static_cast<$field$ *>(out),
            static_cast<const $field$ *>(in),
            static_cast<const $field$ *>(same),
            static_cast<stencil::HopMode>(mode), alpha, beta, typed_extents,
            typed_params, stream, region);
      }
    )");
}

void cloverLauncher(CodePrinter &p, const StencilModel &model,
                    const LauncherPlan &launcher, const LauncherText &text) {
  const CloverKernelPlan plan = planCloverKernel(model);
  const std::string threads = std::to_string(plan.threadsPerBlock);
  const std::string fieldBytes = std::to_string(launcher.alignmentBytes);
  CodePrinter::Vars vars = {
      {"model", model.name},
      {"kernel", plan.kernelName},
      {"clover", plan.clover.name},
      {"extent_list", text.extentList},
      {"threads", threads},
      {"half_value_count", text.valueCount + " / 2"},
      {"count", text.siteCount + " * " + std::to_string(plan.clover.reals)},
      {"clover_layout_check", linkLayoutCheck(model)},
      {"alignment",
       launcher.cloverAlignmentBytes > 0
           ? "if (!stencil::is_aligned(params." + plan.clover.name + ", " +
                 std::to_string(launcher.cloverAlignmentBytes) +
                 ") || !stencil::is_aligned(params." + plan.clover.name +
                 "_inverse, " + std::to_string(launcher.cloverAlignmentBytes) +
                 "))\n  return stencil::Status::failure(\"" + model.name +
                 ": clover term '" + plan.clover.name +
                 "' and its inverse must be aligned to " +
                 std::to_string(launcher.cloverAlignmentBytes) +
                 " bytes for the loads of clover.layout.vector\");"
           : std::string()},
      // The clover kernel moves a site's values as the hops do: the
      // launchers' alignment (Launchers.cpp) holds for it.
      {"field_alignment",
       launcher.alignmentBytes > 0
           ? "if (!stencil::is_aligned(out, " + fieldBytes +
                 ") || !stencil::is_aligned(in, " + fieldBytes +
                 ") || !stencil::is_aligned(same, " + fieldBytes +
                 "))\n  return stencil::Status::failure(\"" + model.name +
                 ": 'out', 'in' and 'same' must be aligned to " + fieldBytes +
                 " bytes for the accesses of " + launcher.alignmentReason +
                 "\");"
           : std::string()},
      {"typed", text.typedArguments},
      {"field", fieldType(model.narrowStorage())},
  };
  p.emit(vars, R"(
    /// The clover term alone on the sites of `parity`.
    stencil::Status clover($field$ *out, const $field$ *in,
        const $field$ *same, stencil::HopMode mode, double alpha,
        double beta, int parity, const Extents &extents, const Params &params,
        stencil::Stream stream) {
      const int n[stencil::kMaxDims] = $extent_list$;
      stencil::Status status = stencil::check_layout(layout(), dims, n, boundary);
      $clover_layout_check$
      if (!status.ok())
        return stencil::Status::failure("$model$: " + status.message());
      if (parity != 0 && parity != 1)
        return stencil::Status::failure("$model$: clover: parity " +
                                        std::to_string(parity) +
                                        " is neither 0, even, nor 1, odd");
      const std::int64_t half_sites = $half_value_count$ / components;
      if (half_sites >= (std::int64_t{1} << 31))
        return stencil::Status::failure(
            "$model$: " + std::to_string(half_sites) +
            " sites per parity exceed the clover kernel's 2^31 - 1");
      if (half_sites == 0)
        return status;
      if (out == nullptr || in == nullptr)
        return stencil::Status::failure("$model$: null field pointer");
      if (mode != stencil::kHop && mode != stencil::kInverseDiagonalHop &&
          mode != stencil::kDiagonalPlusHop)
        return stencil::Status::failure("$model$: unknown hop mode " +
                                        std::to_string(static_cast<int>(mode)));
      if (mode == stencil::kDiagonalPlusHop && (same == nullptr || params.$clover$ == nullptr))
        return stencil::Status::failure(
            "$model$: clover with kDiagonalPlusHop needs the 'same' field and the clover term '$clover$'");
      if (mode == stencil::kInverseDiagonalHop && params.$clover$_inverse == nullptr)
        return stencil::Status::failure(
            "$model$: clover with kInverseDiagonalHop needs the inverse clover term '$clover$_inverse' of this parity");
      const std::int64_t values = $half_value_count$;
      if (overlaps(out, in, values) || (same && overlaps(out, same, values)))
        return stencil::Status::failure(
            "$model$: 'out' overlaps 'in' or 'same'; the kernel cannot run in place");
      if ((params.$clover$ && overlaps(out, values, params.$clover$, $count$)) ||
          (params.$clover$_inverse && overlaps(out, values, params.$clover$_inverse, $count$ / 2)))
        return stencil::Status::failure("$model$: 'out' overlaps the clover term or its inverse");
      $alignment$
      $field_alignment$
      stencil::LaunchConfig config;
      config.block.x = $threads$u;
      config.grid.x = static_cast<unsigned>((half_sites + $threads$ - 1) / $threads$);
      STENCIL_LAUNCH($kernel$, config.grid, config.block, stream,
          out, in, same, static_cast<int>(mode), static_cast<value_type>(alpha),
          static_cast<value_type>(beta), parity,
          static_cast<unsigned>(half_sites), params);
      return stencil::launch_status("$kernel$");
    }

    stencil::Status clover_generic(void *out, const void *in,
        const void *same, int mode, double alpha, double beta, int parity,
        const int *extents, const double *params, const void *const *fields,
        stencil::Stream stream) {
      $typed$
      return clover(static_cast<$field$ *>(out),
          static_cast<const $field$ *>(in),
          static_cast<const $field$ *>(same),
          static_cast<stencil::HopMode>(mode), alpha, beta, parity,
          typed_extents, typed_params, stream);
    }
  )");
}

} // namespace

std::string printCloverDeclarations(const StencilModel &model) {
  if (!hasCloverKernel(model))
    return "";
  return printed([&](CodePrinter &p) {
    p.emit({{"clover", model.clover.name},
            {"field", fieldType(model.narrowStorage())}},
           R"(
      /// The clover term A alone (the hopping kernels' epilogue can also apply
      /// it): on the sites of `parity` (0 even, 1 odd), with half fields as the
      /// hopping kernels take them,
      ///   kHop                 out = beta in
      ///   kInverseDiagonalHop  out = beta A^-1 in   (params.$clover$_inverse of that parity)
      ///   kDiagonalPlusHop     out = alpha A same + beta in
      stencil::Status clover($field$ *out, const $field$ *in,
          const $field$ *same, stencil::HopMode mode, double alpha,
          double beta, int parity, const Extents &extents,
          const Params &params = Params(), stencil::Stream stream = nullptr);
      stencil::Status clover_generic(void *out, const void *in,
          const void *same, int mode, double alpha, double beta, int parity,
          const int *extents, const double *params, const void *const *fields,
          stencil::Stream stream);
    )");
  });
}

/// kernel.march: the resident blocks a marching kernel's grid is sized by
/// (KernelInfo::march_residency), per stencil::MarchKernel, so that each
/// launch and each count of its block partials agree; apply and A^T share
/// one grid, the lesser of the two. The caller closes the function.
void marchResidency(CodePrinter &p, const StencilModel &model,
                    const std::vector<LauncherPlan> &launchers) {
  std::vector<std::string> apply;
  std::string dot, fold;
  for (const LauncherPlan &launcher : launchers) {
    if (launcher.kind == LauncherKind::LatticeDot)
      dot = launcher.kernelName;
    else if (launcher.kind == LauncherKind::LatticeFoldDot)
      fold = launcher.kernelName;
    else if (std::find(apply.begin(), apply.end(), launcher.kernelName) ==
             apply.end())
      apply.push_back(launcher.kernelName);
  }
  p.line("");
  p.emit({{"threads", std::to_string(model.kernel.threadsPerBlock())}},
         R"(
           std::int64_t march_residency(int kernel) {
             const int threads = $threads$;
         )");
  CodePrinter::Indent indent(p);
  if (dot.empty() && fold.empty())
    p.line("(void)kernel; // apply and A^T only: one grid");
  for (const auto &[kind, name] :
       {std::pair<const char *, std::string>{"stencil::kMarchDot", dot},
        {"stencil::kMarchFold", fold}})
    if (!name.empty())
      p.emit({{"kind", kind}, {"kernel", name}}, R"(
        if (kernel == $kind$)
          return stencil::resident_blocks($kernel$, threads);
      )");
  if (apply.size() == 1) {
    p.line("return stencil::resident_blocks(" + apply.front() + ", threads);");
    return;
  }
  p.line("std::int64_t least = stencil::resident_blocks(" + apply.front() +
         ", threads);");
  for (size_t i = 1; i < apply.size(); ++i)
    p.emit({{"kernel", apply[i]}}, R"(
      if (const std::int64_t blocks = stencil::resident_blocks($kernel$, threads);
          blocks < least)
        least = blocks;
    )");
  p.line("return least;");
}

std::string printLaunchers(const StencilModel &model,
                           const std::vector<LauncherPlan> &launchers) {
  const LauncherText text = launcherText(model);
  return printed([&](CodePrinter &p) {
    bool first = true;
    for (const LauncherPlan &launcher : launchers) {
      if (!first)
        p.line("");
      first = false;
      if (launcher.kind == LauncherKind::Hopping)
        hoppingLauncher(p, model, launcher, text);
      else if (launcher.kind == LauncherKind::LatticeFoldDot)
        foldLauncher(p, model, launcher, text);
      else
        latticeLauncher(p, model, launcher, text);
    }
    if (hasCloverKernel(model)) {
      p.line("");
      cloverLauncher(p, model, launchers.front(), text);
    }
    if (model.kernel.march) {
      marchResidency(p, model, launchers);
      p.line("}");
    }
  });
}

std::string printExtraDeclarations(const std::vector<LauncherPlan> &launchers,
                                   bool narrowStorage) {
  const std::string field = fieldType(narrowStorage);
  return printed([&](CodePrinter &p) {
    bool hopping = false;
    for (const LauncherPlan &launcher : launchers) {
      if (launcher.kind == LauncherKind::LatticeDot) {
        p.emit({{"function", launcher.function},
                {"field", field},
                {"region_default",
                 launcher.region
                     ? ",\n    const stencil::Region &region = stencil::Region()"
                     : ""}},
               R"(
          /// out = A in, fused with in . out for CG: partials[b] receives block b's
          /// share (device memory, one double per block of the launch grid:
          /// grid.x * grid.y * grid.z of make_launch_config; the caller adds them).
          stencil::Status $function$($field$ *out, const $field$ *in,
              const Extents &extents, const Params &params, double *partials,
              stencil::Stream stream = nullptr$region_default$);
          stencil::Status $function$_generic(void *out, const void *in,
              const int *extents, const double *params, const void *const *fields,
              double *partials, stencil::Stream stream);
        )");
        if (launcher.region)
          p.emit({{"function", launcher.function}}, R"(
            stencil::Status $function$_region_generic(void *out, const void *in,
                const int *extents, const double *params, const void *const *fields,
                double *partials, const stencil::Region &region,
                stencil::Stream stream);
          )");
        continue;
      }
      if (launcher.kind == LauncherKind::LatticeFoldDot) {
        p.emit({{"function", launcher.function}, {"field", field}}, R"(
          /// CG's direction update folded into the stencil: next_direction =
          /// p' = in + beta direction (beta: device memory, where CG keeps
          /// its scalars), out = A p', and partials[b] = block b's share of
          /// p' . out (as apply_dot sums them); where `solution` is not null,
          /// also the last step's solution += alpha direction (*alpha: device
          /// memory) on the sites out gets. Five separate fields.
          stencil::Status $function$($field$ *out, $field$ *next_direction,
              const $field$ *in, const $field$ *direction, const double *beta,
              value_type *solution, const double *alpha, const Extents &extents,
              const Params &params, double *partials,
              stencil::Stream stream = nullptr);
          stencil::Status $function$_generic(void *out, void *next_direction,
              const void *in, const void *direction, const double *beta,
              void *solution, const double *alpha, const int *extents,
              const double *params, const void *const *fields,
              double *partials, stencil::Stream stream);
        )");
        continue;
      }
      if (launcher.kind == LauncherKind::Lattice) {
        if (launcher.region)
          p.emit({{"function", launcher.function}}, R"(
            /// $function$() on the tiles of `region` (stencil::DistributedInfo).
            stencil::Status $function$_region_generic(void *out, const void *in,
                const int *extents, const double *params, const void *const *fields,
                const stencil::Region &region, stencil::Stream stream);
          )");
        continue;
      }
      if (launcher.kind != LauncherKind::Hopping)
        continue;
      if (!hopping)
        p.emit({{"threads", std::to_string(launcher.threadsPerBlock)}}, R"(
          /// Even/odd storage: fields hold the even sites, then the odd sites
          /// (stencil/layout.hpp). The hopping kernels work on one parity's half of a
          /// field (nx * ny * ... * components / 2 values); site parameters stay
          /// whole-lattice arrays. With H the block of the neighbour taps from the
          /// input parity to the output parity and D the centre tap's coefficient on
          /// the output parity's sites:
          ///   kHop                 out = beta H in
          ///   kInverseDiagonalHop  out = beta D^-1 H in
          ///   kDiagonalPlusHop     out = alpha D same + beta H in
          /// even_to_odd reads even sites and writes odd ones, odd_to_even the
          /// reverse; threads cover one parity's sites only (hopping_threads per
          /// one-dimensional block), and the halo is never written.
          constexpr unsigned hopping_threads = $threads$;
        )");
      hopping = true;
      p.emit({{"summary", summaryComment(launcher)},
              {"function", launcher.function},
              {"field", field},
              {"region_default",
               launcher.region
                   ? ",\n    const stencil::Region &region = stencil::Region()"
                   : ""}},
             R"(
               $summary$
               stencil::Status $function$($field$ *out, const $field$ *in,
                   const $field$ *same, stencil::HopMode mode, double alpha,
                   double beta, const Extents &extents, const Params &params = Params(),
                   stencil::Stream stream = nullptr$region_default$);
               stencil::Status $function$_generic(void *out, const void *in,
                   const void *same, int mode, double alpha, double beta,
                   const int *extents, const double *params, const void *const *fields,
                   stencil::Stream stream);
             )");
      if (launcher.region)
        p.emit({{"function", launcher.function}}, R"(
          stencil::Status $function$_region_generic(void *out, const void *in,
              const void *same, int mode, double alpha, double beta,
              const int *extents, const double *params, const void *const *fields,
              const stencil::Region &region, stencil::Stream stream);
        )");
    }
  });
}

std::string printEvenOddTable(const std::vector<KernelPlan> &plans) {
  const KernelPlan *hop = findPlan(plans, KernelRole::Apply, Hop::EvenToOdd);
  if (!hop)
    return "";
  return "static constexpr stencil::EvenOddKernels even_odd_kernels = {\n"
         "    &even_to_odd_generic, &odd_to_even_generic,\n"
         "    &even_to_odd_adjoint_generic, &odd_to_even_adjoint_generic, " +
         std::to_string(hop->bytesPerSite()) + ", " +
         std::to_string(hop->flopsPerSite) + ", " +
         std::to_string(hop->threads.half.slab) + "};";
}

} // namespace stencilc
