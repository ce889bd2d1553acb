//===- Schedule.h - The loads of one thread's tile, in order ---*- C++ -*-===//
//
// Internal to generator/plan. A thread updates a tile of `factor` sites
// along the tile axis, each standing for `xWidth` aligned sites along x.
// The schedule loads every lattice value the tile needs once, in the
// model's load order, and attaches each (site, lane, tap) product to the
// load that brings its value, so that a loaded value is dead after its
// step (the AMD lab note's register reuse).
//
//===----------------------------------------------------------------------===//
#ifndef STENCILC_PLAN_SCHEDULE_H
#define STENCILC_PLAN_SCHEDULE_H

#include "plan/Plan.h"

namespace stencilc {

struct LoadSchedule {
  std::vector<PlannedLoad> loads;
  std::vector<PlanStep> steps; ///< accumulations without weights
};

/// The schedule of `model`'s taps over a tile of `factor` x `xWidth`
/// sites; `skipCentre` leaves the (0, ..., 0) tap out (hopping kernels).
LoadSchedule scheduleLoads(const StencilModel &model, int factor, int xWidth,
                           bool skipCentre);

/// Coordinates of the (axis, delta) rows that `offsets` touch, for the
/// indexings that compute addresses from coordinates (Plan.cpp). With
/// groups of `xWidth` sites along x, x + 1 .. x + xWidth - 1 stay inside
/// the thread's aligned group and never wrap.
std::vector<Coordinate>
neighbourCoordinates(const StencilModel &model,
                     const std::vector<Offset> &offsets, int tileAxis,
                     int xWidth = 1);

} // namespace stencilc

#endif
