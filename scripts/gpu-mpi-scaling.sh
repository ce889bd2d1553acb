#!/usr/bin/env bash
# Scaling of distributed solves over the GPUs of one node (issues 19, 22):
#   weak scaling   - the local volume fixed: 3-D Laplacian 512^3 per GPU,
#                    the 24-float 4-D field 32^3 x 64 per GPU, Wilson-clover
#                    even/odd 32^3 x 64 per GPU (double), split along the
#                    last axis;
#   strong scaling - the one-GPU lattice of each on N GPUs; and ("big") the
#                    Wilson-clover even/odd operator in float on 64^3 x 128
#                    on 1 to N GPUs.
# Each distributed run first tunes its halo exchange (--tune-exchange: every
# transport with the overlap on and off, the halo bytes per application,
# the exchange alone and its bandwidth), then solves with the fastest
# policy; weak runs also solve with the overlap forced on and off. Time per
# iteration from a fixed number of iterations; the one-GPU baseline is the
# plain single-rank solver.
#
#   SCALING_GPUS="1 2 4"   GPU counts (default: 1, 2, 4, 8 up to the node's)
#   SCALING_PARTS="check operators big"   which parts, in this order
#                          (check: each operator on N GPUs, the peer and
#                          the staged transport, against its single-rank
#                          solution)
#   SCALING_BUDGET=540     seconds; cases (checks too) that would start
#                          later are listed as skipped, so the table comes
#                          back whole
#   SCALING_BIN=DIR        prebuilt solve_* programs (else built here)
#   SCALING_SHARED=1       let ranks share one GPU: a dry run of the script,
#                          whose figures mean nothing
# Logs and the table go to $OUT (or results/): scaling-table.txt,
# scaling-exchange.txt (the tuner's lines), scaling.log, scaling-device.txt,
# exchange-caches.tsv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
# Prebuilt programs link the CUDA runtime dynamically.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root"
start=$(date +%s)
budget=${SCALING_BUDGET:-540}
gpus=$(nvidia-smi -L | wc -l)
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  nvidia-smi topo -m 2>&1 || true
  { mpirun --version 2>&1 || true; } | head -1 || true
  echo "cores: $(nproc)"; } | tee "$out/scaling-device.txt"
if [ -n "${SCALING_GPUS:-}" ]; then
  counts=$SCALING_GPUS
else
  counts=""
  for n in 1 2 4 8; do [ "$n" -le "$gpus" ] && counts="$counts $n"; done
fi
for n in $counts; do
  if [ "$n" -gt "$gpus" ] && [ "${SCALING_SHARED:-0}" != 1 ]; then
    echo "error: $n GPUs asked for; this machine has $gpus (SCALING_SHARED=1 for a dry run)" >&2
    exit 1
  fi
done
multi=""
for n in $counts; do [ "$n" -gt 1 ] && multi="$multi $n"; done

# The solvers: prebuilt ones if they start here, else a build.
bin=${SCALING_BIN:-build-cuda-mpi}
programs="solve_laplacian3d_f64 solve_laplacian4d_vec24_aosoa solve_wilson_clover4d_eo_f64 solve_wilson_clover4d_eo_f32"
usable=1
for p in $programs; do
  # ldd's whole output first: grep -q quitting early would fail the pipe.
  if [ ! -x "$bin/$p" ] || [[ "$(ldd "$bin/$p" 2>&1)" == *"not found"* ]]; then
    usable=0
  fi
done
if [ "$usable" = 0 ]; then
  echo "building the solvers here (${SCALING_BIN:+$SCALING_BIN not usable; }CUDA, MPI)"
  bin=build-cuda-mpi
  cmake -S . -B build-cuda-mpi -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF \
    -DSTENCILC_PLATFORM=nvidia -DSTENCILC_MPI=ON >/dev/null
  cmake --build build-cuda-mpi -j "$(nproc)" --target $programs >/dev/null
fi
echo "solvers ready in $bin after $(( $(date +%s) - start )) s"

