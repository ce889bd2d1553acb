#!/usr/bin/env bash
# Installs the Debian 12 packages stencilc builds and tests with, when they
# are missing: LLVM/Clang 15 (YAML I/O, CLI, FileCheck), HIP/ROCm 5.2
# (hipcc for gfx908/gfx90a), GoogleTest, CMake, Ninja, gnuplot (the
# roofline charts of stencilc inspect), Open MPI (distributed runs and
# their tests under mpirun) and Valgrind (a memory check of the kernels).
# CUDA's nvcc is not a Debian package: it is used from /usr/local/cuda/bin
# when present.
set -euo pipefail
packages=(cmake ninja-build g++ googletest libgtest-dev
          llvm-15-dev libclang-15-dev llvm-15-tools
          hipcc libamdhip64-dev rocm-device-libs
          gnuplot-nox libopenmpi-dev openmpi-bin valgrind)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
