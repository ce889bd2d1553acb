// solve_<stencil>: solves A x = b with a generated stencil operator and
// prints the report. b = A u* for a random u* (a manufactured solution), so
// the error ||x - u*|| / ||u*|| is known too.
//
//   solve_NAME [--size n,n,...] [--tol 1e-10] [--max-iterations N]
//              [--method cg|cgnr] [--precond none|jacobi]
//              [--param NAME=VALUE]... [--site NAME=LOW:HIGH]...
//              [--seed N] [--time-kernels] [--save FILE] [--compare FILE]
//              [--compare-tol T] [--even-odd [--schur-only]]
//              [--gauge FILE [--reunitarise]] [--save-gauge FILE]
//              [--grid n,n,...]
//              [--tune-exchange CACHE] [--mixed [--reliable-delta D]]
//              [--no-fold] [--host-scalars]
//
// Under mpirun (stencilc built with STENCILC_MPI) the ranks divide the
// lattice: --grid gives the ranks per axis, or the program chooses a grid
// over the axes the spec's grid.split allows; --grid alone runs the
// distributed code on one rank. Every rank draws the same problem as a
// single rank would from the seed and takes its block; rank 0 prints,
// saves and compares (the whole solution, gathered). A rank that fails
// ends the whole job (MPI_Abort) with its message and rank.
//
// --mixed: mixed-precision CG with reliable updates (specs that declare
// inner_precision): inner iterations on the float kernels, the solution
// and residual corrected in double. --reliable-delta D: a reliable update
// whenever the inner residual has dropped by D, in (0, 1), since the last
// (SolveOptions::reliable_delta; by default 1e-2 for float inner fields,
// 1e-1 for bfloat16), or sooner where the inner fields' rounding may have
// reached the residual.
//
// --no-fold: CG's direction update p = r + beta p as a pass of its own
// rather than inside the fused stencil (for comparing the two).
// --host-scalars: CG without fused kernels (the Schur complement) computes
// alpha and beta on the host, waiting for each iteration's sums, rather
// than on the device (for comparing the two).
//
// --reunitarise: projects the links read from --gauge onto SU(N) before
// they are used (GaugeField::reunitarise): a configuration saved in single
// precision is unitary to about 1e-7, which the double specs' checks
// refuse (CG's definiteness, two-row compression). Links further than
// 1e-5 from SU(N) are refused instead: that is no rounding but a damaged
// or misread file, which a projection would hide.
//
// --tune-exchange CACHE (distributed runs): before solving, times the
// operator the solver applies (A, or the Schur complement with --even-odd)
// under every halo-exchange policy the machine offers, appends the fastest
// to the tuning cache CACHE (for STENCILC_TUNE_CACHE or `stencilc generate
// --tune-cache`) and solves with it.
//
// --even-odd (stencils stored even/odd): solves through the Schur complement
// on the even sites, then also on the whole lattice with the same method,
// and prints both iteration counts and how far apart the solutions are.
// --schur-only leaves out that second solve (timing runs on lattices where
// its fields would not fit beside the first's).
//
// Exit status: 0 converged (and matched --compare), 2 not converged or
// mismatched, 1 invalid input or a runtime error.
#include "stencil/blas.hpp"
#include "stencil/comm.hpp"
#include "stencil/device.hpp"
#include "stencil/environment.hpp"
#include "stencil/even_odd.hpp"
#include "stencil/exchange_choice.hpp"
#include "stencil/exchange_tuning.hpp"
#include "stencil/field.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/operator.hpp"
#include "stencil/random.hpp"
#include "stencil/scatter.hpp"
#include "stencil/solver.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

const stencil::KernelInfo &solver_kernel();

