// stencil/scatter.hpp - whole fields to and from the ranks of a distributed
// operator (StencilOperator::create_distributed), so that a distributed run
// takes the same inputs as a single-rank one and its results can be
// compared with it.
#ifndef STENCIL_SCATTER_HPP
#define STENCIL_SCATTER_HPP

#include "stencil/comm.hpp"
#include "stencil/field.hpp"
#include "stencil/types.hpp"

#include <cstdint>
#include <vector>

namespace stencil {

/// Uploads this rank's part of `whole`, a whole lattice's values in the
/// single-rank order (site-major, x fastest, `local.lattice().components`
/// per site; the extents d.global), into `local`, a field on the rank's
/// lattice: its owned sites and, at the lattice's own Dirichlet boundary,
/// the halo values there. Ghost zones are left zero. Every rank passes the
/// whole lattice's values.
Status scatter_field(const Decomposition &d, const double *whole,
                     std::int64_t count, Field &local);

/// Gathers the whole lattice's values of a field distributed over the
/// ranks of `d` into `whole` on rank `root` (the other ranks' `whole` is
/// left empty): each rank sends its owned sites and the halo values of the
/// lattice's Dirichlet boundary it touches. Collective.
Status gather_field(const Decomposition &d, const Field &local,
                    std::vector<double> &whole, int root = 0);

} // namespace stencil

#endif
