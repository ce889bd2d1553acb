// stencil/solver.hpp - matrix-free Krylov solvers on generated operators:
// CG, Jacobi-preconditioned CG, and CGNR (CG on the normal equations
// A^T A x = A^T b, through the adjoint kernel) for non-symmetric operators.
#ifndef STENCIL_SOLVER_HPP
#define STENCIL_SOLVER_HPP

#include "stencil/even_odd.hpp"
#include "stencil/field.hpp"
#include "stencil/operator.hpp"
#include "stencil/types.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace stencil {

enum class Method { CG, CGNR };
enum class Preconditioner { None, Jacobi };

const char *method_name(Method method);
const char *preconditioner_name(Preconditioner preconditioner);

struct SolveOptions {
  Method method = Method::CG;
  Preconditioner preconditioner = Preconditioner::None;
  /// Stop when ||b - A x|| / ||b|| (the recurrence's residual) drops below.
  double tolerance = 1e-10;
  int max_iterations = 10000;
  /// Synchronise around every operation and time it, to report each
  /// kernel's bandwidth; adds a little time per iteration.
  bool time_kernels = false;
  /// CG with fused kernels where the generated code has them
  /// (KernelInfo::apply_dot): the stencil computes p.q as it writes q = A p.
  /// And for CG and CGNR on any operator, one pass updates x and r and
  /// computes ||r||^2 (Reducer::update_and_norm2) instead of two axpys and
  /// a norm. 11 field transfers per CG iteration instead of 14; same
  /// iterates up to rounding. False keeps the textbook passes.
  bool fused = true;
  /// With `fused`, unpreconditioned CG on one rank, on the whole lattice:
  /// p = r + beta p inside the next stencil pass
  /// (KernelInfo::apply_fold_dot), and the last step's x += alpha p there
  /// too, so that the update pass moves r alone: 9 field transfers per
  /// iteration instead of 11. False keeps them passes of their own (for
  /// comparisons, and for the vector fields whose stencil pass runs too far
  /// below the copy bandwidth for the fold to pay: docs/performance.md,
  /// "CG's fold pass for vector fields").
  bool fold_direction = true;
  /// With `fused`, unpreconditioned CG on one rank where the operator has
  /// no fused kernels (the even/odd Schur complement): CG's scalars on the
  /// device, so that the host queues iterations ahead of the GPU instead of
  /// waiting for each iteration's sums (the folded CG always keeps them
  /// there). False keeps them on the host (for comparisons).
  bool device_scalars = true;
  /// CG with its scalars on the device, on one GPU: each iteration's
  /// kernels recorded once as a launch graph before the clock starts and
  /// replayed (stencil/launch_graph.hpp; STENCILC_GRAPHS=off turns them off
  /// too). False launches them one by one. The Schur complement's own
  /// graphs, outside CG's iterations, follow
  /// SchurComplement::set_launch_graphs.
  bool launch_graphs = true;
  /// solve_even_odd with a clover term: the clover inverse in the hopping
  /// kernels' epilogue, or the clover kernel between them.
  CloverPlacement clover_placement = CloverPlacement::Epilogue;
  /// Mixed-precision CG with reliable updates: the iterations run on the
  /// stencil's lower-precision kernels (the spec's inner_precision;
  /// StencilOperator::create_inner) on lower-precision fields; the solution
  /// is accumulated and the residual recomputed in the operator's precision
  /// whenever the inner residual has dropped by `reliable_delta` since the
  /// last such update, or sooner where the rounding of the inner fields
  /// (their unit roundoff times the inner residuals since the update) may
  /// have reached the residual, and before stopping, so that the tolerance
  /// holds for the true residual. CG and CGNR (whose A^T r is recomputed
  /// from the new r by the inner operator), without a preconditioner.
  bool mixed_precision = false;
  /// In (0, 1); 0 for the inner fields' default: 1e-2 for float, 1e-1 for
  /// bfloat16.
  double reliable_delta = 0.0;
};

