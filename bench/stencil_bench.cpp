// stencil_bench: one run that measures the GPU's empirical peak, then times
// every shipped stencil kernel next to its naive baseline (same stencil, no
// tile, loads in the order written), then a CG solve, and prints a table.
//
//   stencil_bench [--runs N] [--scale S] [--only SUBSTRING] [--json FILE]
//                 [--cg-size N] [--cg-iterations N] [--kernels-only]
//
// --kernels-only times each kernel's rows (spec, tuned, groups along x,
// planner, naive: docs/performance.md's options table) and skips the
// Dirac, Schur complement and CG sections.
//
// Method (bench/README in docs/performance.md): inputs uniform random in
// [-1, 1) (never zeros), parameters at their defaults, site parameters
// uniform in [0, 1); 3 warm-up runs, then the median of N (default 20)
// runs, each bracketed by device events. Effective bandwidth = theoretical
// bytes (each input read once, each output written once, over the updated
// sites) / kernel time; the peak is the larger of a device-to-device copy
// and a streaming copy kernel, measured first in the same run.
#include "BenchRegistry.h"

#include "stencil/blas.hpp"
#include "stencil/clover.hpp"
#include "stencil/device.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/host_device.hpp"
#include "stencil/operator.hpp"
#include "stencil/platform.hpp"
#include "stencil/random.hpp"
#include "stencil/solver.hpp"
#include "stencil/tuning.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using stencil::Field;
using stencil::KernelInfo;
using stencil::Status;

struct Options {
  int runs = 20;
  double scale = 1.0; ///< extents multiplied by this (host smoke runs)
  std::string only, json;
  int cgSize = 256;
  int cgIterations = 300;
  /// The 4-D even/odd sections' lattices to run ("32x32x32x64"); empty:
  /// all of them.
  std::vector<std::string> latticeSizes;
  /// Only each kernel's rows (the options table): no Dirac, Schur or CG
  /// sections, which take most of a full run's time.
  bool kernelsOnly = false;
};

