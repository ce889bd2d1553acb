#include "stencil/solver.hpp"

#include "cg_scalars.hpp"
#include "stencil/blas.hpp"
#include "stencil/device.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/launch_graph.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace stencil {

const char *method_name(Method method) {
  return method == Method::CG ? "cg" : "cgnr";
}

const char *preconditioner_name(Preconditioner preconditioner) {
  return preconditioner == Preconditioner::None ? "none" : "jacobi";
}

namespace {

/// What the Krylov loops need of an operator: the whole stencil A, or the
/// Schur complement S of an even/odd stencil on its even sites.
class LinearSystem {
public:
  virtual ~LinearSystem() = default;
  virtual Lattice lattice() const = 0;
  virtual Status apply(Field &out, const Field &in) const = 0;
  virtual Status apply_adjoint(Field &out, const Field &in) const = 0;
  virtual double bytes_per_apply() const = 0;
  /// The ranks the system spans: the reductions add over them.
  virtual Communicator communicator() const = 0;
  /// CG's fused stencil and dot product (StencilOperator::apply_dot).
  virtual bool has_apply_dot() const { return false; }
  virtual Status apply_dot(Field &, const Field &, Reducer &,
                           double &) const {
    return Status::failure("apply_dot: not available for this system");
  }
  /// The same with CG's direction update and the last step's x update
  /// folded in, beta and alpha read from the device and the sum left as
  /// block partials (StencilOperator::apply_fold_partials).
  virtual bool has_apply_fold_dot() const { return false; }
  virtual Status apply_fold_partials(Field &, Field &, const Field &,
                                     const Field &, const double *, Field *,
                                     const double *, Reducer &,
                                     std::int64_t &, Stream) const {
    return Status::failure("apply_fold_dot: not available for this system");
  }
  /// The block partials apply_fold_partials writes.
  virtual Status fold_partial_count(std::int64_t &) const {
    return Status::failure("apply_fold_dot: not available for this system");
  }
  /// Whether apply_launched() may be recorded into a caller's launch graph:
  /// the system's kernels only, no halo exchange between them.
  virtual bool records_apply() const = 0;
  /// out = A in, the kernels launched one by one on `stream`.
  virtual Status apply_launched(Field &out, const Field &in,
                                Stream stream) const = 0;
};

/// A LinearSystem over any operator with StencilOperator's interface
/// (StencilOperator itself, SchurComplement).
template <typename Operator> class SystemOf : public LinearSystem {
public:
  explicit SystemOf(const Operator &A) : A(A) {}
  Lattice lattice() const override { return A.lattice(); }
  Status apply(Field &out, const Field &in) const override {
    return A.apply(out, in);
  }
  Status apply_adjoint(Field &out, const Field &in) const override {
    return A.apply_adjoint(out, in);
  }
  double bytes_per_apply() const override { return A.bytes_per_apply(); }
  Communicator communicator() const override { return A.communicator(); }
  bool records_apply() const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.launches_only_kernels();
    else
      return A.op().launches_only_kernels();
  }
  Status apply_launched(Field &out, const Field &in,
                        Stream stream) const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.apply(out, in, stream);
    else
      return A.apply_launched(out, in, stream);
  }
  bool has_apply_dot() const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.has_apply_dot();
    return false;
  }
  Status apply_dot(Field &out, const Field &in, Reducer &reducer,
                   double &result) const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.apply_dot(out, in, reducer, result);
    return LinearSystem::apply_dot(out, in, reducer, result);
  }
  bool has_apply_fold_dot() const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.has_apply_fold_dot();
    return false;
  }
  Status apply_fold_partials(Field &out, Field &next_direction,
                             const Field &r, const Field &direction,
                             const double *beta, Field *solution,
                             const double *alpha, Reducer &reducer,
                             std::int64_t &blocks,
                             Stream stream) const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.apply_fold_partials(out, next_direction, r, direction, beta,
                                   solution, alpha, reducer, blocks, stream);
    return LinearSystem::apply_fold_partials(out, next_direction, r,
                                             direction, beta, solution, alpha,
                                             reducer, blocks, stream);
  }
  Status fold_partial_count(std::int64_t &blocks) const override {
    if constexpr (std::is_same_v<Operator, StencilOperator>)
      return A.fold_partial_count(blocks);
    return LinearSystem::fold_partial_count(blocks);
  }

private:
  const Operator &A;
};

/// The stencil pass that reads r and p and writes p' = r + beta p and
/// q = A p', and with `withX` adds the last step's alpha p to x: the
/// stencil's traffic, a second field read and written on the interior
/// (coefficient fields and links are read once), and x read and written
/// there.
double bytes_per_fold_apply(const LinearSystem &A, bool withX) {
  const Lattice lattice = A.lattice();
  const double fieldBytes = static_cast<double>(lattice.interior_sites()) *
                            lattice.components * lattice.element_bytes;
  return A.bytes_per_apply() + (withX ? 4.0 : 2.0) * fieldBytes;
}

/// Whether CG's x update goes into the fold pass: x stored like the other
/// fields, float or double (the fold kernel's x has the arithmetic type).
/// Not for bfloat16 fields: their x is float, and with it the fold pass ran
/// the mixed-precision solve 17% slower on an H200, the x stream costing
/// that pass more than it saved the update (docs/performance.md, "x's
/// update in the stencil pass"); a bfloat16 x (CG on the inner operator
/// itself) the kernel does not take.
bool defers_solution_update(const Field &x, const Field &r) {
  return x.lattice().element_bytes == r.lattice().element_bytes &&
         r.lattice().element_bytes >= 4;
}

/// Whether unpreconditioned CG on A keeps its scalars on the device
/// (CgPipeline): with the fold kernel; without fused kernels (the Schur
/// complement has none) on one rank where asked, so that the host never
/// waits for an iteration's sums before queuing the next. (`fused` off asks
/// for the textbook loop, the comparisons' baseline.)
bool keeps_scalars_on_device(const LinearSystem &A,
                             const SolveOptions &options, bool folded) {
  return folded || (options.fused && !A.has_apply_dot() &&
                    options.device_scalars && A.communicator().size() == 1);
}

double now_seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Runs solver operations, timing each kind when asked.
class Ops {
public:
  Ops(const LinearSystem &A, bool timed)
      : A(A), timed(timed), reducer(A.communicator()) {}

