#!/usr/bin/env bash
# Builds, checks and times the solver on an NVIDIA GPU in one call, from the
# checked-in generated/ sources (no LLVM needed there):
#   1. CUDA (sm_90) and host builds of the runtime and the shipped solvers;
#   2. the GPU's empirical copy bandwidth;
#   3. the 3-D Laplacian at 48^3, host and GPU: same iterations, solutions
#      equal to 1e-10; at 47x45x43 in double and float likewise;
#   4. the 3-D Laplacian at 256^3 in double on the GPU, plain (timing) and
#      with per-kernel timing; Jacobi-PCG and CGNR runs of the other specs.
#   5. the 24-float 4-D vector Laplacian's kernel in each layout at 16^3x32
#      and 32^3x64, and in even/odd storage: the Schur complement's two
#      hopping kernels and the whole-lattice kernel; the 27-point stencil at
#      512^3 and the vector Laplacian at 32^3x64 with and without
#      shared-memory staging;
#   6. even/odd CG (Schur complement) against whole-lattice CG for that
#      field, host and GPU at 16^3x32 (same solution), GPU at 32^3x64;
#   7. CG on the covariant Laplacian (random SU(3) links), host and GPU on
#      the same problem, and even/odd CG on it at 32^3x64;
#   8. stencil_bench: every shipped kernel against its naive baseline at
#      512^3 (3-D) or 32^3x64 (4-D vector and covariant fields), the even/odd
#      Schur complements launched one by one and as launch graphs (equal bit
#      for bit), and CG at 256^3.
# Results go to $OUT (or results/) and a table is printed last.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}
mkdir -p "$out"
jobs=$(nproc)
export PATH="$PATH:/usr/local/cuda/bin"
cd "$root"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"

common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF)
cmake -S . -B build-cuda "${common[@]}" -DSTENCILC_PLATFORM=nvidia >/dev/null
cmake -S . -B build-host "${common[@]}" -DSTENCILC_PLATFORM=host >/dev/null
cmake --build build-cuda -j "$jobs" >/dev/null
cmake --build build-host -j "$jobs" >/dev/null
nvcc -O3 -arch=sm_90 -o build-cuda/copy_bandwidth bench/copy_bandwidth.cu
echo "builds done"

log=$out/gpu-run.log
: > "$log"
# A run that does not converge exits 2; record it and go on.
run() {
  echo "\$ $*" | tee -a "$log"
  local status=0
  "$@" >"$out/run.txt" 2>&1 || status=$?
  tee -a "$log" <"$out/run.txt"
  echo "  exit status         $status" | tee -a "$log"
}

run build-cuda/copy_bandwidth
run build-host/solve_laplacian3d_f64 --size 48,48,48 --tol 1e-10 --save "$out/host48.bin"
run build-cuda/solve_laplacian3d_f64 --size 48,48,48 --tol 1e-10 --save "$out/gpu48.bin" --compare "$out/host48.bin" --compare-tol 1e-10
# Odd sizes (values not a multiple of the update pass's 16-byte groups: its
# last thread takes the rest), double and float, against the host. Float
# CG to 1e-5 ends about 8e-4 from the exact solution (host), so two
# backends' float solutions may differ by twice that.
run build-host/solve_laplacian3d_f64 --size 47,45,43 --tol 1e-10 --save "$out/host_odd.bin"
run build-cuda/solve_laplacian3d_f64 --size 47,45,43 --tol 1e-10 --compare "$out/host_odd.bin" --compare-tol 1e-9
run build-host/solve_laplacian3d_f32 --size 47,45,43 --tol 1e-5 --save "$out/host_odd_f32.bin"
run build-cuda/solve_laplacian3d_f32 --size 47,45,43 --tol 1e-5 --compare "$out/host_odd_f32.bin" --compare-tol 2e-3
run build-cuda/solve_laplacian3d_f64 --size 256,256,256 --tol 1e-10
run build-cuda/solve_laplacian3d_f64 --size 256,256,256 --tol 1e-10 --time-kernels
run build-cuda/solve_laplacian3d_f64 --size 256,256,256 --tol 1e-10 --precond jacobi
run build-cuda/solve_anisotropic_reaction3d --size 256,256,256 --tol 1e-10
run build-cuda/solve_anisotropic_reaction3d --size 256,256,256 --tol 1e-10 --precond jacobi
run build-cuda/solve_anisotropic_reaction3d --size 256,256,256 --tol 1e-10 --precond jacobi --time-kernels
# CGNR squares the condition number: a smaller grid.
run build-cuda/solve_advection_diffusion3d --size 96,96,96 --tol 1e-10 --time-kernels
run build-cuda/solve_laplacian4d_periodic --size 32,32,32,64 --tol 1e-10
run build-cuda/solve_laplacian3d_f32 --size 256,256,256 --tol 1e-5
# Layouts of the 24-float 4-D vector field (issue 4): the stencil kernel's
# effective bandwidth from 50 timed applications inside CG.
for size in 16,16,16,32 32,32,32,64; do
  for layout in aos aos_v4 soa aosoa sub; do
    run build-cuda/solve_laplacian4d_vec24_$layout --size $size --tol 1e-30 \
        --max-iterations 50 --time-kernels
  done
  run build-cuda/solve_laplacian4d_vec24_eo --size $size --tol 1e-30 \
      --max-iterations 50 --time-kernels --even-odd