[[noreturn]] void usage(const std::string &message) {
  std::fprintf(stderr,
               "stencil_bench: error: %s\nusage: stencil_bench [--runs N] "
               "[--scale S] [--only SUBSTRING] [--json FILE] [--cg-size N] "
               "[--cg-iterations N] [--lattice-size NXxNYxNZxNT]... "
               "[--kernels-only]\n",
               message.c_str());
  std::exit(1);
}

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(arg + " needs a value");
      return argv[++i];
    };
    // Whole values only: atoi read "5x" as 5 and "x" as 0.
    auto integer = [&] {
      const std::string text = value();
      char *end = nullptr;
      errno = 0;
      long n = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE || n < 1 ||
          n > 1000000000)
        usage(arg + " '" + text + "' is not a positive integer");
      return static_cast<int>(n);
    };
    auto number = [&] {
      const std::string text = value();
      char *end = nullptr;
      double x = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(x))
        usage(arg + " '" + text + "' is not a number");
      return x;
    };
    if (arg == "--runs")
      o.runs = integer();
    else if (arg == "--scale")
      o.scale = number();
    else if (arg == "--only")
      o.only = value();
    else if (arg == "--json")
      o.json = value();
    else if (arg == "--cg-size")
      o.cgSize = integer();
    else if (arg == "--cg-iterations")
      o.cgIterations = integer();
    else if (arg == "--lattice-size")
      o.latticeSizes.push_back(value());
    else if (arg == "--kernels-only")
      o.kernelsOnly = true;
    else
      usage("unknown option '" + arg + "'");
  }
  if (o.runs < 1 || !(o.scale > 0) || o.cgSize < 3 || o.cgIterations < 1)
    usage("--runs, --scale, --cg-size and --cg-iterations must be positive");
  return o;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    Status status_ = (call);                                                   \
    if (!status_.ok()) {                                                       \
      std::fprintf(stderr, "stencil_bench: error: %s\n",                       \
                   status_.message().c_str());                                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// Median milliseconds of `runs` timed calls after 3 warm-ups.
template <typename Body> double medianMs(int runs, Body body) {
  std::vector<double> times;
  stencil::DeviceTimer timer;
  for (int i = 0; i < runs + 3; ++i) {
    CHECK(timer.start());
    CHECK(body());
    CHECK(timer.stop());
    double ms = 0.0;
    CHECK(timer.elapsed_ms(ms));
    if (i >= 3)
      times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Per call of `body`, the median over `runs` of `batch` calls back to
/// back: launch gaps overlap, no event per call.
template <typename Body> double batchMs(int runs, int batch, Body body) {
  return medianMs(runs, [&] {
           for (int i = 0; i + 1 < batch; ++i)
             STENCIL_TRY(body());
           return body();
         }) /
         batch;
}

STENCIL_GLOBAL void stream_copy(const stencil::vec<float, 4> *STENCIL_RESTRICT in,
                                stencil::vec<float, 4> *STENCIL_RESTRICT out,
                                stencil::index_t n) {
  const stencil::index_t i =
      static_cast<stencil::index_t>(blockIdx.x) * 256 + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

/// The copy again and again over buffers of n values (a power of two) small
/// enough to stay in the L2 cache: `total` values moved in one launch.
STENCIL_GLOBAL void cached_copy(const stencil::vec<float, 4> *STENCIL_RESTRICT in,
                                stencil::vec<float, 4> *STENCIL_RESTRICT out,
                                stencil::index_t n, stencil::index_t total) {
  const stencil::index_t stride =
      static_cast<stencil::index_t>(gridDim.x) * 256;
  for (stencil::index_t j =
           static_cast<stencil::index_t>(blockIdx.x) * 256 + threadIdx.x;
       j < total; j += stride) {
    const stencil::index_t i = j & (n - 1);
    out[i] = in[i];
  }
}

/// Milliseconds per copy of `bytes` moved (half read, half written) by the
/// streaming copy kernel, one launch timed or `batch` back to back.
double copyMs(const Options &o, double bytes, int batch) {
  const stencil::index_t n = static_cast<stencil::index_t>(
      bytes / 2 / sizeof(stencil::vec<float, 4>));
  void *a = nullptr, *b = nullptr;
  CHECK(stencil::device_allocate(&a, n * sizeof(stencil::vec<float, 4>)));
  CHECK(stencil::device_allocate(&b, n * sizeof(stencil::vec<float, 4>)));
  CHECK(stencil::device_zero(a, n * sizeof(stencil::vec<float, 4>)));
  stencil::LaunchDims grid, block;
  block.x = 256;
  grid.x = static_cast<unsigned>((n + 255) / 256);
  const double ms = medianMs(o.runs, [&] {
    for (int i = 0; i < batch; ++i)
      STENCIL_LAUNCH(stream_copy, grid, block, nullptr,
                     static_cast<const stencil::vec<float, 4> *>(a),
                     static_cast<stencil::vec<float, 4> *>(b), n);
    return stencil::launch_status("stream_copy");
  });
  stencil::device_free(a);
  stencil::device_free(b);
  return ms / batch;
}

struct Peak {
  double memcpy = 0.0, kernel = 0.0;
  /// The copy kernel over two 8 MiB buffers, 64 passes in one launch: what
  /// the L2 cache sustains (the roofline's second roof).
  double l2 = 0.0;
  double best() const { return std::max(memcpy, kernel); }
};

/// GB/s of cached_copy: 2 x 8 MiB (a GPU's L2 holds both), 64 passes.
double measureL2(const Options &o) {
  // 8 MiB of float4 on a GPU; 64 KiB for the host backend's smoke runs.
  const stencil::index_t n = stencil::index_t(1) << (o.scale < 1.0 ? 12 : 19);
  const stencil::index_t total = 64 * n;
  const std::size_t bytes = n * sizeof(stencil::vec<float, 4>);
  void *a = nullptr, *b = nullptr;
  CHECK(stencil::device_allocate(&a, bytes));
  CHECK(stencil::device_allocate(&b, bytes));
  CHECK(stencil::device_zero(a, bytes));
  stencil::LaunchDims grid, block;
  block.x = 256;
  grid.x = 4096;
  const double ms = medianMs(o.runs, [&] {
    STENCIL_LAUNCH(cached_copy, grid, block, nullptr,
                   static_cast<const stencil::vec<float, 4> *>(a),
                   static_cast<stencil::vec<float, 4> *>(b), n, total);
    return stencil::launch_status("cached_copy");
  });
  stencil::device_free(a);
  stencil::device_free(b);
  return 2.0 * static_cast<double>(total) * sizeof(stencil::vec<float, 4>) /
         (ms * 1e6);
}

Peak measurePeak(const Options &o) {
  // 2 GiB each way on a GPU; less for the host backend's smoke runs.
  const std::size_t bytes =
      static_cast<std::size_t>((std::size_t(2) << 30) *
                               std::min(1.0, o.scale * o.scale * o.scale));
  void *a = nullptr, *b = nullptr;
  CHECK(stencil::device_allocate(&a, bytes));
  CHECK(stencil::device_allocate(&b, bytes));
  CHECK(stencil::device_zero(a, bytes));
  Peak peak;
  const double ms = medianMs(o.runs, [&] {
    return stencil::copy_device_to_device(b, a, bytes);
  });
  peak.memcpy = 2.0 * bytes / (ms * 1e6);
  stencil::device_free(a);
  stencil::device_free(b);
  peak.kernel = 2.0 * bytes / (copyMs(o, 2.0 * bytes, 1) * 1e6);
  peak.l2 = measureL2(o);
  return peak;
}

/// The lattice a kernel is timed on: 512^3 for 3-D scalar fields (the
/// issue's Laplacian size), 32^3 x 64 for 4-D vector fields, sizes of
/// similar volume otherwise; times `scale`, even (even/odd storage).
std::vector<int> extentsFor(const KernelInfo &info, double scale) {
  std::vector<int> n;
  switch (info.shape.dims) {
  case 1:
    n = {1 << 27};
    break;
  case 2:
    n = {8192, 8192};
    break;
  case 3:
    n = info.components == 1 ? std::vector<int>{512, 512, 512}
                             : std::vector<int>{256, 256, 256};
    break;
  default:
    n = info.components >= 12 ? std::vector<int>{32, 32, 32, 64}
                              : std::vector<int>{64, 64, 64, 128};
  }
  // Gauge-covariant stencils: the sizes lattice codes run (links are 4.5
  // reals per field real per direction): 64^3 in 3-D, 32^3 x 64 in 4-D.
  if (info.links && info.shape.dims == 3)
    n = {64, 64, 64};
  if (info.links && info.shape.dims == 4)
    n = {32, 32, 32, 64};
  // Scaled, and rounded up to whole subdomains and even extents.
  for (size_t axis = 0; axis < n.size(); ++axis) {
    const int unit = std::max(2, info.layout.sub[axis]) *
                     (info.layout.sub[axis] % 2 ? 2 : 1);
    int e = std::max(4, static_cast<int>(std::lround(n[axis] * scale)));
    n[axis] = (e + unit - 1) / unit * unit;
  }
  return n;
}

struct Row {
  std::string kernel, size, role;
  double ms = 0.0, bytes = 0.0, gbs = 0.0, percent = 0.0;
  double flopsPerByte = 0.0;
  double naiveGbs = 0.0; ///< the naive baseline's, 0 when not timed
  double gflops = 0.0;   ///< flops_per_apply / time; 0 when not counted
  /// QUDA's byte model: every tap's neighbour, link and coefficient load
  /// charged, the output written once; 0 when not computed.
  double qudaGbs = 0.0;
};

/// Bytes per site in QUDA's model (see Row::qudaGbs).
double qudaBytesPerSite(const KernelInfo &info) {
  double reals = info.components * (info.num_taps + 1.0) + info.num_field_terms;
  if (info.links)
    for (int t = 0; t < info.num_taps; ++t)
      reals += info.links->tap_link[t] ? info.links->reals_per_link : 0;
  return reals * info.element_bytes;
}

std::string sizeText(const std::vector<int> &n) {
  return stencil::extents_text(n.data(), static_cast<int>(n.size()));
}

/// The 4-D even/odd sections' lattices: `sizes` scaled by --scale (even
/// extents, at least 4), those --lattice-size names if it is given.
std::vector<std::vector<int>>
evenOddLattices(const Options &o,
                std::initializer_list<std::vector<int>> sizes) {
  std::vector<std::vector<int>> lattices;
  for (std::vector<int> n : sizes) {
    for (int &e : n)
      e = std::max(4, static_cast<int>(std::lround(e * o.scale)) / 2 * 2);
    if (o.latticeSizes.empty() ||
        std::find(o.latticeSizes.begin(), o.latticeSizes.end(),
                  sizeText(n)) != o.latticeSizes.end())
      lattices.push_back(n);
  }
  return lattices;
}

/// A stencil's operator with random inputs, ready to time.
struct Bench {
  stencil::StencilOperator A;
  Field in, out;
  std::vector<std::unique_ptr<Field>> sites;
  Field links; ///< random SU(N), for stencils with links
  /// The clover term of the same gauge field, for Wilson-clover stencils.
  stencil::StencilOperator::CloverArrays clover;

  /// With `gauge` (and `cloverField` for a clover term, computed from it
  /// with the stencil's default parameters): those links instead of
  /// drawing them, for benchmarks that share one gauge field.
  Bench(const KernelInfo &info, const std::vector<int> &n,
        stencil::StencilOperator::Kernels kernels =
            stencil::StencilOperator::Kernels::AsGiven,
        const stencil::GaugeField *gauge = nullptr,
        const stencil::CloverField *cloverField = nullptr) {
    CHECK(stencil::StencilOperator::create(info, n.data(), A, kernels));
    stencil::Random random(2026);
    CHECK(stencil::set_random_site_parameters(
        A, random,
        [](const std::string &) { return std::pair{0.0, 1.0}; }, sites));
    // Their own sequence, so that inputs stay those of stencils without.
    stencil::Random linkRandom(2027);
    if (gauge) {
      CHECK(A.upload_links(*gauge, links));
      CHECK(A.set_links(links));
      if (info.clover) {
        CHECK(A.upload_clover(*cloverField, clover,
                              info.layout.even_odd ? 1 : -1));
        CHECK(A.set_clover(clover));
      }
    } else {
      CHECK(stencil::set_random_links(A, linkRandom, links, &clover));
    }
    CHECK(Field::create(A.lattice(), in));
    CHECK(Field::create(A.lattice(), out));
    std::vector<double> values(A.lattice().values());
    for (double &v : values)
      v = random.uniform(-1.0, 1.0);
    CHECK(in.upload_values(values.data(), values.size()));
    // The halo of `out` is never written: zero, so that whole fields of
    // two kernels can be compared.
    CHECK(out.fill(0.0));
  }

  double applyMs(int runs) {
    return medianMs(runs, [&] { return A.apply(out, in); });
  }
  /// Per application, timed over `batch` back-to-back applications (as a
  /// smearing loop runs them).
  double applyBatchMs(int runs, int batch) {
    return batchMs(runs, batch, [&] { return A.apply(out, in); });
  }
  /// The even-to-odd hopping kernel (kHop), for even/odd stencils.
  double hopMs(int runs) {
    Field inEven, outOdd;
    CHECK(in.half(0, inEven));
    CHECK(out.half(1, outOdd));
    return medianMs(runs, [&] {
      return A.hop(stencil::StencilOperator::Hop::EvenToOdd, false, outOdd,
                   inEven);
    });
  }
};

/// max |a - b| / max |a| over every value: the timed kernels against the
/// naive baseline on the same random input (same seed).
/// `info` with only the tuned rows `keep` accepts, held in `rows`; the
/// number of rows dropped in `dropped`.
template <typename Keep>
KernelInfo withRows(const KernelInfo &info, Keep keep,
                    std::vector<stencil::TunedChoice> &rows, int &dropped) {
  rows.clear();
  for (int i = 0; i < info.num_tuned; ++i)
    if (keep(info.tuned[i]))
      rows.push_back(info.tuned[i]);
  KernelInfo copy = info;
  copy.num_tuned = static_cast<int>(rows.size());
  copy.tuned = rows.data();
  dropped = info.num_tuned - copy.num_tuned;
  return copy;
}

double relativeDifference(const Field &a, const Field &b) {
  std::vector<double> x(a.lattice().values()), y(b.lattice().values());
  CHECK(a.download_values(x.data(), static_cast<std::int64_t>(x.size())));
  CHECK(b.download_values(y.data(), static_cast<std::int64_t>(y.size())));
  double difference = 0.0, scale = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i]))
      return std::numeric_limits<double>::infinity();
    difference = std::max(difference, std::abs(x[i] - y[i]));
    scale = std::max(scale, std::abs(x[i]));
  }
  return scale > 0 ? difference / scale
                   : std::numeric_limits<double>::infinity();
}