  Status apply(Field &out, const Field &in) {
    return run("stencil apply", A.bytes_per_apply(),
               [&] { return A.apply(out, in); });
  }
  Status apply_adjoint(Field &out, const Field &in) {
    return run("stencil adjoint", A.bytes_per_apply(),
               [&] { return A.apply_adjoint(out, in); });
  }
  Status axpy(double a, const Field &x, Field &y) {
    return run("axpy", bytes_axpy(x.lattice(), y.lattice()),
               [&] { return stencil::axpy(a, x, y); });
  }
  Status xpay(const Field &x, double a, Field &y) {
    return run("xpay", bytes_xpay(x.lattice()),
               [&] { return stencil::xpay(x, a, y); });
  }
  Status divide(const Field &r, const Field &d, Field &z) {
    return run("jacobi divide", bytes_divide(r.lattice()),
               [&] { return stencil::divide(r, d, z); });
  }
  Status dot(const Field &x, const Field &y, double &result) {
    return run("dot", bytes_dot(x.lattice()),
               [&] { return reducer.dot(x, y, result); });
  }
  /// ||x||^2: one pass over x.
  Status norm2_squared(const Field &x, double &result) {
    return run("norm2", bytes_norm2(x.lattice()),
               [&] { return reducer.dot(x, x, result); });
  }
  Status norm2(const Field &x, double &result) {
    double squared = 0.0;
    STENCIL_TRY(norm2_squared(x, squared));
    result = std::sqrt(squared);
    return Status();
  }
  Status apply_dot(Field &out, const Field &in, double &result) {
    return run("stencil apply + dot", A.bytes_per_apply(),
               [&] { return A.apply_dot(out, in, reducer, result); });
  }
  /// CG's q = A p and p . q: fused, the stencil also sums p . q; else
  /// apply then dot.
  Status direction_product(Field &q, const Field &p, bool fused, double &pq) {
    if (fused)
      return apply_dot(q, p, pq);
    STENCIL_TRY(apply(q, p));
    return dot(p, q, pq);
  }
  /// CG's pipelined stencil pass, queued on `stream`: p' = r + beta p
  /// (beta on the device) written to `spare`; where `x` is given, the last
  /// step's x += alpha p (alpha still on the device); q = A p'; alpha = rr
  /// / p'.q finished on the device. p' is the next direction.
  Status queue_fold(Field &q, const Field &p, Field &spare, const Field &r,
                    Field *x, CgScalars &scalars, Stream stream) {
    std::int64_t blocks = 0;
    STENCIL_TRY(A.apply_fold_partials(q, spare, r, p, scalars.beta(), x,
                                      scalars.alpha(), reducer, blocks,
                                      stream));
    if (blocks == 0)
      return Status::failure("solve: the lattice has no sites to update");
    double *partials = nullptr;
    STENCIL_TRY(reducer.block_partials(blocks, partials));
    return scalars.finish_alpha(partials, blocks, stream);
  }
  double fold_bytes(bool withX) const {
    return bytes_per_fold_apply(A, withX);
  }
  /// queue_fold on the default stream; `spare` then becomes p.
  Status fold_pass(Field &q, Field &p, Field &spare, const Field &r, Field *x,
                   CgScalars &scalars) {
    STENCIL_TRY(run(x ? "stencil apply + dot, p = r + beta p and x folded in"
                      : "stencil apply + dot, p = r + beta p folded in",
                    fold_bytes(x != nullptr), [&] {
                      return queue_fold(q, p, spare, r, x, scalars, nullptr);
                    }));
    std::swap(p, spare);
    return Status();
  }
  /// The same pass without the fold kernel (the Schur complement), queued
  /// on `stream` for a launch graph: p = r + beta p (beta on the device) as
  /// a pass of its own, q = A p, and alpha = rr / p.q finished on the
  /// device.
  Status queue_direction(Field &q, Field &p, const Field &r,
                         CgScalars &scalars, Stream stream) {
    STENCIL_TRY(xpay_from_device(r, scalars.beta(), p, stream));
    STENCIL_TRY(A.apply_launched(q, p, stream));
    std::int64_t count = 0;
    STENCIL_TRY(reducer.dot_partials(p, q, count, stream));
    double *partials = nullptr;
    STENCIL_TRY(reducer.block_partials(count, partials));
    return scalars.finish_alpha(partials, count, stream);
  }
  double direction_bytes(const Field &p) const {
    return bytes_xpay(p.lattice()) + A.bytes_per_apply() +
           bytes_dot(p.lattice());
  }
  bool records_apply() const { return A.records_apply(); }
  /// queue_direction's work on the default stream, each operation timed
  /// where asked (and the apply as A launches it: the Schur complement from
  /// a graph of its own).
  Status direction_pass(Field &q, Field &p, const Field &r,
                        CgScalars &scalars) {
    STENCIL_TRY(run("xpay", bytes_xpay(p.lattice()), [&] {
      return xpay_from_device(r, scalars.beta(), p);
    }));
    STENCIL_TRY(apply(q, p));
    return run("dot", bytes_dot(p.lattice()), [&]() -> Status {
      std::int64_t count = 0;
      STENCIL_TRY(reducer.dot_partials(p, q, count));
      double *partials = nullptr;
      STENCIL_TRY(reducer.block_partials(count, partials));
      return scalars.finish_alpha(partials, count);
    });
  }
  /// The block partials' device address (they were reserved before: the
  /// launch graphs that write them are kept under it).
  Status partials_address(const void *&address) {
    double *partials = nullptr;
    STENCIL_TRY(reducer.block_partials(1, partials));
    address = partials;
    return Status();
  }
  /// Block partials for the reductions over fields like `like`, allocated
  /// before any is queued (Reducer::reserve_partials).
  Status reserve_partials(const Field &like) {
    return reducer.reserve_partials(like);
  }
  /// The same for the fold passes' partials (one per block of A's fold
  /// kernel, often more than the reductions').
  Status reserve_fold_partials() {
    std::int64_t blocks = 0;
    STENCIL_TRY(A.fold_partial_count(blocks));
    double *partials = nullptr;
    return blocks > 0 ? reducer.block_partials(blocks, partials) : Status();
  }
  /// CG's pipelined update, queued on `stream`: x += alpha p, r -= alpha q
  /// (alpha on the device), then ||r||^2 and beta finished on the device
  /// and written to the host's slot of iteration `iteration`.
  Status queue_update(const Field &p, const Field &q, Field &x, Field &r,
                      CgScalars &scalars, int iteration, Stream stream) {
    std::int64_t count = 0;
    STENCIL_TRY(
        reducer.update_partials(scalars.alpha(), p, q, x, r, count, stream));
    double *partials = nullptr;
    STENCIL_TRY(reducer.block_partials(count, partials));
    return scalars.finish_beta(partials, count, iteration, stream);
  }
  double update_bytes(const Field &x, const Field &r) const {
    return bytes_update_and_norm2(x.lattice(), r.lattice());
  }
  /// queue_update on the default stream, its sums then sent to the host.
  Status update_pass(const Field &p, const Field &q, Field &x, Field &r,
                     CgScalars &scalars, int iteration) {
    STENCIL_TRY(run("update + norm2", update_bytes(x, r), [&] {
      return queue_update(p, q, x, r, scalars, iteration, nullptr);
    }));
    return scalars.sent(iteration);
  }
  /// After a fold pass, which took x's update, queued on `stream`: r -=
  /// alpha q (alpha on the device), with ||r||^2 and beta finished on the
  /// device and written to the host's slot of iteration `iteration`.
  Status queue_residual(const Field &q, Field &r, CgScalars &scalars,
                        int iteration, Stream stream) {
    std::int64_t count = 0;
    STENCIL_TRY(
        reducer.residual_partials(scalars.alpha(), q, r, count, stream));
    double *partials = nullptr;
    STENCIL_TRY(reducer.block_partials(count, partials));
    return scalars.finish_beta(partials, count, iteration, stream);
  }
  /// queue_residual on the default stream, its sums then sent to the host.
  Status residual_pass(const Field &q, Field &r, CgScalars &scalars,
                       int iteration) {
    STENCIL_TRY(run("r update + norm2", bytes_residual_update(r.lattice()),
                    [&] {
                      return queue_residual(q, r, scalars, iteration,
                                            nullptr);
                    }));
    return scalars.sent(iteration);
  }
  /// Whether each operation is timed (an event pair around it): launch
  /// graphs would hide the operations.
  bool timed_operations() const { return timed; }
  /// The last step's x += alpha p that no fold pass took (alpha on the
  /// device).
  Status deferred_solution_update(const Field &p, Field &x,
                                  CgScalars &scalars) {
    return run("x update (the last step's)", bytes_axpy(p.lattice(),
                                                        x.lattice()),
               [&] { return axpy_from_device(scalars.alpha(), p, x); });
  }
  Status update_and_norm2(double alpha, const Field &p, const Field &q,
                          Field &x, Field &r, double &rr) {
    return run("update + norm2",
               bytes_update_and_norm2(x.lattice(), r.lattice()),
               [&] { return reducer.update_and_norm2(alpha, p, q, x, r, rr); });
  }
  /// CG's and CGNR's x += alpha p, r -= alpha q and ||r||^2: fused, one
  /// pass (update_and_norm2); else two axpys and a pass over r.
  Status update(double alpha, const Field &p, const Field &q, Field &x,
                Field &r, bool fused, double &rr) {
    if (fused)
      return update_and_norm2(alpha, p, q, x, r, rr);
    STENCIL_TRY(axpy(alpha, p, x));
    STENCIL_TRY(axpy(-alpha, q, r));
    return norm2_squared(r, rr);
  }