done
# Shared-memory staging against registers (docs/staging.md): the same
# operators with kernel.staging: shared, their kernels inside CG.
for spec in stencil3d_27pt stencil3d_27pt_lds; do
  run build-cuda/solve_$spec --size 512,512,512 --tol 1e-30 \
      --max-iterations 50 --time-kernels
done
for spec in laplacian4d_vec24_aos laplacian4d_vec24_aos_lds; do
  run build-cuda/solve_$spec --size 32,32,32,64 --tol 1e-30 \
      --max-iterations 50 --time-kernels
done
# Even/odd CG on the Schur complement against CG on the whole lattice.
run build-host/solve_laplacian4d_vec24_eo --size 16,16,16,32 --tol 1e-6 --even-odd --save "$out/host_eo.bin"
run build-cuda/solve_laplacian4d_vec24_eo --size 16,16,16,32 --tol 1e-6 --even-odd --compare "$out/host_eo.bin" --compare-tol 1e-4
run build-cuda/solve_laplacian4d_vec24_eo --size 32,32,32,64 --tol 1e-6 --even-odd
run build-cuda/solve_laplacian4d_vec24_aosoa --size 32,32,32,64 --tol 1e-6
# Gauge-covariant Laplacians (issue 17): CG on random SU(3) links, host and
# GPU on the same links and right-hand side (the same seed), the GPU's
# solution compared with the host's; even/odd Schur CG at 32^3 x 64.
run build-host/solve_covlap4d_f64 --size 12,12,12,16 --tol 1e-10 --save "$out/host_cov.bin"
run build-cuda/solve_covlap4d_f64 --size 12,12,12,16 --tol 1e-10 --compare "$out/host_cov.bin" --compare-tol 1e-8
run build-cuda/solve_covlap4d_f64 --size 32,32,32,64 --tol 1e-10 --time-kernels
run build-cuda/solve_covlap4d_eo_f32 --size 32,32,32,64 --tol 1e-5 --even-odd
# The benchmark (issue 6): peak, every shipped kernel against its naive
# baseline, CG; JSON and, where matplotlib exists, the roofline chart.
run build-cuda/bench/stencil_bench --json "$out/bench.json"
python3 bench/roofline.py "$out/bench.json" "$out/bench-roofline.png" 2>&1 | tee -a "$log" || true
rm -f "$out"/*.bin "$out/run.txt"

echo
echo "== summary ($(cat "$out/device.txt"))"
awk '
  /GB\/s/ && /copy/   { for (i = 1; i < NF; ++i) if ($(i+1) == "GB/s" && $i + 0 > peak) peak = $i + 0 }
  /^\$ /              { iters = ""; per = ""; bw = ""; first = "";
                        n = split($2, parts, "/"); cmd = parts[n]; size = "";
                        for (i = 3; i <= NF; ++i) if ($i == "--size") size = $(i+1);
                        timed = ($0 ~ /time-kernels/) ? " (per-kernel timing on)" : "" }
  /device-to-device copy|streaming copy kernel/ { print "  " $0 }
  /^    stencil apply/  { if (cmd ~ /vec24/) printf "  %-30s %-5s %-12s %-6s stencil apply %7s GB/s %5.1f%% of peak (%s ms for %s calls)\n", cmd, backend, size, sys, $(NF-1), (peak > 0 ? 100 * $(NF-1) / peak : 0), $(NF-3), $(NF-5) }
  /^  method/         { sys = ($0 ~ /Schur/) ? "schur" : "A" }
  /even\/odd vs whole/ { print "  " cmd " " size ":" substr($0, index($0, "whole") + 5) }
  /^solve_.*: (host|cuda) on/ { backend = $2 }
  /^  method/         { if (first == "") { method = $2; sub(",", "", method); pre = $4; first = ($0 ~ /Schur/) ? " (Schur)" : "" } }
  /^  iterations/     { if (iters == "") iters = $2 }
  /^  wall time/      { if (per == "") per = $5 }
  /^  bandwidth/      { if (bw == "") bw = $2 }
  /^  solution error/ { printf "  %-30s %-5s %-12s %-5s %-7s %6s it %8s ms/it %7s GB/s  err %s%s\n", cmd, backend, size, method, pre, iters, per, bw, $3, timed first }
  /compared with/     { print "  host vs GPU, " cmd " " size ":" substr($0, index($0, ":") + 1) }
  cmd == "stencil_bench" && / apply | hop e>o | iter | tuned / { print "  bench " $0 }
' "$log"
