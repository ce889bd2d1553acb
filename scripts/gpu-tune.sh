#!/usr/bin/env bash
# Phase 2 of `stencilc tune`, on a GPU machine without LLVM: installs
# stencilc's runtime for the GPU, then builds the timing program of each
# tuning directory (phase 1's output, `stencilc tune ... -o DIR`), runs it,
# and appends each stencil's fastest variant to the tuning cache.
#   scripts/gpu-tune.sh CACHE.tsv DIR... [-- timing program options]
# Then, on the machine with the generator:
#   stencilc generate --tune-cache CACHE.tsv ...   (scripts/regenerate.sh
#   uses tuning/tunecache.tsv)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
platform=${TUNE_PLATFORM:-nvidia}
cache=$(realpath -m "$1")
shift
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$(realpath "$1")"); shift; done
[ $# -gt 0 ] && shift
export PATH="$PATH:/usr/local/cuda/bin"
work=${TUNE_WORK:-/tmp/stencilc-tune}
mkdir -p "$work"
# Quiet on success; a failing step prints its log (compilers write their
# errors to standard output under Ninja) and the script stops.
quietly() {
  local log="$work/last-step.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "gpu-tune.sh: failed: $*" >&2
    exit 1
  fi
}
quietly cmake -S "$root" -B "$work/runtime" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF \
  -DSTENCILC_BUILD_SHIPPED=OFF -DSTENCILC_PLATFORM="$platform"
quietly cmake --build "$work/runtime"
quietly cmake --install "$work/runtime" --prefix "$work/prefix"
for dir in "${dirs[@]}"; do
  name=$(basename "$dir")
  start=$(date +%s)
  quietly cmake -S "$dir" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DTUNE_PLATFORM="$platform"
  quietly cmake --build "$work/$name"
  echo "$name: built in $(( $(date +%s) - start )) s"
  "$work/$name"/tune_* --cache "$cache" --json "$(dirname "$cache")/tune-$name.json" "$@"
done