  /// Theoretical bytes since the last reset.
  double bytes = 0.0;
  std::map<std::string, KernelStats> stats;

private:
  template <typename Body>
  Status run(const char *name, double opBytes, Body body) {
    bytes += opBytes;
    if (!timed)
      return body();
    DeviceTimer timer;
    STENCIL_TRY(timer.start());
    STENCIL_TRY(body());
    STENCIL_TRY(timer.stop());
    double ms = 0.0;
    STENCIL_TRY(timer.elapsed_ms(ms));
    KernelStats &s = stats[name];
    s.name = name;
    s.calls += 1;
    s.milliseconds += ms;
    s.bytes += opBytes;
    return Status();
  }

  const LinearSystem &A;
  bool timed;
  Reducer reducer;
};

/// CG with its scalars on the device (the folded kernels, or without them
/// p = r + beta p, q = A p and p.q as passes of their own): each iteration
/// is queued whole, the stencil pass then the update, and the host reads
/// iteration j's sums while iteration j + 1 runs, so that the GPU never
/// waits for the host. With the fold, and x stored like the other fields,
/// x's update x += alpha p goes into the next stencil pass, which reads p
/// anyway (9 field transfers an iteration, not 10), and flush() adds the
/// last one. An iteration queued past convergence is a valid CG step (or,
/// if its p.Ap is not positive, changes neither x nor r: alpha is 0 then).
///
/// On a GPU each iteration's kernels (the fold pass, alpha's finish, the
/// update pass, beta's finish; without the fold the direction's xpay, the
/// operator's kernels and p.q before them) are recorded as a launch graph
/// before the solver's clock starts and replayed with one launch: on a
/// small lattice queuing them one by one took the host longer than the GPU
/// took to run them. The graphs are kept under the fields' and block
/// partials' addresses and the host slot of the sums: two of them, as the
/// slot (and with the fold p and the spare field) alternate. Nothing else
/// the launches read changes during a solve (the operator's parameters and
/// arrays, the scalars' memory), and the pipeline lives for one solve.
/// STENCILC_GRAPHS=off, timed operations (SolveOptions::time_kernels),
/// operators that exchange halos and the host backend launch them one by
/// one.
class CgPipeline {
public:
  CgPipeline(Ops &ops, Field &x, Field &r, Field &p, Field &q, Field &spare,
             int maxIterations, bool folded)
      : ops(ops), x(x), r(r), p(p), q(q), spare(spare),
        maxIterations(maxIterations), folded(folded),
        deferred(folded && defers_solution_update(x, r)) {}

  /// Allocates the device scalars, their pinned copy and the block
  /// partials of every pass, so that none is allocated (and no device
  /// memory freed, which waits for the device) once iterations are queued,
  /// and records the iterations' launch graphs where they run from graphs.
  Status prepare(bool launchGraphs) {
    STENCIL_TRY(scalars.prepare());
    STENCIL_TRY(ops.reserve_partials(r));
    if (folded)
      STENCIL_TRY(ops.reserve_fold_partials());
    STENCIL_TRY(LaunchGraphs::from_environment(graphs));
    if (!recordable())
      whyOneByOne = "the operator exchanges halos between its kernels";
    else if (ops.timed_operations())
      whyOneByOne = "each operation timed";
    else if (!launchGraphs)
      whyOneByOne = "SolveOptions::launch_graphs off";
    if (!whyOneByOne.empty())
      graphs.set_enabled(false);
    if (!graphs.enabled())
      return Status();
    const double start = now_seconds();
    STENCIL_TRY(record_graphs());
    recordSeconds = now_seconds() - start;
    return Status();
  }
  /// How the iterations' kernels were launched (after prepare()).
  std::string launch_description() const {
    if (graphs.enabled()) {
      // The recording is set-up work outside the solver's clock, but a
      // short solve may spend more on it than the graphs save: say what it
      // took.
      char took[64];
      std::snprintf(took, sizeof took, "%.2f ms", recordSeconds * 1e3);
      return "each iteration replayed as a launch graph (" +
             std::to_string(graphs.recordings()) +
             " recorded before the clock started, in " + took + ")";
    }
    if (!whyOneByOne.empty())
      return "kernels launched one by one (" + whyOneByOne + ")";
    return graphs.description();
  }
  /// p = r, ||r||^2 = rr, beta = 0: the first pass's p' is r.
  Status start(double rr) {
    STENCIL_TRY(p.copy_from(r));
    return scalars.start(rr);
  }
  /// After a reliable update replaced r (all queued iterations read).
  Status restart(double rr, double beta) {
    if (queued_ != read_)
      return Status::failure("CgPipeline: restart with iterations queued");
    return scalars.restart(rr, beta);
  }
  /// Queues iterations until `depth` are ahead of the host (or the cap).
  Status fill(int depth) {
    while (queued_ < std::min(read_ + depth, maxIterations)) {
      ++queued_;
      if (graphs.enabled()) {
        STENCIL_TRY(queue_graphed(queued_));
        continue;
      }
      if (folded)
        STENCIL_TRY(
            ops.fold_pass(q, p, spare, r, deferred ? &x : nullptr, scalars));
      else
        STENCIL_TRY(ops.direction_pass(q, p, r, scalars));
      if (deferred)
        STENCIL_TRY(ops.residual_pass(q, r, scalars, queued_));
      else
        STENCIL_TRY(ops.update_pass(p, q, x, r, scalars, queued_));
    }
    return Status();
  }
  /// Where the fold passes take x's update, each adds the last step's
  /// alpha p to x: the last queued step's is still to add (queued behind
  /// it, so x is whole after it however many were read). Call before x is
  /// read; then only restart() (which sets alpha to 0) or the end.
  Status flush() {
    if (!deferred)
      return Status();
    return ops.deferred_solution_update(p, x, scalars);
  }
  /// Waits for the next queued iteration's sums.
  Status next(CgSums &sums) {
    if (read_ == queued_)
      return Status::failure("CgPipeline: no iteration queued");
    return scalars.sums(++read_, sums);
  }
  bool ahead() const { return queued_ > read_; }

