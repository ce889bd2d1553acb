#!/usr/bin/env bash
# The main job: build stencilc, generate the default spec (or SPEC), show
# what was emitted, run the generated kernel on the host backend against the
# naive reference, and solve a system with it (CG, or CGNR for non-symmetric
# specs) on the host, and on the GPU too when an NVIDIA GPU and nvcc are
# present.
#   scripts/main.sh [SPEC.yaml] [--size nx,ny,...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spec=${1:-specs/laplacian3d_f64.yaml}
shift || true
cd "$root"
"$root/scripts/install-deps.sh"
build=$("$root/scripts/configure.sh" | tail -n 1)
name=$(basename "$spec" .yaml)
solver_target=""
cmp -s "$spec" "specs/$name.yaml" && solver_target="solve_$name"
echo "== building the generator, the host kernels and the solver"
cmake --build "$build" --target stencilc stencil_verify $solver_target -- -j"$(nproc)" >/dev/null

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
# stencil_verify holds the kernels of specs/ and tests/specs/, compiled in:
# only a spec that is one of them, byte for byte, runs.
if ! cmp -s "$spec" "specs/$name.yaml" && ! cmp -s "$spec" "tests/specs/$name.yaml"; then
  echo "== $spec is not one of specs/ or tests/specs/: this build has no kernel"
  echo "   of it to run. Put it in specs/ and run this again (the build then"
  echo "   compiles it and makes solve_$name), or build it in a project of your"
  echo "   own with the CMake package (README, \"Using stencilc from another"
  echo "   project\"; examples/poisson2d)."
  exit 0
fi
echo "== running it on the host backend against the reference"
if [ $# -eq 0 ] && [ "$spec" = "specs/laplacian3d_f64.yaml" ]; then
  set -- --size 37,29,23
fi
"$build/tests/stencil_verify" "$spec" "$@"

if [ -z "$solver_target" ]; then
  echo "(no solver program: $spec is not one of specs/)"
  exit 0
fi
echo
echo "== solving A x = b with it on the host backend (b = A u*, u* random)"
solve_args=(--tol 1e-10)
[ "$spec" = "specs/laplacian3d_f64.yaml" ] && solve_args+=(--size 64,64,64)
"$build/$solver_target" "${solve_args[@]}"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 &&
   command -v nvcc >/dev/null; then
  echo
  echo "== and on the GPU"
  cmake -S "$root" -B "$root/build-cuda" -G Ninja -DSTENCILC_PLATFORM=nvidia \
        -DSTENCILC_BUILD_GENERATOR=OFF -DSTENCILC_BUILD_TESTS=OFF >/dev/null
  cmake --build "$root/build-cuda" --target "$solver_target" -- -j"$(nproc)" >/dev/null
  "$root/build-cuda/$solver_target" "${solve_args[@]}"
fi
