#!/usr/bin/env bash
# Mixed-precision CG with reliable updates against double fused CG, to the
# same tolerance in one run: first stencil_bench's CG iterations at 256^3
# (unfused, fused, fused with p = r + beta p folded into the stencil) with
# the copy peak of the same run; then the 3-D Laplacian (laplacian3d_f64,
# whose spec declares inner_precision: float) on a 256^3 lattice
# (MIXED_SIZE; both the double kernels and the float inner ones have
# tuning-cache entries for the H100 there), double and mixed, each with the
# direction update folded and (--no-fold) as its own pass, and mixed with
# bfloat16 inner fields (laplacian3d_f64_bf16: the same stencil with
# inner_precision: bf16), each solve twice, alternating (MIXED_MODES picks
# some; MIXED_MODES=none skips them); then the Wilson-clover even/odd CGNR
# solve the same way, double, mixed with float inner fields and mixed with bfloat16 inner spinors
# (wilson_clover4d_eo_f64_bf16; MIXED_WILSON_MODES picks some; skipped when
# MIXED_WILSON=off). MIXED_DELTAS="0.1 0.01 ..." runs every mixed solve
# once per reliable-update delta (--reliable-delta; 'default' or unset:
# the solver's, by the inner fields' precision).
# Prints iterations, reliable updates, the true residual and the time to
# solution. Logs in $OUT (or results/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
cd "$root"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/mixed-device.txt"
cmake -S . -B build-cuda-mixed -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF \
  -DSTENCILC_PLATFORM=nvidia -DSTENCILC_MPI=OFF >/dev/null
cmake --build build-cuda-mixed -j "$(nproc)" --target solve_laplacian3d_f64 \
  solve_laplacian3d_f64_bf16 solve_wilson_clover4d_eo_f64 \
  solve_wilson_clover4d_eo_f64_bf16 stencil_bench \
  >/dev/null
# One word per solve of a mode: the --reliable-delta flag ('=' for the
# space), or '-' for none.
delta_flags() {
  case $1 in
    mixed*) if [ -n "${MIXED_DELTAS:-}" ]; then
              for d in $MIXED_DELTAS; do
                if [ "$d" = default ]; then echo -
                else printf -- '--reliable-delta=%s\n' "$d"; fi
              done
            else echo -; fi ;;
    *) echo - ;;
  esac
}
log=$out/mixed.log
: > "$log"
echo "\$ stencil_bench --only cg" | tee -a "$log"
build-cuda-mixed/bench/stencil_bench --only cg 2>&1 | tee -a "$log" | grep -E "peak|CG"
size=${MIXED_SIZE:-256,256,256}
for rep in 1 2; do
  for mode in ${MIXED_MODES:-double double-no-fold mixed mixed-no-fold mixed-bf16}; do
    spec=laplacian3d_f64
    case $mode in
      double) flag="" ;;
      double-no-fold) flag=--no-fold ;;
      mixed) flag=--mixed ;;
      mixed-no-fold) flag="--mixed --no-fold" ;;
      mixed-bf16) flag=--mixed; spec=laplacian3d_f64_bf16 ;;
      none) continue ;;
    esac
    for dflag in $(delta_flags "$mode"); do
      [ "$dflag" = - ] && dflag= || dflag=${dflag/=/ }
      echo "\$ [$mode, run $rep] solve_$spec --size $size --tol 1e-10 $flag $dflag" | tee -a "$log"
      build-cuda-mixed/solve_$spec --size "$size" --tol 1e-10 $flag $dflag \
        2>&1 | tee -a "$log" | grep -E "kernels|result|mixed precision|iterations|relative residual|wall time|solution error|traffic" ||
        echo "(did not converge: exit status $?)" | tee -a "$log"
    done
  done
done
[ "${MIXED_WILSON:-on}" = off ] && exit 0
# The Wilson-clover operator (wilson_clover4d_eo_f64 declares inner_precision
# too): CGNR on the even/odd Schur complement, random SU(3) links, double
# against mixed (links and clover converted to float; the spinors in float
# or, with wilson_clover4d_eo_f64_bf16, in bfloat16).
wsize=${MIXED_WILSON_SIZE:-24,24,24,48}
for rep in 1 2; do
  for mode in ${MIXED_WILSON_MODES:-double mixed mixed-bf16}; do
    spec=wilson_clover4d_eo_f64
    case $mode in
      double) flag="" ;;
      mixed) flag=--mixed ;;
      mixed-bf16) flag=--mixed; spec=wilson_clover4d_eo_f64_bf16 ;;
    esac
    for dflag in $(delta_flags "$mode"); do
      [ "$dflag" = - ] && dflag= || dflag=${dflag/=/ }
      echo "\$ [$mode, run $rep] solve_$spec --size $wsize --even-odd --tol 1e-10 $flag $dflag" | tee -a "$log"
      build-cuda-mixed/solve_$spec --size "$wsize" --even-odd \
        --tol 1e-10 $flag $dflag 2>&1 | tee -a "$log" | grep -E "result|mixed precision|iterations  |relative residual|wall time|solution error" ||
        echo "(did not converge: exit status $?)" | tee -a "$log"
    done
  done
done