  /// How many iterations to keep ahead of the host: two (the GPU never
  /// waits), or one when the residual, falling as it did in the last
  /// iteration, would meet `target` at the next one, so that the loop does
  /// not run an iteration past convergence.
  static int depth(const std::vector<double> &history, double target) {
    const size_t n = history.size();
    if (n < 2 || !(history[n - 2] > 0.0))
      return 2;
    const double next = history[n - 1] * (history[n - 1] / history[n - 2]);
    return next < 2.0 * target ? 1 : 2;
  }

private:
  /// Whether an iteration's kernels can go into a launch graph: the fold
  /// pass's can; the operator's own launches must be kernels only.
  bool recordable() const { return folded || ops.records_apply(); }
  /// The graph key of iteration `iteration` with p and spare as they
  /// stand: every field's and the block partials' address, and the host
  /// slot of its sums.
  Status graph_key(int iteration, LaunchGraphs::Key &key) {
    const void *partials = nullptr;
    STENCIL_TRY(ops.partials_address(partials));
    key = {address(q.data()),     address(p.data()),
           address(spare.data()), address(r.data()),
           address(x.data()),     address(partials),
           static_cast<std::uint64_t>(iteration % CgScalars::kSlots)};
    return Status();
  }
  /// Iteration `iteration`'s launches on `stream`: the fold pass then the
  /// update (the fold's p', in spare, is the direction the update reads),
  /// or p = r + beta p, q = A p and p.q as passes of their own then the
  /// update.
  Status queue_iteration(int iteration, Stream stream) {
    if (!folded) {
      STENCIL_TRY(ops.queue_direction(q, p, r, scalars, stream));
      return ops.queue_update(p, q, x, r, scalars, iteration, stream);
    }
    STENCIL_TRY(ops.queue_fold(q, p, spare, r, deferred ? &x : nullptr,
                               scalars, stream));
    if (deferred)
      return ops.queue_residual(q, r, scalars, iteration, stream);
    return ops.queue_update(spare, q, x, r, scalars, iteration, stream);
  }
  /// Records the graphs of the first two iterations (p and spare trade
  /// places between them, and the later ones repeat them), so that no
  /// iteration records inside the solver's clock.
  Status record_graphs() {
    const int iterations = std::min(2, maxIterations);
    for (int iteration = 1; iteration <= iterations; ++iteration) {
      LaunchGraphs::Key key;
      STENCIL_TRY(graph_key(iteration, key));
      STENCIL_TRY(graphs.prepare(key, [&](Stream stream) {
        return queue_iteration(iteration, stream);
      }));
      if (folded)
        std::swap(p, spare);
    }
    if (folded && iterations % 2 == 1)
      std::swap(p, spare);
    return Status();
  }
  /// Iteration `iteration` as a launch graph.
  Status queue_graphed(int iteration) {
    LaunchGraphs::Key key;
    STENCIL_TRY(graph_key(iteration, key));
    STENCIL_TRY(graphs.run(key, nullptr, [&](Stream stream) {
      return queue_iteration(iteration, stream);
    }));
    if (folded) {
      ops.bytes += ops.fold_bytes(deferred) +
                   (deferred ? bytes_residual_update(r.lattice())
                             : ops.update_bytes(x, r));
      std::swap(p, spare);
    } else {
      ops.bytes += ops.direction_bytes(p) + ops.update_bytes(x, r);
    }
    return scalars.sent(iteration);
  }
  static std::uint64_t address(const void *pointer) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
  }

  Ops &ops;
  Field &x, &r, &p, &q, &spare;
  int maxIterations;
  bool folded;   ///< else `spare` is unused
  bool deferred; ///< x's update in the fold pass (defers_solution_update)
  CgScalars scalars;
  LaunchGraphs graphs; ///< each iteration's kernels, where enabled
  std::string whyOneByOne; ///< why not, where the backend has graphs
  double recordSeconds = 0.0; ///< host time prepare() took to record them
  int queued_ = 0, read_ = 0;
};

} // namespace