/// CG's iterations replayed from launch graphs (on GPUs) against the same
/// iterations launched one by one (SolveOptions::launch_graphs): `solve`
/// runs a fixed number of iterations into its field with the options it
/// is given, in double and, with `mixed`, in mixed precision; the
/// solutions must agree bit for bit. Returns the mismatches.
int checkCgGraphs(
    const std::string &what, bool mixedToo,
    const std::function<void(const stencil::SolveOptions &, Field &,
                             stencil::SolveReport &)> &solve) {
  int mismatches = 0;
  for (const bool mixed : {false, true}) {
    if (mixed && !mixedToo)
      continue;
    stencil::SolveOptions options;
    options.tolerance = 1e-30; // never reached: a fixed number of iterations
    options.max_iterations = 40;
    options.mixed_precision = mixed;
    // Reliable updates every few iterations: each restarts the pipeline
    // between graph replays.
    options.reliable_delta = mixed ? 0.3 : 0.0;
    Field graphed, launched;
    stencil::SolveReport withGraphs, oneByOne;
    options.launch_graphs = true;
    solve(options, graphed, withGraphs);
    options.launch_graphs = false;
    solve(options, launched, oneByOne);
    const double d = relativeDifference(graphed, launched);
    std::printf("  %s%s, %d iterations (%d reliable updates): %s; "
                "against launches one by one: %s\n",
                what.c_str(), mixed ? ", mixed precision" : "",
                withGraphs.iterations, withGraphs.reliable_updates,
                withGraphs.launches.c_str(),
                d == 0.0 ? "the same solution bit for bit" : "DIFFERENT");
    if (d != 0.0 || withGraphs.iterations != oneByOne.iterations) {
      std::printf("  MISMATCH %s%s: graphed and launched CG differ "
                  "(max relative difference %.2g, %d and %d iterations)\n",
                  what.c_str(), mixed ? ", mixed" : "", d,
                  withGraphs.iterations, oneByOne.iterations);
      ++mismatches;
    }
  }
  return mismatches;
}