namespace {

struct Options {
  std::vector<int> size;
  stencil::SolveOptions solve;
  bool methodGiven = false;
  bool deltaGiven = false;
  std::vector<std::pair<std::string, double>> params;
  std::vector<std::pair<std::string, std::pair<double, double>>> sites;
  unsigned long long seed = 2026;
  std::string save, compare;
  std::string gauge; ///< a gauge file for stencils with links
  std::string saveGauge; ///< where to write the links used
  bool reunitarise = false; ///< project the links read onto SU(N)
  double compareTolerance = 1e-10;
  bool evenOdd = false;
  bool schurOnly = false; ///< --schur-only: no whole-lattice comparison
  std::string grid; ///< --grid: ranks per axis
  std::string tuneExchange; ///< --tune-exchange: the cache to append to
};

/// The job's ranks; set once MPI is up.
stencil::Communicator &job() {
  static stencil::Communicator world;
  return world;
}

/// What messages start with: the program's name, solve_NAME.
std::string program_name() {
  return std::string("solve_") + solver_kernel().name;
}

void print_usage(std::FILE *stream) {
  std::fprintf(
      stream,
      "usage: solve_%s [--size n,n,...] [--tol T] [--max-iterations "
      "N] [--method cg|cgnr] [--precond none|jacobi] [--param "
      "NAME=VALUE]... [--site NAME=LOW:HIGH]... [--seed N] "
      "[--time-kernels] [--save FILE] [--compare FILE] "
      "[--compare-tol T] [--even-odd [--schur-only]] [--gauge FILE "
      "[--reunitarise]] [--save-gauge FILE] [--grid n,n,...] [--tune-exchange "
      "CACHE] [--mixed [--reliable-delta D]] [--no-fold] "
      "[--host-scalars]\n",
      solver_kernel().name);
}

[[noreturn]] void usage_error(const std::string &message) {
  if (job().distributed())
    job().abort(program_name() + ": " + message, 1);
  std::fprintf(stderr, "%s: error: %s\n", program_name().c_str(),
               message.c_str());
  print_usage(stderr);
  std::exit(1);
}

double parse_number(const std::string &text, const char *what) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    usage_error(std::string(what) + " '" + text + "' is not a number");
  return value;
}

/// `text` as an integer in [low, high]; a usage error naming `what` and
/// the text otherwise (strtoll's out-of-range values included).
long long parse_integer(const std::string &text, const char *what,
                        long long low, long long high) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0')
    usage_error(std::string(what) + " '" + text + "' is not an integer");
  if (errno == ERANGE || value < low || value > high)
    usage_error(std::string(what) + " " + text + " is out of range (" +
                std::to_string(low) + " to " + std::to_string(high) + ")");
  return value;
}

