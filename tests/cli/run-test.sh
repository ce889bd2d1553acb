#!/usr/bin/env bash
# A small lit: runs the `# RUN:` lines of a test file with bash (pipefail),
# from the source root, after substituting
#   %stencilc %FileCheck %not  the tools      %s  the test file
#   %S  the test's directory                  %t  a scratch path for this test
#   %bin  the build tree's top directory (solver programs)
#   %mpirun  mpirun with room for more ranks than cores, as root too
# Usage: run-test.sh TEST STENCILC FILECHECK NOT SOURCE_ROOT SCRATCH_DIR BIN
set -euo pipefail
test_file=$1 stencilc=$2 filecheck=$3 not=$4 root=$5 scratch=$6 bin=$7
name=$(basename "$test_file" .test)
tmp="$scratch/$name.tmp"
rm -rf "$tmp"
mkdir -p "$scratch"
cd "$root"
rel_test=$(realpath --relative-to="$root" "$test_file")
rel_dir=$(dirname "$rel_test")
count=0
while IFS= read -r line; do
  command=${line#*RUN: }
  command=${command//%stencilc/$stencilc}
  command=${command//%FileCheck/$filecheck}
  command=${command//%not/$not}
  command=${command//%bin/$bin}
  command=${command//%mpirun/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 mpirun --oversubscribe --bind-to none}
  command=${command//%S/$rel_dir}
  command=${command//%s/$rel_test}
  command=${command//%t/$tmp}
  echo "RUN: $command"
  # stdin stays the loop's: mpirun, for one, would forward (and eat) it.
  bash -o pipefail -c "$command" </dev/null
  count=$((count + 1))
done < <(grep -E '^# RUN: ' "$test_file")
if [ "$count" -eq 0 ]; then
  echo "error: $test_file has no RUN lines" >&2
  exit 1
fi
