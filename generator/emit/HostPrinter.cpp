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
      args.push_back(param.name);
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
    }
  return join(args, ",\n");
}

/// Site-parameter arrays present and apart from `out` (a hopping kernel's
/// `out` is one half; the arrays are whole); fields aligned for vector
/// accesses.
std::string argumentChecks(const StencilModel &model,
                           const LauncherPlan &launcher,
                           const LauncherText &text) {
  const bool hopping = launcher.kind == LauncherKind::Hopping;
  std::string checks = printed([&](CodePrinter &p) {
    for (const LauncherPlan::SiteArray &array : launcher.siteArrays)
      p.emit({{"model", model.name},
              {"param", array.name},
              {"out", hopping ? "out, values" : "out"},
              {"sites", array.realsPerSite == 1
                            ? text.siteCount
                            : std::to_string(array.realsPerSite) + " * " +
                                  text.siteCount}},
             R"(
               if (params.$param$ == nullptr)
                 return stencil::Status::failure("$model$: site parameter '$param$' has no array");
               if (overlaps($out$, params.$param$, $sites$))
                 return stencil::Status::failure("$model$: 'out' overlaps site parameter '$param$'");
             )");
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
    if (launcher.alignmentBytes > 0)
      p.emit({{"model", model.name},
              {"bytes", std::to_string(launcher.alignmentBytes)},
              {"width", std::to_string(launcher.vectorWidth)}},
             R"(
               if (!stencil::is_aligned(out, $bytes$) || !stencil::is_aligned(in, $bytes$))
                 return stencil::Status::failure("$model$: 'out' and 'in' must be aligned to $bytes$ bytes for the $bytes$-byte accesses of kernel.vector_width $width$");
             )");
  });
  return checks;
}

/// For stencils with links: the link array's own layout must fit the
/// extents too (blocks of sites), checked after the field's.
std::string linkLayoutCheck(const StencilModel &model) {
  if (!model.hasLinkTaps())
    return "";
  return "if (status.ok()) {\n"
         "  status = stencil::check_layout(info().links->layout, dims, n, "
         "boundary);\n"
         "  if (!status.ok())\n"
         "    status = stencil::Status::failure(\"link field '" +
         model.links.name + "': \" + status.message());\n}";
}

std::string summaryComment(const LauncherPlan &launcher) {
  return printed([&](CodePrinter &p) {
    wrappedComment(p, "///", launcher.summary);
  });
}

void latticeLauncher(CodePrinter &p, const StencilModel &model,
                     const LauncherPlan &launcher, const LauncherText &text) {
  const bool dot = launcher.kind == LauncherKind::LatticeDot;
  CodePrinter::Vars vars = {
      {"summary", summaryComment(launcher)},
      {"function", launcher.function},
      {"model", model.name},
      {"kernel", launcher.kernelName},
      {"extent_list", text.extentList},
      {"value_count", text.valueCount},
      {"checks", argumentChecks(model, launcher, text)},
      {"args", launchArguments(launcher)},
      {"typed", text.typedArguments},
      {"partials", dot ? "double *partials, " : ""},
      {"partials_arg", dot ? "partials, " : ""},
      {"partials_null", dot ? " || partials == nullptr" : ""},
      {"link_layout_check", linkLayoutCheck(model)},
  };
  p.emit(vars, R"(
    $summary$
    stencil::Status $function$(value_type *out, const value_type *in,
        const Extents &extents, const Params &params, $partials$stencil::Stream stream) {
      (void)params; // unused when the spec declares no parameters
      const int n[stencil::kMaxDims] = $extent_list$;
      stencil::LaunchConfig config;
      stencil::Status status = stencil::make_launch_config(shape(), n, config);
      if (status.ok())
        status = stencil::check_layout(layout(), dims, n, boundary);
      $link_layout_check$
      if (!status.ok())
        return stencil::Status::failure("$model$: " + status.message());
      if (out == nullptr || in == nullptr$partials_null$)
        return stencil::Status::failure("$model$: null field pointer");
      const std::int64_t values = $value_count$;
      if (overlaps(out, in, values))
        return stencil::Status::failure(
            "$model$: 'out' and 'in' overlap; the kernel cannot run in place");
      $checks$
      if (config.empty)
        return status;
      STENCIL_LAUNCH($kernel$, config.grid, config.block, stream,
          $args$);
      return stencil::launch_status("$kernel$");
    }

    stencil::Status $function$_generic(void *out, const void *in,
        const int *extents, const double *params, const void *const *fields,
        $partials$stencil::Stream stream) {
      $typed$
      return $function$(static_cast<value_type *>(out),
          static_cast<const value_type *>(in), typed_extents, typed_params,
          $partials_arg$stream);
    }
  )");
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
      {"half_value_count", text.valueCount + " / 2"},
      {"checks", argumentChecks(model, launcher, text)},
      {"args", launchArguments(launcher)},
      {"typed", text.typedArguments},
  };
  p.emit(vars, R"(
    $summary$
    stencil::Status $function$(value_type *out, const value_type *in,
        const value_type *same, stencil::HopMode mode, double alpha,
        double beta, const Extents &extents, const Params &params,
        stencil::Stream stream) {
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
      config.grid.x = static_cast<unsigned>((half_sites + $threads$ - 1) / $threads$);
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
      return $function$(static_cast<value_type *>(out),
          static_cast<const value_type *>(in),
          static_cast<const value_type *>(same),
          static_cast<stencil::HopMode>(mode), alpha, beta, typed_extents,
          typed_params, stream);
    }
  )");
}

} // namespace

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
      else
        latticeLauncher(p, model, launcher, text);
    }
  });
}

std::string printExtraDeclarations(const std::vector<LauncherPlan> &launchers) {
  return printed([&](CodePrinter &p) {
    bool hopping = false;
    for (const LauncherPlan &launcher : launchers) {
      if (launcher.kind == LauncherKind::LatticeDot) {
        p.emit({{"function", launcher.function}}, R"(
          /// out = A in, fused with in . out for CG: partials[b] receives block b's
          /// share (device memory, one double per block of the launch grid:
          /// grid.x * grid.y * grid.z of make_launch_config; the caller adds them).
          stencil::Status $function$(value_type *out, const value_type *in,
              const Extents &extents, const Params &params, double *partials,
              stencil::Stream stream = nullptr);
          stencil::Status $function$_generic(void *out, const void *in,
              const int *extents, const double *params, const void *const *fields,
              double *partials, stencil::Stream stream);
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
              {"function", launcher.function}},
             R"(
               $summary$
               stencil::Status $function$(value_type *out, const value_type *in,
                   const value_type *same, stencil::HopMode mode, double alpha,
                   double beta, const Extents &extents, const Params &params = Params(),
                   stencil::Stream stream = nullptr);
               stencil::Status $function$_generic(void *out, const void *in,
                   const void *same, int mode, double alpha, double beta,
                   const int *extents, const double *params, const void *const *fields,
                   stencil::Stream stream);
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
         std::to_string(hop->flopsPerSite) + "};";
}

} // namespace stencilc
