//===- PlanJson.cpp - `stencilc plan --format json` -----------------------===//
//
// Every node of each plan, for tools and tests; the schema is described in
// docs/design.md.
//
//===----------------------------------------------------------------------===//
#include "plan/MarchRules.h"
#include "plan/Plan.h"

#include "llvm/Support/JSON.h"

using namespace llvm;

namespace stencilc {

namespace {

void offsetValue(json::OStream &j, const Offset &offset, int dims) {
  j.array([&] {
    for (int axis = 0; axis < dims; ++axis)
      j.value(offset[axis]);
  });
}

void linearForm(json::OStream &j, const LinearForm &form) {
  j.object([&] {
    j.attribute("text", linearFormSpelling(form));
    j.attribute("constant", form.constant);
    j.attributeArray("terms", [&] {
      for (const auto &[name, factor] : form.terms)
        j.object([&] {
          j.attribute("parameter", name);
          j.attribute("factor", factor);
        });
    });
  });
}

void threads(json::OStream &j, const ThreadMapping &t) {
  // A site's split: the whole-lattice mapping always names its groups, the
  // half-lattice one only when a site is split.
  auto shares = [&](const ComponentShares &s, bool always) {
    if (!always && !s.split())
      return;
    j.attribute("component_groups", s.groups);
    j.attribute("components_per_thread", s.perThread);
    if (s.split())
      j.attribute("share_order", s.byLane() ? "lane" : "block");
  };
  j.object([&] {
    if (t.kind == ThreadMappingKind::HalfLattice) {
      j.attribute("kind", "half-lattice");
      j.attribute("parity", t.half.parity);
      j.attribute("threads_per_block", t.half.threadsPerBlock);
      // "storage" order, or the slab walk's slices: "auto" or a number.
      j.attribute("walk", t.half.walksSlabs() ? slabText(t.half.slab)
                                              : std::string("storage"));
      shares(t.half.shares, /*always=*/false);
      return;
    }
    if (t.kind == ThreadMappingKind::BothHalves) {
      j.attribute("kind", "both-halves");
      j.attribute("threads_per_block", t.half.threadsPerBlock);
      shares(t.half.shares, /*always=*/false);
      return;
    }
    j.attribute("kind", "lattice");
    auto perAxis = [&](const char *name, const std::array<int, kMaxDims> &v) {
      j.attributeArray(name, [&] {
        for (int axis = 0; axis < t.dims; ++axis)
          j.value(v[axis]);
      });
    };
    perAxis("block", t.lattice.block);
    perAxis("origin", t.lattice.origin);
    perAxis("sites_per_thread", t.lattice.sitesPerThread);
    j.attribute("z_shares_with_t", t.lattice.zSharesWithT);
    shares(t.lattice.shares, /*always=*/true);
  });
}

void guard(json::OStream &j, const KernelPlan &plan) {
  j.object([&] {
    j.attribute("kind", plan.guard.kind == GuardKind::EarlyReturn
                            ? "early-return"
                            : "predicate");
    j.attributeArray("axes", [&] {
      for (int axis = 0; axis < plan.threads.dims; ++axis) {
        const AxisBounds &b = plan.guard.axes[axis];
        j.object([&] {
          j.attribute("axis", axisName(axis));
          if (b.hasLower)
            j.attribute("lower", b.lower);
          if (b.hasUpper)
            j.attribute("upper", b.upper);
        });
      }
    });
    // The ranks' kernels: the tile, per axis, that a region takes whole.
    if (plan.guard.region)
      j.attributeArray("region_span", [&] {
        for (int axis = 0; axis < plan.threads.dims; ++axis)
          j.value(plan.guard.regionSpan[axis]);
      });
  });
}

void indexing(json::OStream &j, const SiteIndexing &ix) {
  j.object([&] {
    j.attribute("kind", siteIndexingName(ix.kind));
    j.attribute("layout", layoutOrderName(ix.layout.order));
    if (ix.layout.order == LayoutOrder::Blocked)
      j.attribute("block", ix.layout.block);
    if (ix.layout.vector > 1)
      j.attribute("vector", ix.layout.vector);
    j.attribute("even_odd", ix.layout.evenOdd);
    j.attribute("site_count", ix.declaresSiteCount);
    j.attribute("half_site_count", ix.declaresHalfSiteCount);
    if (ix.declaresRoom)
      j.attribute("room_axis", axisName(ix.roomAxis));
    j.attribute("x_room", ix.declaresXRoom);
    j.attributeArray("coordinates", [&] {
      for (const Coordinate &c : ix.coordinates)
        j.object([&] {
          j.attribute("axis", axisName(c.axis));
          j.attribute("delta", c.delta);
          j.attribute("kind", coordinateKindName(c.kind));
          j.attribute("flips_sign", c.flipsSign);
        });
    });
  });
}

/// The tap weights and the per-site weights.
void weights(json::OStream &j, const KernelPlan &p) {
  const int dims = p.threads.dims;
  j.attributeArray("weights", [&] {
    for (const Weight &w : p.weights)
      j.object([&] {
        j.attribute("name", w.name);
        j.attributeBegin("value");
        linearForm(j, w.value);
        j.attributeEnd();
      });
  });
  j.attributeArray("site_weights", [&] {
    for (const SiteWeight &w : p.siteWeights)
      j.object([&] {
        j.attribute("name", w.name);
        if (!w.base.empty())
          j.attribute("base", w.base);
        else {
          j.attributeBegin("value");
          linearForm(j, w.value);
          j.attributeEnd();
        }
        j.attributeArray("site_terms", [&] {
          for (const SiteTerm &term : w.terms)
            j.object([&] {
              j.attribute("parameter", term.name);
              j.attribute("factor", term.factor);
              j.attributeBegin("at");
              offsetValue(j, term.at.offset, dims);
              j.attributeEnd();
              if (term.at.clampTileAxis)
                j.attribute("clamp_tile_axis", true);
              if (term.at.clampX)
                j.attribute("clamp_x", true);
              if (term.complex)
                j.attribute("complex", true);
              if (term.conjugate)
                j.attribute("conjugate", true);
              if (term.at.oddHalf)
                j.attribute("odd_half", true);
            });
        });
      });
  });
}

/// The link array and the links the tile reads.
void links(json::OStream &j, const KernelPlan &p) {
  if (!p.hasLinks)
    return;
  const LinkStorage &l = p.linkStorage;
  j.attributeObject("link_storage", [&] {
    j.attribute("name", l.name);
    j.attribute("colours", l.colours);
    j.attribute("reals_per_link", l.realsPerLink);
    j.attribute("compressed", l.compressed);
    j.attribute("order", layoutOrderName(l.layout.order));
    if (l.layout.order == LayoutOrder::Blocked)
      j.attribute("block", l.layout.block);
    j.attribute("reals_per_load", l.layout.vector);
    j.attribute("even_odd", l.layout.evenOdd);
    j.attribute("colour_vectors", l.colourVectors);
  });
  j.attributeArray("links", [&] {
    for (const PlannedLink &link : p.links)
      j.object([&] {
        j.attribute("axis", axisName(link.axis));
        j.attributeBegin("at");
        offsetValue(j, link.at.offset, p.threads.dims);
        j.attributeEnd();
        if (link.at.clampTileAxis)
          j.attribute("clamp_tile_axis", true);
        if (link.at.oddHalf)
          j.attribute("odd_half", true);
      });
  });
}

/// The clover array and the sites whose clover term the tile reads.
void clovers(json::OStream &j, const KernelPlan &p) {
  if (!p.hasClover)
    return;
  const CloverStorage &c = p.cloverStorage;
  j.attributeObject("clover_storage", [&] {
    j.attribute("name", c.name);
    j.attribute("colours", c.colours);
    j.attribute("reals_per_site", c.reals);
    j.attribute("order", layoutOrderName(c.layout.order));
    if (c.layout.order == LayoutOrder::Blocked)
      j.attribute("block", c.layout.block);
    j.attribute("reals_per_load", c.layout.vector);
    j.attribute("even_odd", c.layout.evenOdd);
  });
  j.attributeArray("clovers", [&] {
    for (const PlannedClover &clover : p.clovers)
      j.object([&] {
        j.attributeBegin("at");
        offsetValue(j, clover.at.offset, p.threads.dims);
        j.attributeEnd();
      });
  });
}

/// The SharedStaging node (present only in staged plans).
void staging(json::OStream &j, const SharedStaging &s) {
  j.attributeObject("staging", [&] {
    j.attribute("array", s.array);
    j.attributeArray("axes", [&] {
      for (int axis = 0; axis < s.dims; ++axis)
        j.object([&] {
          const StagingAxis &a = s.axes[axis];
          j.attribute("axis", axisName(axis));
          j.attribute("threads", a.threads);
          j.attribute("sites_per_thread", a.sitesPerThread);
          j.attribute("below", a.below);
          j.attribute("above", a.above);
          j.attribute("extent", a.extent());
          j.attribute("edge", stagingEdgeName(a.edge));
        });
    });
    j.attribute("components", s.components);
    j.attribute("field_components", s.fieldComponents);
    j.attribute("split", s.split);
    j.attribute("order", stagingOrderName(s.order));
    j.attribute("address", stagingAddressName(s.address));
    j.attribute("folds_direction", s.foldsDirection);
    j.attribute("threads_per_block", s.threadsPerBlock);
    j.attribute("sites", static_cast<int64_t>(s.sites()));
    j.attribute("elements", static_cast<int64_t>(s.elements()));
    j.attribute("bytes", static_cast<int64_t>(s.bytes()));
    j.attribute("stage_phase", s.stagePhase);
    j.attribute("compute_phase", s.computePhase);
  });
}

/// Each load with its accumulations.
void program(json::OStream &j, const KernelPlan &p) {
  const int dims = p.threads.dims;
  j.attributeArray("program", [&] {
    for (const PlanStep &step : p.steps) {
      const PlannedLoad &load = p.loads[step.load];
      j.object([&] {
        j.attribute("load", step.load);
        j.attributeBegin("offset");
        offsetValue(j, load.offset, dims);
        j.attributeEnd();
        j.attribute("width", load.width);
        j.attribute("clamp_tile_axis", load.clampTileAxis);
        j.attribute("clamp_x", load.clampX);
        if (load.source == LoadSource::SharedBox)
          j.attribute("source", "shared_box");
        j.attributeArray("sign_axes", [&] {
          for (int axis : load.signAxes)
            j.value(axisName(axis));
        });
        if (!step.links.empty())
          j.attributeArray("reads_links", [&] {
            for (int link : step.links)
              j.value(link);
          });
        j.attributeArray("accumulations", [&] {
          for (const PlannedAccumulation &acc : step.accumulations)
            j.object([&] {
              j.attribute("site", acc.site);
              j.attribute("lane", acc.lane);
              j.attribute("element", acc.element);
              j.attribute("tap", acc.tap);
              j.attribute("weight", acc.weight);
              j.attribute("first", acc.first);
              if (acc.complexWeight)
                j.attribute("complex_weight", true);
              if (acc.clover >= 0)
                j.attribute("clover", acc.clover);
              if (acc.link >= 0) {
                j.attribute("link", acc.link);
                j.attribute("dagger", acc.dagger);
                if (acc.spin)
                  j.attribute("spin_projector",
                              std::string(acc.spin < 0 ? "1 - gamma_"
                                                       : "1 + gamma_") +
                                  axisName(acc.spinAxis));
              }
            });
        });
      });
    }
  });
}

/// The store kind and each store.
void stores(json::OStream &j, const KernelPlan &p) {
  const int dims = p.threads.dims;
  j.attribute("store_kind", p.storeKind == StoreKind::NonTemporal
                                ? "non-temporal"
                                : "regular");
  j.attributeArray("stores", [&] {
    for (const PlannedStore &store : p.stores)
      j.object([&] {
        j.attribute("site", store.site);
        j.attributeBegin("offset");
        offsetValue(j, store.offset, dims);
        j.attributeEnd();
        if (store.guarded) {
          j.attribute("guard_axis", axisName(store.guardAxis));
          j.attribute("guard_upper", store.guardUpper);
        }
        j.attribute("value", store.value == StoredValue::Accumulator
                                 ? "accumulator"
                                 : "hop-result");
        j.attribute("adds_dot", store.addsDot);
      });
  });
}

void plan(json::OStream &j, const KernelPlan &p) {
  j.object([&] {
    j.attribute("name", p.kernelName);
    j.attribute("role", p.role == KernelRole::Adjoint ? "adjoint" : "apply");
    if (p.hop != Hop::None)
      j.attribute("hop", hopName(p.hop));
    j.attribute("comment", p.comment);
    j.attribute("launch_bounds", p.launchBounds);
    if (p.minBlocksPerSm)
      j.attribute("min_blocks_per_sm", p.minBlocksPerSm);
    j.attributeArray("parameters", [&] {
      for (const KernelParameter &param : p.parameters)
        j.object([&] {
          j.attribute("name", param.name);
          j.attribute("kind", parameterKindName(param.kind));
        });
    });
    j.attributeBegin("threads");
    threads(j, p.threads);
    j.attributeEnd();
    j.attributeBegin("guard");
    guard(j, p);
    j.attributeEnd();
    j.attributeBegin("indexing");
    indexing(j, p.indexing);
    j.attributeEnd();
    j.attributeObject("tile", [&] {
      j.attribute("axis", axisName(p.tileAxis));
      j.attribute("factor", p.tileFactor);
      j.attribute("x_width", p.xWidth);
      if (p.march) // the ring's factor; only where set
        j.attribute("march", true);
      if (p.gathersPlane)
        j.attribute("gathers_plane", true);
      if (p.gathersRows)
        j.attribute("gathers_rows", true);
    });
    j.attributeObject("access", [&] {
      j.attribute("kind", accessKindName(p.access.kind));
      j.attribute("components", p.access.components);
      j.attribute("per_thread", p.access.perThread);
      j.attribute("split", p.access.split);
      j.attribute("width", p.access.width);
    });
    if (p.staging)
      staging(j, *p.staging);
    weights(j, p);
    links(j, p);
    clovers(j, p);
    j.attributeObject("accumulators", [&] {
      j.attribute("sites", p.accumulators.sites);
      j.attribute("values_per_site", p.accumulators.valuesPerSite);
      j.attribute("vector_width", p.accumulators.vectorWidth);
    });
    program(j, p);
    stores(j, p);
    j.attribute("epilogue", epilogueName(p.epilogue));
    j.attribute("loads_per_tile", p.loadsPerTile());
    j.attribute("stores_per_tile", p.storesPerTile());
    j.attribute("bytes_read_per_site", p.bytesReadPerSite);
    j.attribute("bytes_written_per_site", p.bytesWrittenPerSite);
    j.attribute("flops_per_site", p.flopsPerSite);
    if (p.hasLinks)
      j.attribute("link_bytes_per_site", p.linkBytesPerSite);
  });
}

} // namespace

void printPlansJson(
    const std::vector<std::pair<StencilModel, std::vector<KernelPlan>>> &specs,
    raw_ostream &os, const std::vector<std::vector<DeviceChoice>> &otherDevices) {
  json::OStream j(os, 2);
  j.object([&] {
    j.attributeArray("stencils", [&] {
      for (size_t index = 0; index < specs.size(); ++index)
        j.object([&, &model = specs[index].first,
                  &plans = specs[index].second] {
          j.attribute("name", model.name);
          j.attribute("spec", model.specFileName);
          j.attributeArray("options", [&] {
            for (const KernelOptionNote &note : model.optionNotes)
              j.object([&] {
                j.attribute("option", note.option);
                j.attribute("value", note.value);
                j.attribute("source", note.written ? "spec" : "planner");
                if (!note.reason.empty())
                  j.attribute("reason", note.reason);
              });
          });
          // The planner's second kernels, for nx a multiple of their width.
          // And for CG's fold pass alone, for nx a multiple of theirs.
          auto options = [&](const StencilModel &variant) {
            j.attribute("block", blockShapeText(variant));
            j.attribute("tile_axis", axisName(variant.kernel.tileAxis));
            j.attribute("tile_factor", variant.kernel.tileFactor);
            j.attribute("vector_width", variant.kernel.vectorWidth);
          };
          // (The large lattices' kernels also name their share of the L2.)
          auto second = [&](const char *key, const StencilModel &variant,
                            int l2Percent = 0) {
            j.attributeObject(key, [&] {
              j.attribute("name", variant.name);
              j.attribute("nx_multiple_of", variant.sitesPerThreadX());
              if (l2Percent > 0)
                j.attribute("l2_percent", l2Percent);
              options(variant);
            });
          };
          if (model.largeAlongX)
            second("large_lattices", largeAlongXVariantModel(model),
                   kRowMarchL2Percent);
          if (model.alongX)
            second("along_x", alongXVariantModel(model));
          if (model.foldPass)
            second("fold_pass", foldPassVariantModel(model));
          // Other GPUs' kernels, compiled beside the spec's: a row each.
          if (index < otherDevices.size() && !otherDevices[index].empty())
            j.attributeArray("other_devices", [&] {
              for (const DeviceChoice &choice : otherDevices[index])
                for (const DeviceChoice::Row &row : choice.rows)
                  j.object([&] {
                    j.attribute("device", choice.device);
                    j.attribute("name", row.model.name);
                    j.attribute("nx_multiple_of", row.nxMultiple);
                    j.attribute("fold_pass", row.foldPass);
                    j.attribute("l2_percent", row.l2Percent);
                    options(row.model);
                  });
            });
          j.attributeArray("kernels", [&] {
            for (const KernelPlan &p : plans)
              plan(j, p);
          });
        });
    });
  });
  os << "\n";
}

} // namespace stencilc
