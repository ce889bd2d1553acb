#!/usr/bin/env bash
# Rewrites generated/ from specs/ with the generator built in BUILD_DIR
# (default: build). The test `generated_in_sync` fails until this is run
# and committed after a change to a spec, a template or the generator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake --build "$build" --target stencilc
cd "$root"
find generated -maxdepth 1 -type f ! -name README.md -delete
# With the variants the tuning cache records (stencilc tune, on the GPUs it
# names), which the runtime picks by device and size.
"$build/generator/stencilc" generate --quiet --tune-cache tuning/tunecache.tsv -o generated specs/*.yaml
echo "generated/ now holds $(ls generated | grep -vc README.md) files for $(ls specs/*.yaml | wc -l) specs"
# The benchmark's naive baselines (no tile, loads as written) of specs/, and
# the planner's own choice of their kernel options (the kernel section
# ignored), for the table of spec, planner, tuned and naive kernels.
find bench/generated -maxdepth 1 -type f -delete 2>/dev/null || true
"$build/generator/stencilc" generate --quiet --naive -o bench/generated specs/*.yaml
"$build/generator/stencilc" generate --quiet --open-options -o bench/generated specs/*.yaml
echo "bench/generated/ refreshed"
# The example project's checked-in sources (its no-generator build).
rm -f examples/poisson2d/generated/*
"$build/generator/stencilc" generate --quiet -o examples/poisson2d/generated examples/poisson2d/specs/*.yaml
echo "examples/poisson2d/generated/ refreshed"