namespace {

/// Why CG stopped on p^T A p = `pq` (not positive), computed from fields
/// in `precision` (empty: the outer fields'): " (p^T A p = ...): ...". A
/// value out of range is not the operator's sign: parameters or fields far
/// from 1 overflow or underflow.
std::string breakdown_reason(double pq, const std::string &precision) {
  const std::string in = precision.empty() ? "" : " in " + precision;
  const std::string range =
      precision.empty() ? "the fields' precision" : precision;
  char text[240];
  if (!std::isfinite(pq))
    std::snprintf(text, sizeof text,
                  " (p^T A p = %g%s): the values left the range of %s; "
                  "scale the system (parameters or fields far from 1 "
                  "overflow it)",
                  pq, in.c_str(), range.c_str());
  else if (pq == 0.0)
    std::snprintf(text, sizeof text,
                  " (p^T A p = 0%s): A p is orthogonal to p, or its values "
                  "underflow %s (parameters or fields far from 1; scale the "
                  "system)",
                  in.c_str(), range.c_str());
  else
    std::snprintf(text, sizeof text,
                  " (p^T A p = %.3g%s): the operator is not positive "
                  "definite on these values",
                  pq, in.c_str());
  return text;
}

/// Why CGNR stopped on |A p|^2 = `qq` (not positive, or not finite), as
/// breakdown_reason says it for CG.
std::string normal_breakdown_reason(double qq, const std::string &precision) {
  const std::string in = precision.empty() ? "" : " in " + precision;
  if (!std::isfinite(qq))
    return " (|A p|^2 is not finite" + in + "): the values left the range of " +
           (precision.empty() ? "the fields' precision" : precision) +
           "; scale the system";
  return " (A p = 0" + in + "): the operator is singular";
}

/// The Krylov iterations on A x = rhs from the initial guess in x, stopping
/// when ||r|| / reference < tolerance; fills the report's iteration fields.
/// `diag` (Jacobi) may be null.
Status iterate(const LinearSystem &A, const Field &rhs, Field &x,
               const Field *diag, const SolveOptions &options,
               double reference, SolveReport &report) {
  const Lattice lattice = A.lattice();
  Ops ops(A, options.time_kernels);
  Field r, p, q, z;
  for (Field *f : {&r, &p, &q})
    STENCIL_TRY(Field::create(lattice, *f));
  if (diag)
    STENCIL_TRY(Field::create(lattice, z));

  // r = rhs - A x
  STENCIL_TRY(ops.apply(q, x));
  STENCIL_TRY(r.copy_from(rhs));
  STENCIL_TRY(ops.axpy(-1.0, q, r));
  double rNorm = 0.0;
  STENCIL_TRY(ops.norm2(r, rNorm));
  report.residual_history.push_back(rNorm / reference);

  // CG's fused kernels: q = A p with p.q in one pass, and the update with
  // ||r||^2 in another.
  const bool fused = options.fused && options.method == Method::CG &&
                     A.has_apply_dot();
  report.fused = fused;
  // p = r + beta p inside the next stencil pass where the operator has that
  // kernel (unpreconditioned CG): 10 field transfers an iteration, not 11.
  const bool folded =
      fused && options.fold_direction && !diag && A.has_apply_fold_dot();
  report.folded = folded;
  const bool deviceScalars =
      options.method == Method::CG && !diag &&
      keeps_scalars_on_device(A, options, folded);
  report.device_scalars = deviceScalars;
  // Set up before the clock starts, as r, p and q are: the device scalars,
  // their pinned copy and the block partials of every pass.
  Field pNext;
  if (folded)
    STENCIL_TRY(Field::create(lattice, pNext));
  std::optional<CgPipeline> pipeline;
  if (deviceScalars) {
    pipeline.emplace(ops, x, r, p, q, pNext, options.max_iterations, folded);
    STENCIL_TRY(pipeline->prepare(options.launch_graphs));
    STENCIL_TRY(pipeline->start(rNorm * rNorm));
  }

  STENCIL_TRY(device_synchronize());
  const double start = now_seconds();
  ops.bytes = 0.0;
  ops.stats.clear();
  int k = 0;
  // Both methods' update: x += alpha p, r -= alpha q (q = A p), and record
  // the new relative residual. One pass with ||r||^2 (6 field transfers,
  // 16-byte accesses) wherever `options.fused`, whatever the operator's
  // kernels: CGNR and the Schur complement take it too.
  auto step = [&](double alpha) {
    double rr = 0.0;
    STENCIL_TRY(ops.update(alpha, p, q, x, r, options.fused, rr));
    rNorm = std::sqrt(rr);
    ++k;
    report.residual_history.push_back(rNorm / reference);
    return Status();
  };
  // The breakdowns are decided by sums over the ranks: every rank sees the
  // same bits and fails alike. An infinite p^T A p is one too: alpha = 0
  // would repeat the same step to the iteration cap.
  auto breakdown = [&](double pq) {
    return Status::failure_on_every_rank(
        "solve: CG broke down at iteration " + std::to_string(k + 1) +
        breakdown_reason(pq, "") +
        (std::isfinite(pq) && pq != 0.0 ? "; use CGNR" : ""));
  };
  if (deviceScalars) {
    // CG, its scalars on the device.
    while (true) {
      const bool done = rNorm / reference < options.tolerance ||
                        k >= options.max_iterations;
      if (done && !pipeline->ahead())
        break;
      if (!done)
        STENCIL_TRY(pipeline->fill(
            CgPipeline::depth(report.residual_history, options.tolerance)));
      CgSums sums;
      STENCIL_TRY(pipeline->next(sums));
      if (!(sums.pq > 0.0 && std::isfinite(sums.pq))) {
        if (done)
          break; // queued past convergence: x and r as they were
        // x as of the last step, for a caller that looks at it.
        STENCIL_TRY(pipeline->flush());
        return breakdown(sums.pq);
      }
      ++k;
      rNorm = std::sqrt(sums.rr);
      report.residual_history.push_back(rNorm / reference);
    }
    STENCIL_TRY(pipeline->flush());
    report.launches = pipeline->launch_description();
  } else if (options.method == Method::CG) {
    // Preconditioned CG; z = r without a preconditioner.
    const Field *zr = &r;
    if (diag) {
      STENCIL_TRY(ops.divide(r, *diag, z));
      zr = &z;
    }
    STENCIL_TRY(p.copy_from(*zr));
    double rz = 0.0;
    STENCIL_TRY(ops.dot(r, *zr, rz));
    while (rNorm / reference >= options.tolerance &&
           k < options.max_iterations) {
      double pq = 0.0;
      STENCIL_TRY(ops.direction_product(q, p, fused, pq));
      if (!(pq > 0.0 && std::isfinite(pq)))
        return breakdown(pq);
      STENCIL_TRY(step(rz / pq));
      if (rNorm / reference < options.tolerance)
        break;
      double rzNew = 0.0;
      if (diag) {
        STENCIL_TRY(ops.divide(r, *diag, z));
        STENCIL_TRY(ops.dot(r, z, rzNew));
      } else {
        rzNew = rNorm * rNorm;
      }
      STENCIL_TRY(ops.xpay(*zr, rzNew / rz, p));
      rz = rzNew;
    }
  } else {
    // CGNR: CG on A^T A x = A^T rhs; r stays the residual of A x = rhs.
    Field s;
    STENCIL_TRY(Field::create(lattice, s));
    STENCIL_TRY(ops.apply_adjoint(s, r)); // s = A^T r
    STENCIL_TRY(p.copy_from(s));
    double ss = 0.0;
    STENCIL_TRY(ops.dot(s, s, ss));
    while (rNorm / reference >= options.tolerance &&
           k < options.max_iterations) {
      STENCIL_TRY(ops.apply(q, p)); // q = A p
      double qq = 0.0;
      STENCIL_TRY(ops.dot(q, q, qq));
      if (!(qq > 0.0 && std::isfinite(qq)))
        return Status::failure_on_every_rank(
            "solve: CGNR broke down at iteration " + std::to_string(k + 1) +
            normal_breakdown_reason(qq, ""));
      STENCIL_TRY(step(ss / qq));
      if (rNorm / reference < options.tolerance)
        break;
      STENCIL_TRY(ops.apply_adjoint(s, r));
      double ssNew = 0.0;
      STENCIL_TRY(ops.dot(s, s, ssNew));
      STENCIL_TRY(ops.xpay(s, ssNew / ss, p));
      ss = ssNew;
    }
  }
  STENCIL_TRY(device_synchronize());
  report.seconds = now_seconds() - start;
  report.iterations = k;
  report.converged = rNorm / reference < options.tolerance;
  if (k > 0) {
    report.seconds_per_iteration = report.seconds / k;
    report.bytes_per_iteration = ops.bytes / k;
    if (options.method == Method::CG && !diag)
      report.minimal_bytes_per_iteration =
          bytes_per_fold_apply(A, true) + bytes_residual_update(lattice);
    report.bandwidth_gbs =
        report.bytes_per_iteration / report.seconds_per_iteration / 1e9;
  }
  for (auto &entry : ops.stats)
    report.kernels.push_back(entry.second);
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%.1e", options.tolerance);
  report.message =
      report.converged
          ? std::string("converged: relative residual below ") + tolerance
          : "not converged: iteration cap of " +
                std::to_string(options.max_iterations) + " reached";
  return Status();
}

/// The delta a solve uses: the caller's, or the inner fields' default:
/// 1e-2 for float, which resolves drops of 1e-3 and more between updates
/// (the Wilson-clover Schur CGNR at 32^3 x 64 on an H100: 9 updates with
/// delta 1e-1, 5 with 1e-2, 16% faster to 1e-10), and 1e-1 for bfloat16
/// (1e-2 doubled the 3-D Laplacian's iterations at 256^3, 3e-2 added 11%).
double reliable_delta_for(const SolveOptions &options, int inner_bytes) {
  if (options.reliable_delta > 0.0)
    return options.reliable_delta;
  return inner_bytes == 2 ? 1e-1 : 1e-2;
}

/// The unit roundoff of inner fields of `bytes`-byte values: bfloat16 keeps
/// 8 significant bits, float 24.
double unit_roundoff(int bytes) {
  return bytes == 2 ? 0x1p-8 : bytes == 4 ? 0x1p-24 : 0x1p-53;
}

/// Mixed-precision CG with reliable updates (SolveOptions::mixed_precision):
/// CG's recurrences on `inner` (A in lower precision) in lower-precision
/// fields, from r = rhs - A x; when ||r_inner|| < delta * (the largest
/// residual since the last update), when the rounding the recurrence has
/// gathered since the last update may be as large as the residual itself,
/// or when the inner residual says converged, the inner iterate is added to
/// x and r = rhs - A x is computed in A's precision (a reliable update),
/// r_inner set from it and CG goes on from the new residual with the same
/// direction p. Stops when the true residual of an update meets the
/// tolerance.
///
/// The rounding bound (after van der Vorst and Ye's estimate of the gap
/// between a recurrence's residual and the true one): each iteration stores
/// r to the inner fields' unit roundoff u, so the gap grows by about
/// u ||r_k||; an update comes when u * sum_k ||r_k|| reaches ||r||. It is
/// a lower bound of the gap (the rounding of A p adds to it), so the
/// default deltas stay the first rule; the bound is the safety net for a
/// delta finer than the fields resolve, which never converged without it:
/// bfloat16's recurrence (u = 2^-8) drifts from the true residual before it
/// has fallen by 1e-3, and with delta 1e-3 the 3-D Laplacian at 256^3 and
/// the Wilson-clover operator at 32^3 x 64 ran into the iteration cap on an
/// H100.
Status iterate_mixed(const LinearSystem &A, const LinearSystem &inner,
                     const Field &rhs, Field &x, const SolveOptions &options,
                     double reference, SolveReport &report) {
  const Lattice lattice = A.lattice(), low = inner.lattice();
  // bfloat16 inner fields keep the inner iterate in float: its corrections
  // add up over an inner cycle, and x's rounding error, amplified by A,
  // would exceed the residual being reduced.
  Lattice lowX = low;
  lowX.element_bytes = std::max(low.element_bytes, 4);
  Ops ops(A, options.time_kernels), lowOps(inner, options.time_kernels);
  Field r, q, rLow, pLow, qLow, xLow;
  for (Field *f : {&r, &q})
    STENCIL_TRY(Field::create(lattice, *f));
  for (Field *f : {&rLow, &pLow, &qLow})
    STENCIL_TRY(Field::create(low, *f));
  STENCIL_TRY(Field::create(lowX, xLow));
  const double delta = reliable_delta_for(options, low.element_bytes);
  const double roundoff = unit_roundoff(low.element_bytes);
  report.reliable_delta = delta;
  report.inner_precision = low.element_bytes == 2   ? "bf16"
                           : low.element_bytes == 4 ? "float"
                                                    : "double";
  // r = rhs - A x, in A's precision.
  auto trueResidual = [&](double &norm) {
    STENCIL_TRY(ops.apply(q, x));
    STENCIL_TRY(r.copy_from(rhs));
    STENCIL_TRY(ops.axpy(-1.0, q, r));
    return ops.norm2(r, norm);
  };
  double rNorm = 0.0;
  STENCIL_TRY(trueResidual(rNorm));
  report.residual_history.push_back(rNorm / reference);

  const bool cgnr = options.method == Method::CGNR;
  const bool fused = !cgnr && options.fused && inner.has_apply_dot();
  report.fused = fused;
  const bool folded =
      fused && options.fold_direction && inner.has_apply_fold_dot();
  report.folded = folded;
  // The inner CG keeps its scalars on the device as CG in A's precision
  // would (the fold, or the Schur complement's passes of their own).
  const bool deviceScalars =
      !cgnr && keeps_scalars_on_device(inner, options, folded);
  report.device_scalars = deviceScalars;
  // Set up before the clock starts, as the other fields are (and as the
  // solve in A's precision does): the inner CG's pipeline, its device
  // scalars and block partials.
  Field pNextLow;
  std::optional<CgPipeline> pipeline;
  if (deviceScalars) {
    if (folded)
      STENCIL_TRY(Field::create(low, pNextLow));
    pipeline.emplace(lowOps, xLow, rLow, pLow, qLow, pNextLow,
                     options.max_iterations, folded);
    STENCIL_TRY(pipeline->prepare(options.launch_graphs));
  } else {
    STENCIL_TRY(lowOps.reserve_partials(rLow));
  }

  STENCIL_TRY(device_synchronize());
  const double start = now_seconds();
  ops.bytes = lowOps.bytes = 0.0;
  ops.stats.clear();
  lowOps.stats.clear();
  STENCIL_TRY(convert(r, rLow));
  STENCIL_TRY(fill(xLow, 0.0));
  double rr = rNorm * rNorm, largest = rNorm;
  // The rounding the inner recurrence has gathered since the last update.
  double drift = roundoff * rNorm;
  // CGNR: CG on A^T A x = A^T rhs; its direction follows s = A^T r. A
  // reliable update recomputes r in A's precision, and s from it with the
  // inner operator: s is stored in the inner precision either way, and the
  // tolerance is on the true r, so A^T in A's precision (half of each
  // update's work before) bought nothing.
  Field sLow;
  double ss = 0.0;
  auto normalResidual = [&](double &norm2) -> Status {
    STENCIL_TRY(lowOps.apply_adjoint(sLow, rLow));
    return lowOps.dot(sLow, sLow, norm2);
  };
  if (cgnr) {
    STENCIL_TRY(Field::create(low, sLow));
    STENCIL_TRY(normalResidual(ss));
    STENCIL_TRY(pLow.copy_from(sLow));
  } else {
    STENCIL_TRY(pLow.copy_from(rLow));
  }
  int k = 0;
  // The inner iterate into x, and the residual recomputed in A's precision.
  auto reliableUpdate = [&]() -> Status {
    STENCIL_TRY(ops.axpy(1.0, xLow, x));
    STENCIL_TRY(fill(xLow, 0.0));
    STENCIL_TRY(trueResidual(rNorm));
    STENCIL_TRY(convert(r, rLow));
    largest = rNorm;
    drift = roundoff * rNorm;
    ++report.reliable_updates;
    return Status();
  };
  auto wantsUpdate = [&] {
    drift += roundoff * rNorm;
    const bool byDelta = rNorm < delta * largest, byDrift = drift >= rNorm;
    if (byDrift && !byDelta)
      ++report.rounding_updates;
    return byDelta || byDrift ||
           rNorm / reference < options.tolerance ||
           k == options.max_iterations;
  };
  while (cgnr && rNorm / reference >= options.tolerance &&
         k < options.max_iterations) {
    STENCIL_TRY(lowOps.apply(qLow, pLow)); // q = A p
    double qq = 0.0;
    STENCIL_TRY(lowOps.dot(qLow, qLow, qq));
    if (!(qq > 0.0 && std::isfinite(qq)))
      return Status::failure_on_every_rank(
          "solve: mixed-precision CGNR broke down at iteration " +
          std::to_string(k + 1) +
          normal_breakdown_reason(qq, report.inner_precision));
    const double alpha = ss / qq;
    STENCIL_TRY(
        lowOps.update(alpha, pLow, qLow, xLow, rLow, options.fused, rr));
    rNorm = std::sqrt(rr);
    ++k;
    if (wantsUpdate())
      STENCIL_TRY(reliableUpdate());
    largest = std::max(largest, rNorm);
    report.residual_history.push_back(rNorm / reference);
    if (rNorm / reference < options.tolerance)
      break;
    double ssNew = 0.0;
    STENCIL_TRY(normalResidual(ssNew));
    STENCIL_TRY(lowOps.xpay(sLow, ssNew / ss, pLow));
    ss = ssNew;
  }
  auto innerBreakdown = [&](double pq) {
    return Status::failure_on_every_rank(
        "solve: mixed-precision CG broke down at iteration " +
        std::to_string(k + 1) + breakdown_reason(pq, report.inner_precision));
  };
  if (pipeline) {
    // The inner CG with its scalars on the device (CgPipeline).
    STENCIL_TRY(pipeline->start(rr));
    double rrBefore = rr; // ||r||^2 before the last iteration read
    auto take = [&](const CgSums &sums) {
      ++k;
      rrBefore = rr;
      rr = sums.rr;
      rNorm = std::sqrt(rr);
    };
    while (rNorm / reference >= options.tolerance &&
           k < options.max_iterations) {
      STENCIL_TRY(pipeline->fill(
          CgPipeline::depth(report.residual_history, options.tolerance)));
      CgSums sums;
      STENCIL_TRY(pipeline->next(sums));
      if (!(sums.pq > 0.0 && std::isfinite(sums.pq)))
        return innerBreakdown(sums.pq);
      take(sums);
      if (wantsUpdate()) {
        // The iteration queued behind this one joins the update (one that
        // broke down left x and r as they were: its alpha was 0).
        while (pipeline->ahead()) {
          report.residual_history.push_back(rNorm / reference);
          STENCIL_TRY(pipeline->next(sums));
          if (sums.pq > 0.0)
            take(sums);
        }
        STENCIL_TRY(pipeline->flush());
        STENCIL_TRY(reliableUpdate());
        rr = rNorm * rNorm;
        STENCIL_TRY(pipeline->restart(rr, rr / rrBefore));
      }
      largest = std::max(largest, rNorm);
      report.residual_history.push_back(rNorm / reference);
    }
    report.launches = pipeline->launch_description();
  }
  while (!cgnr && !pipeline && rNorm / reference >= options.tolerance &&
         k < options.max_iterations) {
    double pq = 0.0;
    STENCIL_TRY(lowOps.direction_product(qLow, pLow, fused, pq));
    if (!(pq > 0.0 && std::isfinite(pq)))
      return innerBreakdown(pq);
    const double alpha = rr / pq;
    double rrNew = 0.0;
    STENCIL_TRY(lowOps.update(alpha, pLow, qLow, xLow, rLow, options.fused,
                              rrNew));
    ++k;
    rNorm = std::sqrt(rrNew);
    if (wantsUpdate()) {
      STENCIL_TRY(reliableUpdate());
      rrNew = rNorm * rNorm;
    }
    largest = std::max(largest, rNorm);
    report.residual_history.push_back(rNorm / reference);
    if (rNorm / reference < options.tolerance)
      break;
    STENCIL_TRY(lowOps.xpay(rLow, rrNew / rr, pLow));
    rr = rrNew;
  }
  STENCIL_TRY(device_synchronize());
  report.seconds = now_seconds() - start;
  report.iterations = k;
  report.converged = rNorm / reference < options.tolerance;
  if (k > 0) {
    report.seconds_per_iteration = report.seconds / k;
    report.bytes_per_iteration = (ops.bytes + lowOps.bytes) / k;
    report.bandwidth_gbs =
        report.bytes_per_iteration / report.seconds_per_iteration / 1e9;
  }
  for (Ops *o : {&lowOps, &ops})
    for (auto &entry : o->stats) {
      KernelStats stats = entry.second;
      stats.name = (o == &lowOps ? report.inner_precision + " "
                                 : std::string("outer ")) +
                   stats.name;
      report.kernels.push_back(stats);
    }
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%.1e", options.tolerance);
  report.message =
      report.converged
          ? std::string("converged: relative residual below ") + tolerance +
                " (mixed precision, " +
                std::to_string(report.reliable_updates) + " reliable updates)"
          : "not converged: iteration cap of " +
                std::to_string(options.max_iterations) + " reached";
  return Status();
}

/// Mixed precision: CG or CGNR, no preconditioner, a delta in [0, 1).
Status check_mixed(const SolveOptions &options) {
  if (!options.mixed_precision)
    return Status();
  if (options.preconditioner != Preconditioner::None)
    return Status::failure("solve: mixed precision is built for CG and CGNR "
                           "without a preconditioner, not with preconditioner " +
                           std::string(preconditioner_name(
                               options.preconditioner)));
  if (!(options.reliable_delta >= 0.0 && options.reliable_delta < 1.0))
    return Status::failure("solve: reliable_delta must lie in (0, 1) (or be "
                           "0 for the inner fields' default), not " +
                           std::to_string(options.reliable_delta));
  return Status();
}

/// The checks of a solve's arguments, on this rank: lattices, options, the
/// environment. `evenOdd`: solve_even_odd's.
Status check_solve_arguments(const StencilOperator &A, const Field &b,
                             const Field &x, const SolveOptions &options,
                             bool evenOdd) {
  STENCIL_TRY(A.require_created("solve"));
  STENCIL_TRY(require_storage(b, "solve: b"));
  STENCIL_TRY(require_storage(x, "solve: x"));
  // The solve writes x: the operator would read its own iterate.
  if (A.reads(x))
    return Status::failure("solve: x is one of the operator's own fields (a "
                           "site parameter's array, the links or the clover "
                           "term); solve into a field of its own");
  const Lattice &lattice = A.lattice();
  STENCIL_TRY(require_same_lattice(lattice, b.lattice(), "solve: b"));
  STENCIL_TRY(require_same_lattice(lattice, x.lattice(), "solve: x"));
  // A relative residual: 1 is met by x = 0, which would be reported as a
  // converged solve.
  if (!(options.tolerance > 0) || !(options.tolerance < 1)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", options.tolerance);
    return Status::failure(std::string("solve: the tolerance (a relative "
                                       "residual) must be between 0 and 1, "
                                       "not ") +
                           text);
  }
  if (options.max_iterations < 0)
    return Status::failure("solve: the iteration cap must be non-negative, "
                           "not " +
                           std::to_string(options.max_iterations));
  // A lattice no wider than its halo has nothing to solve for, and the
  // relative residual of zero unknowns is 0 / 0.
  if (lattice.interior_sites() == 0)
    return Status::failure("solve: lattice " + lattice.describe() +
                           " has no unknowns: every site is halo");
  STENCIL_TRY(check_mixed(options));
  // Every solve reads STENCILC_GRAPHS, also those that record no graph
  // (CGNR, preconditioned CG): a misspelt value is an error everywhere,
  // not only where CG's pipeline or a Schur complement reads it.
  LaunchGraphs environment;
  STENCIL_TRY(LaunchGraphs::from_environment(environment));
  if (options.method == Method::CGNR &&
      options.preconditioner == Preconditioner::Jacobi)
    return Status::failure("solve: Jacobi preconditioning is implemented for "
                           "CG only, not CGNR");
  if (evenOdd && options.preconditioner != Preconditioner::None)
    return Status::failure(
        "solve_even_odd: the Schur complement is itself the preconditioning; "
        "use preconditioner none (Jacobi applies to the whole system)");
  return Status();
}

/// What every rank of a solve must share: the entry point, the options
/// that decide its iterations and kernels, and the operator's scalar
/// parameters, printed exactly. Not the options that only time, or that
/// hold on one rank only (device scalars, launch graphs, the fold pass).
std::string describe_solve(const StencilOperator &A,
                           const SolveOptions &options, bool evenOdd) {
  char text[512];
  std::snprintf(
      text, sizeof text,
      "%s, %s, preconditioner %s, tolerance %.17g, at most %d iterations, "
      "mixed precision %d (delta %.17g), fused %d, clover %s",
      evenOdd ? "solve_even_odd" : "solve", method_name(options.method),
      preconditioner_name(options.preconditioner), options.tolerance,
      options.max_iterations, options.mixed_precision, options.reliable_delta,
      options.fused,
      options.clover_placement == CloverPlacement::Epilogue ? "epilogue"
                                                            : "site kernel");
  std::string out = text;
  const KernelInfo &info = A.info();
  for (int p = 0; p < info.num_params; ++p) {
    if (info.param_is_site[p])
      continue;
    std::snprintf(text, sizeof text, "%.17g", A.parameter_values()[p]);
    out += std::string(", ") + info.param_names[p] + " " + text;
  }
  return out;
}

/// The checks and set-up both entry points share: the arguments (agreed
/// on over the ranks, so that ranks called with different ones fail alike
/// instead of waiting, and compared), the operator's definiteness for CG,
/// b's interior (halo zero) and its norm; x's halo is zeroed.
Status begin_solve(const StencilOperator &A, const Field &b, Field &x,
                   const SolveOptions &options, bool evenOdd,
                   SolveReport &report, Field &bInterior, double &bNorm) {
  report = SolveReport();
  report.method = method_name(options.method);
  report.preconditioner = preconditioner_name(options.preconditioner);
  const Communicator comm = A.communicator();
  STENCIL_TRY(comm.agree(check_solve_arguments(A, b, x, options, evenOdd)));
  // Valid but different options or parameter values would solve different
  // systems, or stop at different iterations and wait for each other.
  if (comm.distributed())
    STENCIL_TRY(comm.same("solve's options and the operator's parameters",
                          describe_solve(A, options, evenOdd)));
  if (options.method == Method::CG)
    STENCIL_TRY(A.check_spd());
  const Lattice &lattice = A.lattice();
  // The unknowns are the interior values: b's halo is ignored, x's is zero.
  STENCIL_TRY(Field::create(lattice, bInterior));
  STENCIL_TRY(bInterior.copy_from(b));
  STENCIL_TRY(set_halo(bInterior, 0.0));
  STENCIL_TRY(set_halo(x, 0.0));
  Reducer reducer(A.communicator());
  STENCIL_TRY(reducer.norm2(bInterior, bNorm));
  // A non-finite b or initial x would end the iteration on a NaN residual
  // and be reported as the operator's fault or a reached cap. (b = 0
  // overwrites x with 0: its values do not matter then.)
  if (!std::isfinite(bNorm))
    return Status::failure_on_every_rank(
        "solve: the norm of b is not finite (values that are NaN or "
        "infinite, or too large to square)");
  // The sums run in double, where a float's square never underflows; a
  // double's does below about 1e-162, and such a b is not zero: x = 0
  // would be a wrong answer. Scaled by 2^600 (exactly) any nonzero double
  // squares to a normal number.
  if (bNorm == 0.0) {
    if (lattice.element_bytes == 8) {
      Field scaled;
      STENCIL_TRY(Field::create(lattice, scaled));
      STENCIL_TRY(scaled.copy_from(bInterior));
      STENCIL_TRY(scale(0x1p600, scaled));
      double scaledNorm = 0.0;
      STENCIL_TRY(reducer.norm2(scaled, scaledNorm));
      if (scaledNorm != 0.0) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "solve: b is not zero, but its norm (%.3g) underflows "
                      "in double (values under about 1e-162 square to 0); "
                      "scale the system",
                      std::ldexp(scaledNorm, -600));
        return Status::failure_on_every_rank(text);
      }
    }
    return Status();
  }
  double xNorm = 0.0;
  STENCIL_TRY(reducer.norm2(x, xNorm));
  if (!std::isfinite(xNorm))
    return Status::failure_on_every_rank(
        "solve: the norm of the initial x is not finite (values that are NaN "
        "or infinite, or too large to square)");
  return Status();
}

