//===- Schedule.cpp - The loads of one thread's tile, in order ------------===//
#include "plan/Schedule.h"

#include <algorithm>
#include <map>

namespace stencilc {

bool precedesInMemory(const Offset &a, const Offset &b) {
  for (int axis = kMaxDims - 1; axis >= 0; --axis)
    if (a[axis] != b[axis])
      return a[axis] < b[axis];
  return false;
}

namespace {

Offset shifted(const Offset &offset, int axis, int by) {
  Offset result = offset;
  result[axis] += by;
  return result;
}

/// The lattice offsets the tile reads, in the order the model asks for.
/// With `xWidth` > 1 each tile site stands for that many consecutive sites
/// along x.
std::vector<Offset> orderedLoadOffsets(const StencilModel &model,
                                       int factor, int xWidth) {
  const int axis = model.kernel.tileAxis;
  std::vector<Offset> order;
  std::map<Offset, bool> seen;
  auto visit = [&](const Offset &offset) {
    for (int lane = 0; lane < xWidth; ++lane)
      if (Offset at = shifted(offset, 0, lane); seen.emplace(at, true).second)
        order.push_back(at);
  };
  switch (model.kernel.loadOrder) {
  case LoadOrder::AsWritten:
    // Site by site, each site's taps as written: the lab note's kernel 2.
    for (int site = 0; site < factor; ++site)
      for (const Tap &tap : model.taps)
        visit(shifted(tap.offset, axis, site));
    break;
  case LoadOrder::Explicit:
    // Tap by tap in the given order, each across the whole tile.
    for (int tapIndex : model.kernel.tapOrder)
      for (int site = 0; site < factor; ++site)
        visit(shifted(model.taps[tapIndex].offset, axis, site));
    break;
  case LoadOrder::Ascending:
    // Every value once, by ascending address: the lab note's kernel 3.
    for (int site = 0; site < factor; ++site)
      for (const Tap &tap : model.taps)
        visit(shifted(tap.offset, axis, site));
    std::stable_sort(order.begin(), order.end(), precedesInMemory);
    break;
  }
  return order;
}

} // namespace

LoadSchedule scheduleLoads(const StencilModel &model, int factor, int width,
                           bool skipCentre) {
  const int axis = model.kernel.tileAxis;
  // Loads past the array's end are clamped along Dirichlet axes only.
  const bool dirichletTile = !model.wraps(axis);
  const bool dirichletX = !model.wraps(0);
  auto isCentre = [](const Offset &offset) { return offset == Offset{}; };
  // With x groups, the values of a row inside the thread's own group come
  // with one vector load (keyed by the row's x = 0 offset); the halo beside
  // the group comes value by value.
  auto inGroup = [&](const Offset &offset) {
    return width > 1 && offset[0] >= 0 && offset[0] < width;
  };
  auto loadKey = [&](const Offset &offset) {
    return inGroup(offset) ? shifted(offset, 0, -offset[0]) : offset;
  };

  LoadSchedule schedule;
  std::map<Offset, int> loadIndex;
  for (const Offset &offset : orderedLoadOffsets(model, factor, width)) {
    if (skipCentre && isCentre(offset))
      continue;
    Offset key = loadKey(offset);
    if (loadIndex.count(key))
      continue;
    PlannedLoad load;
    load.offset = key;
    load.clampTileAxis = dirichletTile && offset[axis] > model.reach[axis];
    load.width = inGroup(offset) ? width : 1;
    load.clampX = dirichletX && width > 1 && load.width == 1;
    loadIndex[key] = static_cast<int>(schedule.loads.size());
    schedule.loads.push_back(load);
  }

  // Each (site, tap) pair reads exactly one load; attach it to that load's
  // step so the value is consumed as soon as it arrives.
  schedule.steps.resize(schedule.loads.size());
  for (size_t i = 0; i < schedule.loads.size(); ++i)
    schedule.steps[i].load = static_cast<int>(i);
  for (int site = 0; site < factor; ++site)
    for (int lane = 0; lane < width; ++lane)
      for (size_t tap = 0; tap < model.taps.size(); ++tap) {
        if (skipCentre && isCentre(model.taps[tap].offset))
          continue;
        Offset at = shifted(shifted(model.taps[tap].offset, axis, site), 0,
                            lane);
        PlannedAccumulation acc;
        acc.site = site;
        acc.lane = lane;
        acc.tap = static_cast<int>(tap);
        acc.element = inGroup(at) ? at[0] : 0;
        schedule.steps[loadIndex.at(loadKey(at))].accumulations.push_back(acc);
      }
  std::vector<bool> started(factor * width, false);
  for (PlanStep &step : schedule.steps)
    for (PlannedAccumulation &acc : step.accumulations)
      if (int s = acc.site * width + acc.lane; !started[s])
        acc.first = started[s] = true;
  return schedule;
}

} // namespace stencilc
