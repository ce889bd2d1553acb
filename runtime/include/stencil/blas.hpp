// stencil/blas.hpp - the vector operations of the Krylov solvers, on fields
// of one lattice. Scalars are double whatever the field's precision, and
// reductions accumulate in double, in a fixed order (the result does not
// depend on thread scheduling).
#ifndef STENCIL_BLAS_HPP
#define STENCIL_BLAS_HPP

#include "stencil/comm.hpp"
#include "stencil/field.hpp"
#include "stencil/types.hpp"

#include <cstdint>

namespace stencil {

Status fill(Field &x, double value);
/// y = y + a x. x and y may differ in precision (mixed-precision CG adds
/// its float iterate into the double one); the sum is taken in y's.
Status axpy(double a, const Field &x, Field &y);
/// to = from, value by value, converted to `to`'s precision (the lattices
/// equal but for it).
Status convert(const Field &from, Field &to);
/// y = x + a y
Status xpay(const Field &x, double a, Field &y);
/// y = x + a y with `a` read from device memory (CG's pipelined loop
/// computes beta on the device); returns without waiting for the device.
Status xpay_from_device(const Field &x, const double *a, Field &y,
                        Stream stream = nullptr);
/// y = y + a x with `a` read from device memory, in x's arithmetic type
/// (CG's last x += alpha p, deferred into the stencil pass that never came;
/// y stored like x, or as float for bfloat16 x); returns without waiting.
Status axpy_from_device(const double *a, const Field &x, Field &y);
/// x = a x
Status scale(double a, Field &x);
/// z = r / d, elementwise (Jacobi: d is the operator's diagonal)
Status divide(const Field &r, const Field &d, Field &z);
/// Sets every halo value (along Dirichlet axes; no-op without a halo).
Status set_halo(Field &x, double value);

/// Dot products and norms. Holds the per-block partial sums on the device,
/// so that a solver allocates them once. Over several ranks (a distributed
/// operator's communicator), each rank sums its stored values and the
/// ranks' sums are added in rank order (Communicator::sum): every rank gets
/// the same bits. Fields hold zero in their ghost zones between operator
/// applications, so each site counts once.
class Reducer {
public:
  /// One rank's sums: for a distributed operator's fields pass its
  /// communicator (StencilOperator::communicator()), else each rank gets
  /// its own part only.
  Reducer() = default;
  explicit Reducer(const Communicator &comm) : comm_(comm) {}
  ~Reducer();
  Reducer(const Reducer &) = delete;
  Reducer &operator=(const Reducer &) = delete;

  /// result = sum_i x_i y_i
  Status dot(const Field &x, const Field &y, double &result);
  /// result = sqrt(sum_i x_i^2)
  Status norm2(const Field &x, double &result);
  /// CG's fused update, one pass: x += alpha p, r -= alpha q, and
  /// rr = sum_i r_i^2 of the new r (6 field transfers instead of 7).
  Status update_and_norm2(double alpha, const Field &p, const Field &q,
                          Field &x, Field &r, double &rr);

  /// The same update with alpha read from device memory (CG's pipelined
  /// loop), leaving the sum of r_i^2 as `count` partials in
  /// block_partials() for a device-side finish (sum_block_partials() or
  /// CgScalars); returns without waiting for the device. Queued on
  /// `stream` (a launch graph's while it records: CgPipeline).
  Status update_partials(const double *alpha, const Field &p, const Field &q,
                         Field &x, Field &r, std::int64_t &count,
                         Stream stream = nullptr);
  /// CG's update of r alone, r -= alpha q with alpha read from device
  /// memory, where x's update went into the next stencil pass
  /// (StencilOperator::apply_fold_partials): the sum of r_i^2 left as
  /// `count` partials, like update_partials(). 3 field transfers.
  Status residual_partials(const double *alpha, const Field &q, Field &r,
                           std::int64_t &count, Stream stream = nullptr);
  /// Allocates block_partials() for every reduction into partials over
  /// fields like `like` (dot_partials, update_partials), so that none
  /// allocates, which waits for the device, between queued kernels.
  Status reserve_partials(const Field &like);
  /// sum_i x_i y_i left as `count` partials in block_partials() for a
  /// device-side finish (CgScalars); returns without waiting for the device.
  Status dot_partials(const Field &x, const Field &y, std::int64_t &count,
                      Stream stream = nullptr);
  /// `value` in device memory kept by this reducer until the next call (for
  /// entry points that read a scalar from the device).
  Status device_scalar(double value, const double *&pointer);

  /// Device memory for `count` doubles, one per block of a kernel that
  /// reduces into per-block partials (KernelInfo::apply_dot); kept for the
  /// next call.
  Status block_partials(std::int64_t count, double *&partials);
  /// result = the sum of the first `count` doubles of block_partials(), in
  /// a fixed order.
  Status sum_block_partials(std::int64_t count, double &result);

private:
  /// dot(), update_and_norm2() and sum_block_partials() on this rank. The
  /// public functions end the job on a failure of this rank alone in a
  /// job of several ranks (Communicator::local_failure_ends_job): the
  /// other ranks would wait for its sum.
  Status dot_on_rank(const Field &x, const Field &y, double &result);
  Status update_and_norm2_on_rank(double alpha, const Field &p, const Field &q,
                                  Field &x, Field &r, double &rr);
  Status sum_block_partials_on_rank(std::int64_t count, double &result);
  template <typename Term>
  Status sum_of(std::int64_t n, Term term, const char *name, double &result);
  /// The same sum left as `count` partials in block_partials().
  template <typename Term>
  Status partials_of(std::int64_t n, Term term, const char *name,
                     std::int64_t &count, Stream stream = nullptr);
  /// partials_of for CG's update terms: on GPUs a 16-byte group of each
  /// field a thread where the fields allow.
  template <typename Term>
  Status update_partials_of(std::int64_t n, Term term, const char *name,
                            std::int64_t &count, Stream stream);

  Communicator comm_;
  void *partials_ = nullptr; ///< device doubles, one per reduction block
  void *blocks_ = nullptr;   ///< block_partials()
  void *scalar_ = nullptr;   ///< device_scalar()
  std::int64_t block_capacity_ = 0;
};

/// Bytes each operation moves (each input read once, each output written
/// once), for bandwidth reports.
/// axpy: reads x, reads and writes y (the two may differ in precision).
inline double bytes_axpy(const Lattice &x, const Lattice &y) {
  return x.bytes() + 2.0 * y.bytes();
}
inline double bytes_axpy(const Lattice &l) { return bytes_axpy(l, l); }
inline double bytes_xpay(const Lattice &l) { return 3.0 * l.bytes(); }
inline double bytes_divide(const Lattice &l) { return 3.0 * l.bytes(); }
inline double bytes_dot(const Lattice &l) { return 2.0 * l.bytes(); }
inline double bytes_norm2(const Lattice &l) { return 1.0 * l.bytes(); }
/// update_and_norm2: reads x, r, p, q; writes x, r (x may be stored wider
/// than the others: bfloat16 inner fields keep x in float).
inline double bytes_update_and_norm2(const Lattice &x, const Lattice &others) {
  return 2.0 * x.bytes() + 4.0 * others.bytes();
}
inline double bytes_update_and_norm2(const Lattice &l) {
  return bytes_update_and_norm2(l, l);
}
/// residual_partials: reads r and q, writes r.
inline double bytes_residual_update(const Lattice &l) { return 3.0 * l.bytes(); }

} // namespace stencil

#endif
