#include "stencil/solver.hpp"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"

#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>

namespace stencil {

const char *method_name(Method method) {
  return method == Method::CG ? "cg" : "cgnr";
}

const char *preconditioner_name(Preconditioner preconditioner) {
  return preconditioner == Preconditioner::None ? "none" : "jacobi";
}

namespace {

/// Runs solver operations, timing each kind when asked.
class Ops {
public:
  Ops(const StencilOperator &A, bool timed) : A(A), timed(timed) {}

  Status apply(Field &out, const Field &in) {
    return run("stencil apply", A.bytes_per_apply(),
               [&] { return A.apply(out, in); });
  }
  Status apply_adjoint(Field &out, const Field &in) {
    return run("stencil adjoint", A.bytes_per_apply(),
               [&] { return A.apply_adjoint(out, in); });
  }
  Status axpy(double a, const Field &x, Field &y) {
    return run("axpy", bytes_axpy(x.lattice()),
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
  Status norm2(const Field &x, double &result) {
    return run("norm2", bytes_norm2(x.lattice()),
               [&] { return reducer.norm2(x, result); });
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

  const StencilOperator &A;
  bool timed;
  Reducer reducer;
};

double now_seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

Status solve(const StencilOperator &A, const Field &b, Field &x,
             const SolveOptions &options, SolveReport &report) {
  report = SolveReport();
  report.method = method_name(options.method);
  report.preconditioner = preconditioner_name(options.preconditioner);
  const Lattice &lattice = A.lattice();
  STENCIL_TRY(require_same_lattice(lattice, b.lattice(), "solve: b"));
  STENCIL_TRY(require_same_lattice(lattice, x.lattice(), "solve: x"));
  if (!(options.tolerance > 0) || options.max_iterations < 0)
    return Status::failure("solve: tolerance must be positive and the "
                           "iteration cap non-negative");
  if (options.method == Method::CG)
    STENCIL_TRY(A.check_spd());
  if (options.method == Method::CGNR &&
      options.preconditioner == Preconditioner::Jacobi)
    return Status::failure("solve: Jacobi preconditioning is implemented for "
                           "CG only, not CGNR");

  Ops ops(A, options.time_kernels);
  Field r, p, q, z, diag, bInterior;
  for (Field *f : {&r, &p, &q, &bInterior})
    STENCIL_TRY(Field::create(lattice, *f));
  const bool jacobi = options.preconditioner == Preconditioner::Jacobi;
  if (jacobi) {
    STENCIL_TRY(Field::create(lattice, z));
    STENCIL_TRY(Field::create(lattice, diag));
    STENCIL_TRY(A.diagonal(diag));
  }
  // The unknowns are the interior values: b's halo is ignored, x's is zero.
  STENCIL_TRY(bInterior.copy_from(b));
  STENCIL_TRY(set_halo(bInterior, 0.0));
  STENCIL_TRY(set_halo(x, 0.0));

  double bNorm = 0.0;
  STENCIL_TRY(ops.norm2(bInterior, bNorm));
  if (bNorm == 0.0) {
    STENCIL_TRY(fill(x, 0.0));
    report.converged = true;
    report.residual_history = {0.0};
    report.message = "b = 0, so x = 0";
    return Status();
  }

  // r = b - A x
  STENCIL_TRY(ops.apply(q, x));
  STENCIL_TRY(r.copy_from(bInterior));
  STENCIL_TRY(ops.axpy(-1.0, q, r));
  double rNorm = 0.0;
  STENCIL_TRY(ops.norm2(r, rNorm));
  report.residual_history.push_back(rNorm / bNorm);

  STENCIL_TRY(device_synchronize());
  const double start = now_seconds();
  ops.bytes = 0.0;
  ops.stats.clear();
  int k = 0;
  // Both methods' update: x += alpha p, r -= alpha q (q = A p), and record
  // the new relative residual.
  auto step = [&](double alpha) {
    STENCIL_TRY(ops.axpy(alpha, p, x));
    STENCIL_TRY(ops.axpy(-alpha, q, r));
    STENCIL_TRY(ops.norm2(r, rNorm));
    ++k;
    report.residual_history.push_back(rNorm / bNorm);
    return Status();
  };
  if (options.method == Method::CG) {
    // Preconditioned CG; z = r without a preconditioner.
    const Field *zr = &r;
    if (jacobi) {
      STENCIL_TRY(ops.divide(r, diag, z));
      zr = &z;
    }
    STENCIL_TRY(p.copy_from(*zr));
    double rz = 0.0;
    STENCIL_TRY(ops.dot(r, *zr, rz));
    while (rNorm / bNorm >= options.tolerance && k < options.max_iterations) {
      STENCIL_TRY(ops.apply(q, p));
      double pq = 0.0;
      STENCIL_TRY(ops.dot(p, q, pq));
      if (!(pq > 0.0))
        return Status::failure(
            "solve: CG broke down at iteration " + std::to_string(k + 1) +
            " (p^T A p = " + std::to_string(pq) +
            "): the operator is not positive definite on these values; use "
            "CGNR");
      STENCIL_TRY(step(rz / pq));
      if (rNorm / bNorm < options.tolerance)
        break;
      double rzNew = 0.0;
      if (jacobi) {
        STENCIL_TRY(ops.divide(r, diag, z));
        STENCIL_TRY(ops.dot(r, z, rzNew));
      } else {
        rzNew = rNorm * rNorm;
      }
      STENCIL_TRY(ops.xpay(*zr, rzNew / rz, p));
      rz = rzNew;
    }
  } else {
    // CGNR: CG on A^T A x = A^T b; r stays the residual of A x = b.
    Field s;
    STENCIL_TRY(Field::create(lattice, s));
    STENCIL_TRY(ops.apply_adjoint(s, r)); // s = A^T r
    STENCIL_TRY(p.copy_from(s));
    double ss = 0.0;
    STENCIL_TRY(ops.dot(s, s, ss));
    while (rNorm / bNorm >= options.tolerance && k < options.max_iterations) {
      STENCIL_TRY(ops.apply(q, p)); // q = A p
      double qq = 0.0;
      STENCIL_TRY(ops.dot(q, q, qq));
      if (!(qq > 0.0))
        return Status::failure("solve: CGNR broke down at iteration " +
                               std::to_string(k + 1) +
                               " (A p = 0): the operator is singular");
      STENCIL_TRY(step(ss / qq));
      if (rNorm / bNorm < options.tolerance)
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
  report.converged = rNorm / bNorm < options.tolerance;
  if (k > 0) {
    report.seconds_per_iteration = report.seconds / k;
    report.bytes_per_iteration = ops.bytes / k;
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

  // The true residual, recomputed from x.
  STENCIL_TRY(A.apply(q, x));
  STENCIL_TRY(r.copy_from(bInterior));
  STENCIL_TRY(axpy(-1.0, q, r));
  Reducer reducer;
  double trueNorm = 0.0;
  STENCIL_TRY(reducer.norm2(r, trueNorm));
  report.true_relative_residual = trueNorm / bNorm;
  return Status();
}

void print_report(const SolveReport &report, std::FILE *out) {
  std::fprintf(out, "  method              %s, preconditioner %s\n",
               report.method.c_str(), report.preconditioner.c_str());
  std::fprintf(out, "  result              %s\n", report.message.c_str());
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
  for (const KernelStats &k : report.kernels)
    std::fprintf(out,
                 "    %-18s %7ld calls %10.3f ms %8.1f GB/s\n", k.name.c_str(),
                 k.calls, k.milliseconds, k.bandwidth_gbs());
}

} // namespace stencil
