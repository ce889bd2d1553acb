//===- Manifest.cpp - NAME.json: what was generated -----------------------===//
#include "emit/Manifest.h"

#include "emit/Emit.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace stencilc {

std::string printManifest(const StencilModel &model,
                          const std::vector<KernelPlan> &plans) {
  std::string text;
  raw_string_ostream os(text);
  json::OStream j(os, 2);
  auto offsetArray = [&](const Offset &offset) {
    j.array([&] {
      for (int axis = 0; axis < model.dims; ++axis)
        j.value(offset[axis]);
    });
  };
  j.object([&] {
    j.attribute("generator", "stencilc " + generatorVersion().str());
    j.attribute("name", model.name);
    j.attribute("description", model.description);
    j.attribute("spec", model.specFileName);
    // CMake compiles pregenerated sources only for the spec they came from.
    j.attribute("spec_sha256", model.specSha256);
    j.attributeObject("grid", [&] {
      j.attribute("dimensions", model.dims);
      j.attributeArray("axes", [&] {
        for (int axis = 0; axis < model.dims; ++axis)
          j.value(axisName(axis));
      });
      j.attribute("boundary", boundaryText(model));
      j.attributeArray("boundaries", [&] {
        for (int axis = 0; axis < model.dims; ++axis)
          j.value(boundaryName(model.boundaries[axis]));
      });
      j.attributeBegin("reach");
      offsetArray(model.reach);
      j.attributeEnd();
    });
    j.attributeObject("field", [&] {
      j.attribute("precision", precisionName(model.precision));
      j.attribute("type", model.complexValues ? "complex" : "real");
      if (!model.shape.empty())
        j.attributeArray("shape", [&] {
          for (int extent : model.shape)
            j.value(extent);
        });
      j.attribute("components", model.components);
      j.attribute("layout", layoutOrderName(model.layout.order));
      if (model.layout.order == LayoutOrder::Blocked)
        j.attribute("block", model.layout.block);
      if (model.layout.vector > 1)
        j.attribute("vector", model.layout.vector);
      if (model.layout.hasSubdomains())
        j.attributeArray("subdomain", [&] {
          for (int axis = 0; axis < model.dims; ++axis)
            j.value(model.layout.subdomain[axis]);
        });
      j.attribute("even_odd", model.layout.evenOdd);
    });
    if (model.hasLinkTaps())
      j.attributeObject("links", [&] {
        j.attribute("name", model.links.name);
        j.attribute("colours", model.links.colours);
        j.attribute("compression",
                    linkCompressionName(model.links.compression));
        j.attribute("layout", layoutOrderName(model.links.order));
        if (model.links.order == LayoutOrder::Blocked)
          j.attribute("block", model.links.block);
        if (model.links.vector > 1)
          j.attribute("vector", model.links.vector);
        j.attribute("reals_per_link", model.links.realsPerLink());
        j.attribute("bytes_per_site",
                    findPlan(plans, KernelRole::Apply)->linkBytesPerSite);
      });
    // inner_precision: the kernels of mixed-precision CG's inner iterations.
    if (model.hasInner)
      j.attributeObject("inner", [&] {
        j.attribute("precision", precisionName(model.innerPrecision));
        j.attribute("kernels", model.name + "_inner");
      });
    // grid.split: the axes a process grid may divide, and the kernels the
    // ranks run (docs/distributed.md).
    if (model.splittable())
      j.attributeObject("distributed", [&] {
        j.attributeArray("split", [&] {
          for (int axis = 0; axis < model.dims; ++axis)
            if (model.split[axis])
              j.value(axisName(axis));
        });
        j.attribute("rank_kernels", model.splitAxisWraps()
                                        ? splitKernelsModel(model).name
                                        : model.name);
        j.attributeObject("exchange", [&] {
          j.attribute("transport",
                      exchangeTransportName(model.exchange.transport));
          j.attribute("overlap", model.exchange.overlap);
        });
      });
    if (model.hasCloverTap())
      j.attributeObject("clover", [&] {
        j.attribute("name", model.clover.name);
        j.attribute("csw", coefficientText(model, model.clover.csw));
        j.attribute("layout", layoutOrderName(model.clover.order));
        if (model.clover.order == LayoutOrder::Blocked)
          j.attribute("block", model.clover.block);
        if (model.clover.vector > 1)
          j.attribute("vector", model.clover.vector);
        j.attribute("reals_per_site", model.cloverComponents());
        j.attribute("clover_kernel", hasCloverKernel(model));
      });
    j.attributeArray("parameters", [&] {
      for (const Parameter &param : model.parameters)
        j.object([&] {
          j.attribute("name", param.name);
          if (param.site)
            j.attribute("kind", "site");
          else
            j.attribute("default", param.defaultValue);
          if (param.complex)
            j.attribute("type", "complex");
        });
    });
    j.attributeArray("taps", [&] {
      for (const Tap &tap : model.taps)
        j.object([&] {
          j.attributeBegin("offset");
          offsetArray(tap.offset);
          j.attributeEnd();
          j.attribute("coefficient", coefficientText(model, tap.coefficient));
          if (tap.link) {
            const std::string mu = axisName(linkAxis(tap));
            // The site is s, the direction's unit vector e_x, ...
            j.attribute("link", model.links.name + "_" + mu +
                                    (isForwardLink(tap)
                                         ? "(s)"
                                         : "(s - e_" + mu + ")^dagger"));
            if (tap.spin)
              j.attribute("spin_projector", spinProjectorText(tap));
          }
          if (tap.clover)
            j.attribute("clover", model.clover.name);
        });
    });
    j.attribute("solver", solverName(model.solver));
    j.attribute("symmetric", findPlan(plans, KernelRole::Adjoint) == nullptr);
    j.attributeArray("kernels", [&] {
      for (const KernelPlan &plan : plans)
      j.object([&] {
        const KernelOptions &k = model.kernel;
        j.attribute("name", plan.kernelName);
        j.attribute("role",
                    plan.role == KernelRole::Adjoint ? "adjoint" : "apply");
        if (plan.hop != Hop::None)
          j.attribute("hop", hopName(plan.hop));
        j.attributeArray("block", [&] {
          for (int axis = 0; axis < model.dims; ++axis)
            j.value(k.block[axis]);
        });
        j.attribute("launch_bounds", k.launchBounds);
        if (k.minBlocksPerSm)
          j.attribute("min_blocks_per_sm", k.minBlocksPerSm);
        if (plan.threads.kind == ThreadMappingKind::HalfLattice)
          j.attribute("slab", plan.threads.half.walksSlabs()
                                  ? slabText(plan.threads.half.slab)
                                  : std::string("1"));
        j.attributeObject("tile", [&] {
          j.attribute("axis", axisName(k.tileAxis));
          j.attribute("factor", k.tileFactor);
        });
        j.attribute("load_order", k.loadOrder == LoadOrder::Explicit
                                      ? k.loadOrderText
                                      : loadOrderName(k.loadOrder));
        j.attribute("nontemporal_store", k.nontemporalStore);
        if (k.march) // only where set: the other manifests stay as they were
          j.attribute("march", true);
        j.attribute("vector_width", k.vectorWidth);
        j.attribute("components_per_thread", model.componentsPerThread());
        j.attribute("loads_per_tile", plan.loadsPerTile());
        j.attribute("stores_per_tile", plan.storesPerTile());
        j.attribute("loads_per_site", plan.loadsPerSite());
        if (plan.hasLinks) {
          j.attribute("links_per_tile", static_cast<int>(plan.links.size()));
          j.attribute("link_bytes_per_site", plan.linkBytesPerSite);
        }
        j.attribute("bytes_read_per_site", plan.bytesReadPerSite);
        j.attribute("bytes_written_per_site", plan.bytesWrittenPerSite);
        j.attribute("bytes_per_site", plan.bytesPerSite());
        j.attribute("flops_per_site", plan.flopsPerSite);
        j.attribute("arithmetic_intensity", plan.arithmeticIntensity());
      });
    });
    j.attributeArray("files", [&] {
      j.value(model.name + ".hip");
      j.value(model.name + ".hpp");
    });
  });
  os << "\n";
  os.flush();
  return text;
}

} // namespace stencilc
