#!/usr/bin/env bash
# The main job: build stencilc, generate the default spec (or SPEC), show
# what was emitted, and run the generated kernel on the host backend against
# the naive reference.
#   scripts/main.sh [SPEC.yaml] [--size nx,ny,...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spec=${1:-specs/laplacian3d_f64.yaml}
shift || true
cd "$root"
"$root/scripts/install-deps.sh"
build=$("$root/scripts/configure.sh" | tail -n 1)
echo "== building the generator and the host kernels"
cmake --build "$build" --target stencilc stencil_verify -- -j"$(nproc)" >/dev/null

name=$(basename "$spec" .yaml)
out="$build/main-job"
echo
echo "== stencilc generate $spec -o $out"
"$build/generator/stencilc" generate "$spec" -o "$out"
ls -l "$out/$name".{hip,hpp,json} | awk '{printf "  %-60s %6d bytes\n", $9, $5}'
echo
echo "== stencilc plan $spec (header)"
"$build/generator/stencilc" plan "$spec" | sed -n '1,10p'
echo
echo "== the emitted kernel's signature"
grep -n -A4 "^STENCIL_GLOBAL" "$out/$name.hip" | sed 's/^/  /'
echo
echo "== running it on the host backend against the reference"
if [ $# -eq 0 ] && [ "$spec" = "specs/laplacian3d_f64.yaml" ]; then
  set -- --size 37,29,23
fi
"$build/tests/stencil_verify" "$spec" "$@"
