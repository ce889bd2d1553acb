// fold_march_generated.cu - a probe, not part of the build: why was CG's
// generated marching fold pass (kernel.march, tests/specs/
// t_march_lap3d_f64_inner.yaml) slower than fold_march.cu's hand-written
// march, which it should equal? Times, at 256^3 in double and in float (the
// spec's inner kernels): the H200 fold entry that runs now, the generated
// march at the runtime's own chunk and at fixed chunks (STENCILC_MARCH_PLANES),
// and fold_march.cu's march with the same block and group (64x4, 2 along x)
// at the same chunks. Every march is checked against the entry (fields and
// the sum of the partials), which is checked against a host loop.
//
// The answer (docs/performance.md, "The fold kernels' store path"): the
// generated kernels read the output group's r, p and x inside the
// site-by-site branch of the array's first and last groups, so warps that
// hold such a group waited on those loads after their stores.
//   stencilc generate tests/specs/t_march_lap3d_f64_inner.yaml -o DIR
//   nvcc -x cu -std=c++17 -O3 -arch=sm_90 -I runtime/include -I generated \
//        -I DIR -I bench/probes -o fold_march_generated \
//        bench/probes/fold_march_generated.cu
#define main fold_march_main
#include "fold_march.cu"
#undef main

#include "t_march_lap3d_f64_inner.hip"

/// The generated march's fold pass with chunks of `planes` (0: the
/// runtime's own choice), checked against `ref` and timed.
template <typename T, typename Kernels>
void generated_march(Fields<T> &f, const Result<T> &ref, int planes) {
  using namespace stencilc_kernels;
  if (planes > 0)
    setenv("STENCILC_MARCH_PLANES", std::to_string(planes).c_str(), 1);
  else
    unsetenv("STENCILC_MARCH_PLANES");
  const typename Kernels::Extents e{f.n, f.n, f.n};
  const typename Kernels::Params params{};
  const int n[stencil::kMaxDims] = {f.n, f.n, f.n, 1};
  stencil::LaunchConfig config;
  if (!stencil::make_launch_config(Kernels::shape(), n, config,
                                   Kernels::march_residency(stencil::kMarchFold))
           .ok())
    std::exit(1);
  auto launch = [&] {
    const stencil::Status s = Kernels::apply_fold_dot(
        f.q, f.next_p, f.r, f.p, f.beta, f.x, f.alpha, e, params, f.partials);
    if (!s.ok())
      std::printf("%s\n", s.message().c_str()), std::exit(1);
  };
  f.reset();
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const Index blocks = Index(config.grid.x) * config.grid.y * config.grid.z;
  const Result<T> got = fetch(f, blocks);
  const double diff = difference(f, got, ref);
  const double dot_diff = std::fabs(got.dot - ref.dot) / std::fabs(ref.dot);
  const bool ok = diff < (sizeof(T) == 8 ? 1e-12 : 1e-5) &&
                  dot_diff < (sizeof(T) == 8 ? 1e-10 : 1e-4);
  const float ms = median_ms(launch, f.runs);
  char name[96];
  std::snprintf(name, sizeof name, "generated march, %d planes%s (%lld resident)",
                config.planes, planes > 0 ? "" : " (runtime)",
                static_cast<long long>(Kernels::march_residency(stencil::kMarchFold)));
  std::printf("%-52s %8.4f ms %7.1f GB/s %5.1f%% %s (fields %.1e, dot %.1e)\n",
              name, ms, f.gbps(ms), 100 * f.gbps(ms) / f.peak, ok ? "ok" : "WRONG",
              diff, dot_diff);
  unsetenv("STENCILC_MARCH_PLANES");
}

template <typename T, typename Entry, typename March>
void compare(int n, const char *entry_name) {
  Fields<T> f(n);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  f.peak = copy_peak(f.q, f.r, f.sites * sizeof(T), f.runs);
  std::printf("%s, %d^3 %s; copy %.1f GB/s\n", prop.name, n,
              sizeof(T) == 8 ? "double" : "float", f.peak);
  const typename Entry::Extents e{n, n, n};
  const typename Entry::Params params{};
  stencil::LaunchConfig config;
  if (!Entry::launch_config(e, config).ok())
    std::exit(1);
  const long long blocks = 1LL * config.grid.x * config.grid.y * config.grid.z;
  const Result<T> ref = run_generated(f, entry_name, blocks, [&] {
    const stencil::Status s = Entry::apply_fold_dot(f.q, f.next_p, f.r, f.p, f.beta,
                                                    f.x, f.alpha, e, params, f.partials);
    if (!s.ok())
      std::printf("%s\n", s.message().c_str()), std::exit(1);
  });
  generated_march<T, March>(f, ref, 0);
  for (int planes : {16, 26, 32, 51}) {
    generated_march<T, March>(f, ref, planes);
    march_variant<T, 64, 4, 2>(f, ref, planes);
  }
}

// Namespaces as types, so that compare() can name their functions.
#define KERNELS(NAME, EXTRA)                                                   \
  struct NAME##_api {                                                          \
    using Extents = stencilc_kernels::NAME::Extents;                           \
    using Params = stencilc_kernels::NAME::Params;                             \
    static stencil::Status launch_config(const Extents &e,                     \
                                         stencil::LaunchConfig &c) {           \
      return stencilc_kernels::NAME::launch_config(e, c);                      \
    }                                                                          \
    template <typename... A> static stencil::Status apply_fold_dot(A... a) {   \
      return stencilc_kernels::NAME::apply_fold_dot(a...);                     \
    }                                                                          \
    EXTRA(NAME)                                                                \
  }
#define NO_MARCH(NAME)
#define MARCH(NAME)                                                            \
  static stencil::StencilShape shape() {                                       \
    return stencilc_kernels::NAME::shape();                                    \
  }                                                                            \
  static std::int64_t march_residency(int k) {                                 \
    return stencilc_kernels::NAME::march_residency(k);                         \
  }

KERNELS(laplacian3d_f64_tuned3, NO_MARCH);
KERNELS(laplacian3d_f64_inner_tuned1, NO_MARCH);
KERNELS(t_march_lap3d_f64_inner, MARCH);
KERNELS(t_march_lap3d_f64_inner_inner, MARCH);

int main(int argc, char **argv) {
  // fold_march_generated [N [float|double]]
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const std::string only = argc > 2 ? argv[2] : "";
  if (only != "float")
    compare<double, laplacian3d_f64_tuned3_api, t_march_lap3d_f64_inner_api>(
        n, "laplacian3d_f64_tuned3 fold (H200 entry)");
  if (only != "double")
    compare<float, laplacian3d_f64_inner_tuned1_api, t_march_lap3d_f64_inner_inner_api>(
        n, "laplacian3d_f64_inner_tuned1 fold (H200 entry)");
  return 0;
}
