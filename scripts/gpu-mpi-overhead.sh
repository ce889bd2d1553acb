#!/usr/bin/env bash
# Measures what the distributed path costs on one GPU: each solver alone and
# through its ranks' kernels on a 1-rank process grid (--grid 1,...,1), with
# the exchange overlapped or not, and the time of each halo box-copy kernel
# under Nsight Compute. On one rank every split axis is its own neighbour, so
# the exchange is a device move per side and the ghost zones never leave the
# GPU. Needs the build-cuda-mpi tree of scripts/gpu-mpi-check.sh (made here
# if missing). Logs go to $OUT (or results/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
if [ ! -f build-cuda-mpi/build.ninja ]; then
  cmake -S . -B build-cuda-mpi -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF \
    -DSTENCILC_PLATFORM=nvidia -DSTENCILC_MPI=ON >/dev/null
fi
cmake --build build-cuda-mpi -j "$(nproc)" \
  --target solve_laplacian3d_f64 solve_wilson_clover4d_eo_f64 >/dev/null

log=$out/mpi-overhead.log
: > "$log"
time_run() {
  local label=$1; shift
  local line
  line=$("$@" 2>&1 | grep -E "wall time" || true)
  printf '%-44s %s\n' "$label" "${line#*wall time}" | tee -a "$log"
}

wilson="build-cuda-mpi/solve_wilson_clover4d_eo_f64 --size 24,24,24,48 \
  --even-odd --tol 1e-30 --max-iterations 200"
lap="build-cuda-mpi/solve_laplacian3d_f64 --size 256,256,256 \
  --tol 1e-30 --max-iterations 400"
for rep in 1 2; do
  time_run "wilson eo 24^3x48, alone (run $rep)" $wilson
  time_run "wilson eo, grid 1,1,1,1 overlap on (run $rep)" \
    env STENCILC_OVERLAP=on $wilson --grid 1,1,1,1
  time_run "wilson eo, grid 1,1,1,1 overlap off (run $rep)" \
    env STENCILC_OVERLAP=off $wilson --grid 1,1,1,1
  time_run "laplacian3d 256^3, alone (run $rep)" $lap
  time_run "laplacian3d, grid 1,1,1 overlap on (run $rep)" \
    env STENCILC_OVERLAP=on $lap --grid 1,1,1
  time_run "laplacian3d, grid 1,1,1 overlap off (run $rep)" \
    env STENCILC_OVERLAP=off $lap --grid 1,1,1
done

# One profiled solve of a few iterations: every kernel's time, then the
# box copies' share.
ncu --metrics gpu__time_duration.sum --csv \
  build-cuda-mpi/solve_wilson_clover4d_eo_f64 --size 24,24,24,48 --even-odd \
  --tol 1e-30 --max-iterations 5 --grid 1,1,1,1 > "$out/ncu-mpi-overhead.csv" 2>/dev/null || true
python3 - "$out/ncu-mpi-overhead.csv" <<'PY' | tee -a "$log"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value")
times = collections.defaultdict(list)
for r in rows[1:]:
    if r[head.index("Metric Name")] == "gpu__time_duration.sum":
        times[r[k].split("(")[0]].append(float(r[v].replace(",", "")))
unit = rows[1][head.index("Metric Unit")] if len(rows) > 1 else "?"
print(f"kernels under ncu (wilson eo 24^3x48, grid 1,1,1,1, 5 iterations; {unit})")
for name, t in sorted(times.items(), key=lambda kv: -sum(kv[1])):
    t.sort()
    print(f"  {name[:60]:60s} calls {len(t):4d}  median {t[len(t)//2]:10.1f}  total {sum(t):12.1f}")
PY