log=$out/scaling.log
table=$out/scaling-table.txt
caches=$(mktemp -d)
: > "$log"
printf '%-26s %-6s %-5s %-14s %-12s %10s %6s\n' case kind gpus lattice policy "ms/it" "wall s" > "$table"
# label kind gpus size policy program args... : one solve, under what is
# left of the budget; its first "ms per iteration" (the Schur complement's
# for --even-odd) goes into the table.
solve() {
  local label=$1 kind=$2 ranks=$3 size=$4 policy=$5; shift 5
  local left=$(( budget - ($(date +%s) - start) )) text ms began status=0
  if [ "$left" -lt 20 ]; then
    printf '%-26s %-6s %-5s %-14s %-12s %10s %6s\n' "$label" "$kind" "$ranks" "$size" "$policy" "skipped" "-" | tee -a "$table"
    return
  fi
  echo "\$ [$label $kind] ranks=$ranks $*" >> "$log"
  began=$(date +%s)
  if [ "$ranks" = 1 ]; then
    text=$(timeout -k 5 "$left" "$@" 2>&1) || status=$?
  else
    text=$(timeout -k 5 "$left" mpirun --oversubscribe --bind-to none -np "$ranks" "$@" 2>&1) || status=$?
  fi
  echo "$text" >> "$log"
  echo "  exit status $status" >> "$log"
  ms=$(echo "$text" | sed -n 's/.*wall time .*, \([0-9.]*\) ms per iteration.*/\1/p' | head -1)
  [ "$status" = 124 ] && ms="TIMEOUT"
  printf '%-26s %-6s %-5s %-14s %-12s %10s %6s\n' "$label" "$kind" "$ranks" "$size" "$policy" "${ms:-FAILED}" "$(( $(date +%s) - began ))" | tee -a "$table"
}
# The lattice of `n` GPUs: the last extent of the one-GPU lattice `one`
# (interior `inner` along it, `pad` boundary sites) times n.
stretch() { # one n inner pad
  local head=${1%,*} last=${1##*,}
  echo "$head,$(( $3 * $2 + $4 ))"
}
# The process grid splitting the last of `dims` axes into n.
last_axis() { # dims n
  local g="" a
  for (( a = 1; a < $1; a++ )); do g="${g}1,"; done
  echo "$g$2"
}
# A distributed solve that tunes its exchange first (cache per case).
tuned() { # label kind n size grid program options...
  local label=$1 kind=$2 n=$3 size=$4 grid=$5 program=$6; shift 6
  local cache=$caches/$label-$kind-$n.tsv
  solve "$label" "$kind" "$n" "$size" tuned "$bin/$program" --size "$size" "$@" \
    --grid "$grid" --tune-exchange "$cache"
}

# name program one-GPU-size interior-of-last-axis pad dims iterations options
operators=(
  "laplacian3d_f64 solve_laplacian3d_f64 514,514,514 512 2 3 200"
  "vec24_aosoa solve_laplacian4d_vec24_aosoa 32,32,32,64 64 0 4 200"
  "wilson_clover_f64 solve_wilson_clover4d_eo_f64 32,32,32,64 64 0 4 100 --even-odd --schur-only"
)
run_operators() {
  local spec name program one inner pad dims its opts n size grid overlap
  for spec in "${operators[@]}"; do
    read -r name program one inner pad dims its opts <<<"$spec"
    solve "$name" one 1 "$one" single "$bin/$program" --size "$one" \
      $opts --tol 1e-30 --max-iterations "$its"
  done
  for n in $multi; do
    for spec in "${operators[@]}"; do
      read -r name program one inner pad dims its opts <<<"$spec"
      size=$(stretch "$one" "$n" "$inner" "$pad")
      grid=$(last_axis "$dims" "$n")
      tuned "$name" weak "$n" "$size" "$grid" "$program" $opts --tol 1e-30 --max-iterations "$its"
      for overlap in on off; do
        STENCILC_TUNE_CACHE=$caches/$name-weak-$n.tsv STENCILC_OVERLAP=$overlap \
          solve "$name" weak "$n" "$size" "overlap $overlap" "$bin/$program" \
          --size "$size" $opts --tol 1e-30 --max-iterations "$its" --grid "$grid"
      done
      tuned "$name" strong "$n" "$one" "$grid" "$program" $opts --tol 1e-30 --max-iterations "$its"
    done
  done
}
# Correctness on separate GPUs first: each operator on one rank (--save),
# then on N ranks with the peer and the staged transport, the overlap on
# for one and off for the other (swapped past 2 GPUs), each compared
# against it (--compare); the table says whether each matched.
check_one() { # label ranks size policy program args...
  local label=$1 ranks=$2 size=$3 policy=$4; shift 4
  local text status=0 left=$(( budget - ($(date +%s) - start) ))
  if [ "$left" -lt 20 ]; then
    printf '%-26s %-6s %-5s %-14s %-12s %10s %6s\n' "$label" check "$ranks" "$size" "$policy" "skipped" "-" | tee -a "$table"
    return
  fi
  [ "$left" -gt 120 ] && left=120
  echo "\$ [$label check] ranks=$ranks $policy $*" >> "$log"
  if [ "$ranks" = 1 ]; then
    text=$(timeout -k 5 "$left" "$@" 2>&1) || status=$?
  else
    text=$(timeout -k 5 "$left" mpirun --oversubscribe --bind-to none -np "$ranks" "$@" 2>&1) || status=$?
  fi
  echo "$text" >> "$log"
  local verdict=FAILED
  [ "$status" = 0 ] && verdict=match
  echo "$text" | grep -q "NOT within" && verdict=MISMATCH
  printf '%-26s %-6s %-5s %-14s %-12s %10s %6s\n' "$label" check "$ranks" "$size" "$policy" "$verdict" "-" | tee -a "$table"
  [ "$verdict" = match ] || failures=$((failures + 1))
}
failures=0
run_check() {
  local name program size opts dims ref n
  for spec in "laplacian3d_f64 solve_laplacian3d_f64 130,130,130 3 --tol 1e-10" \
              "vec24_aosoa solve_laplacian4d_vec24_aosoa 8,8,16,16 4 --tol 1e-8" \
              "wilson_clover_f64 solve_wilson_clover4d_eo_f64 8,8,8,16 4 --tol 1e-10 --even-odd"; do
    read -r name program size dims opts <<<"$spec"
    ref=$caches/ref-$name.bin
    check_one "$name" 1 "$size" single "$bin/$program" --size "$size" $opts --save "$ref"
    for n in $multi; do
      # Each transport with each overlap setting over the GPU counts.
      local policies="peer,on staged,off" policy
      [ "$n" -gt 2 ] && policies="peer,off staged,on"
      for policy in $policies; do
        STENCILC_EXCHANGE=${policy%,*} STENCILC_OVERLAP=${policy#*,} \
          check_one "$name" "$n" "$size" "${policy/,//}" "$bin/$program" \
          --size "$size" $opts --grid "$(last_axis "$dims" "$n")" \
          --compare "$ref" --compare-tol 1e-9
      done
    done
  done
}
# The Wilson-clover operator in float on 64^3 x 128 (even/odd, Schur
# complement only: the whole-lattice comparison's fields would not fit one
# 80 GB GPU beside it), 1 to N GPUs split along t.
run_big() {
  local n size=64,64,64,128 opts="--even-odd --schur-only --tol 1e-30 --max-iterations 60"
  solve wilson_clover_f32_big strong 1 "$size" single \
    "$bin/solve_wilson_clover4d_eo_f32" --size "$size" $opts
  for n in $multi; do
    tuned wilson_clover_f32_big strong "$n" "$size" "$(last_axis 4 "$n")" \
      solve_wilson_clover4d_eo_f32 $opts
  done
}
for part in ${SCALING_PARTS:-check operators big}; do
  case $part in
    check) run_check ;;
    operators) run_operators ;;
    big) run_big ;;
    *) echo "error: unknown part '$part' (check, operators, big)" >&2; exit 1 ;;
  esac
done

# The exchange tuner's lines (per policy: ms per application, halo bytes
# per application summed over the ranks, the exchange alone and its rate).
grep -E "^\\$|tuning the halo|  exchange |fastest" "$log" > "$out/scaling-exchange.txt" || true
cat "$caches"/*.tsv > "$out/exchange-caches.tsv" 2>/dev/null || true
# Efficiency against the one-GPU row of the same case: weak t1/tN, strong
# t1/(N tN), from the tuned rows.
awk 'NR > 1 && $6 ~ /^[0-9.]+$/ {
       key = $1; if ($5 == "single") one[key] = $6
       else if ($5 == "tuned" && (key in one)) {
         e = ($2 == "weak") ? one[key] / $6 : one[key] / ($3 * $6)
         printf "%-26s %-6s %s GPUs: efficiency %.1f%%\n", key, $2, $3, 100 * e
       } }' "$table" >> "$table"
echo "total $(( $(date +%s) - start )) s" >> "$table"
echo
cat "$table"
if [ "$failures" -gt 0 ]; then
  echo "error: $failures distributed check(s) did not reproduce the single-rank solution" >&2
  exit 1
fi