/// b = 0: x = 0, reported as converged without iterating.
Status zero_solution(Field &x, SolveReport &report) {
  STENCIL_TRY(fill(x, 0.0));
  report.converged = true;
  report.residual_history = {0.0};
  report.message = "b = 0, so x = 0";
  return Status();
}

/// ||b - A x|| / ||b|| into the report.
Status finish_solve(const StencilOperator &A, const Field &bInterior,
                    const Field &x, double bNorm, SolveReport &report) {
  Field r, q;
  STENCIL_TRY(Field::create(A.lattice(), r));
  STENCIL_TRY(Field::create(A.lattice(), q));
  STENCIL_TRY(A.apply(q, x));
  STENCIL_TRY(r.copy_from(bInterior));
  STENCIL_TRY(axpy(-1.0, q, r));
  Reducer reducer(A.communicator());
  double trueNorm = 0.0;
  STENCIL_TRY(reducer.norm2(r, trueNorm));
  report.true_relative_residual = trueNorm / bNorm;
  return Status();
}

} // namespace

namespace {

/// The unknowns of the whole system: each rank's lattice holds its own
/// block (collective; exact in double up to 2^53).
Status count_unknowns(const Communicator &comm, const Lattice &lattice,
                      SolveReport &report) {
  double unknowns = static_cast<double>(lattice.interior_sites()) *
                    lattice.components;
  STENCIL_TRY(comm.sum(unknowns));
  report.unknowns = static_cast<std::int64_t>(unknowns);
  return Status();
}

/// solve() on this rank; solve() ends the job on a failure of this rank
/// alone (Communicator::local_failure_ends_job).
Status solve_on_rank(const StencilOperator &A, const Field &b, Field &x,
                     const SolveOptions &options, SolveReport &report) {
  Field bInterior;
  double bNorm = 0.0;
  STENCIL_TRY(begin_solve(A, b, x, options, /*evenOdd=*/false, report,
                          bInterior, bNorm));
  report.system = "A";
  STENCIL_TRY(count_unknowns(A.communicator(), A.lattice(), report));
  if (bNorm == 0.0)
    return zero_solution(x, report);
  if (options.mixed_precision) {
    StencilOperator inner;
    STENCIL_TRY(A.create_inner(inner));
    STENCIL_TRY(iterate_mixed(SystemOf<StencilOperator>(A),
                              SystemOf<StencilOperator>(inner), bInterior, x,
                              options, bNorm, report));
    return finish_solve(A, bInterior, x, bNorm, report);
  }
  Field diag;
  if (options.preconditioner == Preconditioner::Jacobi) {
    STENCIL_TRY(Field::create(A.lattice(), diag));
    STENCIL_TRY(A.diagonal(diag));
  }
  STENCIL_TRY(iterate(SystemOf<StencilOperator>(A), bInterior, x,
                      options.preconditioner == Preconditioner::Jacobi ? &diag
                                                                       : nullptr,
                      options, bNorm, report));
  return finish_solve(A, bInterior, x, bNorm, report);
}

/// solve_even_odd() on this rank.
Status solve_even_odd_on_rank(const StencilOperator &A, const Field &b,
                              Field &x, const SolveOptions &options,
                              SolveReport &report) {
  Field bInterior;
  double bNorm = 0.0;
  STENCIL_TRY(begin_solve(A, b, x, options, /*evenOdd=*/true, report, bInterior,
                          bNorm));
  SchurComplement S;
  STENCIL_TRY(SchurComplement::create(A, S, options.clover_placement));
  report.system = "even/odd Schur complement";
  STENCIL_TRY(count_unknowns(S.communicator(), S.lattice(), report));
  if (bNorm == 0.0)
    return zero_solution(x, report);
  Field rhs, xEven;
  STENCIL_TRY(Field::create(S.lattice(), rhs));
  STENCIL_TRY(S.prepare(bInterior, rhs));
  STENCIL_TRY(x.half(0, xEven));
  // S's residual is A's residual on the even sites (the odd sites' is zero
  // after reconstruction), so measuring it against ||b|| stops both solvers
  // at the same accuracy of A x = b.
  if (options.mixed_precision) {
    StencilOperator inner;
    SchurComplement innerS;
    STENCIL_TRY(A.create_inner(inner));
    STENCIL_TRY(SchurComplement::create(inner, innerS,
                                        options.clover_placement));
    STENCIL_TRY(iterate_mixed(SystemOf<SchurComplement>(S),
                              SystemOf<SchurComplement>(innerS), rhs, xEven,
                              options, bNorm, report));
  } else {
    STENCIL_TRY(iterate(SystemOf<SchurComplement>(S), rhs, xEven, nullptr,
                        options, bNorm, report));
  }
  STENCIL_TRY(S.reconstruct(bInterior, x));
  return finish_solve(A, bInterior, x, bNorm, report);
}

} // namespace

