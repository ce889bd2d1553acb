#!/usr/bin/env bash
# Scaling of distributed solves from 1 to 2 GPUs of one node (issue 19):
#   weak scaling  - the local volume fixed: 3-D Laplacian 512^3 per GPU,
#                   the 24-float 4-D field 32^3 x 64 per GPU, Wilson-clover
#                   even/odd 24^3 x 48 per GPU (double);
#   strong scaling - the one-GPU lattice on two GPUs;
# each distributed run first tunes its halo exchange (--tune-exchange:
# every transport with the overlap on and off, the halo bytes per
# application and the exchange's own time and bandwidth), then solves with
# the fastest policy; the same solve with the overlap forced on and off
# follows. Time per iteration from a fixed number of iterations. The one-GPU
# baseline is the plain single-rank solver. Logs and a table in $OUT (or
# results/). SCALING_SHARED=1 lets 2 ranks share one GPU: a dry run of the
# script, whose figures mean nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/scaling-device.txt"
nvidia-smi topo -m >> "$out/scaling-device.txt" 2>&1 || true
if [ "$gpus" -lt 2 ] && [ "${SCALING_SHARED:-0}" != 1 ]; then
  echo "error: this machine has $gpus GPU(s); scaling needs 2 (SCALING_SHARED=1 for a dry run)" >&2
  exit 1
fi
if [ ! -f build-cuda-mpi/build.ninja ]; then
  cmake -S . -B build-cuda-mpi -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF \
    -DSTENCILC_PLATFORM=nvidia -DSTENCILC_MPI=ON >/dev/null
fi
cmake --build build-cuda-mpi -j "$(nproc)" --target solve_laplacian3d_f64 \
  solve_laplacian4d_vec24_aosoa solve_wilson_clover4d_eo_f64 >/dev/null
echo "build done"

log=$out/scaling.log
table=$out/scaling-table.txt
: > "$log"
printf '%-34s %-6s %-12s %-14s %10s\n' case ranks lattice policy "ms/it" > "$table"
mpi() { mpirun --oversubscribe --bind-to none -np "$@"; }
# label ranks size opts... : one solve; its first "ms per iteration" (the
# Schur complement's for --even-odd) goes into the table.
solve() {
  local label=$1 ranks=$2 size=$3 policy=$4; shift 4
  local text ms
  echo "\$ [$label] ranks=$ranks $*" >> "$log"
  if [ "$ranks" = 1 ]; then
    text=$("$@" 2>&1 || true)
  else
    text=$(mpi "$ranks" "$@" 2>&1 || true)
  fi
  echo "$text" >> "$log"
  ms=$(echo "$text" | sed -n 's/.*wall time .*, \([0-9.]*\) ms per iteration.*/\1/p' | head -1)
  printf '%-34s %-6s %-12s %-14s %10s\n' "$label" "$ranks" "$size" "$policy" "${ms:-FAILED}" | tee -a "$table"
}
# name, one-GPU size, two-GPU size (weak), grid, options, iterations
scale() {
  local name=$1 one=$2 two=$3 grid=$4 opts=$5 its=$6
  local bin=build-cuda-mpi/solve_$name
  local common="$opts --tol 1e-30 --max-iterations $its"
  solve "$name 1 GPU" 1 "$one" single $bin --size "$one" $common
  for size in "$two" "$one"; do
    local kind=weak; [ "$size" = "$one" ] && kind=strong
    rm -f "$out/exchange-$name-$kind.tsv"
    solve "$name 2 GPUs $kind, tuned" 2 "$size" tuned $bin --size "$size" \
      $common --grid "$grid" --tune-exchange "$out/exchange-$name-$kind.tsv"
    # The tuned transport from the cache, the overlap forced each way.
    for overlap in on off; do
      STENCILC_TUNE_CACHE=$out/exchange-$name-$kind.tsv \
      STENCILC_OVERLAP=$overlap solve "$name 2 GPUs $kind" 2 "$size" \
        "overlap $overlap" $bin --size "$size" $common --grid "$grid"
    done
  done
}
scale laplacian3d_f64 514,514,514 514,514,1026 1,1,2 "" 200
scale laplacian4d_vec24_aosoa 32,32,32,64 32,32,32,128 1,1,1,2 "" 200
scale wilson_clover4d_eo_f64 24,24,24,48 24,24,24,96 1,1,1,2 "--even-odd" 100
# The exchange tuner's tables: per policy, ms per application, halo bytes,
# the exchange alone and its bandwidth.
grep -E "^\\$|tuning the halo|  exchange |fastest" "$log" > "$out/scaling-exchange.txt" || true
echo
cat "$table"