void writeJson(const std::string &path, const Peak &peak,
               const std::vector<Row> &rows) {
  std::ofstream out(path);
  out << "{\n  \"device\": \"" << stencil::device_name() << "\",\n"
      << "  \"backend\": \"" << stencil::backend_name() << "\",\n"
      << "  \"peak_gb_s\": {\"device_to_device_copy\": " << peak.memcpy
      << ", \"streaming_copy_kernel\": " << peak.kernel
      << ", \"peak\": " << peak.best() << ", \"l2_copy\": " << peak.l2
      << "},\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    out << "    {\"kernel\": \"" << r.kernel << "\", \"role\": \"" << r.role
        << "\", \"size\": \"" << r.size << "\", \"ms\": " << r.ms
        << ", \"bytes\": " << r.bytes << ", \"gb_s\": " << r.gbs
        << ", \"percent_of_peak\": " << r.percent
        << ", \"arithmetic_intensity\": " << r.flopsPerByte
        << ", \"naive_gb_s\": " << r.naiveGbs << ", \"gflop_s\": " << r.gflops
        << ", \"quda_model_gb_s\": " << r.qudaGbs << "}"
        << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  out << "  ]\n}\n";
  if (!out)
    CHECK(Status::failure("cannot write '" + path + "'"));
}

} // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  std::printf("stencil_bench: %s on %s; median of %d runs after 3 "
              "warm-ups\n",
              stencil::backend_name().c_str(), stencil::device_name().c_str(),
              o.runs);
  const Peak peak = measurePeak(o);
  std::printf("peak: device-to-device copy %.1f GB/s, streaming copy kernel "
              "%.1f GB/s; percentages below are of %.1f GB/s\n",
              peak.memcpy, peak.kernel, peak.best());
  std::printf("L2: copy kernel over 2 x 8 MiB, 64 passes: %.1f GB/s (the "
              "roofline's cache roof)\n\n",
              peak.l2);
  std::printf("%-34s %-12s %-12s %9s %9s %6s %9s %7s\n", "kernel", "size",
              "role", "ms", "GB/s", "%peak", "naive", "speedup");

  std::vector<Row> rows;
  int mismatches = 0;
  auto report = [&](Row row) {
    row.percent = 100.0 * row.gbs / peak.best();
    std::printf("%-34s %-12s %-12s %9.4f %9.1f %6.1f", row.kernel.c_str(),
                row.size.c_str(), row.role.c_str(), row.ms, row.gbs,
                row.percent);
    if (row.naiveGbs > 0)
      std::printf(" %9.1f %6.2fx\n", row.naiveGbs, row.gbs / row.naiveGbs);
    else
      std::printf("\n");
    std::fflush(stdout);
    rows.push_back(row);
  };

  for (const BenchPair &pair : benchPairs()) {
    const KernelInfo &info = *pair.tuned;
    if (!o.only.empty() &&
        std::string(info.name).find(o.only) == std::string::npos)
      continue;
    const std::vector<int> n = extentsFor(info, o.scale);
    Row row;
    row.kernel = info.name;
    row.size = sizeText(n);
    row.role = "apply";
    row.flopsPerByte =
        static_cast<double>(info.flops_per_site) / info.bytes_per_site;
    Bench naive(*pair.naive, n);
    row.bytes = naive.A.bytes_per_apply();
    row.naiveGbs = row.bytes / (naive.applyMs(o.runs) * 1e6);
    // Every timed kernel computes what the naive one does, on every value
    // (float sums in another order differ by rounding).
    const double tolerance = info.element_bytes == 4 ? 1e-5 : 1e-12;
    auto agrees = [&](const Bench &b) {
      const double d = relativeDifference(naive.out, b.out);
      const bool ok = d <= tolerance;
      std::printf("  %s the naive kernel's result: max relative difference "
                  "%.2g (tolerance %.0e)\n",
                  ok ? "same as" : "ERROR: differs from", d, tolerance);
      mismatches += ok ? 0 : 1;
    };
    Bench tuned(info, n);
    row.ms = tuned.applyMs(o.runs);
    row.gbs = row.bytes / (row.ms * 1e6);
    row.gflops = tuned.A.flops_per_apply() / (row.ms * 1e6);
    row.qudaGbs = static_cast<double>(tuned.A.lattice().interior_sites()) *
                  qudaBytesPerSite(info) / (row.ms * 1e6);
    report(row);
    std::printf("  %.1f GFLOP/s (%d flops per site); QUDA's byte model "
                "(every neighbour, link and coefficient load charged): "
                "%.1f GB/s\n",
                row.gflops, info.flops_per_site, row.qudaGbs);
    agrees(tuned);
    if (row.ms < 0.1) {
      // A short kernel: one launch's time carries the launch itself and
      // the ramp of a small grid; time back-to-back applications too, and
      // a copy of the same bytes both ways, for the ceiling at this size.
      constexpr int kBatch = 20;
      Row batched = row;
      batched.role = "batch20";
      batched.naiveGbs = 0.0;
      batched.ms = tuned.applyBatchMs(o.runs, kBatch);
      batched.gbs = batched.bytes / (batched.ms * 1e6);
      batched.gflops = row.gflops * row.ms / batched.ms;
      batched.qudaGbs = row.qudaGbs * row.ms / batched.ms;
      report(batched);
      const double single = copyMs(o, row.bytes, 1),
                   batch = copyMs(o, row.bytes, kBatch);
      std::printf("  per application of %d back to back; a copy of the same "
                  "%.1f MB: %.4f ms one launch (%.1f%% of the peak), %.4f "
                  "ms each of %d (%.1f%%)\n",
                  kBatch, row.bytes * 1e-6, single,
                  100.0 * row.bytes / (single * 1e6) / peak.best(), batch,
                  kBatch, 100.0 * row.bytes / (batch * 1e6) / peak.best());
    }
    // Another kernel of the same stencil on the same bytes: its time, and
    // the rates scaled from the spec's own kernel's.
    auto retimed = [&](const char *kernel, const char *role, double ms) {
      Row r = row;
      r.kernel = kernel;
      r.role = role;
      r.ms = ms;
      r.gbs = r.bytes / (r.ms * 1e6);
      r.gflops = row.gflops * row.ms / r.ms;
      r.qudaGbs = row.qudaGbs * row.ms / r.ms;
      return r;
    };
    // Even/odd storage: the even-to-odd hop of `b`, what its solves run.
    auto reportHop = [&](const Row &base, Bench &b) {
      Row hop = base;
      hop.role = "hop e>o";
      hop.naiveGbs = hop.gflops = hop.qudaGbs = 0.0;
      hop.bytes = b.A.bytes_per_hop(stencil::StencilOperator::Hop::EvenToOdd,
                                    stencil::kHop);
      hop.ms = b.hopMs(o.runs);
      hop.gbs = hop.bytes / (hop.ms * 1e6);
      report(hop);
    };
    {
      // The variant the tuning cache chooses for this device and size, if
      // one was compiled in (stencil/tuning.hpp); the planner's groups
      // along x have their own row below.
      Bench chosen(info, n, stencil::StencilOperator::Kernels::Tuned);
      bool planned = false;
      for (int i = 0; i < info.num_tuned; ++i)
        planned |= info.tuned[i].x_multiple > 0 &&
                   &info.tuned[i].info() == &chosen.A.info();
      if (&chosen.A.info() != &info && !planned) {
        const Row t = retimed(chosen.A.info().name, "tuned",
                              chosen.applyMs(o.runs));
        report(t);
        std::printf("  %s\n", chosen.A.kernel_choice().c_str());
        agrees(chosen);
        if (info.even_odd) // what its even/odd solves run
          reportHop(t, chosen);
      }
    }
    // The planner's groups of sites along x beside the spec's kernels
    // (stencil::TunedChoice::x_multiple), which the runtime picks where no
    // tuning-cache entry matches and nx allows them; and its kernels for a
    // GPU whose cost model chose otherwise ("device plan", on any GPU).
    for (int i = 0; i < info.num_tuned; ++i) {
      const stencil::TunedChoice &choice = info.tuned[i];
      if (choice.x_multiple < 1 || n[0] % choice.x_multiple != 0 ||
          choice.kernels != stencil::TunedKernels::All ||
          &choice.info() == &info)
        continue;
      Bench grouped(choice.info(), n);
      // (A row for large lattices only is timed at any size, and named.)
      const Row g = retimed(choice.info().name,
                            choice.device           ? "device plan"
                            : choice.l2_percent > 0 ? "x, marching"
                                                    : "along x",
                            grouped.applyMs(o.runs));
      report(g);
      std::printf("  options: %s%s%s\n", choice.info().tuning_options,
                  choice.device ? "; planned for " : "",
                  choice.device ? choice.device : "");
      agrees(grouped);
    }
    {
      // The planner's own choice of every kernel option (the spec's kernel
      // section ignored: `stencilc generate --open-options`), with its
      // groups along x where nx allows them; on a GPU with a cost model of
      // its own, as planned for it.
      Bench automatic(*pair.automatic, n,
                      stencil::StencilOperator::Kernels::Tuned);
      const Row a = retimed(automatic.A.info().name, "planner",
                            automatic.applyMs(o.runs));
      report(a);
      std::printf("  options: %s\n  %s\n", automatic.A.info().tuning_options,
                  automatic.A.kernel_choice().c_str());
      agrees(automatic);
      if (info.even_odd)
        reportHop(a, automatic);
      // Where that was this GPU's own plan: the default device's (the H100
      // model's) in the same run, for comparison.
      bool ownRow = false; // the kernels chosen are a row for this GPU
      for (int i = 0; i < pair.automatic->num_tuned; ++i) {
        const stencil::TunedChoice &c = pair.automatic->tuned[i];
        ownRow |= c.device && c.x_multiple > 0 &&
                  stencil::device_name() == c.device &&
                  &c.info() == &automatic.A.info();
      }
      if (ownRow) {
        std::vector<stencil::TunedChoice> choices;
        int dropped = 0;
        const KernelInfo generic = withRows(
            *pair.automatic,
            [](const stencil::TunedChoice &c) {
              return !(c.device && c.x_multiple > 0);
            },
            choices, dropped);
        Bench standard(generic, n, stencil::StencilOperator::Kernels::Tuned);
        const Row d = retimed(standard.A.info().name, "planner h100",
                              standard.applyMs(o.runs));
        report(d);
        std::printf("  options: %s (the default device's plan)\n",
                    standard.A.info().tuning_options);
        agrees(standard);
        if (info.even_odd)
          reportHop(d, standard);
      }
    }
    if (info.even_odd)
      reportHop(row, tuned);
  }

  // Dirac operators (even/odd stencils with spin-projected hops): each
  // kernel of the even/odd solve at the sprint's three sizes, and CGNR on
  // the Schur complement to a tolerance.
  std::map<std::string, stencil::GaugeField> gauges;
  std::map<std::string, stencil::CloverField> clovers;
  for (const BenchPair &pair : benchPairs()) {
    const KernelInfo &info = *pair.tuned;
    if (o.kernelsOnly || !info.even_odd || !info.links ||
        info.components != 24 ||
        (!o.only.empty() &&
         std::string(info.name).find(o.only) == std::string::npos &&
         o.only != "lattice"))
      continue;
    for (const std::vector<int> &n :
         evenOddLattices(o, {{16, 16, 16, 32}, {32, 32, 32, 64},
                             {48, 48, 48, 64}})) {
      std::printf("\n%s at %s (Dirac operator kernels; hops walk %s)\n",
                  info.name, sizeText(n).c_str(),
                  stencil::hop_slab(info, n.data()) == 1
                      ? "in storage order"
                      : ("t in slabs of " +
                         std::to_string(stencil::hop_slab(info, n.data())) +
                         " slices")
                            .c_str());
      std::fflush(stdout);
      // One random gauge field per size (the links every Bench draws),
      // and its clover term per (mass, c_sw): at 48^3 x 64 each takes
      // tens of seconds on the host.
      const std::string key = sizeText(n);
      if (!gauges.count(key)) {
        stencil::GaugeField &U = gauges[key];
        CHECK(stencil::GaugeField::create(4, n.data(), info.links->colours, U));
        stencil::Random linkRandom(2027);
        U.set_random(linkRandom);
      }
      const stencil::GaugeField &U = gauges[key];
      const stencil::CloverField *cloverField = nullptr;
      if (info.clover) {
        stencil::StencilOperator probe;
        CHECK(stencil::StencilOperator::create(info, n.data(), probe));
        double csw = info.clover->csw_constant;
        for (int p = 0; p < info.num_params; ++p)
          csw += info.clover->csw_factors[p] * info.param_defaults[p];
        const std::string cloverKey =
            key + "/" + std::to_string(stencil::scalar_coefficient(
                            info, info.clover->tap, info.param_defaults)) +
            "/" + std::to_string(csw);
        if (!clovers.count(cloverKey))
          CHECK(probe.compute_clover(U, clovers[cloverKey]));
        cloverField = &clovers[cloverKey];
      }
      Bench b(info, n, stencil::StencilOperator::Kernels::AsGiven, &U,
              cloverField);
      using Hop = stencil::StencilOperator::Hop;
      Field inEven, inOdd, outEven, outOdd, sameEven, sameOdd;
      CHECK(b.in.half(0, inEven));
      CHECK(b.in.half(1, inOdd));
      CHECK(b.out.half(0, outEven));
      CHECK(b.out.half(1, outOdd));
      CHECK(Field::create(b.A.lattice().half(0), sameEven));
      CHECK(sameEven.copy_from(inEven));
      const double half = static_cast<double>(b.A.lattice().half(0).sites());
      const int bytes = info.element_bytes;
      const double link = info.links->reals_per_link;
      const double clover = info.clover ? info.clover->reals_per_site : 0.0;
      // QUDA's model: 8 neighbour spinors and links, the output, and the
      // clover (or inverse) and the accumulated spinor where the mode
      // reads them.
      auto quda = [&](stencil::HopMode mode) {
        double reals = 8 * (24 + link) + 24;
        if (mode != stencil::kHop)
          reals += info.clover ? clover : 0.0;
        if (mode == stencil::kDiagonalPlusHop)
          reals += 24;
        return half * reals * bytes;
      };
      const double hopFlops = info.even_odd->flops_per_site * half;
      const double cloverFlops = info.clover ? info.clover->flops_per_site * half : 0.0;
      auto timed = [&](const std::string &role, double ms, double theory,
                       double flops, double qudaBytes) {
        Row r;
        r.kernel = info.name;
        r.size = sizeText(n);
        r.role = role;
        r.ms = ms;
        r.bytes = theory;
        r.gbs = theory / (ms * 1e6);
        r.gflops = flops / (ms * 1e6);
        r.qudaGbs = qudaBytes / (ms * 1e6);
        report(r);
        std::printf("  %.1f GFLOP/s; QUDA's byte model %.1f GB/s\n",
                    r.gflops, r.qudaGbs);
      };
      struct HopCase {
        const char *role;
        Hop direction;
        stencil::HopMode mode;
      };
      const HopCase hops[] = {
          {"hop e>o", Hop::EvenToOdd, stencil::kHop},
          {"hop e>o A^-1", Hop::EvenToOdd, stencil::kInverseDiagonalHop},
          {"hop o>e A+", Hop::OddToEven, stencil::kDiagonalPlusHop}};
      for (const HopCase &h : hops) {
        const bool toOdd = h.direction == Hop::EvenToOdd;
        const double ms = medianMs(o.runs, [&] {
          return b.A.hop(h.direction, false, toOdd ? outOdd : outEven,
                         toOdd ? inEven : inOdd, h.mode, 1.0, -1.0,
                         toOdd ? nullptr : &sameEven);
        });
        const double extra = h.mode == stencil::kHop ? 0.0
                             : info.clover        ? cloverFlops
                                                  : 2 * 24 * half;
        timed(h.role, ms, b.A.bytes_per_hop(h.direction, h.mode),
              hopFlops + extra, quda(h.mode));
      }
      if (info.clover) {
        const double ms = medianMs(o.runs, [&] {
          return b.A.apply_clover(1, outOdd, inOdd,
                                  stencil::kInverseDiagonalHop, 0.0, 1.0);
        });
        timed("clover A^-1", ms,
              b.A.bytes_per_clover(stencil::kInverseDiagonalHop), cloverFlops,
              b.A.bytes_per_clover(stencil::kInverseDiagonalHop));
      }
      for (stencil::CloverPlacement placement :
           {stencil::CloverPlacement::Epilogue,
            stencil::CloverPlacement::SiteKernel}) {
        if (!info.clover && placement == stencil::CloverPlacement::SiteKernel)
          continue;
        stencil::SchurComplement S;
        CHECK(stencil::SchurComplement::create(b.A, S, placement));
        const double ms = medianMs(
            o.runs, [&] { return S.apply(outEven, sameEven); });
        const bool fused = placement == stencil::CloverPlacement::Epilogue;
        timed(fused ? "Schur" : "Schur split", ms, S.bytes_per_apply(),
              2 * hopFlops + 2 * cloverFlops,
              fused ? quda(stencil::kInverseDiagonalHop) +
                          quda(stencil::kDiagonalPlusHop)
                    : S.bytes_per_apply());
      }
      timed("whole M", b.applyMs(o.runs), b.A.bytes_per_apply(),
            b.A.flops_per_apply(), 0.0);
      // CGNR on the Schur complement to 1e-6 (float) or 1e-10 (double),
      // b = M x for a random x: iterations, time to solution, the error.
      for (stencil::CloverPlacement placement :
           {stencil::CloverPlacement::Epilogue,
            stencil::CloverPlacement::SiteKernel}) {
        if (!info.clover && placement == stencil::CloverPlacement::SiteKernel)
          continue;
        Field rhs, x;
        CHECK(Field::create(b.A.lattice(), rhs));
        CHECK(Field::create(b.A.lattice(), x));
        CHECK(b.A.apply(rhs, b.in));
        CHECK(stencil::device_synchronize());
        stencil::SolveOptions options;
        options.method = stencil::Method::CGNR;
        options.tolerance = bytes == 4 ? 1e-6 : 1e-10;
        options.max_iterations = 5000;
        options.clover_placement = placement;
        stencil::SolveReport solve;
        CHECK(stencil::solve_even_odd(b.A, rhs, x, options, solve));
        Row r;
        r.kernel = std::string("CGNR eo (") + info.name + ")";
        r.size = sizeText(n);
        r.role = placement == stencil::CloverPlacement::Epilogue ? "iter"
                                                                 : "iter split";
        r.ms = solve.seconds_per_iteration * 1e3;
        r.bytes = solve.bytes_per_iteration;
        r.gbs = solve.bandwidth_gbs;
        report(r);
        std::printf("  CGNR on the Schur complement: %s after %d iterations, "
                    "%.4f s to solution, true residual of M x = b %.2e\n",
                    solve.converged ? "converged" : "NOT converged",
                    solve.iterations, solve.seconds,
                    solve.true_relative_residual);
        if (!solve.converged)
          ++mismatches;
      }
    }
  }

  // The Schur complement of every even/odd stencil with its kernels
  // launched one by one and replayed as a launch graph
  // (stencil/launch_graph.hpp), at a small and a large lattice: one
  // application between events, and each of 50 back to back. The graph's
  // result must equal the launches' bit for bit, also after the fields or a
  // parameter change (a new graph is recorded).
  for (const BenchPair &pair : benchPairs()) {
    const KernelInfo &info = *pair.tuned;
    if (o.kernelsOnly || !info.even_odd || info.shape.dims != 4 ||
        (!o.only.empty() &&
         std::string(info.name).find(o.only) == std::string::npos &&
         o.only != "graphs"))
      continue;
    const std::vector<std::vector<int>> lattices =
        evenOddLattices(o, {{16, 16, 16, 32}, {32, 32, 32, 64}});
    for (const std::vector<int> &n : lattices) {
      Bench b(info, n, stencil::StencilOperator::Kernels::Tuned);
      stencil::SchurComplement S;
      CHECK(stencil::SchurComplement::create(b.A, S));
      Field in, direct, replayed;
      CHECK(b.in.half(0, in));
      CHECK(Field::create(S.lattice(), direct));
      CHECK(Field::create(S.lattice(), replayed));
      std::printf("\n%s at %s: the Schur complement's launches (%s)\n",
                  info.name, sizeText(n).c_str(),
                  b.A.kernel_choice().c_str());
      // Bit for bit: the same kernels on the same fields.
      auto same = [&](const char *what) {
        const double d = relativeDifference(direct, replayed);
        if (d != 0.0) {
          std::printf("  MISMATCH %s: the graph's result differs from the "
                      "launches' (max relative difference %.2g)\n",
                      what, d);
          ++mismatches;
        }
      };
      for (const bool graphs : {false, true}) {
        S.set_launch_graphs(graphs);
        Row r;
        r.kernel = info.name;
        r.size = sizeText(n);
        r.bytes = S.bytes_per_apply();
        const char *how = graphs ? "graph" : "launches";
        r.role = std::string("Schur, ") + how;
        r.ms = medianMs(o.runs, [&] { return S.apply(direct, in); });
        r.gbs = r.bytes / (r.ms * 1e6);
        report(r);
        Row batch = r;
        batch.role = std::string("Schur x50, ") + how;
        batch.ms =
            batchMs(o.runs, 50, [&] { return S.apply(direct, in); });
        batch.gbs = batch.bytes / (batch.ms * 1e6);
        report(batch);
      }
      std::printf("  %s\n", S.launch_description().c_str());
      // `S` keeps its graphs (recorded above); `direct` launches one by one.
      stencil::SchurComplement plain;
      CHECK(stencil::SchurComplement::create(b.A, plain));
      plain.set_launch_graphs(false);
      auto check = [&](const std::string &what, bool adjoint) {
        CHECK(adjoint ? plain.apply_adjoint(direct, in)
                      : plain.apply(direct, in));
        for (int run = 0; run < 2; ++run) { // recorded if new, then replayed
          CHECK(replayed.fill(-7.0)); // poisoned: the graph writes it all
          CHECK(adjoint ? S.apply_adjoint(replayed, in)
                        : S.apply(replayed, in));
        }
        same(what.c_str());
      };
      check("apply", false);
      check("apply_adjoint", true);
      // A scalar parameter changed after the graphs were recorded (not one
      // of a clover term, which would need the term computed again).
      for (int p = 0; p < info.num_params && !info.clover; ++p) {
        if (info.param_is_site[p])
          continue;
        CHECK(b.A.set_parameter(info.param_names[p],
                                info.param_defaults[p] * 1.5 + 0.25));
        check("apply after " + std::string(info.param_names[p]) + " changed",
              false);
        CHECK(b.A.set_parameter(info.param_names[p], info.param_defaults[p]));
        break;
      }
      // Recording fails half way (the second hop refuses out == same): the
      // next applications record and replay as before.
      if (S.apply(in, in).ok()) {
        std::printf("  MISMATCH: apply(in, in) did not fail\n");
        ++mismatches;
      }
      check("apply after a failed recording", false);
      // More fields than graphs kept: the least recently used is dropped
      // and recorded again when it comes back; off and on again records
      // anew. (On the first lattice: nine more half fields.)
      if (&n == &lattices.front()) {
        const int kept = stencil::LaunchGraphs::kMaxGraphs;
        std::vector<Field> outs(kept + 1);
        for (Field &f : outs)
          CHECK(Field::create(S.lattice(), f));
        const int before = S.launch_graphs().recordings();
        for (Field &f : outs)
          CHECK(S.apply(f, in));
        CHECK(S.apply(outs.back(), in)); // kept: replayed
        const int filled = S.launch_graphs().recordings();
        CHECK(S.apply(outs.front(), in)); // dropped: recorded again
        CHECK(plain.apply(direct, in));
        CHECK(replayed.copy_from(outs.front()));
        same("apply after its graph was dropped");
        S.set_launch_graphs(false);
        S.set_launch_graphs(true);
        CHECK(S.apply(outs.back(), in));
        const int after = S.launch_graphs().recordings();
        if (S.launch_graphs().enabled() &&
            (filled != before + kept + 1 || after != filled + 2)) {
          std::printf("  MISMATCH: recordings %d -> %d -> %d, expected "
                      "%d more then 2 more\n",
                      before, filled, after, kept + 1);
          ++mismatches;
        }
      }
      std::printf("  after the checks: %s\n", S.launch_description().c_str());
      // CG on the Schur complement (specs whose solver is CG; mixed
      // precision where they have inner kernels): its whole iteration as a
      // graph against its launches one by one, on the small lattice.
      if (&n == &lattices.front() && std::string(info.solver) == "cg") {
        mismatches += checkCgGraphs(
            "CG on the Schur complement", info.inner != nullptr,
            [&](const stencil::SolveOptions &options, Field &x,
                stencil::SolveReport &report) {
              CHECK(Field::create(b.A.lattice(), x));
              CHECK(stencil::solve_even_odd(b.A, b.in, x, options, report));
            });
      }
    }
  }

  // CG on the 3-D Laplacian, double: a fixed number of iterations.
  for (const BenchPair &pair : benchPairs()) {
    if (o.kernelsOnly || std::string(pair.tuned->name) != "laplacian3d_f64" ||
        (!o.only.empty() && o.only != "cg"))
      continue;
    const int size =
        std::max(8, static_cast<int>(std::lround(o.cgSize * o.scale)));
    const std::vector<int> n = {size, size, size};
    // The tuned kernels where the cache has them; unfused, fused, then
    // fused with p = r + beta p folded into the stencil pass; then the last
    // with the planner's choice of every option (NAME_auto, whose fold pass
    // may run from kernels of its own: NAME_auto_fold).
    auto timeCg = [&](Bench &bench, const std::string &name, bool fused,
                      bool folded) {
      Field x;
      CHECK(Field::create(bench.A.lattice(), x));
      stencil::SolveOptions options;
      options.tolerance = 1e-30; // never reached: time the iterations
      options.max_iterations = o.cgIterations;
      options.fused = fused;
      options.fold_direction = folded;
      stencil::SolveReport solve;
      CHECK(stencil::solve(bench.A, bench.in, x, options, solve));
      if (solve.fused != fused)
        CHECK(Status::failure("CG: the fused kernels are missing"));
      if (solve.folded != folded)
        CHECK(Status::failure("CG: the kernel with p = r + beta p folded in "
                              "(apply_fold_dot) is missing"));
      Row row;
      row.kernel = (folded  ? "CG fused+fold ("
                    : fused ? "CG fused ("
                            : "CG (") +
                   name + ")";
      row.size = sizeText(n);
      row.role = "iter";
      row.ms = solve.seconds_per_iteration * 1e3;
      row.bytes = solve.bytes_per_iteration;
      row.gbs = solve.bandwidth_gbs;
      report(row);
      std::printf("  CG%s: %d iterations, %.1f MB per iteration, minimal "
                  "%.1f MB (theoretical: each operation's operands read "
                  "once, results written once); %.1f MB/iteration at the "
                  "peak would take %.4f ms\n",
                  folded ? " fused+fold" : fused ? " fused" : "",
                  solve.iterations,
                  solve.bytes_per_iteration / 1e6,
                  solve.minimal_bytes_per_iteration / 1e6,
                  solve.minimal_bytes_per_iteration / 1e6,
                  solve.minimal_bytes_per_iteration / (peak.best() * 1e6));
    };
    Bench bench(*pair.tuned, n, stencil::StencilOperator::Kernels::Tuned);
    std::printf("  CG kernels: %s\n", bench.A.kernel_choice().c_str());
    for (int variant = 0; variant < 3; ++variant)
      timeCg(bench, pair.tuned->name, variant > 0, variant == 2);
    Bench automatic(*pair.automatic, n,
                    stencil::StencilOperator::Kernels::Tuned);
    std::printf("  CG kernels: %s\n", automatic.A.kernel_choice().c_str());
    timeCg(automatic, pair.automatic->name, true, true);
    // The same without the planner's kernels for the fold pass, which then
    // runs with the kernels chosen for apply: what they gain.
    std::vector<stencil::TunedChoice> choices;
    int dropped = 0;
    const KernelInfo applyFold = withRows(
        *pair.automatic,
        [](const stencil::TunedChoice &c) {
          return c.kernels != stencil::TunedKernels::FoldPass;
        },
        choices, dropped);
    if (dropped > 0) {
      Bench without(applyFold, n, stencil::StencilOperator::Kernels::Tuned);
      std::printf("  CG kernels: %s\n", without.A.kernel_choice().c_str());
      timeCg(without,
             std::string(pair.automatic->name) + ", fold with apply's kernels",
             true, true);
    }
    mismatches += checkCgGraphs(
        "CG fused+fold (" + std::string(pair.tuned->name) + ")",
        pair.tuned->inner != nullptr,
        [&](const stencil::SolveOptions &options, Field &x,
            stencil::SolveReport &report) {
          CHECK(Field::create(bench.A.lattice(), x));
          CHECK(stencil::solve(bench.A, bench.in, x, options, report));
        });
  }
  if (!o.json.empty()) {
    writeJson(o.json, peak, rows);
    std::printf("\nwrote %s\n", o.json.c_str());
  }
  if (mismatches > 0) {
    std::fprintf(stderr,
                 "stencil_bench: error: %d kernel%s gave another result than "
                 "the naive kernel (lines marked ERROR)\n",
                 mismatches, mismatches == 1 ? "" : "s");
    return 3;
  }
  return 0;
}
