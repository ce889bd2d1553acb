#include "stencil/even_odd.hpp"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"

namespace stencil {

using Hop = StencilOperator::Hop;

Status SchurComplement::create(const StencilOperator &A,
                               SchurComplement &out) {
  if (!A.info().even_odd)
    return Status::failure(std::string(A.info().name) +
                           ": the even/odd Schur complement needs fields "
                           "stored even/odd ('field.even_odd: true' in the "
                           "spec)");
  SchurComplement S;
  S.A_ = &A;
  STENCIL_TRY(Field::create(A.lattice(), S.diagonal_));
  // Fails with the reason on a zero or non-finite diagonal entry.
  STENCIL_TRY(A.diagonal(S.diagonal_));
  STENCIL_TRY(Field::create(A.lattice().half(1), S.odd_scratch_));
  out = std::move(S);
  return Status();
}

Status SchurComplement::apply(Field &out, const Field &in,
                              Stream stream) const {
  STENCIL_TRY(A_->hop(Hop::EvenToOdd, false, odd_scratch_, in,
                      kInverseDiagonalHop, 0.0, 1.0, nullptr, stream));
  return A_->hop(Hop::OddToEven, false, out, odd_scratch_, kDiagonalPlusHop,
                 1.0, -1.0, &in, stream);
}

Status SchurComplement::apply_adjoint(Field &out, const Field &in,
                                      Stream stream) const {
  // S^T = D_e - (A_oe)^T D_o^-1 (A_eo)^T.
  STENCIL_TRY(A_->hop(Hop::EvenToOdd, true, odd_scratch_, in,
                      kInverseDiagonalHop, 0.0, 1.0, nullptr, stream));
  return A_->hop(Hop::OddToEven, true, out, odd_scratch_, kDiagonalPlusHop,
                 1.0, -1.0, &in, stream);
}

Status SchurComplement::prepare(const Field &b, Field &rhs) const {
  Field bEven, bOdd, dOdd;
  STENCIL_TRY(b.half(0, bEven));
  STENCIL_TRY(b.half(1, bOdd));
  STENCIL_TRY(diagonal_.half(1, dOdd));
  STENCIL_TRY(divide(bOdd, dOdd, odd_scratch_)); // D_o^-1 b_o
  STENCIL_TRY(A_->hop(Hop::OddToEven, false, rhs, odd_scratch_, kHop, 0.0,
                      -1.0));
  return axpy(1.0, bEven, rhs);
}

Status SchurComplement::reconstruct(const Field &b, Field &x) const {
  Field bOdd, xEven, xOdd, dOdd;
  STENCIL_TRY(b.half(1, bOdd));
  STENCIL_TRY(x.half(0, xEven));
  STENCIL_TRY(x.half(1, xOdd));
  STENCIL_TRY(diagonal_.half(1, dOdd));
  STENCIL_TRY(A_->hop(Hop::EvenToOdd, false, xOdd, xEven, kHop, 0.0, -1.0));
  STENCIL_TRY(axpy(1.0, bOdd, xOdd)); // b_o - A_oe x_e
  return divide(xOdd, dOdd, xOdd);
}

double SchurComplement::bytes_per_apply() const {
  return A_->bytes_per_hop(Hop::EvenToOdd, kInverseDiagonalHop) +
         A_->bytes_per_hop(Hop::OddToEven, kDiagonalPlusHop);
}

} // namespace stencil
