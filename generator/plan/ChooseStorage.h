//===- ChooseStorage.h - The planner's choice of open storage ---*- C++ -*-===//
//
// Where a spec leaves the storage of an even/odd field, of its links or of
// its clover term open, the planner chooses it before the kernel options
// (chooseOpenOptions, ChooseOptions.h): the field's by the cost model, the
// links' and clover term's by a rule measured on an H200. Each choice
// returns the notes `stencilc plan` prints.
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_CHOOSESTORAGE_H
#define STENCILC_PLAN_CHOOSESTORAGE_H

#include "check/Model.h"

#include <optional>
#include <vector>

namespace stencilc {

/// An even/odd field of several values a site whose spec writes no
/// field.layout: site-major (aos), or each half component-major with groups
/// of 2 or 4 values a load ({order: soa, vector: V}; no lattice constraint,
/// unlike blocks of sites), whichever the first known device's cost model
/// predicts fastest for the hops (and the inner precision's, which share
/// the storage), aos unless another predicts 3% less time. Sets
/// model.layout and returns the note `stencilc plan` prints; none where
/// the storage is not open.
std::optional<KernelOptionNote> chooseFieldLayout(StencilModel &model);

/// Links and a clover term whose spec writes no layout: one array per real
/// ('soa'), links in pairs of reals a load, the clover term in 16-byte
/// loads (QUDA's float2/float4 order without its blocks of sites, which ask
/// the lattice for a multiple of their sites). A rule, measured on the
/// H200 (docs/performance.md, "Links and clover stored by the planner");
/// the cost model does not see the caches' waste of site-major matrices.
/// One choice for every GPU; an inner precision's kernels share it. Sets
/// model.links and model.clover and returns the notes `stencilc plan`
/// prints, none where nothing is open.
std::vector<KernelOptionNote> chooseLinkStorage(StencilModel &model);

} // namespace stencilc

#endif