// Collective over a distributed operator's ranks. Their failures are agreed
// on, or decided by sums every rank shares; any other (an allocation, a
// kernel) ends the job, since the other ranks would wait in the next sum.
Status solve(const StencilOperator &A, const Field &b, Field &x,
             const SolveOptions &options, SolveReport &report) {
  return A.communicator().local_failure_ends_job(
      solve_on_rank(A, b, x, options, report), "solve");
}

Status solve_even_odd(const StencilOperator &A, const Field &b, Field &x,
                      const SolveOptions &options, SolveReport &report) {
  return A.communicator().local_failure_ends_job(
      solve_even_odd_on_rank(A, b, x, options, report), "solve_even_odd");
}

void print_report(const SolveReport &report, std::FILE *out) {
  std::fprintf(out, "  method              %s, preconditioner %s, on %s "
                    "(%lld unknowns)\n",
               report.method.c_str(), report.preconditioner.c_str(),
               report.system.c_str(), static_cast<long long>(report.unknowns));
  std::fprintf(out, "  result              %s\n", report.message.c_str());
  if (!report.inner_precision.empty())
    std::fprintf(out, "  mixed precision     inner iterations in %s, %d "
                      "reliable updates in the outer precision (delta %g; "
                      "%d when the inner rounding reached the residual)\n",
                 report.inner_precision == "bf16"
                     ? "float on bfloat16 fields (the iterate in float)"
                     : report.inner_precision.c_str(),
                 report.reliable_updates, report.reliable_delta,
                 report.rounding_updates);
  std::fprintf(out, "  iterations          %d\n", report.iterations);
  std::fprintf(out, "  relative residual   %.3e (recurrence), %.3e (true, "
                    "||b - A x|| / ||b||)\n",
               report.residual_history.empty()
                   ? 0.0
                   : report.residual_history.back(),
               report.true_relative_residual);
  std::fprintf(out, "  residual history   ");
  const size_t n = report.residual_history.size();
  for (size_t i = 0; i < n; ++i)
    if (i < 3 || i + 3 >= n || i % ((n / 8) + 1) == 0)
      std::fprintf(out, " %zu:%.2e", i, report.residual_history[i]);
  std::fprintf(out, "\n");
  std::fprintf(out, "  wall time           %.4f s, %.4f ms per iteration\n",
               report.seconds, report.seconds_per_iteration * 1e3);
  std::fprintf(out, "  bandwidth           %.1f GB/s (%.1f MB per iteration, "
                    "theoretical bytes)\n",
               report.bandwidth_gbs, report.bytes_per_iteration / 1e6);
  if (report.minimal_bytes_per_iteration > 0)
    std::fprintf(out, "  traffic             %s: %.1f MB per "
                      "iteration, minimal %.1f MB (%.2fx)\n",
                 report.folded ? "fused kernels, p = r + beta p (and x's "
                                 "update where stored alike) folded in"
                 : report.fused ? "fused kernels"
                 : report.device_scalars
                     ? "unfused kernels, scalars on the device"
                     : "unfused kernels",
                 report.bytes_per_iteration / 1e6,
                 report.minimal_bytes_per_iteration / 1e6,
                 report.bytes_per_iteration /
                     report.minimal_bytes_per_iteration);
  if (!report.launches.empty())
    std::fprintf(out, "  launches            %s\n", report.launches.c_str());
  for (const KernelStats &k : report.kernels)
    std::fprintf(out,
                 "    %-18s %7ld calls %10.3f ms %8.1f GB/s\n", k.name.c_str(),
                 k.calls, k.milliseconds, k.bandwidth_gbs());
}

} // namespace stencil