Options parse(int argc, char **argv) {
  const stencil::KernelInfo &info = solver_kernel();
  Options options;
  auto value = [&](int &i) -> std::string {
    if (i + 1 >= argc || argv[i + 1][0] == '\0')
      usage_error(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // A repeated --size had appended its extents to the first's.
    if (arg == "--size" && !options.size.empty())
      usage_error("--size given twice");
    if (arg == "--size") {
      std::string text = value(i);
      size_t start = 0;
      while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string part = text.substr(
            start, comma == std::string::npos ? std::string::npos
                                              : comma - start);
        options.size.push_back(
            static_cast<int>(parse_integer(part, "extent", 1, 1LL << 30)));
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (arg == "--tol") {
      options.solve.tolerance = parse_number(value(i), "tolerance");
    } else if (arg == "--max-iterations") {
      options.solve.max_iterations = static_cast<int>(parse_integer(
          value(i), "iteration cap", 0, std::numeric_limits<int>::max()));
    } else if (arg == "--method") {
      std::string m = value(i);
      if (m != "cg" && m != "cgnr")
        usage_error("--method must be cg or cgnr, not '" + m + "'");
      options.solve.method =
          m == "cg" ? stencil::Method::CG : stencil::Method::CGNR;
      options.methodGiven = true;
    } else if (arg == "--precond") {
      std::string p = value(i);
      if (p != "none" && p != "jacobi")
        usage_error("--precond must be none or jacobi, not '" + p + "'");
      options.solve.preconditioner = p == "none"
                                         ? stencil::Preconditioner::None
                                         : stencil::Preconditioner::Jacobi;
    } else if (arg == "--param") {
      std::string text = value(i);
      size_t eq = text.find('=');
      if (eq == std::string::npos)
        usage_error("--param takes NAME=VALUE, not '" + text + "'");
      options.params.push_back(
          {text.substr(0, eq), parse_number(text.substr(eq + 1), "value")});
    } else if (arg == "--site") {
      std::string text = value(i);
      size_t eq = text.find('='), colon = text.find(':');
      if (eq == std::string::npos || colon == std::string::npos || colon < eq)
        usage_error("--site takes NAME=LOW:HIGH, not '" + text + "'");
      const double low =
                       parse_number(text.substr(eq + 1, colon - eq - 1), "low"),
                   high = parse_number(text.substr(colon + 1), "high");
      if (low > high)
        usage_error("--site '" + text + "': LOW is above HIGH");
      options.sites.push_back({text.substr(0, eq), {low, high}});
    } else if (arg == "--seed") {
      const std::string text = value(i);
      char *end = nullptr;
      errno = 0;
      options.seed = std::strtoull(text.c_str(), &end, 10);
      // strtoull would wrap "-1" to 2^64 - 1.
      if (text.empty() || *end != '\0' || text.find('-') != std::string::npos)
        usage_error("seed '" + text + "' is not a non-negative integer");
      if (errno == ERANGE)
        usage_error("seed " + text + " is out of range (0 to 2^64 - 1)");
    } else if (arg == "--time-kernels") {
      options.solve.time_kernels = true;
    } else if (arg == "--save") {
      options.save = value(i);
    } else if (arg == "--compare") {
      options.compare = value(i);
    } else if (arg == "--gauge") {
      options.gauge = value(i);
    } else if (arg == "--reunitarise") {
      options.reunitarise = true;
    } else if (arg == "--save-gauge") {
      options.saveGauge = value(i);
    } else if (arg == "--even-odd") {
      options.evenOdd = true;
    } else if (arg == "--schur-only") {
      options.schurOnly = true;
    } else if (arg == "--grid") {
      options.grid = value(i);
    } else if (arg == "--mixed") {
      options.solve.mixed_precision = true;
    } else if (arg == "--reliable-delta") {
      options.solve.reliable_delta = parse_number(value(i), "reliable delta");
      options.deltaGiven = true;
    } else if (arg == "--no-fold") {
      options.solve.fold_direction = false;
    } else if (arg == "--host-scalars") {
      options.solve.device_scalars = false;
    } else if (arg == "--tune-exchange") {
      options.tuneExchange = value(i);
    } else if (arg == "--compare-tol") {
      options.compareTolerance = parse_number(value(i), "tolerance");
      if (!(options.compareTolerance >= 0))
        usage_error("--compare-tol must not be negative");
    } else if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      std::exit(0);
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  }
  const int dims = info.shape.dims;
  if (options.size.empty()) {
    static const int defaults[5] = {0, 4096, 256, 64, 16};
    options.size.assign(dims, defaults[dims]);
  }
  if (static_cast<int>(options.size.size()) != dims)
    usage_error("--size needs " + std::to_string(dims) + " extents, got " +
                std::to_string(options.size.size()));
  if (options.schurOnly && !options.evenOdd)
    usage_error("--schur-only needs --even-odd (it leaves out the "
                "whole-lattice solve that --even-odd adds)");
  if (options.reunitarise && options.gauge.empty())
    usage_error("--reunitarise needs --gauge (random links are drawn in "
                "SU(N) already)");
  if (options.deltaGiven && !options.solve.mixed_precision)
    usage_error("--reliable-delta needs --mixed (it sets when mixed-precision "
                "CG recomputes the residual)");
  if (options.deltaGiven && !(options.solve.reliable_delta > 0.0 &&
                               options.solve.reliable_delta < 1.0))
    usage_error("--reliable-delta must lie in (0, 1), not " +
                std::to_string(options.solve.reliable_delta));
  if (!options.methodGiven) {
    // The spec's choice; otherwise CG for symmetric operators.
    std::string wanted = info.solver;
    options.solve.method =
        wanted == "cgnr" || (wanted == "none" && !info.symmetric)
            ? stencil::Method::CGNR
            : stencil::Method::CG;
  }
  return options;
}

/// How long each step of preparing a large problem took, on stderr (rank
/// 0): a production lattice spends minutes on the host before its first
/// iteration (links drawn for the whole lattice, the clover term), and the
/// user should see where. Lattices under 2^22 sites stay quiet.
class SetupReport {
public:
  SetupReport(std::int64_t sites, bool speaks)
      : on_(speaks && sites >= (std::int64_t(1) << 22)),
        last_(std::chrono::steady_clock::now()) {}
  void done(const std::string &step) {
    const auto now = std::chrono::steady_clock::now();
    if (on_)
      std::fprintf(stderr, "setup: %s: %.1f s\n", step.c_str(),
                   std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

private:
  bool on_;
  std::chrono::steady_clock::time_point last_;
};

/// Whether every rank was started with the same arguments and the
/// STENCILC_* variables the runtime reads: ranks that differ (another size,
/// tolerance or grid) had hung in a collective, crashed, or solved another
/// system without a word.
stencil::Status same_arguments_on_every_rank(int argc, char **argv) {
  // The program's stencil (two solvers run side by side), its arguments,
  // and the variables the runtime reads.
  // Arguments with a space (or none) quoted: "--tol 1e-3" as one argument
  // is not --tol and 1e-3.
  std::string call = program_name();
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    call += argument.empty() || argument.find(' ') != std::string::npos
                ? " \"" + argument + "\""
                : " " + argument;
  }
  for (const char *variable : stencil::kEnvironmentVariables) {
    const char *value = stencil::environment_value(variable);
    call += std::string(" ") + variable + "=" + (value ? value : "(unset)");
  }
  return job().same("the arguments and the STENCILC_* environment "
                    "variables",
                    call);
}

/// Whether the links every rank read from --gauge are the same: two valid
/// files on different ranks had solved without a word.
stencil::Status same_links_on_every_rank(const stencil::GaugeField &U) {
  char checksum[32];
  std::snprintf(checksum, sizeof checksum, "checksum %016llx",
                static_cast<unsigned long long>(U.checksum()));
  return job().same("the links read from --gauge (a file that differs "
                    "between the ranks' file systems?)",
                    checksum);
}

/// `message` without the stencil's name where the runtime put it first
/// ("NAME: ", or "NAME_split: " from the ranks' kernels), also after the
/// "rank N: " of a failure that one rank sent the others: the program's
/// name leads the line already.
std::string without_stencil_name(std::string message) {
  size_t start = 0;
  if (message.rfind("rank ", 0) == 0) {
    const size_t colon = message.find(": ");
    if (colon != std::string::npos && colon > 5 &&
        message.find_first_not_of("0123456789", 5) == colon)
      start = colon + 2;
  }
  const std::string name = solver_kernel().name;
  for (const std::string &prefix : {name + "_split: ", name + ": "})
    if (message.compare(start, prefix.size(), prefix) == 0) {
      message.erase(start, prefix.size());
      break;
    }
  return message;
}

/// Reports `status` and ends: with several ranks, the whole job (a rank
/// that returned while the others wait in a collective would hang it).
int fail(const stencil::Status &status) {
  const std::string message = without_stencil_name(status.message());
  if (job().distributed())
    job().abort(program_name() + ": " + message, 1);
  std::fprintf(stderr, "%s: error: %s\n", program_name().c_str(),
               message.c_str());
  return 1;
}

/// The process grid for this job: --grid, or one chosen over the axes the
/// spec lets a grid split; none for a single rank without --grid.
stencil::Status process_grid(const Options &options,
                             stencil::ProcessGrid &grid, bool &distributed) {
  const stencil::KernelInfo &info = solver_kernel();
  const int dims = info.shape.dims;
  distributed = !options.grid.empty() || job().distributed();
  if (!distributed)
    return stencil::Status();
  if (!options.grid.empty())
    return stencil::parse_process_grid(options.grid, dims, grid);
  grid.dims = dims;
  if (!info.distributed)
    return stencil::Status(); // create_distributed says what is missing
  bool splittable[stencil::kMaxDims] = {false, false, false, false};
  int interior[stencil::kMaxDims] = {1, 1, 1, 1};
  for (int axis = 0; axis < dims; ++axis) {
    splittable[axis] = info.distributed && info.distributed->split[axis];
    interior[axis] =
        options.size[axis] -
        (stencil::wraps(info.shape.boundary[axis]) ? 0
                                                   : 2 * info.shape.reach[axis]);
  }
  return stencil::choose_process_grid(job().size(), dims, interior,
                                      splittable, info.shape.reach,
                                      info.layout.even_odd != 0, grid);
}

} // namespace

int main(int argc, char **argv) {
  stencil::MpiSession session(argc, argv);
  job() = stencil::Communicator::world();
  const stencil::KernelInfo &info = solver_kernel();
  Options options = parse(argc, argv);
  if (job().distributed())
    if (stencil::Status same = same_arguments_on_every_rank(argc, argv);
        !same.ok())
      return fail(same);
  // One report: rank 0's.
  if (job().rank() != 0 && !std::freopen("/dev/null", "w", stdout))
    return fail(stencil::Status::failure("cannot silence rank " +
                                         std::to_string(job().rank())));

  stencil::ProcessGrid grid;
  bool distributed = false;
  stencil::Status status = process_grid(options, grid, distributed);
  if (!status.ok())
    return fail(status);
  if (distributed && !(status = stencil::use_local_device(job())).ok())
    return fail(status);
  // The whole lattice, as one rank stores it: what u*, --save and
  // --compare are in.
  const stencil::Lattice whole = stencil::lattice_for(info, options.size.data());
  SetupReport setup(whole.interior_sites(), job().rank() == 0);
  stencil::StencilOperator A;
  status = distributed
               ? stencil::StencilOperator::create_distributed(
                     info, options.size.data(), job(), grid, A)
               : stencil::StencilOperator::create(info, options.size.data(),
                                                  A);
  if (!status.ok())
    return fail(status);
  const stencil::Decomposition *decomposition = A.decomposition();
  for (const auto &[name, v] : options.params)
    if (!(status = A.set_parameter(name, v)).ok())
      return fail(status);

  // Site parameters: uniform random in [LOW, HIGH], [0, 1000] by default.
  auto siteRange = [&](const std::string &name) {
    std::pair<double, double> range{0.0, 1000.0};
    for (const auto &[given, bounds] : options.sites)
      if (given == name)
        range = bounds;
    return range;
  };
  stencil::Random random(options.seed);
  std::vector<std::unique_ptr<stencil::Field>> siteFields;
  if (!(status = stencil::set_random_site_parameters(A, random, siteRange,
                                                     siteFields))
           .ok())
    return fail(status);
  setup.done("the operator and its site parameters");
  std::string siteText;
  for (int p = 0; p < info.num_params; ++p)
    if (info.param_is_site[p]) {
      auto [low, high] = siteRange(info.param_names[p]);
      siteText += std::string(" ") + info.param_names[p] + "=uniform[" +
                  std::to_string(low) + "," + std::to_string(high) + "]" +
                  (stencil::is_complex_parameter(info, p) ? " (re and im)"
                                                          : "");
    }
  for (const auto &[name, range] : options.sites) {
    bool known = false;
    for (int p = 0; p < info.num_params; ++p)
      known |= info.param_is_site[p] && name == info.param_names[p];
    if (!known)
      return fail(stencil::Status::failure("no site parameter named '" + name +
                                           "'"));
  }

  // Links: read from --gauge, else random SU(N) from the seed.
  stencil::Field links;
  stencil::StencilOperator::CloverArrays clover;
  std::string gaugeText;
  if (info.links) {
    stencil::GaugeField U;
    if (!options.gauge.empty()) {
      // A stencilc gauge file or an ILDG configuration.
      if (!(status = stencil::GaugeField::load(options.gauge, U)).ok())
        return fail(status);
      if (job().distributed() && !(status = same_links_on_every_rank(U)).ok())
        return fail(status);
      gaugeText = "from " + options.gauge;
      setup.done("links read from " + options.gauge);
      if (options.reunitarise) {
        // Single precision leaves about 1e-7; much more is not rounding.
        constexpr double kMostRounding = 1e-5;
        const double far = U.unitarity_deviation();
        char deviation[128];
        std::snprintf(deviation, sizeof deviation,
                      "%.3g from SU(%d), more than the %g", far, U.colours(),
                      kMostRounding);
        if (!(far <= kMostRounding))
          return fail(stencil::Status::failure(
              "the links read from " + options.gauge + " are " + deviation +
              " that rounding to single precision leaves; --reunitarise "
              "repairs rounding, not a damaged or misread file"));
        std::snprintf(deviation, sizeof deviation,
                      ", reunitarised (they were %.3g from SU(%d))", far,
                      U.colours());
        U.reunitarise();
        gaugeText += deviation;
        setup.done("links reunitarised");
      }
    } else {
      stencil::Random linkRandom(options.seed ^ 0x9e3779b97f4a7c15ull);
      if (!(status = stencil::GaugeField::create(
                whole.dims, whole.extents, info.links->colours, U)).ok())
        return fail(status);
      U.set_random(linkRandom);
      gaugeText = "random SU(" + std::to_string(info.links->colours) +
                  ") (seed " + std::to_string(options.seed) + ")";
      setup.done("random links for the whole lattice");
    }
    if (info.clover)
      std::fprintf(stderr, "computing the clover term of the links\n");
    if (!(status = stencil::set_gauge_field(A, U, links, &clover)).ok())
      return fail(status);
    setup.done(info.clover ? "links and the clover term onto the device"
                           : "links onto the device");
    // For rank 0's report alone: the other ranks' cores stay free for it.
    if (job().rank() == 0) {
      char plaquette[64];
      std::snprintf(plaquette, sizeof plaquette, ", plaquette %.6f",
                    U.plaquette());
      gaugeText += plaquette;
      setup.done("plaquette");
    }
    if (!options.saveGauge.empty()) {
      if (job().rank() == 0 && !(status = U.write(options.saveGauge)).ok())
        return fail(status);
      gaugeText += ", written to " + options.saveGauge;
    }
  } else if (!options.gauge.empty() || !options.saveGauge.empty()) {
    return fail(stencil::Status::failure(
        std::string(info.name) +
        " has no link taps; --gauge and --save-gauge do not apply"));
  }

  const stencil::Lattice &lattice = A.lattice();
  stencil::Field exact, b, x;
  for (stencil::Field *f : {&exact, &b, &x})
    if (!(status = stencil::Field::create(lattice, *f)).ok())
      return fail(status);
  // u*: random on the interior, zero on the halo; b = A u*.
  std::vector<double> values(whole.values());
  for (double &v : values)
    v = random.uniform(-1.0, 1.0);
  status = decomposition
               ? stencil::scatter_field(*decomposition, values.data(),
                                        whole.values(), exact)
               : exact.upload_values(values.data(), values.size());
  if (!status.ok() || !(status = stencil::set_halo(exact, 0.0)).ok() ||
      !(status = A.apply(b, exact)).ok())
    return fail(status);
  setup.done("manufactured solution u* and b = A u*");

  if (!options.tuneExchange.empty()) {
    if (!decomposition)
      return fail(stencil::Status::failure(
          "--tune-exchange needs a distributed run (--grid, or mpirun with "
          "more than one rank)"));
    // Before the timing: a cache that cannot be written fails at once.
    stencil::Status writable;
    if (job().rank() == 0 &&
        !std::ofstream(options.tuneExchange, std::ios::app))
      writable = stencil::Status::failure("cannot append to the tuning cache '" +
                                          options.tuneExchange + "'");
    if (!(status = job().agree(writable)).ok())
      return fail(status);
    // What the solver applies most: A, or the Schur complement.
    stencil::SchurComplement S;
    stencil::Field in, out;
    double bytes = 0.0;
    std::function<stencil::Status()> apply;
    if (options.evenOdd) {
      if (!(status = stencil::SchurComplement::create(
                A, S, options.solve.clover_placement)).ok() ||
          !(status = stencil::Field::create(S.lattice(), in)).ok() ||
          !(status = stencil::Field::create(S.lattice(), out)).ok())
        return fail(status);
      std::vector<double> half(in.lattice().values());
      for (double &v : half)
        v = random.uniform(-1.0, 1.0);
      if (!(status = in.upload_values(half.data(), half.size())).ok() ||
          !(status = stencil::set_halo(in, 0.0)).ok())
        return fail(status);
      bytes = S.bytes_per_apply();
      apply = [&] { return S.apply(out, in); };
    } else {
      if (!(status = stencil::Field::create(lattice, out)).ok())
        return fail(status);
      bytes = A.bytes_per_apply();
      apply = [&] { return A.apply(out, exact); };
    }
    if (!(status = job().sum(bytes)).ok())
      return fail(status);
    std::printf("tuning the halo exchange of %s (process grid %s):\n",
                options.evenOdd ? "the Schur complement" : "A",
                grid.text().c_str());
    std::fflush(stdout);
    stencil::ExchangeTuneResult tuned;
    if (!(status = stencil::tune_exchange(A, apply, tuned, stdout,
                                          options.evenOdd ? &in : &exact))
             .ok() ||
        !(status = stencil::record_exchange(
              info, options.size.data(), grid, stencil::device_name(), tuned,
              bytes, job(), options.tuneExchange)).ok())
      return fail(status);
    const stencil::ExchangeTiming &best = tuned.timings[tuned.best];
    std::printf("  fastest             transport %s, overlap %s: %.4f ms per "
                "application (%d per batch); appended to %s\n",
                stencil::exchange_transport_name(best.options.transport),
                best.options.overlap ? "on" : "off", best.ms,
                tuned.repetitions, options.tuneExchange.c_str());
  }

  std::printf("solve_%s: %s on %s\n", info.name,
              stencil::backend_name().c_str(),
              stencil::device_name().c_str());
  std::printf("  kernels             %s\n", A.kernel_choice().c_str());
  if (A.info().even_odd && info.shape.dims >= 3) {
    // The hopping kernels' walk, which each launch decides (kernel.slab).
    const int slab = stencil::hop_slab(A.info(), options.size.data());
    std::printf("  hop walk            %s (kernel.slab %s)\n",
                slab == 1 ? "storage order"
                          : (std::string(stencil::axis_name(info.shape.dims - 1)) +
                             " in slabs of " + std::to_string(slab) + " slices")
                                .c_str(),
                A.info().even_odd->slab == 0
                    ? "auto"
                    : std::to_string(A.info().even_odd->slab).c_str());
  }
  // The whole lattice in the storage of the kernels that run (an entry may
  // store the field otherwise than the spec; the ranks' kernels keep the
  // spec's boundaries only on their own blocks).
  stencil::Lattice stored = whole;
  stored.layout = A.info().layout;
  std::printf(
      "  lattice             %s, %lld unknowns\n", stored.describe().c_str(),
      static_cast<long long>(whole.interior_sites()) * whole.components);
  if (decomposition)
    std::printf("  ranks               %d, process grid %s, %s; halo "
                "exchange %s\n",
                job().size(), grid.text().c_str(),
                decomposition->describe().c_str(),
                stencil::exchange_policy_name(A.exchange()->policy()));
  if (decomposition)
    std::printf("  exchange policy     %s\n", A.exchange_choice().c_str());
  std::printf("  parameters         ");
  for (int p = 0; p < info.num_params; ++p)
    if (!info.param_is_site[p]) {
      double v = info.param_defaults[p];
      for (const auto &[name, given] : options.params)
        if (name == info.param_names[p])
          v = given;
      std::printf(" %s=%g", info.param_names[p], v);
    }
  std::printf("%s\n", siteText.c_str());
  if (!gaugeText.empty())
    std::printf("  links               %s\n", gaugeText.c_str());
  std::printf("  tolerance           %.1e, at most %d iterations\n",
              options.solve.tolerance, options.solve.max_iterations);

  stencil::SolveReport report;
  status = options.evenOdd
               ? stencil::solve_even_odd(A, b, x, options.solve, report)
               : stencil::solve(A, b, x, options.solve, report);
  if (!status.ok())
    return fail(status);
  stencil::print_report(report, stdout);
  bool wholeConverged = true;
  if (options.evenOdd && !options.schurOnly) {
    // The same system on the whole lattice, for comparison.
    stencil::Field xWhole, gap;
    stencil::SolveReport whole;
    if (!(status = stencil::Field::create(lattice, xWhole)).ok() ||
        !(status = stencil::solve(A, b, xWhole, options.solve, whole)).ok())
      return fail(status);
    std::printf("  whole lattice, for comparison:\n");
    stencil::print_report(whole, stdout);
    wholeConverged = whole.converged;
    double gapNorm = 0.0, wholeNorm = 0.0;
    stencil::Reducer gapReducer(A.communicator());
    if (!(status = stencil::Field::create(lattice, gap)).ok() ||
        !(status = gap.copy_from(x)).ok() ||
        !(status = stencil::axpy(-1.0, xWhole, gap)).ok() ||
        !(status = gapReducer.norm2(gap, gapNorm)).ok() ||
        !(status = gapReducer.norm2(xWhole, wholeNorm)).ok())
      return fail(status);
    std::printf("  even/odd vs whole   %s iterations: %d on the Schur "
                "complement, %d on A (%.2fx fewer); %.4f vs %.4f ms per "
                "iteration; solutions differ by %.3e "
                "(||x_eo - x|| / ||x||)\n",
                report.method.c_str(), report.iterations, whole.iterations,
                report.iterations > 0
                    ? static_cast<double>(whole.iterations) /
                          report.iterations
                    : 0.0,
                report.seconds_per_iteration * 1e3,
                whole.seconds_per_iteration * 1e3,
                wholeNorm > 0 ? gapNorm / wholeNorm : gapNorm);
  }

  // Error against the manufactured solution.
  stencil::Field difference;
  if (!(status = stencil::Field::create(lattice, difference)).ok() ||
      !(status = difference.copy_from(x)).ok() ||
      !(status = stencil::axpy(-1.0, exact, difference)).ok())
    return fail(status);
  stencil::Reducer reducer(A.communicator());
  double errorNorm = 0.0, exactNorm = 0.0;
  if (!(status = reducer.norm2(difference, errorNorm)).ok() ||
      !(status = reducer.norm2(exact, exactNorm)).ok())
    return fail(status);
  std::printf("  solution error      %.3e (||x - u*|| / ||u*||)\n",
              errorNorm / exactNorm);

  // The whole solution: rank 0 saves and compares it.
  std::vector<double> solution(whole.values());
  status = decomposition
               ? stencil::gather_field(*decomposition, x, solution)
               : x.download_values(solution.data(), solution.size());
  if (!status.ok())
    return fail(status);
  if (job().rank() != 0) {
    // Rank 0's verdict is the job's.
    double verdict = 0.0;
    if (!(status = job().max(verdict)).ok())
      return fail(status);
    return static_cast<int>(verdict);
  }
  if (!options.save.empty()) {
    std::ofstream file(options.save, std::ios::binary);
    file.write(reinterpret_cast<const char *>(solution.data()),
               static_cast<std::streamsize>(solution.size() * sizeof(double)));
    if (!file)
      return fail(stencil::Status::failure("cannot write '" + options.save +
                                           "'"));
    std::printf("  saved               %s (%zu doubles)\n",
                options.save.c_str(), solution.size());
  }
  bool matched = true;
  if (!options.compare.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(options.compare, ec))
      return fail(stencil::Status::failure(
          "cannot read '" + options.compare + "': " +
          (ec ? ec.message() : std::string("not a regular file"))));
    std::ifstream file(options.compare, std::ios::binary | std::ios::ate);
    if (!file)
      return fail(stencil::Status::failure("cannot read '" + options.compare +
                                           "'"));
    std::streamsize bytes = file.tellg();
    if (bytes != static_cast<std::streamsize>(solution.size() * sizeof(double)))
      return fail(stencil::Status::failure(
          "'" + options.compare + "' holds " + std::to_string(bytes) +
          " bytes, not the " + std::to_string(solution.size() * sizeof(double)) +
          " of this lattice's solution"));
    std::vector<double> other(solution.size());
    file.seekg(0);
    file.read(reinterpret_cast<char *>(other.data()), bytes);
    // fmax ignores NaN, so non-finite values are counted apart: any of
    // them, in either solution, is a mismatch.
    double maxDiff = 0.0, maxValue = 0.0;
    size_t nonFinite = 0;
    for (size_t i = 0; i < other.size(); ++i) {
      if (!std::isfinite(solution[i]) || !std::isfinite(other[i])) {
        ++nonFinite;
        continue;
      }
      maxDiff = std::fmax(maxDiff, std::fabs(solution[i] - other[i]));
      maxValue = std::fmax(maxValue, std::fabs(other[i]));
    }
    double relative = maxValue > 0 ? maxDiff / maxValue : maxDiff;
    matched = nonFinite == 0 && relative <= options.compareTolerance;
    std::printf("  compared with       %s: max |x - x_ref| / max |x_ref| = "
                "%.3e (%s %.1e)\n",
                options.compare.c_str(), relative,
                matched ? "within" : "NOT within", options.compareTolerance);
    if (nonFinite)
      std::printf("  not finite          %zu of %zu values (NaN or inf in "
                  "either solution): no match\n",
                  nonFinite, other.size());
  }
  const int verdict = report.converged && wholeConverged && matched ? 0 : 2;
  if (decomposition) {
    double shared = verdict;
    if (!(status = job().max(shared)).ok())
      return fail(status);
  }
  return verdict;
}
