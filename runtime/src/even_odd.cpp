#include "stencil/even_odd.hpp"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"

#include <string>
#include <utility>

namespace stencil {

using Hop = StencilOperator::Hop;

Status SchurComplement::create(const StencilOperator &A, SchurComplement &out,
                               CloverPlacement placement) {
  return A.communicator().local_failure_ends_job(
      create_on_rank(A, out, placement), "SchurComplement::create");
}

Status SchurComplement::create_on_rank(const StencilOperator &A,
                                       SchurComplement &out,
                                       CloverPlacement placement) {
  STENCIL_TRY(A.require_created("Schur complement: create"));
  // The spec's storage, the same on every rank.
  if (!A.info().even_odd)
    return Status::failure_on_every_rank(
        std::string(A.stencil_name()) +
        ": the even/odd Schur complement needs fields stored even/odd "
        "('field.even_odd: true' in the spec)");
  SchurComplement S;
  S.A_ = &A;
  S.clover_ = A.info().clover != nullptr;
  S.placement_ = placement;
  if (S.clover_) {
    const StencilOperator::CloverArrays *arrays = A.clover();
    if (!arrays || arrays->inverse_parity != 1)
      return Status::failure(
          std::string(A.info().name) +
          ": the Schur complement on the even sites needs the clover term "
          "and its inverse on the odd sites; call upload_clover(U, arrays, "
          "1) and set_clover(arrays) first");
    if (placement == CloverPlacement::SiteKernel) {
      STENCIL_TRY(Field::create(A.lattice().half(1), S.odd_hop_));
      STENCIL_TRY(Field::create(A.lattice().half(0), S.even_hop_));
    }
  } else {
    STENCIL_TRY(Field::create(A.lattice(), S.diagonal_));
    // Fails with the reason on a zero or non-finite diagonal entry.
    STENCIL_TRY(A.diagonal(S.diagonal_));
    S.diagonal_generation_ = A.parameter_generation();
    const KernelInfo &info = A.info();
    for (int t = 0; t < info.num_field_terms; ++t)
      S.diagonal_reads_arrays_ |=
          info.field_terms[t].tap == info.centre_tap;
  }
  STENCIL_TRY(Field::create(A.lattice().half(1), S.odd_scratch_));
  STENCIL_TRY(LaunchGraphs::from_environment(S.graphs_));
  out = std::move(S);
  return Status();
}

Status SchurComplement::require_created(const char *what) const {
  if (A_)
    return Status();
  return Status::failure(std::string("Schur complement: ") + what +
                         " on a complement never created "
                         "(default-constructed or moved from)");
}

Status SchurComplement::apply_with(bool adjoint, Field &out, const Field &in,
                                   Stream stream) const {
  STENCIL_TRY(require_created(adjoint ? "apply_adjoint" : "apply"));
  // Checked here, not only by the kernels: a replayed graph checks nothing.
  STENCIL_TRY(require_field(lattice(), out, "Schur complement: out"));
  STENCIL_TRY(require_field(lattice(), in, "Schur complement: in"));
  if (!graphs_.enabled() || !A_->launches_only_kernels())
    return launch(adjoint, out, in, stream);
  // The fields, the direction and every argument A's kernels take: the
  // scratch fields belong to this complement and move with its graphs.
  // key_ is reused: on small lattices the host's time between the caller's
  // last launch and the graph's counts.
  key_.assign({adjoint ? 1u : 0u, reinterpret_cast<std::uintptr_t>(out.data()),
               reinterpret_cast<std::uintptr_t>(in.data())});
  STENCIL_TRY(A_->append_launch_key(key_));
  return graphs_.run(key_, stream, [&](Stream recording) {
    return launch(adjoint, out, in, recording);
  });
}

Status SchurComplement::apply_launched(Field &out, const Field &in,
                                       Stream stream) const {
  STENCIL_TRY(require_created("apply_launched"));
  STENCIL_TRY(require_field(lattice(), out, "Schur complement: out"));
  STENCIL_TRY(require_field(lattice(), in, "Schur complement: in"));
  if (!A_->launches_only_kernels())
    return Status::failure("Schur complement: apply_launched on an operator "
                           "that exchanges halos between its kernels");
  return launch(false, out, in, stream);
}

std::string SchurComplement::launch_description() const {
  if (graphs_.enabled() && !A_->launches_only_kernels())
    return "kernels launched one by one (the operator exchanges halos "
           "between them)";
  return graphs_.description();
}

Status SchurComplement::launch(bool adjoint, Field &out, const Field &in,
                               Stream stream) const {
  // S^T = D_e - (A_oe)^T D_o^-1 (A_eo)^T: the adjoint hops, the same
  // (Hermitian) diagonal.
  if (clover_ && placement_ == CloverPlacement::SiteKernel) {
    STENCIL_TRY(A_->hop(Hop::EvenToOdd, adjoint, odd_hop_, in, kHop, 0.0, 1.0,
                        nullptr, stream));
    STENCIL_TRY(A_->apply_clover(1, odd_scratch_, odd_hop_,
                                 kInverseDiagonalHop, 0.0, 1.0, nullptr,
                                 stream));
    STENCIL_TRY(A_->hop(Hop::OddToEven, adjoint, even_hop_, odd_scratch_,
                        kHop, 0.0, 1.0, nullptr, stream));
    return A_->apply_clover(0, out, even_hop_, kDiagonalPlusHop, 1.0, -1.0,
                            &in, stream);
  }
  STENCIL_TRY(A_->hop(Hop::EvenToOdd, adjoint, odd_scratch_, in,
                      kInverseDiagonalHop, 0.0, 1.0, nullptr, stream));
  return A_->hop(Hop::OddToEven, adjoint, out, odd_scratch_, kDiagonalPlusHop,
                 1.0, -1.0, &in, stream);
}

Status SchurComplement::apply(Field &out, const Field &in,
                              Stream stream) const {
  return local_failure_ends_job(apply_with(false, out, in, stream),
                                "SchurComplement::apply");
}

Status SchurComplement::apply_adjoint(Field &out, const Field &in,
                                      Stream stream) const {
  return local_failure_ends_job(apply_with(true, out, in, stream),
                                "SchurComplement::apply_adjoint");
}

Status SchurComplement::local_failure_ends_job(const Status &status,
                                               const char *call) const {
  return A_ ? A_->communicator().local_failure_ends_job(status, call) : status;
}

Status SchurComplement::invert_odd(Field &out, const Field &in) const {
  if (clover_) {
    STENCIL_TRY(A_->apply_clover(1, odd_scratch_, in, kInverseDiagonalHop,
                                 0.0, 1.0));
    return out.copy_from(odd_scratch_);
  }
  // The hops read A's parameters as they are now; D must follow them. A
  // site array's values changed in place move no generation, so a D that
  // reads one is computed again (once per prepare and reconstruct).
  if (diagonal_reads_arrays_ ||
      A_->parameter_generation() != diagonal_generation_) {
    Status computed = A_->diagonal(diagonal_);
    if (!computed.ok()) {
      std::string message = "Schur complement: D after a change of the "
                            "operator's parameters: " +
                            computed.message();
      // diagonal() agrees over the ranks: so does this failure.
      return computed.on_every_rank()
                 ? Status::failure_on_every_rank(std::move(message))
                 : Status::failure(std::move(message));
    }
    diagonal_generation_ = A_->parameter_generation();
  }
  Field dOdd;
  STENCIL_TRY(diagonal_.half(1, dOdd));
  return divide(in, dOdd, out);
}

Status SchurComplement::prepare(const Field &b, Field &rhs) const {
  return local_failure_ends_job(prepare_on_rank(b, rhs),
                                "SchurComplement::prepare");
}

Status SchurComplement::prepare_on_rank(const Field &b, Field &rhs) const {
  STENCIL_TRY(require_created("prepare"));
  // rhs is written before b_e is read.
  if (share_memory(b, rhs))
    return Status::failure("Schur complement: prepare's rhs shares memory "
                           "with b; give it a field of its own");
  Field bEven, bOdd, scaled;
  STENCIL_TRY(b.half(0, bEven));
  STENCIL_TRY(b.half(1, bOdd));
  STENCIL_TRY(Field::create(A_->lattice().half(1), scaled));
  STENCIL_TRY(invert_odd(scaled, bOdd)); // D_o^-1 b_o
  STENCIL_TRY(A_->hop(Hop::OddToEven, false, rhs, scaled, kHop, 0.0, -1.0));
  return axpy(1.0, bEven, rhs);
}

Status SchurComplement::reconstruct(const Field &b, Field &x) const {
  return local_failure_ends_job(reconstruct_on_rank(b, x),
                                "SchurComplement::reconstruct");
}

Status SchurComplement::reconstruct_on_rank(const Field &b, Field &x) const {
  STENCIL_TRY(require_created("reconstruct"));
  // x_o is written before b_o is read.
  if (share_memory(b, x))
    return Status::failure("Schur complement: reconstruct's x shares memory "
                           "with b; give it a field of its own");
  Field bOdd, xEven, xOdd;
  STENCIL_TRY(b.half(1, bOdd));
  STENCIL_TRY(x.half(0, xEven));
  STENCIL_TRY(x.half(1, xOdd));
  STENCIL_TRY(A_->hop(Hop::EvenToOdd, false, xOdd, xEven, kHop, 0.0, -1.0));
  STENCIL_TRY(axpy(1.0, bOdd, xOdd)); // b_o - A_oe x_e
  return invert_odd(xOdd, xOdd);
}

double SchurComplement::bytes_per_apply() const {
  if (clover_ && placement_ == CloverPlacement::SiteKernel)
    return A_->bytes_per_hop(Hop::EvenToOdd, kHop) +
           A_->bytes_per_clover(kInverseDiagonalHop) +
           A_->bytes_per_hop(Hop::OddToEven, kHop) +
           A_->bytes_per_clover(kDiagonalPlusHop);
  return A_->bytes_per_hop(Hop::EvenToOdd, kInverseDiagonalHop) +
         A_->bytes_per_hop(Hop::OddToEven, kDiagonalPlusHop);
}

} // namespace stencil
