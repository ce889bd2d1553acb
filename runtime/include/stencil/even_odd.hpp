// stencil/even_odd.hpp - the Schur complement of an even/odd stencil.
//
// With fields stored even sites first (field.even_odd), A splits into blocks
//   A = [ D_e   A_eo ]      D: the centre tap's coefficient (diagonal)
//       [ A_oe  D_o  ]      A_eo, A_oe: the neighbour hops (parity changes)
// and A x = b reduces to half the unknowns:
//   S x_e = b_e - A_eo D_o^-1 b_o,   S = D_e - A_eo D_o^-1 A_oe,
//   x_o   = D_o^-1 (b_o - A_oe x_e).
// S is symmetric positive definite when A is, and better conditioned, so CG
// on S needs fewer iterations than CG on A, each costing about the same
// traffic as one application of A.
//
// Wilson-clover stencils (info().clover): D is the clover term, a Hermitian
// matrix per site; D_o^-1 is the inverse the operator's clover arrays hold
// on the odd sites (StencilOperator::upload_clover with inverse parity 1).
// It is applied in the hopping kernels' epilogue (CloverPlacement::Epilogue)
// or by the clover kernel between them (SiteKernel: two more launches and
// two more passes over half fields, for comparison).
//
// On one rank apply() and apply_adjoint() replay their kernels as a launch
// graph (stencil/launch_graph.hpp), recorded per pair of fields: on small
// lattices the gap between the dependent hops is a large part of their time.
#ifndef STENCIL_EVEN_ODD_HPP
#define STENCIL_EVEN_ODD_HPP

#include "stencil/field.hpp"
#include "stencil/launch_graph.hpp"
#include "stencil/operator.hpp"
#include "stencil/types.hpp"

#include <cstdint>

namespace stencil {

/// Where a Wilson-clover Schur complement applies the clover term.
enum class CloverPlacement { Epilogue, SiteKernel };

/// Not for use from several threads at once: its const methods share
/// scratch fields, launch graphs and the diagonal.
class SchurComplement {
public:
  /// A must store its fields even/odd; its diagonal must be non-zero on
  /// every interior site (checked), or for a clover term its arrays must be
  /// set with the inverse on the odd sites. A must outlive the complement.
  static Status create(const StencilOperator &A, SchurComplement &out,
                       CloverPlacement placement = CloverPlacement::Epilogue);

  const StencilOperator &op() const { return *A_; }
  Communicator communicator() const { return A_->communicator(); }
  /// The even half of A's lattice: what S acts on.
  Lattice lattice() const { return A_->lattice().half(0); }

  /// out = S in (two hopping kernels).
  Status apply(Field &out, const Field &in, Stream stream = nullptr) const;
  /// out = S^T in (the hopping kernels of A^T).
  Status apply_adjoint(Field &out, const Field &in,
                       Stream stream = nullptr) const;
  /// out = S in with its kernels launched one by one on `stream`, never
  /// from a graph of its own: for a caller that records them into its own
  /// launch graph (CG's iteration). Fails where A exchanges halos between
  /// the kernels.
  Status apply_launched(Field &out, const Field &in, Stream stream) const;
  /// rhs = b_e - A_eo D_o^-1 b_o, from a whole field b whose halo is zero.
  Status prepare(const Field &b, Field &rhs) const;
  /// With x_e in the even half of the whole field x: x_o = D_o^-1 (b_o -
  /// A_oe x_e), written into x's odd half. x's halo must be zero.
  Status reconstruct(const Field &b, Field &x) const;

  /// Theoretical traffic of one apply(): both hops, reading `in` twice.
  double bytes_per_apply() const;

  /// Launch graphs for apply() and apply_adjoint(): on by default where the
  /// backend has them unless STENCILC_GRAPHS=off; this call overrides the
  /// variable.
  void set_launch_graphs(bool on) { graphs_.set_enabled(on); }
  /// How apply() launches its kernels: launch graphs and how many were
  /// recorded, or why the kernels are launched one by one.
  std::string launch_description() const;
  const LaunchGraphs &launch_graphs() const { return graphs_; }

private:
  /// The work of create(), apply(), apply_adjoint(), prepare() and
  /// reconstruct() on this rank. Over several ranks these are collective
  /// (A's hops exchange halos; D is agreed on): the public functions end
  /// the job on a failure of this rank alone
  /// (Communicator::local_failure_ends_job), which would leave the others
  /// waiting.
  static Status create_on_rank(const StencilOperator &A, SchurComplement &out,
                               CloverPlacement placement);
  Status apply_with(bool adjoint, Field &out, const Field &in,
                    Stream stream) const;
  Status prepare_on_rank(const Field &b, Field &rhs) const;
  Status reconstruct_on_rank(const Field &b, Field &x) const;
  Status local_failure_ends_job(const Status &status, const char *call) const;
  /// The kernels of apply_with, launched on `stream`.
  Status launch(bool adjoint, Field &out, const Field &in,
                Stream stream) const;
  /// out_o = D_o^-1 in_o (out and in may be the same field).
  Status invert_odd(Field &out, const Field &in) const;
  /// A clear error naming `what` unless create() made this complement.
  Status require_created(const char *what) const;

  /// Null for a complement never created (default-constructed or moved
  /// from).
  detail::NullAfterMove<const StencilOperator> A_;
  bool clover_ = false;
  CloverPlacement placement_ = CloverPlacement::Epilogue;
  /// D on every site (1 on the halo; no clover), computed again when A's
  /// parameter_generation() is no longer the one it was computed at, and
  /// for every prepare and reconstruct where D reads a site parameter's
  /// array, whose values may change in place without a set_ call.
  mutable Field diagonal_;
  mutable std::uint64_t diagonal_generation_ = 0;
  bool diagonal_reads_arrays_ = false;
  mutable Field odd_scratch_; ///< D_o^-1 A_oe in
  mutable Field odd_hop_;     ///< SiteKernel: A_oe in
  mutable Field even_hop_;    ///< SiteKernel: A_eo D_o^-1 A_oe in
  mutable LaunchGraphs graphs_;
  mutable LaunchGraphs::Key key_; ///< the graph key of the latest apply
};

} // namespace stencil

#endif
