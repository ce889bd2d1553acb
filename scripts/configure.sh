#!/usr/bin/env bash
# Configures the build tree (BUILD_DIR, default build/) once; later calls
# reuse it. Shared by main.sh and test.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/cuda/bin"
if [ ! -f "$build/CMakeCache.txt" ]; then
  require_devices=ON
  if ! command -v nvcc >/dev/null; then
    if [ "${CI:-}" = "true" ]; then
      echo "configure: nvcc not found (expected in /usr/local/cuda/bin on CI)" >&2
      exit 1
    fi
    echo "configure: NOTE: nvcc not found; the sm_90 compile tests will not be registered"
    require_devices=OFF
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSTENCILC_MPI=ON \
        -DSTENCILC_REQUIRE_DEVICE_COMPILERS=$require_devices >/dev/null
fi
echo "$build"
