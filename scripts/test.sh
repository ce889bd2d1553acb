#!/usr/bin/env bash
# Builds everything and runs every test: generator units, CLI FileCheck
# tests, generated kernels on the host backend, hipcc (gfx908, gfx90a) and
# nvcc (sm_90) compiles of every generated file, and the generated/ check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
build=$("$root/scripts/configure.sh" | tail -n 1)
start=$(date +%s)
cmake --build "$build" -- -j"$(nproc)"
cd "$build"
ctest -j"$(nproc)" --output-on-failure
echo "test.sh: build and tests took $(( $(date +%s) - start )) s"