struct KernelStats {
  std::string name;
  long calls = 0;
  double milliseconds = 0.0;
  double bytes = 0.0; ///< theoretical, all calls
  double bandwidth_gbs() const {
    return milliseconds > 0 ? bytes / (milliseconds * 1e6) : 0.0;
  }
};

struct SolveReport {
  std::string method;
  std::string preconditioner;
  /// "A", or "even/odd Schur complement" (solve_even_odd), and its number
  /// of unknowns (interior values).
  std::string system;
  std::int64_t unknowns = 0;
  bool converged = false;
  int iterations = 0;
  /// ||r_k|| / ||b|| for k = 0 .. iterations (the recurrence's residual).
  std::vector<double> residual_history;
  /// ||b - A x|| / ||b|| recomputed from x at the end.
  double true_relative_residual = 0.0;
  double seconds = 0.0; ///< the iterations, from the first to the last
  double seconds_per_iteration = 0.0;
  /// Theoretical bytes one iteration moves (each operand read once, each
  /// result written once), and that over the time per iteration.
  double bytes_per_iteration = 0.0;
  double bandwidth_gbs = 0.0;
  /// Whether the fused kernels ran (SolveOptions::fused and available).
  bool fused = false;
  /// Whether CG's direction update p = r + beta p, and x's update, ran
  /// inside the fused stencil pass (StencilOperator::apply_fold_dot): one
  /// rank, the whole lattice, no preconditioner.
  bool folded = false;
  /// Whether CG's scalars stayed on the device (the folded CG, or
  /// SolveOptions::device_scalars), so that iterations were queued ahead.
  bool device_scalars = false;
  /// How CG's iterations were launched where their scalars stayed on the
  /// device ("each iteration replayed as a launch graph (2 recorded before
  /// the clock started, in 0.35 ms)", or why one by one); else empty.
  std::string launches;
  /// Mixed precision: the inner iterations' precision ("float") and the
  /// reliable updates made (each one application of A in the outer one).
  std::string inner_precision; ///< "float", or "bf16" (bfloat16 fields)
  int reliable_updates = 0;
  double reliable_delta = 0.0; ///< the delta they followed
  /// The updates that came because the inner rounding may have reached the
  /// residual, before it had dropped by delta.
  int rounding_updates = 0;
  /// Plain CG only (else 0): the fewest bytes an iteration can move. The two
  /// global sums split it into two passes: before p.q is known, one must
  /// read r and p and write p = r + beta p and q = A p (the stencil's traffic
  /// and r and p' on the interior; coefficient fields are read once); after
  /// it, one must read r and q and write r. x += alpha p needs no pass of
  /// its own: the next stencil pass reads p anyway, and reads and writes x
  /// there. 9 fields, as the fused kernels move them with the direction
  /// update and x's update folded in (SolveReport::folded); 11 without them
  /// (p = r + beta p its own pass, x updated with r), the unfused 14.
  double minimal_bytes_per_iteration = 0.0;
  std::vector<KernelStats> kernels; ///< with SolveOptions::time_kernels
  std::string message;              ///< why it stopped
};

/// Solves A x = b for x on the operator's interior unknowns: the halo of a
/// Dirichlet b is ignored (boundary data belongs in b's interior) and the
/// halo of x is set to zero. x on entry is the initial guess. Returns an
/// error for invalid input (lattice mismatch, CG on an operator that is not
/// SPD, breakdown); non-convergence within the cap is not an error: the
/// report says so.
Status solve(const StencilOperator &A, const Field &b, Field &x,
             const SolveOptions &options, SolveReport &report);

/// Solves A x = b through the Schur complement of an even/odd stencil
/// (stencil/even_odd.hpp): CG (or CGNR) on the even sites, then the odd
/// sites from them. The report's residuals are relative to ||b|| and
/// measure A x = b, as solve()'s do, so both stop at the same accuracy; its
/// iterations are the Schur solve's. x's odd half on entry is ignored.
Status solve_even_odd(const StencilOperator &A, const Field &b, Field &x,
                      const SolveOptions &options, SolveReport &report);

/// The report as a short table.
void print_report(const SolveReport &report, std::FILE *out);

} // namespace stencil

#endif
