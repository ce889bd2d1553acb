//===- BoxCopyPrinter.cpp - The halo exchange's box copies -----------------===//
#include "emit/BoxCopyPrinter.h"

#include "emit/CodePrinter.h"
#include "emit/EmitText.h"

namespace stencilc {

std::string printBoxCopyKernels(const std::vector<BoxCopyPlan> &plans) {
  std::vector<std::string> kernels;
  for (const BoxCopyPlan &plan : plans)
    kernels.push_back(printed([&](CodePrinter &p) {
      p.emit({{"kernel", plan.kernelName},
              {"arrays", plan.arrays},
              {"layout", layoutInitializer(plan.layout)},
              {"order", orderDescription(plan.layout)},
              {"threads", std::to_string(plan.threadsPerBlock)}},
             R"(
               /// The halo exchange's box copy for $arrays$ ($order$): one thread per
               /// real of the box (stencil/box_copy.hpp).
               STENCIL_GLOBAL void $kernel$(
                   value_type *STENCIL_RESTRICT field,
                   value_type *STENCIL_RESTRICT buffer,
                   const stencil::BoxCopyArgs args) {
                 constexpr stencil::Layout layout = $layout$;
                 const std::int64_t i =
                     static_cast<std::int64_t>(blockIdx.x) * $threads$ + threadIdx.x;
                 if (i < stencil::box_copy_elements(args))
                   stencil::copy_box_element(layout, field, buffer, args, i);
               }
             )");
    }));
  return join(kernels, "\n\n");
}

std::string printBoxCopyLaunchers(const StencilModel &model,
                                  const std::vector<BoxCopyPlan> &plans) {
  std::vector<std::string> launchers;
  for (const BoxCopyPlan &plan : plans)
    launchers.push_back(printed([&](CodePrinter &p) {
      p.emit({{"kernel", plan.kernelName},
              {"function", plan.function},
              {"model", model.name},
              {"arrays", plan.arrays},
              {"threads", std::to_string(plan.threadsPerBlock)}},
             R"(
               /// Copies a box of the sites of $arrays$ to or from a contiguous
               /// buffer, from another box of the array, or zeroes it
               /// (stencil::BoxCopyArgs, from stencil::prepare_box): the halo
               /// exchange's pack and unpack.
               stencil::Status $function$(void *field, void *buffer,
                                          const stencil::BoxCopyArgs &args,
                                          stencil::Stream stream) {
                 const bool buffered = args.direction == stencil::kPackBox ||
                                       args.direction == stencil::kUnpackBox;
                 if (field == nullptr || (buffer == nullptr && buffered))
                   return stencil::Status::failure("$model$: $function$: null pointer");
                 const std::int64_t elements = stencil::box_copy_elements(args);
                 if (elements <= 0)
                   return stencil::Status();
                 if ((elements + $threads$ - 1) / $threads$ >= (std::int64_t{1} << 31))
                   return stencil::Status::failure(
                       "$model$: $function$: " + std::to_string(elements) +
                       " reals exceed one launch");
                 stencil::LaunchConfig config;
                 config.block.x = $threads$u;
                 config.grid.x = static_cast<unsigned>((elements + $threads$ - 1) / $threads$);
                 STENCIL_LAUNCH($kernel$, config.grid, config.block, stream,
                     static_cast<value_type *>(field),
                     static_cast<value_type *>(buffer), args);
                 return stencil::launch_status("$kernel$");
               }
             )");
    }));
  return join(launchers, "\n\n");
}

std::string printBoxCopyDeclarations(const std::vector<BoxCopyPlan> &plans) {
  std::vector<std::string> declarations;
  for (const BoxCopyPlan &plan : plans)
    declarations.push_back(
        "/// The halo exchange's box copy for " + plan.arrays +
        " (stencil::BoxCopy).\nstencil::Status " + plan.function +
        "(void *field, void *buffer, const stencil::BoxCopyArgs &args,\n"
        "    stencil::Stream stream);");
  return join(declarations, "\n");
}

} // namespace stencilc
